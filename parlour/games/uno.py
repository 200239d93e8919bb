"""UNO, as Parlour plays it (``/work/shared/rules/uno.md``), in one readable file.

Cards
    108 cards, each with a stable wire id 0..107, ordered by colour then value:
    colour ``k`` (red 0, yellow 1, green 2, blue 3) owns ids ``25*k .. 25*k+24`` in the order
    0, 1, 1, 2, 2, ... 9, 9, Skip, Skip, Reverse, Reverse, Draw Two, Draw Two;
    ids 100..103 are Wild and 104..107 Wild Draw Four. ``CARDS[id]`` is the card as the
    design document shapes it: ``{"id", "color", "type", "value"}``. Sorting ids sorts a
    hand by colour, then value.

Actions (JSON dicts, see ``parse_action``)
    ``{"type": "play", "card": id, "color"?: name, "target"?: seat, "uno"?: bool}`` — a Wild
    needs ``color``; a 7 under Seven Swap needs ``target``; ``uno`` calls UNO as the play
    leaves one card. Also ``draw``, ``pass`` (after drawing a playable card), ``call_uno``,
    ``{"type": "catch", "target": seat}``, ``challenge`` and ``accept`` (a pending Wild Draw Four),
    ``deal`` (the next dealer, in a break between rounds).
    Out of turn: ``catch``, ``call_uno`` (the player just down to one card) and Jump-In plays.
    ``legal_actions`` lists a play from a two-card hand with ``"uno": true`` (the call made as
    one plays); the same play without the flag is accepted too, and may then be caught.

Refusals (``IllegalAction.code``)
    bad_action, not_seated, game_over, not_your_turn, card_not_in_hand, card_not_playable,
    color_required, bad_target, illegal_wild_draw4, must_play_drawn_card_or_pass,
    must_stack_or_draw, must_challenge_or_accept, already_drawn, forced_play, cannot_pass,
    cannot_call_uno, cannot_catch, nothing_to_challenge, nothing_to_accept, between_rounds,
    not_between_rounds.

Events
    dealer_draw, deal, first_card, play, draw, drawn_playable, reshuffle, skip, reverse, pass, uno_called,
    uno_caught, challenge, accept, swap, rotate, player_left, timeout, turn, round_over, round_break,
    round_started, game_over. Cards a seat may not see only ever travel in ``private``.
    Events are read-only: the frequent ones (turn, skip, reverse, pass, one-card draws...) are
    built once and shared by every game, their ``public``/``private`` dicts refusing changes (copy
    them, as ``Event.for_seat`` does, to add fields; never mutate the card lists inside).

Compiled
    ``./serve`` and ``./test`` compile this file with mypyc (``scripts/compile_engines.py``); the
    source stays the rules, and ``tests/games/test_uno_compiled.py`` holds both to the same play.
    mypyc checks annotated types at run time, so every parameter that may carry unchecked input
    (``apply``'s seat and action, ``parse_action``, ``settings``, ``setup``'s player count) is ``Any``:
    a wrong type is refused as an ``IllegalAction``/``InvalidSettings``, never a ``TypeError``.

Choices the rulebook leaves open
    * A draw penalty is a "stack" even without Stacking; a Wild Draw Four under the challenge
      rule waits for the victim's ``challenge``/``accept``. A guilty bluffer draws the pending
      total (4 without Stacking); an innocent one makes the challenger draw the total + 2.
    * The first discard is never "played": a 7 or 0 there swaps nothing and a Draw Two there
      cannot be stacked on.
    * Seven Swap and Zero Rotate clear every UNO call and catch window (hands moved).
    * A last card that is a Draw Two or Wild Draw Four makes the next player draw at once (the
      pending stack included); nobody can stack on it or challenge it.
    * A drawn card that cannot be played ends the turn at once; a playable one waits for
      ``play`` or ``pass`` (so everyone can tell which it was, as at a real table).
    * A player who leaves takes their pending penalty with them: it lapses, and so does a
      challenge against a bluffer who left.
    * Between rounds (``round_break`` seconds, off by default) the table rests on the round's last card
      and the hands as they were: nobody is on turn until the next dealer deals (``deal``), or the
      break runs out and the room deals for them (``on_timeout``). A dealer who leaves passes the
      deal to their left.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Final

from parlour.games.base import (
    NO_PRIVATE,
    TURN_TIMER,
    Event,
    IllegalAction,
    InvalidSettings,
    Outcome,
    ReadOnlyDict,
    Setting,
    clone_rng,
    flag,
    number,
    read_settings,
    seats,
    shared_event,
)

COLORS = ("red", "yellow", "green", "blue")
_COLOR_INDEX = {name: i for i, name in enumerate(COLORS)}
WILD = 4  # the colour index of Wild and Wild Draw Four
SKIP, REVERSE, DRAW2, WILD_SYM, WILD4 = 10, 11, 12, 13, 14
_SYM_TYPE = {SKIP: "skip", REVERSE: "reverse", DRAW2: "draw2", WILD_SYM: "wild", WILD4: "wild-draw4"}
HAND_SIZE = 7


def _build_deck() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Colour index and symbol (0-9, or SKIP..WILD4) of every card id."""
    colors: list[int] = []
    syms: list[int] = []
    per_color = [0, *[v for v in range(1, 10) for _ in range(2)], SKIP, SKIP, REVERSE, REVERSE, DRAW2, DRAW2]
    for color in range(4):
        colors += [color] * len(per_color)
        syms += per_color
    colors += [WILD] * 8
    syms += [WILD_SYM] * 4 + [WILD4] * 4
    return tuple(colors), tuple(syms)


_COLOR, _SYM = _build_deck()
_POINTS = tuple(s if s < 10 else (20 if s < WILD_SYM else 50) for s in _SYM)
CARDS: tuple[dict[str, Any], ...] = tuple(
    ReadOnlyDict(
        id=cid,
        color="wild" if _COLOR[cid] == WILD else COLORS[_COLOR[cid]],
        type="number" if _SYM[cid] < 10 else _SYM_TYPE[_SYM[cid]],
        value=_SYM[cid] if _SYM[cid] < 10 else None,
    )
    for cid in range(108)
)
"""Card id → card dict. Shared by every event and view, so read-only (copy one to change it)."""
DECK_SIZE = len(CARDS)

# Prebuilt action dicts keep legal_actions cheap; they are shared: read them, never mutate them. (Plain
# dicts, not ReadOnlyDict: a dict subclass would slow every ``action.get`` in apply.)
_PLAY = tuple({"type": "play", "card": c} for c in range(DECK_SIZE))
_PLAY_UNO = tuple({"type": "play", "card": c, "uno": True} for c in range(DECK_SIZE))
_PLAY_WILD = tuple(tuple({"type": "play", "card": c, "color": n} for n in COLORS) for c in range(DECK_SIZE))
_PLAY_WILD_UNO = tuple(
    tuple({"type": "play", "card": c, "color": n, "uno": True} for n in COLORS) for c in range(DECK_SIZE)
)
_DRAW = {"type": "draw"}
_PASS = {"type": "pass"}
_CALL_UNO = {"type": "call_uno"}
_DEAL = {"type": "deal"}
_CHALLENGE = {"type": "challenge"}
_ACCEPT = {"type": "accept"}


Row = tuple[tuple[dict[str, Any], ...], ...]  # card id → the play actions it allows


def _plays_table(uno: bool) -> tuple[tuple[Row, ...], ...]:
    """``[current colour][top card id]`` → the row of play actions for that table. Indexed by the top
    card itself rather than its symbol, which saves the hottest paths a lookup; tops sharing a symbol
    share one row."""
    rows = {}
    for color in range(4):
        for top_sym in range(15):
            row: list[tuple[dict[str, Any], ...]] = []
            for c in range(DECK_SIZE):
                if _COLOR[c] == WILD:
                    row.append((_PLAY_WILD_UNO if uno else _PLAY_WILD)[c])
                elif _COLOR[c] == color or _SYM[c] == top_sym:
                    row.append(((_PLAY_UNO if uno else _PLAY)[c],))
                else:
                    row.append(())
            rows[color, top_sym] = tuple(row)
    return tuple(tuple(rows[color, _SYM[top]] for top in range(DECK_SIZE)) for color in range(4))


_PLAYS = _plays_table(False)
_PLAYS_UNO = _plays_table(True)
# Hand size → its play table: a play from two cards carries the UNO call. (A lookup by size is
# cheaper than testing it, in legal_actions.)
_PLAYS_FOR_SIZE = tuple(_PLAYS_UNO if size == 2 else _PLAYS for size in range(DECK_SIZE + 1))
# Jump-In: the cards identical to a top card (same colour and symbol, never Wilds).
_IDENTICAL = tuple(
    frozenset(c for c in range(DECK_SIZE) if c != top and _COLOR[c] == _COLOR[top] and _SYM[c] == _SYM[top])
    if _COLOR[top] != WILD
    else frozenset()
    for top in range(DECK_SIZE)
)
# ``[current colour][top card id]`` → the set of card ids that match it (Wilds included).
_MATCHES = tuple(tuple(frozenset(c for c, acts in enumerate(row) if acts) for row in rows) for rows in _PLAYS)
# The card ids of each colour (the Wild Draw Four test).
_COLOR_CARDS = tuple(frozenset(c for c in range(DECK_SIZE) if _COLOR[c] == color) for color in range(4))

MAX_SEATS: Final = 10  # the most players any room can seat (``Settings.max_players`` is at most 10)


# The events that carry nothing but seats and a direction are built once, here.
_TURN_EVENTS = {
    d: tuple(shared_event("turn", seat=s, direction=d) for s in range(MAX_SEATS)) for d in (1, -1)
}
_SKIP_EVENTS = tuple(shared_event("skip", seat=s) for s in range(MAX_SEATS))
_REVERSE_EVENTS = {d: shared_event("reverse", direction=d) for d in (1, -1)}
_PASS_EVENTS = tuple(shared_event("pass", seat=s) for s in range(MAX_SEATS))
_DRAWN_PLAYABLE_EVENTS = tuple(shared_event("drawn_playable", seat=s) for s in range(MAX_SEATS))
_UNO_CALLED_EVENTS = tuple(shared_event("uno_called", seat=s) for s in range(MAX_SEATS))
_ACCEPT_EVENTS = tuple(shared_event("accept", seat=s) for s in range(MAX_SEATS))


def _draw_one_event(seat: int, card: int) -> Event:
    """``seat`` drew ``card`` on their turn (only they see which)."""
    private = ReadOnlyDict({"cards": [CARDS[card]]})
    return Event(
        "draw",
        ReadOnlyDict(seat=seat, count=1, reason="draw"),
        ReadOnlyDict({seat: private}),  # type: ignore[dict-item, arg-type]
    )


# Every plain one-card draw, built once: [seat][card] (about a thousand small events).
_DRAW_ONE_EVENTS = tuple(tuple(_draw_one_event(s, c) for c in range(DECK_SIZE)) for s in range(MAX_SEATS))


# Plays that leave few cards, and are not Jump-Ins, are shared too: at most ~18,000 events (a few MB).
PlayKey = tuple[int, int, int, bool, int]  # (seat, card, colour, uno, count)
_PLAY_EVENTS: dict[PlayKey, Event] = {}
_SHARED_PLAY_COUNT = 12


def _play_event(key: PlayKey, seat: int, card: int, color: int, jump: bool, uno: bool, count: int) -> Event:
    """``seat`` played ``card`` (naming ``color``), leaving ``count`` cards: a play ``_PLAY_EVENTS``
    does not hold at ``key`` yet, kept there when it may be shared."""
    public = {
        "seat": seat,
        "card": CARDS[card],
        "color": COLORS[color],
        "jump_in": jump,
        "uno": uno,
        "count": count,
    }
    if jump or count > _SHARED_PLAY_COUNT:
        return Event("play", public, NO_PRIVATE)
    event = _PLAY_EVENTS[key] = Event("play", ReadOnlyDict(public), NO_PRIVATE)
    return event


# Per list length: the (index, bit length) steps of the Fisher-Yates shuffle random.Random uses.
_SHUFFLE_STEPS: dict[int, tuple[tuple[int, int], ...]] = {}


def _fisher_yates(rng: random.Random, cards: list[int]) -> None:
    """``random.Random.shuffle`` with its ``_randbelow`` inlined: same draws, same result."""
    steps = _SHUFFLE_STEPS.get(len(cards))
    if steps is None:
        steps = tuple((i, (i + 1).bit_length()) for i in range(len(cards) - 1, 0, -1))
        _SHUFFLE_STEPS[len(cards)] = steps
    getrandbits = rng.getrandbits
    for i, bits in steps:
        j = getrandbits(bits)
        while j > i:
            j = getrandbits(bits)
        cards[i], cards[j] = cards[j], cards[i]


def _same_as_random_shuffle() -> bool:
    """Whether this Python's ``random.Random.shuffle`` draws exactly as ``_fisher_yates`` does."""
    for seed in range(8):
        ours, theirs = random.Random(seed), random.Random(seed)
        a, b = list(range(DECK_SIZE)), list(range(DECK_SIZE))
        _fisher_yates(ours, a)
        theirs.shuffle(b)
        if a != b or ours.getstate() != theirs.getstate():
            return False
    return True


_FAST_SHUFFLE = _same_as_random_shuffle()


def _shuffle(rng: random.Random, cards: list[int]) -> None:
    """``rng.shuffle(cards)``, about twice as fast when ``rng`` is a plain ``random.Random``."""
    if _FAST_SHUFFLE and type(rng) is random.Random:
        _fisher_yates(rng, cards)
    else:
        rng.shuffle(cards)


@dataclass(frozen=True, slots=True)
class Settings:
    """Room settings. House rules default OFF, except the Wild Draw Four challenge."""

    draw_until_playable: bool = False
    stacking: bool = False
    jump_in: bool = False
    seven_swap: bool = False
    zero_rotate: bool = False
    forced_play: bool = False
    challenge_wild_draw4: bool = True
    uno_penalty: int = 2
    target_score: int = 500
    round_break: int = 0
    turn_timer: int = 0
    max_players: int = 10


_SETTINGS_VIEWS: dict[int, tuple[Settings, dict[str, Any]]] = {}
_SETTINGS_VIEWS_MAX = 1024


def _settings_view(settings: Settings) -> dict[str, Any]:
    """Settings as read-only plain data for views, one shared dict per Settings object (every view
    of every recipient carries them). Keyed by identity, since hashing a Settings runs Python code
    over every field; each entry holds its Settings, so its id cannot be reused while cached."""
    hit = _SETTINGS_VIEWS.get(id(settings))
    if hit is not None:
        return hit[1]
    if len(_SETTINGS_VIEWS) >= _SETTINGS_VIEWS_MAX:
        _SETTINGS_VIEWS.clear()
    data = ReadOnlyDict({f.name: getattr(settings, f.name) for f in fields(settings)})
    _SETTINGS_VIEWS[id(settings)] = (settings, data)
    return data


SCHEMA: tuple[Setting, ...] = (
    number(
        "target_score",
        "Target score",
        500,
        0,
        10_000,
        step=50,
        presets=((0, "one round"), (100, "100"), (200, "200"), (300, "300"), (500, "500"), (1000, "1000")),
        help="Rounds go on until someone has this many points: a round's winner scores the cards left in "
        "the other hands. One round: the first to empty their hand wins.",
    ),
    number(
        "round_break",
        "Pause between rounds",
        0,
        3,
        60,
        presets=((0, "none"), (5, "5 s"), (10, "10 s"), (20, "20 s"), (30, "30 s")),
        off=True,
        initial=10,
        needs="target_score",
        help="Time to see how a round ended, its last card and its points, before the next deal; the next "
        "dealer may deal sooner.",
    ),
    number(
        "uno_penalty",
        "Missed-UNO penalty (cards)",
        2,
        0,
        10,
        help="Cards a player draws when caught down to one card without having called UNO.",
    ),
    TURN_TIMER,
    flag(
        "challenge_wild_draw4",
        "Challenge Wild Draw Four",
        True,
        "A Wild Draw Four may always be played, and the next player may challenge it: a bluffer who held "
        "the colour in play draws 4, else the challenger draws 6. Without this rule, it may be played "
        "only by someone holding no card of the colour in play.",
    ),
    flag(
        "stacking",
        "Stack Draw Two / Draw Four",
        False,
        "A Draw Two may be answered with a Draw Two, a Wild Draw Four with a Wild Draw Four; the first "
        "player who cannot (or will not) draws the whole total.",
    ),
    flag(
        "jump_in",
        "Jump-in with an identical card",
        False,
        "Anyone holding a card identical to the top card (same colour, same number or symbol) may play "
        "it out of turn; play goes on from them.",
    ),
    flag("seven_swap", "Seven swaps hands", False, "Playing a 7 swaps your hand with a player you choose."),
    flag(
        "zero_rotate",
        "Zero rotates hands",
        False,
        "Playing a 0 passes every hand to the next player in the direction of play.",
    ),
    flag(
        "forced_play",
        "Forced play",
        False,
        "You may draw only when you have nothing to play, and a card you draw that can be played must be "
        "played.",
    ),
    flag(
        "draw_until_playable",
        "Draw until playable",
        False,
        "A player who draws keeps drawing until they get a card they can play.",
    ),
    seats(2, MAX_SEATS, MAX_SEATS),
)


def _validate_settings(raw: Any) -> Settings:
    if isinstance(raw, Settings):
        return raw
    settings: Settings = read_settings(SCHEMA, raw, Settings)
    return settings


@dataclass(slots=True, eq=False)
class State:
    """Everything about one match. Mutated in place by ``apply``; never sent as is."""

    settings: Settings
    n: int
    rng: random.Random
    hands: list[list[int]]
    draw: list[int] = field(default_factory=list)  # top of the pile is the end
    discard: list[int] = field(default_factory=list)  # top card is the end
    color: int = 0  # current colour (the named one after a Wild)
    direction: int = 1
    turn: int = 0
    dealer: int = 0
    active: list[bool] = field(default_factory=list)
    n_active: int = 0
    uno_called: list[bool] = field(default_factory=list)
    exposed: int = -1  # seat catchable for not calling UNO, else -1
    stack: int = 0  # draw penalty waiting for the seat on turn
    stack_kind: int = -1  # DRAW2 or WILD4 while a stack is pending
    offender: int = -1  # seat that played the Wild Draw Four that may be challenged
    guilty: bool = False  # whether that Wild Draw Four failed the official test
    drawn: int = -1  # card just drawn that may be played now, else -1
    scores: list[int] = field(default_factory=list)
    round: int = 1
    rounds: list[tuple[int, int]] = field(default_factory=list)  # each round's (winner, points), in order
    dealing: bool = False  # between rounds: the dealer deals the next one (``round_break``)
    over: bool = False
    winners: list[int] = field(default_factory=list)
    reason: str = ""
    setup_events: list[Event] = field(default_factory=list)


def _next(st: State, seat: int) -> int:
    """The next active seat after ``seat`` in the current direction."""
    n, d, active = st.n, st.direction, st.active
    seat = (seat + d) % n
    while not active[seat]:
        seat = (seat + d) % n
    return seat


def _left(st: State, seat: int) -> int:
    """The next active seat clockwise, whatever the direction (deal order, dealer rotation)."""
    seat = (seat + 1) % st.n
    while not st.active[seat]:
        seat = (seat + 1) % st.n
    return seat


def _take(st: State, count: int, events: list[Event]) -> list[int]:
    """Take up to ``count`` cards from the draw pile, reshuffling the discards under the top card
    whenever the pile runs out; fewer come back only when there is nothing left to reshuffle."""
    pile = st.draw
    if count <= 0:
        return []
    if count == 1 and pile:
        return [pile.pop()]
    if len(pile) >= count:
        taken = pile[-count:]
        del pile[-count:]
        return taken
    taken = []
    for _ in range(count):
        if not pile:
            if len(st.discard) <= 1:
                break
            pile = st.discard[:-1]
            _shuffle(st.rng, pile)
            st.draw = pile
            st.discard = st.discard[-1:]
            events.append(Event("reshuffle", {"draw_pile": len(pile)}))
        taken.append(pile.pop())
    return taken


def _give(st: State, seat: int, count: int, reason: str, events: list[Event]) -> list[int]:
    """``seat`` draws ``count`` cards; only they learn which."""
    pile = st.draw
    if 0 < count <= len(pile):  # the usual case (``_take`` without a reshuffle), inlined
        cards = pile[-count:]
        del pile[-count:]
    else:
        cards = _take(st, count, events)
    if cards:
        st.hands[seat] += cards
        st.uno_called[seat] = False
        if st.exposed == seat:
            st.exposed = -1
    events.append(
        Event(
            "draw",
            {"seat": seat, "count": len(cards), "reason": reason},
            {seat: {"cards": [CARDS[c] for c in cards]}},
        )
    )
    return cards


def _has_color(hand: list[int], color: int) -> bool:
    """The official Wild Draw Four test: does the hand hold a card of the current colour?"""
    return not _COLOR_CARDS[color].isdisjoint(hand)


def _playable(st: State, hand: list[int], card: int) -> bool:
    """Can ``card`` be played from ``hand`` on the current top card (no pending penalty)?"""
    if card not in _MATCHES[st.color][st.discard[-1]]:
        return False
    return not (_SYM[card] == WILD4 and not st.settings.challenge_wild_draw4 and _has_color(hand, st.color))


def _turn_event(st: State) -> Event:
    """Who is on turn now; ends every action that moves the turn."""
    return _TURN_EVENTS[st.direction][st.turn]


class Uno:
    """The UNO engine (see the module docstring for actions, codes and events)."""

    name = "uno"
    title = "UNO"
    how_to_play = (
        "Match the top card by colour, number or symbol, or play a Wild and name a colour. Can't play? "
        "Draw. Call UNO when you are down to one card — anyone may catch you if you forget. Empty your "
        "hand to win the round."
    )
    leave_rule = (
        "A leaver's cards are shuffled into the draw pile and the others play on; if only one player is "
        "left, they win."
    )
    end_reasons = (("opponents_left", "Everyone else left."),)
    min_players = 2
    max_players = MAX_SEATS
    settings_schema: tuple[Setting, ...]
    score_label = "points"
    scores_add_up = True
    secret_fields: tuple[str, ...] = ("hand",)
    revealing_events: tuple[str, ...] = ("dealer_draw",)  # cards turned to pick the dealer
    has_catches = True
    stat_labels: tuple[tuple[str, str], ...] = (("points", "UNO points"),)
    stat_rates: tuple[tuple[str, str, str, str], ...] = ()

    def __init__(self) -> None:
        self.settings_schema = SCHEMA  # set here: mypyc takes only literals as class-level defaults

    # ----------------------------------------------------------------- setup

    def settings(self, raw: Any) -> Settings:
        """Validate raw room settings; unknown keys, wrong types or ranges raise InvalidSettings."""
        return _validate_settings(raw)

    def default_capacity(self, settings: Settings) -> int:
        return settings.max_players

    def turn_timer(self, settings: Settings) -> int:
        return settings.turn_timer

    def pause(self, state: State) -> int:
        """The break between rounds, while the next dealer has not dealt."""
        return state.settings.round_break if state.dealing else 0

    def setup(self, settings: Settings, players: Any, rng: random.Random, opener: int = 0) -> State:
        """Pick the dealer by turning cards, as the rules say, then deal the first round (``opener``
        is not used: the dealer draw decides who starts)."""
        most = min(settings.max_players, MAX_SEATS)
        if type(players) is not int or not self.min_players <= players <= most:
            raise InvalidSettings(f"UNO needs 2 to {most} players, not {players}")
        st = State(  # _deal gives the hands and UNO calls
            settings=settings,
            n=players,
            rng=rng,
            hands=[],
            active=[True] * players,
            n_active=players,
            scores=[0] * players,
        )
        events = st.setup_events
        seen: set[int] = set()
        contenders = list(range(players))
        turns = []
        while True:  # everyone turns a card; the highest point value deals, ties turn again
            shown: list[dict[str, Any]] = []
            best, leaders = -1, []
            for seat in contenders:
                # The next card off a shuffled deck (drawing ids at random is the same, and cheaper).
                card = rng.randrange(DECK_SIZE)
                while card in seen:
                    card = rng.randrange(DECK_SIZE)
                seen.add(card)
                shown.append({"seat": seat, "card": CARDS[card]})
                points = _POINTS[card]
                if points > best:
                    best, leaders = points, [seat]
                elif points == best:
                    leaders.append(seat)
            turns.append(shown)
            contenders = leaders
            if len(contenders) == 1:
                break
        st.dealer = contenders[0]
        events.append(Event("dealer_draw", {"turns": turns, "dealer": st.dealer}))
        self._deal(st, events)
        return st

    def _deal(self, st: State, events: list[Event]) -> None:
        """Shuffle all 108 cards, deal seven each from the dealer's left, turn the first discard."""
        rng = st.rng
        deck = list(range(DECK_SIZE))
        _shuffle(rng, deck)
        st.hands = [[] for _ in range(st.n)]
        st.uno_called = [False] * st.n
        st.exposed = st.offender = st.drawn = st.stack_kind = -1
        st.stack = 0
        st.direction = 1
        order = []
        seat = st.dealer
        for _ in range(st.n_active):
            seat = _left(st, seat)
            order.append(seat)
        # One card at a time from the top (the end of the list): the i-th seat in deal order
        # gets every len(order)-th card of the reversed top slice.
        dealt = deck[: -HAND_SIZE * len(order) - 1 : -1]
        del deck[-HAND_SIZE * len(order) :]
        for i, seat in enumerate(order):
            st.hands[seat] = dealt[i :: len(order)]
        while _COLOR[deck[-1]] == WILD:  # a Wild goes back into the deck and another is turned
            deck.insert(rng.randrange(len(deck)), deck.pop())
        first = deck.pop()
        st.draw = deck
        st.discard = [first]
        st.color = _COLOR[first]
        events.append(
            Event(
                "deal",
                {"round": st.round, "dealer": st.dealer, "counts": [len(h) for h in st.hands]},
                {s: {"hand": [CARDS[c] for c in sorted(st.hands[s])]} for s in order},
            )
        )
        events.append(Event("first_card", {"card": CARDS[first], "color": COLORS[st.color]}))
        first_player = _next(st, st.dealer)
        sym = _SYM[first]
        if sym == SKIP:
            events.append(_SKIP_EVENTS[first_player])
            st.turn = _next(st, first_player)
        elif sym == REVERSE:
            st.direction = -1
            events.append(_REVERSE_EVENTS[-1])
            st.turn = st.dealer
        elif sym == DRAW2:
            _give(st, first_player, 2, "draw2", events)
            events.append(_SKIP_EVENTS[first_player])
            st.turn = _next(st, first_player)
        else:
            st.turn = first_player
        events.append(_turn_event(st))

    def start_events(self, state: State) -> list[Event]:
        return list(state.setup_events)

    # --------------------------------------------------------------- actions

    def parse_action(self, raw: Any) -> dict[str, Any]:
        """Check the wire shape and return a fresh, normalised action dict."""
        if not isinstance(raw, dict):
            raise IllegalAction("bad_action", "an action must be an object")
        kind = raw.get("type")
        if kind == "play":
            card = raw.get("card")
            if type(card) is not int or not 0 <= card < DECK_SIZE:
                raise IllegalAction("bad_action", "play needs a card id 0..107")
            action: dict[str, Any] = {"type": "play", "card": card}
            color = raw.get("color")
            if color is not None:
                if not isinstance(color, str) or color not in _COLOR_INDEX:
                    raise IllegalAction("bad_action", "color must be red, yellow, green or blue")
                action["color"] = color
            target = raw.get("target")
            if target is not None:
                if type(target) is not int:
                    raise IllegalAction("bad_action", "target must be a seat number")
                action["target"] = target
            uno = raw.get("uno")
            if uno is not None:
                if type(uno) is not bool:
                    raise IllegalAction("bad_action", "uno must be true or false")
                action["uno"] = uno
            return action
        if kind == "catch":
            target = raw.get("target")
            if type(target) is not int:
                raise IllegalAction("bad_action", "catch needs a target seat number")
            return {"type": "catch", "target": target}
        if kind in ("draw", "pass", "call_uno", "challenge", "accept", "deal"):
            return {"type": kind}
        raise IllegalAction("bad_action", f"unknown action type {kind!r}")

    def format_action(self, action: dict[str, Any]) -> dict[str, Any]:
        """Engine actions are already in the wire form: a fresh copy."""
        return dict(action)

    def legal_actions(self, state: State, seat: int) -> list[dict[str, Any]]:
        """Every action ``seat`` may take now, in and out of turn (shared dicts: read-only)."""
        st = state
        if st.dealing:
            return [_DEAL] if seat == st.dealer else []
        if seat == st.turn and not st.over:  # the seat on turn is always a seated player
            hand = st.hands[seat]
            if st.stack or st.drawn >= 0:
                out = self._answers(st, seat, hand)
            else:
                s = st.settings
                table = _PLAYS_FOR_SIZE[len(hand)][st.color][st.discard[-1]]
                out = []
                if s.seven_swap or not s.challenge_wild_draw4:
                    for c in hand:
                        if table[c]:
                            self._add_plays(st, seat, hand, c, out)
                else:
                    for c in hand:
                        if table[c]:
                            out += table[c]
                if not (out and s.forced_play):
                    out.append(_DRAW)
        elif st.over or not 0 <= seat < st.n or not st.active[seat]:
            return []
        else:
            out = []
            if st.settings.jump_in and not st.stack:
                hand = st.hands[seat]
                same = _IDENTICAL[st.discard[-1]]
                for c in hand:
                    if c in same:
                        self._add_plays(st, seat, hand, c, out)
        exposed = st.exposed
        if exposed >= 0:
            out.append(_CALL_UNO if exposed == seat else {"type": "catch", "target": exposed})
        return out

    def _answers(self, st: State, seat: int, hand: list[int]) -> list[dict[str, Any]]:
        """The turn's actions while a penalty is pending or a drawn card waits to be played."""
        out: list[dict[str, Any]] = []
        s = st.settings
        if st.stack:
            kind = st.stack_kind
            if s.stacking:
                for c in hand:
                    if _SYM[c] == kind and (kind == DRAW2 or self._w4_ok(st, hand)):
                        self._add_plays(st, seat, hand, c, out)
            if st.offender >= 0:
                out.append(_CHALLENGE)
                out.append(_ACCEPT)
            else:
                out.append(_DRAW)
        else:
            self._add_plays(st, seat, hand, st.drawn, out)
            if not s.forced_play:
                out.append(_PASS)
        return out

    @staticmethod
    def _w4_ok(st: State, hand: list[int]) -> bool:
        """A Wild Draw Four may leave the hand: bluffing is allowed under the challenge rule."""
        return st.settings.challenge_wild_draw4 or not _has_color(hand, st.color)

    def _add_plays(self, st: State, seat: int, hand: list[int], c: int, out: list[dict[str, Any]]) -> None:
        """Append every way of playing card ``c`` (colours, swap targets, UNO call)."""
        uno = len(hand) == 2
        if _COLOR[c] == WILD:
            if _SYM[c] == WILD4 and not self._w4_ok(st, hand):
                return
            out += (_PLAYS_UNO if uno else _PLAYS)[0][0][c]  # a Wild's plays are the same in every row
        elif _SYM[c] == 7 and st.settings.seven_swap and len(hand) > 1:
            base = _PLAY_UNO[c] if uno else _PLAY[c]
            out += [{**base, "target": t} for t in range(st.n) if t != seat and st.active[t]]
        else:
            out.append(_PLAY_UNO[c] if uno else _PLAY[c])

    def apply(self, state: State, seat: Any, action: Any) -> list[Event]:
        """Validate fully, then mutate; a refused action leaves the state untouched."""
        st = state
        if st.over:
            raise IllegalAction("game_over", "the game is over")
        # The seat on turn is always seated: that very int object skips the test (anything else,
        # even an equal bool, takes it).
        if seat is not st.turn and (type(seat) is not int or not (0 <= seat < st.n and st.active[seat])):
            raise IllegalAction("not_seated", f"seat {seat!r} is not playing")
        if not isinstance(action, dict):
            raise IllegalAction("bad_action", "an action must be an object")
        kind = action.get("type")
        if st.dealing:
            return self._deal_next(st, seat, kind)
        if kind == "play":
            return self._play(st, seat, action)
        if kind == "draw" and seat == st.turn:  # the other common action, first
            return self._draw(st, seat)
        if kind == "catch":
            return self._catch(st, seat, action)
        if kind == "call_uno":
            return self._call_uno(st, seat)
        if kind not in ("draw", "pass", "challenge", "accept"):
            if kind == "deal":
                raise IllegalAction("not_between_rounds", "cards are dealt only between rounds")
            raise IllegalAction("bad_action", f"unknown action type {kind!r}")
        if seat != st.turn:
            raise IllegalAction("not_your_turn", f"it is seat {st.turn}'s turn")
        if kind == "pass":
            if st.drawn < 0:
                raise IllegalAction("cannot_pass", "you may only pass after drawing a playable card")
            if st.settings.forced_play:
                raise IllegalAction("forced_play", "Forced Play: you must play the card you drew")
            st.drawn = -1
            st.turn = _next(st, seat)
            return [_PASS_EVENTS[seat], _turn_event(st)]
        if st.offender < 0:
            code = "nothing_to_challenge" if kind == "challenge" else "nothing_to_accept"
            raise IllegalAction(code, "there is no Wild Draw Four to answer")
        return self._answer_wild4(st, seat, kind == "challenge")

    def _play(self, st: State, seat: int, action: dict[str, Any]) -> list[Event]:
        card = action.get("card")
        hand = st.hands[seat]
        if type(card) is not int or card not in hand:
            raise IllegalAction("card_not_in_hand", "you do not hold that card")
        s = st.settings
        sym = _SYM[card]
        jump = seat != st.turn
        if not (jump or st.stack):  # the usual case: a play on one's own turn
            if st.drawn >= 0 and card != st.drawn:
                raise IllegalAction(
                    "must_play_drawn_card_or_pass", "you may only play the card you just drew, or pass"
                )
            if card not in _MATCHES[st.color][st.discard[-1]]:
                raise IllegalAction(
                    "card_not_playable", "that card does not match the colour, number or symbol"
                )
        elif jump:
            if not (s.jump_in and not st.stack and card in _IDENTICAL[st.discard[-1]]):
                raise IllegalAction("not_your_turn", f"it is seat {st.turn}'s turn")
        elif not (s.stacking and sym == st.stack_kind):
            if st.offender >= 0:
                raise IllegalAction("must_challenge_or_accept", "challenge or accept the Wild Draw Four")
            raise IllegalAction("must_stack_or_draw", "stack a matching draw card or draw the penalty")
        guilty = False
        if sym >= WILD_SYM:  # a Wild or Wild Draw Four
            named = action.get("color")
            color = _COLOR_INDEX.get(named, -1) if isinstance(named, str) else -1
            if color < 0:
                raise IllegalAction("color_required", "name a colour for the Wild")
            if sym == WILD4:
                guilty = _has_color(hand, st.color)
                if guilty and not s.challenge_wild_draw4:
                    raise IllegalAction("illegal_wild_draw4", "you hold a card of the current colour")
        else:
            color = _COLOR[card]
        swap = sym == 7 and s.seven_swap and len(hand) > 1
        target = action.get("target", -1) if swap else -1
        if swap and (
            type(target) is not int or not 0 <= target < st.n or target == seat or not st.active[target]
        ):
            raise IllegalAction("bad_target", "name another seated player to swap hands with")

        # Validated: from here on the play happens.
        hand.remove(card)
        st.discard.append(card)
        st.color = color
        st.drawn = -1
        left = len(hand)
        uno = False
        if left == 1:
            uno = action.get("uno") is True or st.uno_called[seat]
            if uno:
                st.uno_called[seat] = True
            st.exposed = -1 if uno else seat  # catchable until the next player acts
        else:
            st.exposed = -1  # the next player has acted: the previous catch window closes
        key = (seat, card, color, uno, left)  # a tuple hashes faster than the arithmetic for one int
        event = None if jump else _PLAY_EVENTS.get(key)
        if event is None:
            event = _play_event(key, seat, card, color, jump, uno, left)
        if not left:
            events = [event]
            self._win(st, seat, sym, events)
            return events
        nxt = (seat + st.direction) % st.n  # _next(st, seat), inlined for the usual case
        if not st.active[nxt]:
            nxt = _next(st, nxt)
        if sym < 10:  # number cards: only the 7 and 0 house rules do anything
            if not (swap or (sym == 0 and s.zero_rotate)):  # the usual case: the turn just passes
                st.turn = nxt
                return [event, _TURN_EVENTS[st.direction][nxt]]
            events = [event]
            if swap:
                self._swap(st, seat, target, events)
            else:
                self._rotate(st, events)
        else:
            events = [event]
            if sym == SKIP:
                events.append(_SKIP_EVENTS[nxt])
                nxt = _next(st, nxt)
            elif sym == REVERSE:
                st.direction = -st.direction
                events.append(_REVERSE_EVENTS[st.direction])
                nxt = seat if st.n_active == 2 else _next(st, seat)
            elif sym != WILD_SYM:  # Draw Two or Wild Draw Four: a penalty for the next player
                st.stack += 2 if sym == DRAW2 else 4
                st.stack_kind = sym
                st.offender = -1
                if sym == WILD4 and s.challenge_wild_draw4:
                    st.offender, st.guilty = seat, guilty
                elif not s.stacking:
                    _give(st, nxt, st.stack, "draw2" if sym == DRAW2 else "wild_draw4", events)
                    events.append(_SKIP_EVENTS[nxt])
                    st.stack, st.stack_kind = 0, -1
                    nxt = _next(st, nxt)
        st.turn = nxt
        events.append(_TURN_EVENTS[st.direction][nxt])
        return events

    def _swap(self, st: State, seat: int, target: int, events: list[Event]) -> None:
        """Seven Swap: the two hands trade places; only their owners see them."""
        hands = st.hands
        hands[seat], hands[target] = hands[target], hands[seat]
        self._reset_uno(st)
        events.append(
            Event(
                "swap",
                {"seat": seat, "target": target},
                {s: {"hand": [CARDS[c] for c in sorted(hands[s])]} for s in (seat, target)},
            )
        )

    def _rotate(self, st: State, events: list[Event]) -> None:
        """Zero Rotate: every hand passes to the next player in the current direction."""
        new: list[list[int]] = [[] for _ in range(st.n)]
        for seat in range(st.n):
            if st.active[seat]:
                new[_next(st, seat)] = st.hands[seat]
        st.hands = new
        self._reset_uno(st)
        events.append(
            Event(
                "rotate",
                {"direction": st.direction, "counts": [len(h) for h in new]},
                {s: {"hand": [CARDS[c] for c in sorted(new[s])]} for s in range(st.n) if st.active[s]},
            )
        )

    @staticmethod
    def _reset_uno(st: State) -> None:
        """Hands moved: nobody has called UNO on their new hand and no catch window is open."""
        st.uno_called = [False] * st.n
        st.exposed = -1

    def _draw(self, st: State, seat: int) -> list[Event]:
        if st.offender >= 0:
            raise IllegalAction("must_challenge_or_accept", "challenge or accept the Wild Draw Four")
        if st.drawn >= 0:
            raise IllegalAction("already_drawn", "play the card you drew or pass")
        if st.stack:
            return self._take_stack(st, seat, _penalty(st), [])
        s = st.settings
        hand = st.hands[seat]
        matches = _MATCHES[st.color][st.discard[-1]]
        # Any card matching the top can be played (a Wild Draw Four refused under Forced Play
        # always comes with a card of the current colour, which can).
        if s.forced_play and not matches.isdisjoint(hand):
            raise IllegalAction("forced_play", "Forced Play: you hold a playable card")
        st.exposed = -1
        pile = st.draw
        if pile and not s.draw_until_playable:  # the usual case: one card off the pile
            card = pile.pop()
            hand.append(card)
            st.uno_called[seat] = False
            events = [_DRAW_ONE_EVENTS[seat][card]]
        else:
            events = []
            card = self._draw_more(st, seat, hand, events)
        # _playable(st, hand, card), inlined: ``matches`` is already at hand.
        if card in matches and not (
            _SYM[card] == WILD4 and not s.challenge_wild_draw4 and _has_color(hand, st.color)
        ):
            st.drawn = card
            events.append(_DRAWN_PLAYABLE_EVENTS[seat])
        else:
            nxt = (seat + st.direction) % st.n  # _next(st, seat), inlined for the usual case
            if not st.active[nxt]:
                nxt = _next(st, nxt)
            st.turn = nxt
            events.append(_TURN_EVENTS[st.direction][nxt])
        return events

    @staticmethod
    def _draw_more(st: State, seat: int, hand: list[int], events: list[Event]) -> int:
        """A turn's draw from an empty pile, or under Draw Until Playable: draw (reshuffling when
        needed) one card, or until a playable one comes; the last card drawn, or -1 if none."""
        drawn: list[int] = []
        while True:
            got = _take(st, 1, events)
            if not got:
                break
            drawn += got
            hand += got
            if not st.settings.draw_until_playable or _playable(st, hand, got[0]):
                break
        if len(drawn) == 1:
            events.append(_DRAW_ONE_EVENTS[seat][drawn[0]])
        else:
            events.append(
                Event(
                    "draw",
                    {"seat": seat, "count": len(drawn), "reason": "draw"},
                    {seat: {"cards": [CARDS[c] for c in drawn]}},
                )
            )
        if not drawn:
            return -1
        st.uno_called[seat] = False
        return drawn[-1]

    def _take_stack(self, st: State, seat: int, reason: str, events: list[Event]) -> list[Event]:
        """The seat on turn draws the pending penalty and loses the turn."""
        st.exposed = -1
        total = st.stack
        st.stack, st.stack_kind, st.offender = 0, -1, -1
        _give(st, seat, total, reason, events)
        st.turn = _next(st, seat)
        events.append(_turn_event(st))
        return events

    def _answer_wild4(self, st: State, seat: int, challenge: bool) -> list[Event]:
        events: list[Event] = []
        if not challenge:
            events.append(_ACCEPT_EVENTS[seat])
            return self._take_stack(st, seat, "wild_draw4", events)
        offender, guilty = st.offender, st.guilty
        events.append(Event("challenge", {"seat": seat, "offender": offender, "guilty": guilty}))
        if not guilty:
            st.stack += 2
            return self._take_stack(st, seat, "challenge_lost", events)
        st.exposed = -1
        total = st.stack
        st.stack, st.stack_kind, st.offender = 0, -1, -1
        _give(st, offender, total, "challenge_guilty", events)
        events.append(_turn_event(st))  # the challenger now takes a normal turn
        return events

    def _call_uno(self, st: State, seat: int) -> list[Event]:
        if st.exposed != seat:
            raise IllegalAction(
                "cannot_call_uno", "call UNO as you play your second-last card, or right after"
            )
        st.uno_called[seat] = True
        st.exposed = -1
        return [_UNO_CALLED_EVENTS[seat]]

    def _catch(self, st: State, seat: int, action: dict[str, Any]) -> list[Event]:
        target = action.get("target")
        # -1 is "nobody exposed": without the first test, catch -1 would hit ``hands[-1]``.
        if st.exposed < 0 or type(target) is not int or target != st.exposed or target == seat:
            raise IllegalAction("cannot_catch", "that player is not catchable for a missed UNO")
        st.exposed = -1
        penalty = st.settings.uno_penalty
        events = [Event("uno_caught", {"seat": seat, "target": target, "penalty": penalty})]
        _give(st, target, penalty, "uno_penalty", events)
        return events

    # ---------------------------------------------------------------- rounds

    def _win(self, st: State, seat: int, sym: int, events: list[Event]) -> None:
        """``seat`` emptied their hand: a last Draw Two / Wild Draw Four still hits the next
        player, then the round is scored and the match ends or the next round is dealt."""
        if sym in (DRAW2, WILD4):
            victim = _next(st, seat)
            _give(st, victim, st.stack + (2 if sym == DRAW2 else 4), "last_card", events)
        st.stack, st.stack_kind, st.offender, st.exposed = 0, -1, -1, -1
        held = [sum(_POINTS[c] for c in hand) for hand in st.hands]  # each other hand's points, shown
        points = sum(held)
        st.scores[seat] += points
        st.rounds.append((seat, points))
        events.append(
            Event(
                "round_over",
                {
                    "round": st.round,
                    "winner": seat,
                    "points": points,
                    "held": held,
                    "scores": list(st.scores),
                },
            )
        )
        target = st.settings.target_score
        if target == 0 or st.scores[seat] >= target:
            self._finish(st, [seat], "finished", events)
            return
        st.dealer = _left(st, st.dealer)
        if st.settings.round_break:
            st.dealing, st.turn, st.drawn = True, st.dealer, -1
            events.append(_break_event(st))
            return
        self._next_round(st, events)

    def _next_round(self, st: State, events: list[Event]) -> None:
        st.round += 1
        events.append(Event("round_started", {"round": st.round, "dealer": st.dealer}))
        self._deal(st, events)

    def _deal_next(self, st: State, seat: int, kind: Any) -> list[Event]:
        """The break between rounds: only the next dealer's ``deal`` ends it."""
        if kind != "deal":
            raise IllegalAction("between_rounds", f"round {st.round} is over: the next is about to be dealt")
        if seat != st.dealer:
            raise IllegalAction("not_your_turn", f"seat {st.dealer} deals the next round")
        st.dealing = False
        events: list[Event] = []
        self._next_round(st, events)
        return events

    @staticmethod
    def _finish(st: State, winners: list[int], reason: str, events: list[Event]) -> None:
        st.over = True
        st.winners = winners
        st.reason = reason
        st.drawn = -1
        events.append(Event("game_over", {"winners": winners, "scores": list(st.scores), "reason": reason}))

    # ----------------------------------------------------- leaving and clock

    def on_leave(self, state: State, seat: int) -> list[Event]:
        """The leaver's hand is shuffled into the draw pile; their turn and penalties lapse."""
        st = state
        if st.over or not 0 <= seat < st.n or not st.active[seat]:
            return []
        st.active[seat] = False
        st.n_active -= 1
        st.draw += st.hands[seat]
        st.hands[seat] = []
        _shuffle(st.rng, st.draw)
        st.uno_called[seat] = False
        if st.exposed == seat:
            st.exposed = -1
        if st.offender == seat:
            st.offender = -1
        events = [Event("player_left", {"seat": seat, "draw_pile": len(st.draw)})]
        if st.n_active == 1:
            st.dealing = False
            self._finish(st, [st.active.index(True)], "opponents_left", events)
            return events
        if st.dealing:
            if st.dealer == seat:  # the deal passes to their left
                st.dealer = st.turn = _left(st, seat)
                events.append(_break_event(st))
            return events
        if st.turn == seat:
            st.drawn = -1
            st.stack, st.stack_kind, st.offender = 0, -1, -1
            st.turn = _next(st, seat)
            events.append(_turn_event(st))
        return events

    def on_timeout(self, state: State, seat: int) -> list[Event]:
        """Out of time: take a pending penalty, or pass after a draw, or draw one and pass."""
        st = state
        if st.over:
            raise IllegalAction("game_over", "the game is over")
        if seat != st.turn:
            raise IllegalAction("not_your_turn", f"it is seat {st.turn}'s turn")
        if st.dealing:  # the break is over: nobody ran out of time, the next round is dealt
            return self._deal_next(st, seat, "deal")
        events = [Event("timeout", {"seat": seat})]
        if st.stack:
            return self._take_stack(st, seat, _penalty(st) if st.offender < 0 else "wild_draw4", events)
        if st.drawn < 0:
            st.exposed = -1
            _give(st, seat, 1, "timeout", events)
        st.drawn = -1
        st.turn = _next(st, seat)
        events.append(_turn_event(st))
        return events

    # ----------------------------------------------------------- observation

    def to_act(self, state: State) -> list[int]:
        return [] if state.over else [state.turn]

    def clone(self, state: State) -> State:
        """A copy sharing only immutable parts (settings, the events setup produced)."""
        st = state
        return State(
            settings=st.settings,
            n=st.n,
            rng=clone_rng(st.rng),
            hands=[hand.copy() for hand in st.hands],
            draw=st.draw.copy(),
            discard=st.discard.copy(),
            color=st.color,
            direction=st.direction,
            turn=st.turn,
            dealer=st.dealer,
            active=st.active.copy(),
            n_active=st.n_active,
            uno_called=st.uno_called.copy(),
            exposed=st.exposed,
            stack=st.stack,
            stack_kind=st.stack_kind,
            offender=st.offender,
            guilty=st.guilty,
            drawn=st.drawn,
            scores=st.scores.copy(),
            round=st.round,
            rounds=st.rounds.copy(),
            dealing=st.dealing,
            over=st.over,
            winners=st.winners.copy(),
            reason=st.reason,
            setup_events=st.setup_events.copy(),
        )

    def slip_target(self, action: Any) -> int | None:
        """A ``catch`` punishes its target's missing UNO call, which the target may still make."""
        if isinstance(action, dict) and action.get("type") == "catch":
            target = action.get("target")
            return target if type(target) is int else None
        return None

    def describe_event(self, event: dict[str, Any], names: Sequence[str]) -> str | None:
        return describe_event(event, names)

    def player_stats(self, state: State, outcome: Outcome, seat: int) -> dict[str, int]:
        """Points are the game's score: what the others held when this seat went out, over its rounds."""
        return {"points": state.scores[seat]}

    def outcome(self, state: State) -> Outcome | None:
        if not state.over:
            return None
        return Outcome(list(state.winners), dict(enumerate(state.scores)), state.reason)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see: its own hand, everyone's counts, public table state. Cards and
        settings are the shared read-only dicts (no copies: a view is built per recipient per
        action); legal actions are copied, the engine's own staying plain dicts for speed."""
        return {**self.public_view(state), **self.seat_view(state, seat)}

    def public_view(self, state: State) -> dict[str, Any]:
        """The part of every view that is the same for every recipient (built once per action)."""
        st = state
        view: dict[str, Any] = {
            "game": self.name,
            "players": st.n,
            "active": st.active.copy(),
            "counts": [len(h) for h in st.hands],
            "uno_called": st.uno_called.copy(),
            "catchable": st.exposed if st.exposed >= 0 else None,
            "top": CARDS[st.discard[-1]],
            "color": COLORS[st.color],
            "direction": st.direction,
            "turn": None if st.over or st.dealing else st.turn,
            "draw_pile": len(st.draw),
            "discard_pile": len(st.discard),
            "scores": st.scores.copy(),
            "round": st.round,
            "target_score": st.settings.target_score,
            "dealer": st.dealer,
            "dealing": st.dealer if st.dealing else None,  # the next dealer, between rounds
            "over": st.over,
            "winners": st.winners.copy(),
            "settings": _settings_view(st.settings),
        }
        if st.over and st.rounds:  # a match's rounds, for its results (not built on every move)
            view["rounds"] = [{"winner": w, "points": p} for w, p in st.rounds]
        return view

    def seat_view(self, state: State, seat: int | None) -> dict[str, Any]:
        """The part that depends on the recipient: its seat, what is pending for it, hand and moves."""
        st = state
        pending = {
            "draw_stack": st.stack,
            "stack_kind": _SYM_TYPE.get(st.stack_kind),
            "challenge": None if st.offender < 0 else {"offender": st.offender, "challenger": st.turn},
            "drawn_card_playable": st.drawn >= 0,
        }
        if seat is None or not 0 <= seat < st.n:
            return {"seat": None, "pending": pending}
        if st.drawn >= 0 and st.turn == seat:
            pending["drawn_card"] = st.drawn
        return {
            "seat": seat,
            "pending": pending,
            "hand": [CARDS[c] for c in sorted(st.hands[seat])],
            "legal": [dict(a) for a in self.legal_actions(st, seat)],
        }


def _break_event(st: State) -> Event:
    """The table rests between rounds until ``dealer`` deals round ``round``."""
    return Event("round_break", {"round": st.round + 1, "dealer": st.dealer})


def _penalty(st: State) -> str:
    """Why the seat on turn draws the pending penalty: one Draw Two's or Wild Draw Four's, or a stack of
    them (a single Draw Two was logged as "the stacked penalty")."""
    if st.stack_kind == DRAW2 and st.stack == 2:
        return "draw2"
    if st.stack_kind == WILD4 and st.stack == 4:
        return "wild_draw4"
    return "stack"


_CARD_WORDS = {"skip": "Skip", "reverse": "Reverse", "draw2": "Draw Two"}
_DRAW_REASONS = {
    "draw2": " (Draw Two)",
    "wild_draw4": " (Wild Draw Four)",
    "stack": " (the stacked penalty)",
    "challenge_lost": " (a lost challenge)",
    "challenge_guilty": " (caught bluffing)",
    "uno_penalty": " (missed UNO)",
    "last_card": " (for the winning card)",
    "timeout": " (out of time)",
}


def card_words(card: dict[str, Any]) -> str:
    """A card as a player says it: "red 7", "blue Draw Two", "Wild Draw Four"."""
    if card["type"] == "wild":
        return "Wild"
    if card["type"] == "wild-draw4":
        return "Wild Draw Four"
    value = card["value"] if card["type"] == "number" else _CARD_WORDS[card["type"]]
    return f"{card['color']} {value}"


_EVENT_LINES = {
    "reshuffle": "The discards were shuffled into a new draw pile",
    "skip": "{who} is skipped",
    "reverse": "Play reverses",
    "pass": "{who} passed",
    "uno_called": "{who} called UNO",
    "accept": "{who} accepted the Wild Draw Four",
    "rotate": "Every hand passed to the next player",
    "player_left": "{who} left; their cards went back into the draw pile",
    "timeout": "{who} ran out of time",
}
"""The events whose line names at most the seat that acted (``{who}``)."""


def describe_event(event: dict[str, Any], names: Sequence[str]) -> str | None:
    """One game-log line per event (see ``Game.describe_event``)."""
    kind = event["type"]
    who = names[event["seat"]] if isinstance(event.get("seat"), int) else ""
    if kind == "play":
        text = f"{who} played {card_words(event['card'])}"
        if event["card"]["color"] == "wild" and event["count"]:  # a last card names none: the round is over
            text += f" and named {event['color']}"
        if event["jump_in"]:
            text += " (jump-in)"
        return text + (" — UNO!" if event["uno"] else "")
    if kind == "draw":
        count = event["count"]
        cards = event.get("cards")
        what = ", ".join(map(card_words, cards)) if cards else f"{count} card{'s' if count != 1 else ''}"
        return f"{who} drew {what}{_DRAW_REASONS.get(event['reason'], '')}"
    if kind == "dealer_draw":
        return f"{names[event['dealer']]} deals"
    if kind == "deal":
        return f"Round {event['round']}: {HAND_SIZE} cards each"
    if kind == "first_card":
        return f"The first card is {card_words(event['card'])}"
    line = _EVENT_LINES.get(kind)
    if line is not None:
        return line.format(who=who)
    if kind == "uno_caught":
        return f"{who} caught {names[event['target']]} without UNO: +{event['penalty']} cards"
    if kind == "challenge":
        verdict = "guilty" if event["guilty"] else "innocent"
        return f"{who} challenged {names[event['offender']]}'s Wild Draw Four: {verdict}"
    if kind == "swap":
        return f"{who} swapped hands with {names[event['target']]}"
    if kind == "round_over":
        # Whose cards the points came from: a round's end used to say only the sum.
        held = event.get("held") or []
        parts = [f"{names[s]} {p}" for s, p in enumerate(held) if s != event["winner"] and p]
        source = f": {', '.join(parts)}" if parts else ""
        return f"{names[event['winner']]} won round {event['round']} (+{event['points']} points{source})"
    if kind == "round_started":
        return f"Round {event['round']}: {names[event['dealer']]} deals"
    if kind == "round_break":  # the table rests: said, so that a screen reader hears who deals next
        return f"{names[event['dealer']]} deals round {event['round']} next"
    if kind == "game_over":
        winners = " and ".join(names[w] for w in event["winners"])
        why = " (everyone else left)" if event["reason"] == "opponents_left" else ""
        return f"{winners} won the game{why}"
    return None  # turn, drawn_playable: shown by the table, not worth a line


GAME = Uno()
