"""One battery for every registered game, in the spirit of OpenSpiel's api_test: whatever a game's rules,
the platform relies on the same promises (``parlour.games.base.Game``), so they are tested once, here.

Each example draws a game's settings from its own schema, a player count from its seat range and a seed,
then walks a random game: a listed action of any seat, now and then the clock running out or a player
leaving, and junk (listed actions with a field changed or dropped, for a seat at random). At every step:

* every view (each seat's and a spectator's) and every event is plain JSON, and each view is the shared
  ``public_view`` plus its ``seat_view``, without overlap (the server encodes the shared part once);
  a seat's view carries ``legal``, its listed actions in wire form, and a spectator's none; a game that
  offers ``seat_view_without_legal`` gives each recipient ``seat_view`` less ``legal``, nothing else changed;
* no item of a seat's ``secret_fields`` is in any other seat's view, a spectator's, or an event as they
  receive it (except in ``revealing_events``);
* listed actions (up to 8 per seat and step, at random) round-trip the wire —
  ``parse_action(format_action(a)) == a`` and back — and apply, to clones: a clone starts equal to its
  source and changing it leaves the source alone;
* a refused action raises ``IllegalAction`` and changes nothing anyone can see;
* ``describe_event`` has a line (or None) for every event.

At the end, replaying the seed and the accepted wire actions rebuilds the same game, event for event, so a
refused action cannot have changed anything unseen either (the random generator included).
"""

from __future__ import annotations

import random
from dataclasses import fields
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parlour.bots.catalog import CATALOG
from parlour.games.base import Event, Game, IllegalAction, InvalidSettings, Setting, SettingKind
from tests.contains import key, nodes

GAMES = sorted(CATALOG)
_SORTED = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS
MAX_STEPS = 150
Step = tuple[str, int, Any]  # ("act", seat, wire action) | ("timeout", seat, None) | ("leave", seat, None)


def _setting_values(setting: Setting) -> st.SearchStrategy[Any]:
    if setting.kind is SettingKind.BOOL:
        return st.booleans()
    if setting.kind is SettingKind.CHOICE:
        return st.sampled_from([value for value, _ in setting.options])
    values = st.integers(setting.low, setting.high)
    return st.one_of(st.just(0), values) if setting.off else values


@st.composite
def tables(draw: st.DrawFn, game: Game) -> tuple[dict[str, Any], int, int, int]:
    """Settings drawn from the game's own schema, a player count that fits them, a seed, the seat the
    room would have open the game."""
    raw = draw(st.fixed_dictionaries({}, optional={s.key: _setting_values(s) for s in game.settings_schema}))
    capacity = game.default_capacity(game.settings(raw))
    players = draw(st.integers(game.min_players, max(game.min_players, capacity)))
    return raw, players, draw(st.integers(0, 2**32 - 1)), draw(st.integers(0, players - 1))


def _plain(value: Any) -> Any:
    """``value`` as JSON gives it back; asserts it is JSON (no NaN, no tuples, string keys only). orjson,
    as the server encodes: it refuses keys other than strings and integers past 64 bits, writes NaN as
    null and a tuple as an array, and each of those comes back unequal."""
    text = orjson.dumps(value)
    back = orjson.loads(text)
    assert back == value and orjson.dumps(back) == text, value
    return back


def _recipients(players: int) -> list[int | None]:
    return [*range(players), None]


def _observable(game: Game, state: Any, players: int) -> bytes:
    """Everything anyone can learn of the state: every view, every seat's options, the clock, the end."""
    outcome = game.outcome(state)
    return orjson.dumps(
        {
            "views": [game.view(state, s) for s in _recipients(players)],
            "legal": [game.legal_actions(state, s) for s in range(players)],
            "to_act": game.to_act(state),
            "pause": game.pause(state),
            "outcome": None if outcome is None else repr(outcome),
        },
        option=_SORTED,
    )


def _events(events: list[Event], players: int) -> bytes:
    return orjson.dumps([[e.for_seat(s) for s in _recipients(players)] for e in events], option=_SORTED)


def _check_views(game: Game, state: Any, players: int) -> None:
    views = {s: _plain(game.view(state, s)) for s in _recipients(players)}
    public = game.public_view(state)
    lean = getattr(game, "seat_view_without_legal", None)  # optional (the ``Game`` docstring)
    for seat in _recipients(players):
        part = game.seat_view(state, seat)
        assert not public.keys() & part.keys() and views[seat] == {**public, **part}
        if lean is not None:
            brief = lean(state, seat)
            assert "legal" not in brief
            assert {**brief, **({"legal": part["legal"]} if "legal" in part else {})} == part
    assert "legal" not in views[None], "a spectator has no moves"
    for seat in range(players):  # a seat's moves, as it would send them, only in its own view
        assert views[seat]["legal"] == [game.format_action(a) for a in game.legal_actions(state, seat)]
    seen = {other: nodes(view) for other, view in views.items()}
    for seat in range(players):
        secrets = _secrets(game, views[seat])
        for other, found in seen.items():
            if other != seat:
                leaked = [item for item in secrets if key(item) in found]
                assert not leaked, (game.name, seat, other, leaked)


def _secrets(game: Game, view: dict[str, Any]) -> list[Any]:
    """The items of a seat's ``secret_fields`` in its own view."""
    return [item for field in game.secret_fields for item in view.get(field) or []]


def _check_events(game: Game, state: Any, players: int, events: list[Event]) -> None:
    names = [f"Player {s}" for s in range(players)]
    secrets = [_secrets(game, game.view(state, s)) for s in range(players)]
    for event in events:
        for viewer in _recipients(players):
            seen = _plain(event.for_seat(viewer))
            line = game.describe_event(seen, names)
            assert line is None or (isinstance(line, str) and line), (event, line)
            if event.type in game.revealing_events:
                continue
            found = nodes(seen)
            for seat in range(players):
                if seat != viewer:
                    assert not [item for item in secrets[seat] if key(item) in found], (event, viewer, seat)


def _check_actions(game: Game, state: Any, players: int, rng: random.Random) -> None:
    """Listed actions round-trip the wire, apply to a clone, and leave the original alone."""
    before = _observable(game, state, players)
    assert _observable(game, game.clone(state), players) == before
    for seat in range(players):
        legal = game.legal_actions(state, seat)
        for action in rng.sample(legal, min(8, len(legal))):
            wire = _plain(game.format_action(action))
            assert game.parse_action(wire) == action, (action, wire)
            assert game.format_action(game.parse_action(wire)) == wire
            game.apply(game.clone(state), seat, action)  # a listed action is accepted
            target = game.slip_target(action)  # if it punishes a slip, it names another seat
            assert target is None or (0 <= target < players and target != seat), (action, target)
    assert _observable(game, state, players) == before, "changing a clone changed its source"


def _junk(wire: dict[str, Any], rng: random.Random) -> Any:
    """A wire action with one field changed to a wrong value, or dropped, or not an object at all."""
    values = [None, -1, 10**6, 1.5, True, "x", [], {}, [0, 0], "play"]
    roll = rng.random()
    if roll < 0.05:
        return rng.choice(values)
    junk = dict(wire)
    field = rng.choice([*junk, "type", "extra"])
    if roll < 0.25 and field in junk:
        del junk[field]
    else:
        junk[field] = rng.choice(values)
    return junk


def _perform(game: Game, state: Any, step: Step) -> list[Event]:
    kind, seat, wire = step
    if kind == "timeout":
        return game.on_timeout(state, seat)
    if kind == "leave":
        return game.on_leave(state, seat)
    return game.apply(state, seat, game.parse_action(wire))


def _walk(game: Game, raw: dict[str, Any], players: int, seed: int, opener: int) -> None:
    rules = game.settings(raw)
    state = game.setup(rules, players, random.Random(seed), opener)
    rng = random.Random(seed ^ 0x5EED)
    log: list[tuple[Step, bytes]] = []
    start = game.start_events(state)
    _check_events(game, state, players, start)
    for _ in range(MAX_STEPS):
        _check_views(game, state, players)
        _check_actions(game, state, players, rng)
        options = [(s, a) for s in range(players) for a in game.legal_actions(state, s)]
        if game.outcome(state) is not None or not options:
            assert game.outcome(state) is not None, "nobody can act in an unfinished game"
            break
        seat, action = rng.choice(options)
        roll = rng.random()
        if roll < 0.03 and game.to_act(state):
            step: Step = ("timeout", game.to_act(state)[0], None)
        elif roll < 0.05:
            step = ("leave", rng.randrange(players), None)
        elif roll < 0.3:
            step = ("act", rng.randrange(players), _junk(game.format_action(action), rng))
        else:
            step = ("act", seat, game.format_action(action))
        before = _observable(game, state, players)
        try:
            events = _perform(game, state, step)
        except IllegalAction as refused:
            assert refused.code and refused.message
            assert _observable(game, state, players) == before, f"refused {step} changed the game"
            continue
        _check_events(game, state, players, events)
        log.append((step, _events(events, players)))
    outcome = game.outcome(state)
    if outcome is not None:  # every way a game ends is one the catalog can put into words
        assert outcome.reason == "finished" or outcome.reason in dict(game.end_reasons), outcome.reason
    # Replay: the same seed and the same accepted steps make the same game.
    replay = game.setup(rules, players, random.Random(seed), opener)
    assert _events(game.start_events(replay), players) == _events(start, players)
    for step, seen in log:
        assert _events(_perform(game, replay, step), players) == seen, step
    assert _observable(game, replay, players) == _observable(game, state, players)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_games_keep_the_contract(name: str, data: st.DataObject) -> None:
    game = CATALOG[name].game
    raw, players, seed, opener = data.draw(tables(game))
    _walk(game, raw, players, seed, opener)


@pytest.mark.parametrize("name", ["dots", "connect_four"])
def test_the_seat_the_room_names_opens_a_game_without_a_rule_for_it(name: str) -> None:
    """Connect Four and Dots & Boxes leave who starts to the table: the room's ``opener`` moves first
    (the room passes it round from game to game); a seat that is not at the table is refused."""
    game = CATALOG[name].game
    rules = game.settings({})
    for opener in (0, 1):
        state = game.setup(rules, 2, random.Random(5), opener)
        assert game.to_act(state) == [opener]
        assert [e.public for e in game.start_events(state) if e.type == "turn"] == [{"seat": opener}]
    for wrong in (2, -1):
        with pytest.raises(InvalidSettings):
            game.setup(rules, 2, random.Random(5), wrong)


@pytest.mark.parametrize("name", GAMES)
def test_the_settings_schema_is_what_the_engine_validates(name: str) -> None:
    """Defaults are the engine's, every listed value is accepted, and out-of-range values are refused."""
    game = CATALOG[name].game
    defaults = game.settings(None)
    assert game.settings({}) == defaults
    assert {f.name for f in fields(defaults)} == {s.key for s in game.settings_schema}
    for setting in game.settings_schema:
        assert getattr(defaults, setting.key) == setting.default, setting.key
        described = _plain(setting.describe())
        # A rule switched on or off, or chosen among options, says what it does (forms show it).
        if not setting.hidden and (setting.kind is not SettingKind.INT or setting.options):
            assert setting.help.endswith(".") and setting.help[0].isupper(), setting.key
        assert described.get("help") == (setting.help or None), setting.key
        good = [value for value, _ in setting.options]
        bad: list[Any] = [None, "x", 1.5, [setting.default]]
        if setting.kind is SettingKind.INT:
            good += [setting.low, setting.high]
            bad += [setting.high + 1, -1, True]
        elif setting.kind is SettingKind.BOOL:
            good, bad = [True, False], [*bad, 0, 1]
        for value in good:
            assert getattr(game.settings({setting.key: value}), setting.key) == value
        for value in bad:
            with pytest.raises(InvalidSettings, match=setting.key):
                game.settings({setting.key: value})
    with pytest.raises(InvalidSettings, match="unknown"):
        game.settings({"no_such_setting": 1})
    assert game.turn_timer(defaults) == 0
    assert game.turn_timer(game.settings({"turn_timer": 30})) == 30


@pytest.mark.parametrize("name", GAMES)
def test_a_game_describes_itself_for_the_catalog(name: str) -> None:
    listing = CATALOG[name]
    described = _plain(listing.describe())
    assert described["name"] == name and described["title"] and described["how_to_play"]
    assert described["leave_rule"].endswith(".")
    assert "finished" not in described["end_reasons"]
    assert all(text.endswith(".") for text in described["end_reasons"].values())
    assert listing.game.min_players <= described["default_capacity"] <= listing.game.max_players
    assert set(described["bots"]) <= set(listing.bots)
