"""Cheat (a.k.a. I Doubt It), as written in ``rules/cheat.md``.

Read top to bottom as the rulebook: cards, settings, setup, a turn, calling
"Cheat", winning, leaving, the turn timer, and what each seat may see.

Choices the rules leave open, made here:

* Cards are integers ``deck*52 + rank*4 + suit`` (rank 0=A … 12=K; suit
  hearts, diamonds, spades, clubs = 0..3, the write-up's numbering); on the
  wire a card is ``{"id", "rank", "suit"}``.
* The first claim is always Ace, whatever the rank-sequence setting.
* A play whose placer has left stands without a win: it can no longer be
  challenged and nobody wins by it.
* When fewer than 3 players remain the game ends with no winner (reason
  ``not_enough_players``), even if a last-card play was still open.
* ``on_timeout`` places one card: the lowest card (by rank) of an allowed rank
  if the seat holds one, announced truthfully (next rank up preferred);
  otherwise their first card by rank, announced as the next rank up.
  ``on_timeout``/``on_leave`` for a seat that cannot act are no-ops (a timer or
  disconnect may race the move that made it stale).
* Views never carry revealed cards: they are in someone's hand by then, and
  the ``called`` event already showed them to everyone.

Compiled with mypyc by ``./serve`` and ``./test`` (``scripts/compile_engines.py``): parameters that may
carry unchecked input (``apply``'s seat and action, ``parse_action``, settings, ``setup``'s player
count) are ``Any``, so mypyc's run-time type checks refuse nothing the source refuses otherwise.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from parlour.games.base import (
    TURN_TIMER,
    Event,
    IllegalAction,
    InvalidSettings,
    Outcome,
    Setting,
    choice,
    clone_rng,
    read_settings,
    seats,
)

# --- Cards -----------------------------------------------------------------

RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
ACE = 0


def card_rank(card: int) -> int:
    """Rank 0..12 of a card id (every deck repeats the same 52 ids mod 52)."""
    return card % 52 // 4


def card_dict(card: int) -> dict[str, int]:
    """The wire form of a card: only ever sent to someone allowed to see it."""
    return {"id": card, "rank": card % 52 // 4, "suit": card % 4}


def _by_rank(card: int) -> int:
    """Sort key: rank, then suit, then deck (at most 2) — how players hold their hand."""
    return card % 52 * 2 + card // 52


# --- Settings --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Settings:
    """Room options. ``turn_timer`` is only validated here; the room runs the clock."""

    decks: str | int = "auto"
    rank_sequence: str = "ascending"
    turn_timer: int = 0
    max_players: int = 6

    def deck_count(self, players: int) -> int:
        """52 cards for up to 6 players, 104 for 7–10, unless fixed by the host."""
        if self.decks == "auto":
            return 1 if players <= 6 else 2
        return int(self.decks)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


SCHEMA: tuple[Setting, ...] = (
    choice(
        "decks",
        "Decks",
        "auto",
        (("auto", "automatic"), (1, "1 deck"), (2, "2 decks")),
        "Automatic: one deck for up to 6 players, two for 7 or more.",
    ),
    choice(
        "rank_sequence",
        "Rank sequence",
        "ascending",
        (("ascending", "ascending (A, 2, 3…)"), ("up_or_down", "one up or one down"), ("any", "any rank")),
        "The rank each play must be announced as, after the last one: the next rank up (after the King "
        "comes the Ace again), one up or one down, or any rank at all. The first play is Aces.",
    ),
    TURN_TIMER,
    seats(3, 10, 6),
)


def parse_settings(raw: Any) -> Settings:
    """Validate raw room settings; anything unknown or malformed is refused by name."""
    settings: Settings = read_settings(SCHEMA, raw, Settings)
    return settings


# --- State -----------------------------------------------------------------


@dataclass(slots=True)
class Play:
    """The most recent play: the only one a call can reveal."""

    seat: int
    cards: list[int]
    rank: int
    callable: bool = True


@dataclass(slots=True)
class State:
    """Everything about one game. Leaves the engine only through ``view``."""

    settings: Settings
    rng: random.Random
    players: int
    decks: int
    hands: list[list[int]]
    active: list[bool]
    pile: list[int]
    first: int
    turn: int | None
    rank: int | None = None
    """Last announced rank; None until the first play (which must claim Ace)."""
    last_play: Play | None = None
    winner: int | None = None
    reason: str | None = None
    """Why the game ended; None while it is being played."""
    calls: list[int] = field(default_factory=list)
    """Per seat: how often they called Cheat (for their stats)."""
    calls_right: list[int] = field(default_factory=list)
    """Per seat: calls that exposed a lie."""
    caught: list[int] = field(default_factory=list)
    """Per seat: how often a call exposed their lie."""
    held: dict[int, tuple[list[int], list[int]]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    """Per seat, the hand last seen and it sorted as held (``_held``): a play changes one hand, yet
    every seat's view and the legal plays of the seat on turn are built after it."""
    hand_views: dict[int, tuple[list[int], list[dict[str, int]]]] = field(
        default_factory=dict, init=False, compare=False, repr=False
    )
    """Per seat, a ``held`` list and its cards as sent (sorting and re-describing every hand for
    every view was 5% of a Cheat move)."""


def allowed_ranks(state: State) -> list[int]:
    """Ranks the next play may announce, the next rank up first."""
    if state.rank is None:
        return [ACE]
    up = (state.rank + 1) % 13
    sequence = state.settings.rank_sequence
    if sequence == "ascending":
        return [up]
    if sequence == "up_or_down":
        return [up, (state.rank - 1) % 13]
    return [(up + i) % 13 for i in range(13)]


def _next_active(state: State, seat: int) -> int:
    """The next seated player clockwise (join order) after ``seat``."""
    n = state.players
    for step in range(1, n + 1):
        following = (seat + step) % n
        if state.active[following]:
            return following
    raise AssertionError("no active seat")  # unreachable: a game ends below 3 players


def _callers(state: State) -> list[int]:
    """Seats that may call Cheat now, in turn order from the seat on the clock."""
    n = state.players
    start = state.turn if state.turn is not None else 0
    return [s for s in ((start + i) % n for i in range(n)) if _may_call(state, s)]


def _may_call(state: State, seat: int) -> bool:
    """Whether ``seat`` may call Cheat now: the last play is still open and was someone else's."""
    play = state.last_play
    return (
        state.reason is None
        and play is not None
        and play.callable
        and state.active[seat]
        and seat != play.seat
    )


def _hand_sizes(state: State) -> list[int]:
    return [len(hand) for hand in state.hands]


def _held(state: State, seat: int) -> list[int]:
    """``seat``'s hand sorted as held (by rank), sorted again only once the hand changed."""
    hand, seen = state.hands[seat], state.held.get(seat)
    if seen is None or seen[0] != hand:
        seen = state.held[seat] = (hand.copy(), sorted(hand, key=_by_rank))
    return seen[1]


# --- Setup -----------------------------------------------------------------


def setup(settings: Settings, players: Any, rng: random.Random) -> State:
    """Shuffle, deal one card at a time in join order, pick a random first player."""
    if not _is_int(players) or not 3 <= players <= 10:
        raise InvalidSettings(f"Cheat needs 3 to 10 players, not {players}")
    decks = settings.deck_count(players)
    deck = list(range(52 * decks))
    rng.shuffle(deck)
    hands: list[list[int]] = [deck[seat::players] for seat in range(players)]
    first = rng.randrange(players)
    return State(
        settings=settings,
        rng=rng,
        players=players,
        decks=decks,
        hands=hands,
        active=[True] * players,
        pile=[],
        first=first,
        turn=first,
        calls=[0] * players,
        calls_right=[0] * players,
        caught=[0] * players,
    )


def start_events(state: State) -> list[Event]:
    """The deal: hand sizes and first player for all, each hand only to its owner."""
    return [
        Event(
            "dealt",
            {
                "decks": state.decks,
                "hand_sizes": _hand_sizes(state),
                "first": state.first,
                "ranks": allowed_ranks(state),
            },
            {
                seat: {"hand": [card_dict(c) for c in sorted(hand, key=_by_rank)]}
                for seat, hand in enumerate(state.hands)
            },
        )
    ]


# --- Actions ---------------------------------------------------------------


def parse_action(raw: Any) -> dict[str, Any]:
    """Check the wire shape only; whether the move is allowed is ``apply``'s job."""
    if not isinstance(raw, dict):
        raise IllegalAction("bad_action", "an action must be an object")
    kind = raw.get("type")
    if kind == "call":
        return {"type": "call"}
    if kind != "play":
        raise IllegalAction("bad_action", 'action type must be "play" or "call"')
    cards = raw.get("cards")
    if not isinstance(cards, list) or not all(_is_int(c) for c in cards):
        raise IllegalAction("bad_action", "cards must be a list of card ids")
    action: dict[str, Any] = {"type": "play", "cards": list(cards)}
    if raw.get("rank") is not None:
        rank = raw["rank"]
        if not _is_int(rank) or not 0 <= rank <= 12:
            raise IllegalAction("bad_action", "rank must be an integer 0 (Ace) to 12 (King)")
        action["rank"] = rank
    return action


def _check_play(state: State, seat: int, cards: list[int], rank: int | None) -> int:
    """Every reason a play is refused, checked before anything changes; returns the rank."""
    if seat != state.turn:
        raise IllegalAction("not_your_turn", "it is not your turn to play")
    if not cards:
        raise IllegalAction("no_cards", "place at least one card; you cannot pass")
    if len(cards) > 4:
        raise IllegalAction("too_many_cards", "place at most 4 cards")
    if len(set(cards)) != len(cards):
        raise IllegalAction("duplicate_card", "a card is listed twice")
    hand = state.hands[seat]
    if any(c not in hand for c in cards):
        raise IllegalAction("card_not_in_hand", "you do not hold that card")
    ranks = allowed_ranks(state)
    if rank is None:
        if len(ranks) != 1:
            raise IllegalAction("bad_rank", "announce a rank for this play")
        return ranks[0]
    if rank not in ranks:
        names = ", ".join(RANK_NAMES[r] for r in ranks) if len(ranks) < 13 else "any rank"
        raise IllegalAction("bad_rank", f"this play must be announced as {names}")
    return rank


def _end(state: State, winner: int | None, reason: str) -> Event:
    state.winner = winner
    state.reason = reason
    state.turn = None
    if state.last_play is not None:
        state.last_play.callable = False
    return Event("game_over", {"winner": winner, "reason": reason, "hand_sizes": _hand_sizes(state)})


def _turn_event(state: State) -> Event:
    return Event("turn", {"seat": state.turn, "ranks": allowed_ranks(state)})


def _play(state: State, seat: int, cards: list[int], rank: int) -> list[Event]:
    """Place cards face down. Placing also lets the previous play stand."""
    previous = state.last_play
    hand = state.hands[seat]
    for card in cards:
        hand.remove(card)
    state.pile.extend(cards)
    state.last_play = Play(seat, list(cards), rank)
    state.rank = rank
    events = [
        Event(
            "played",
            {
                "seat": seat,
                "count": len(cards),
                "rank": rank,
                "pile_size": len(state.pile),
                "hand_size": len(hand),
            },
            {seat: {"cards": [card_dict(c) for c in cards]}},
        )
    ]
    if previous is not None and previous.callable and not state.hands[previous.seat]:
        # Their last card went down unchallenged: that play stands and wins.
        events.append(_end(state, previous.seat, "finished"))
        return events
    state.turn = _next_active(state, seat)
    events.append(_turn_event(state))
    return events


def _call(state: State, seat: int) -> list[Event]:
    """Reveal the most recent play; the liar, or else the caller, takes the pile."""
    play = state.last_play
    if play is None:
        raise IllegalAction("nothing_to_call", "there is no play to challenge")
    if seat == play.seat:
        raise IllegalAction("cannot_call_own_play", "you cannot call Cheat on your own play")
    if not play.callable:
        raise IllegalAction("nothing_to_call", "that play can no longer be challenged")
    truthful = all(card_rank(c) == play.rank for c in play.cards)
    loser = seat if truthful else play.seat
    state.calls[seat] += 1
    if not truthful:
        state.calls_right[seat] += 1
        state.caught[play.seat] += 1
    pile, state.pile = state.pile, []
    state.hands[loser].extend(pile)
    state.last_play = None
    events = [
        Event(
            "called",
            {
                "caller": seat,
                "placer": play.seat,
                "rank": play.rank,
                "cards": [card_dict(c) for c in play.cards],
                "truthful": truthful,
                "picked_up_by": loser,
                "pile_count": len(pile),
            },
        ),
        Event(
            "picked_up",
            {"seat": loser, "count": len(pile), "hand_size": len(state.hands[loser])},
            {loser: {"cards": [card_dict(c) for c in pile]}},
        ),
    ]
    if truthful and not state.hands[play.seat]:
        events.append(_end(state, play.seat, "finished"))
        return events
    state.turn = _next_active(state, play.seat)
    events.append(_turn_event(state))
    return events


def apply(state: State, seat: Any, action: Any) -> list[Event]:
    """Validate fully, then perform; a refused action leaves ``state`` untouched."""
    if state.reason is not None:
        raise IllegalAction("game_over", "the game is over")
    parsed = parse_action(action)
    if not (_is_int(seat) and 0 <= seat < state.players and state.active[seat]):
        raise IllegalAction("not_your_turn", "you are not playing in this game")
    if parsed["type"] == "call":
        return _call(state, seat)
    cards = parsed["cards"]
    rank = _check_play(state, seat, cards, parsed.get("rank"))
    return _play(state, seat, cards, rank)


def legal_plays(state: State, seat: int) -> list[dict[str, Any]]:
    """A representative, finite list of plays (the full set of 1–4 subsets explodes).

    Listed: every single card announced as the next rank up; and for every rank
    held, its first 1..4 cards announced as each allowed rank (with ``any``:
    truthfully, or as the next rank up). Truthful plays are thus always listed.
    """
    hand = _held(state, seat)  # sorted by rank: each rank's cards are a run
    ranks = allowed_ranks(state)
    up = ranks[0]
    any_rank = len(ranks) == 13
    bluff_as = [up] if any_rank else ranks
    plays = [{"type": "play", "cards": [card], "rank": up} for card in hand]
    start, count = 0, len(hand)
    while start < count:
        held = hand[start] % 52 // 4
        end = start + 1
        while end < count and hand[end] % 52 // 4 == held:
            end += 1
        # With ``any`` a group may also be announced as what it truly is.
        announce = [up, held] if any_rank and held != up else bluff_as
        for size in range(1, min(end - start, 4) + 1):
            for rank in announce:
                if size > 1 or rank != up:  # single cards as ``up`` are listed above
                    plays.append({"type": "play", "cards": hand[start : start + size], "rank": rank})
        start = end
    return plays


def format_action(action: dict[str, Any]) -> dict[str, Any]:
    """Engine actions are the wire form already: a copy (its card list too)."""
    return {**action, "cards": list(action["cards"])} if "cards" in action else dict(action)


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    """What ``seat`` may do now: play on its turn, call if it is not the placer."""
    if state.reason is not None or not (0 <= seat < state.players and state.active[seat]):
        return []
    actions = legal_plays(state, seat) if seat == state.turn else []
    play = state.last_play
    if play is not None and play.callable and play.seat != seat:
        actions.append({"type": "call"})
    return actions


def to_act(state: State) -> list[int]:
    """The seat on the clock first, then everyone who may call."""
    if state.reason is not None or state.turn is None:
        return []
    return [state.turn, *(s for s in _callers(state) if s != state.turn)]


# --- Leaving and the clock -------------------------------------------------


def on_leave(state: State, seat: int) -> list[Event]:
    """Their hand goes face down onto the pile; their last play can't be called."""
    if state.reason is not None or not (0 <= seat < state.players and state.active[seat]):
        return []
    hand, state.hands[seat] = state.hands[seat], []
    state.pile.extend(hand)
    state.active[seat] = False
    if state.last_play is not None and state.last_play.seat == seat:
        state.last_play.callable = False
    events = [Event("left", {"seat": seat, "to_pile": len(hand), "pile_size": len(state.pile)})]
    if sum(state.active) < 3:
        events.append(_end(state, None, "not_enough_players"))
    elif state.turn == seat:
        state.turn = _next_active(state, seat)
        events.append(_turn_event(state))
    return events


def timeout_play(state: State, seat: int) -> dict[str, Any]:
    """The play made for a seat whose time ran out (see the module docstring)."""
    hand = sorted(state.hands[seat], key=_by_rank)
    ranks = allowed_ranks(state)
    for rank in ranks:
        for card in hand:
            if card_rank(card) == rank:
                return {"type": "play", "cards": [card], "rank": rank}
    return {"type": "play", "cards": [hand[0]], "rank": ranks[0]}


def on_timeout(state: State, seat: int) -> list[Event]:
    """The seat on the clock places one card for itself; anyone else: nothing."""
    if state.reason is not None or seat != state.turn:
        return []
    action = timeout_play(state, seat)
    return [Event("timed_out", {"seat": seat}), *_play(state, seat, action["cards"], action["rank"])]


# --- What each seat may see ------------------------------------------------


def view(state: State, seat: int | None) -> dict[str, Any]:
    """Own hand, hand sizes, pile size, the last play's size and claim, whose turn.

    Never the pile's cards or another seat's hand; a spectator gets no hand.
    """
    return {**public_view(state), **seat_view(state, seat)}


def public_view(state: State) -> dict[str, Any]:
    """The part of every view that is the same for every recipient."""
    play = state.last_play
    return {
        "game": "cheat",
        "settings": {
            "decks": state.settings.decks,
            "rank_sequence": state.settings.rank_sequence,
            "turn_timer": state.settings.turn_timer,
            "max_players": state.settings.max_players,
        },
        "decks": state.decks,
        "hand_sizes": _hand_sizes(state),
        "active": [s for s in range(state.players) if state.active[s]],
        "pile_size": len(state.pile),
        "last_play": None
        if play is None
        else {"seat": play.seat, "count": len(play.cards), "rank": play.rank, "callable": play.callable},
        "callers": _callers(state),
        "ranks": allowed_ranks(state) if state.reason is None else [],
        "turn": state.turn,
        "winner": state.winner,
        "over": state.reason is not None,
        "reason": state.reason,
    }


def seat_view(state: State, seat: int | None, legal: bool = True) -> dict[str, Any]:
    """The part that depends on the recipient: its seat, and a player's hand, whether it may call and
    (unless ``legal`` is false: for a recipient that never reads them) its legal actions."""
    if seat is None or not 0 <= seat < state.players:
        return {"seat": seat}
    held, shown = _held(state, seat), state.hand_views.get(seat)
    if shown is None or shown[0] is not held:
        shown = state.hand_views[seat] = (held, [card_dict(c) for c in held])
    part: dict[str, Any] = {"seat": seat, "hand": shown[1].copy(), "can_call": _may_call(state, seat)}
    if legal:
        part["legal"] = legal_actions(state, seat)  # new dicts and lists on every call: no copy needed
    return part


def outcome(state: State) -> Outcome | None:
    """Winner and cards left per remaining seat; no winner if abandoned."""
    if state.reason is None:
        return None
    scores = {s: len(state.hands[s]) for s in range(state.players) if state.active[s]}
    winners = [] if state.winner is None else [state.winner]
    return Outcome(winners=winners, scores=scores, reason=state.reason)


def clone(state: State) -> State:
    """An independent copy: hands, pile and the last play copied, the frozen settings shared."""
    play = state.last_play
    return replace(
        state,
        rng=clone_rng(state.rng),
        hands=[hand.copy() for hand in state.hands],
        active=state.active.copy(),
        pile=state.pile.copy(),
        last_play=None if play is None else replace(play, cards=play.cards.copy()),
        calls=state.calls.copy(),
        calls_right=state.calls_right.copy(),
        caught=state.caught.copy(),
    )


# --- In words, for a game log ---------------------------------------------------

RANK_WORDS = ("Aces", "2s", "3s", "4s", "5s", "6s", "7s", "8s", "9s", "10s", "Jacks", "Queens", "Kings")
A_RANK = (
    *("an Ace", "a 2", "a 3", "a 4", "a 5", "a 6", "a 7"),
    *("an 8", "a 9", "a 10", "a Jack", "a Queen", "a King"),
)
"""One card's claim: "placed 1 card as an 8" (more: "as 8s")."""


def describe_event(event: dict[str, Any], names: Sequence[str]) -> str | None:
    """One game-log line per event (see ``Game.describe_event``)."""
    kind = event["type"]
    if kind == "dealt":
        return f"{sum(event['hand_sizes'])} cards dealt; {names[event['first']]} starts"
    if kind == "played":
        count, rank = event["count"], event["rank"]
        claim = A_RANK[rank] if count == 1 else RANK_WORDS[rank]
        return f"{names[event['seat']]} placed {_cards(count)} as {claim}"
    if kind == "called":
        caller, placer = names[event["caller"]], names[event["placer"]]
        verdict = "it was the truth" if event["truthful"] else "it was a lie"  # no pronoun: read as "you" too
        taker = names[event["picked_up_by"]]
        return f"{caller} called Cheat on {placer}: {verdict}; {taker} picks up {_cards(event['pile_count'])}"
    if kind == "left":
        return f"{names[event['seat']]} left; {_cards(event['to_pile'])} went onto the pile"
    if kind == "timed_out":
        return f"{names[event['seat']]} ran out of time"
    if kind == "game_over":
        if event["winner"] is None:
            return "Game over: not enough players to go on"
        return f"{names[event['winner']]} got rid of every card and wins"
    return None  # turn, picked_up (the call said it): not worth a line


def _cards(count: int) -> str:
    return f"{count} card{'s' if count != 1 else ''}"


# --- The engine object the room layer uses ---------------------------------


class Cheat:
    """The ``Game`` protocol, delegating to the rule functions above."""

    name = "cheat"
    title = "Cheat"
    how_to_play = (
        "On your turn place 1–4 cards face down and announce them as the next rank — truthfully or not. "
        "Anyone may call Cheat on the last play: the cards are shown, and a liar picks up the pile (else "
        "the caller does). Get rid of all your cards to win."
    )
    leave_rule = (
        "A leaver's cards go face down onto the pile and the others play on; with fewer than three players "
        "left, the game ends with no winner."
    )
    end_reasons = (("not_enough_players", "Too few players were left to go on."),)
    min_players = 3
    max_players = 10
    settings_schema = SCHEMA
    score_label = "cards left"
    scores_add_up = False
    secret_fields: tuple[str, ...] = ("hand",)
    revealing_events: tuple[str, ...] = ("called",)  # a call shows the placed cards to everyone
    has_catches = False
    stat_labels: tuple[tuple[str, str], ...] = (
        ("calls", "Cheat calls"),
        ("calls_right", "Calls that caught a lie"),
        ("caught_lying", "Caught lying"),
    )
    stat_rates: tuple[tuple[str, str, str, str], ...] = (
        ("call_accuracy", "Call accuracy", "calls_right", "calls"),
    )

    def settings(self, raw: Any) -> Settings:
        return parse_settings(raw)

    def default_capacity(self, settings: Settings) -> int:
        return settings.max_players

    def turn_timer(self, settings: Settings) -> int:
        return settings.turn_timer

    def setup(self, settings: Any, players: Any, rng: random.Random, opener: int = 0) -> State:
        """The deal and a random first player, as the rules say (``opener`` is not used)."""
        if not isinstance(settings, Settings):
            settings = parse_settings(settings)
        return setup(settings, players, rng)

    def start_events(self, state: State) -> list[Event]:
        return start_events(state)

    def parse_action(self, raw: Any) -> dict[str, Any]:
        return parse_action(raw)

    def format_action(self, action: dict[str, Any]) -> dict[str, Any]:
        return format_action(action)

    def legal_actions(self, state: State, seat: int) -> list[dict[str, Any]]:
        return legal_actions(state, seat)

    def apply(self, state: State, seat: Any, action: Any) -> list[Event]:
        return apply(state, seat, action)

    def pause(self, state: State) -> int:
        return 0  # no rests: the game goes on move by move

    def to_act(self, state: State) -> list[int]:
        return to_act(state)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view(state, seat)

    def public_view(self, state: State) -> dict[str, Any]:
        return public_view(state)

    def seat_view(self, state: State, seat: int | None) -> dict[str, Any]:
        return seat_view(state, seat)

    def seat_view_without_legal(self, state: State, seat: int | None) -> dict[str, Any]:
        """``seat_view`` less ``legal``, for a recipient that never reads it (``Sink.legal``): the legal
        plays of the seat on turn were most of a Cheat view's cost."""
        return seat_view(state, seat, legal=False)

    def on_leave(self, state: State, seat: int) -> list[Event]:
        return on_leave(state, seat)

    def on_timeout(self, state: State, seat: int) -> list[Event]:
        return on_timeout(state, seat)

    def outcome(self, state: State) -> Outcome | None:
        return outcome(state)

    def clone(self, state: State) -> State:
        return clone(state)

    def player_stats(self, state: State, outcome: Outcome, seat: int) -> dict[str, int]:
        return {
            "calls": state.calls[seat],
            "calls_right": state.calls_right[seat],
            "caught_lying": state.caught[seat],
        }

    def slip_target(self, action: Any) -> int | None:
        return None  # nothing to catch anyone out on

    def describe_event(self, event: dict[str, Any], names: Sequence[str]) -> str | None:
        return describe_event(event, names)


GAME = Cheat()
