"""The socket-uno tutorial's card numbers 0..111 ↔ the UNO engine's card ids 0..107.

The tutorial numbers a card by its cell in one deck image of 8 rows × 14 columns: row
``n // 14`` is the colour (red, yellow, green, blue, then the same four again) and column
``n % 14`` is 0–9, 10 Skip, 11 Reverse, 12 Draw Two, 13 Wild (rows 0–3) or Wild Draw Four
(rows 4–7). Rows 4–7 have no 0: cells 56, 70, 84 and 98 are blank and never dealt. So a
colour's first copy of each card sits in rows 0–3 and its second copy in rows 4–7.

The engine gives colour ``k`` the ids ``25k .. 25k+24`` as 0, 1, 1, 2, 2, … 9, 9, S, S, R, R,
D2, D2, then 100–103 Wild and 104–107 Wild Draw Four. Both are fixed layouts, so the mapping
is a fixed bijection: a tutorial client can name any physical card and no two cards share a
number.
"""

from __future__ import annotations


def _column_and_copy(offset: int) -> tuple[int, int]:
    """Column and copy (0 or 1) of the card at ``offset`` (0..24) inside one engine colour."""
    if offset == 0:
        return 0, 0
    face, copy = divmod(offset - 1, 2)
    return face + 1, copy


def _build() -> tuple[tuple[int, ...], dict[int, int]]:
    to_number: list[int] = []
    for card in range(108):
        if card >= 104:
            number = (4 + card - 104) * 14 + 13
        elif card >= 100:
            number = (card - 100) * 14 + 13
        else:
            color, offset = divmod(card, 25)
            column, copy = _column_and_copy(offset)
            number = (color + 4 * copy) * 14 + column
        to_number.append(number)
    return tuple(to_number), {n: c for c, n in enumerate(to_number)}


TO_NUMBER, _TO_CARD = _build()


def card_to_number(card: int) -> int:
    """The tutorial number of engine card ``card``."""
    return TO_NUMBER[card]


def number_to_card(number: object) -> int | None:
    """The engine card id for a tutorial number, or None for a blank, non-integer or out of range."""
    if type(number) is not int:
        return None
    return _TO_CARD.get(number)
