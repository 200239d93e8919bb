"""The tutorial's 0..111 numbering against the UNO engine's card ids."""

from parlour.games.uno import CARDS
from parlour.net.adapters.uno_numbers import card_to_number, number_to_card

BLANKS = {56, 70, 84, 98}  # rows 4–7 have no 0: these cells are never dealt

_TYPES = {10: "skip", 11: "reverse", 12: "draw2"}


def _tutorial_face(n: int) -> tuple[str, str, int | None]:
    """The tutorial's own cardColor/cardType functions, transcribed."""
    column, row = n % 14, n // 14
    if column == 13:
        return ("wild", "wild-draw4" if row >= 4 else "wild", None)
    color = ("red", "yellow", "green", "blue")[row % 4]
    if column in _TYPES:
        return (color, _TYPES[column], None)
    return (color, "number", column)


def test_bijection_over_the_108_dealt_numbers() -> None:
    numbers = [card_to_number(c) for c in range(108)]
    assert sorted(numbers) == [n for n in range(112) if n not in BLANKS]
    for card, number in enumerate(numbers):
        assert number_to_card(number) == card


def test_every_number_shows_the_engine_card() -> None:
    for card in range(108):
        c = CARDS[card]
        assert _tutorial_face(card_to_number(card)) == (c["color"], c["type"], c["value"])


def test_known_cells() -> None:
    assert card_to_number(0) == 0  # red 0
    assert card_to_number(1) == 1 and card_to_number(2) == 57  # the two red 1s
    assert card_to_number(25) == 14  # yellow 0
    assert card_to_number(100) == 13 and card_to_number(107) == 111


def test_blanks_and_junk_map_to_nothing() -> None:
    for bad in [*BLANKS, -1, 112, "5", 5.0, None, True, [1]]:
        assert number_to_card(bad) is None
