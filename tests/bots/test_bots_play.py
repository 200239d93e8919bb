"""Bots of every registered game finish games under each of its settings (drawn from its schema), only
ever choosing listed actions, and only ever given what their seat may see."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from parlour.bots import Bot, make_bot
from parlour.bots.catalog import CATALOG, get_game
from parlour.bots.simulate import run
from parlour.games import Event, Game
from parlour.games.base import SettingKind
from tests.contains import contains


def _variants(game: Game) -> list[dict[str, Any]]:
    """From the game's own settings schema: the defaults, then each setting changed alone — every flag
    turned, every choice, an integer's lowest value — and everything turned at once (with the lowest
    integers, so matches stay short)."""
    out: list[dict[str, Any]] = [{}]
    together: dict[str, Any] = {}
    for setting in game.settings_schema:
        if setting.hidden or setting.key == "turn_timer":
            continue  # the room's concerns, not the rules'
        if setting.kind is SettingKind.BOOL:
            values: list[Any] = [not setting.default]
        elif setting.kind is SettingKind.CHOICE:
            values = [value for value, _ in setting.options if value != setting.default]
        else:
            values = [setting.low] if setting.low != setting.default else []
        out += [{setting.key: value} for value in values]
        if values:
            together[setting.key] = values[0]
    return [*out, together]


def _player_counts(game: Game) -> list[int]:
    return sorted({game.min_players, min(game.max_players, game.min_players + 2)})


CASES: list[tuple[str, int, dict[str, Any], int]] = [
    (name, players, raw, 3)
    for name, listing in CATALOG.items()
    if listing.bots
    for raw in _variants(listing.game)
    for players in _player_counts(listing.game)
    if players <= listing.game.default_capacity(listing.game.settings(raw))
]


class Inspecting(Bot):
    """Wraps a bot: checks every view and event it is given against the engine, and every action."""

    def __init__(self, inner: Bot, game: Any, state: Any, players: int) -> None:
        super().__init__(inner.seat, inner.rng)
        self.inner, self.engine, self.state, self.players = inner, game, state, players
        self.actions = 0

    def choose(self, view: dict[str, Any], legal: list[Any]) -> Any:
        assert view == self.engine.view(self.state, self.seat)
        assert legal == self.engine.legal_actions(self.state, self.seat)
        _assert_only_own_cards(self.engine, self.state, self.seat, view, self.players)
        action = self.inner.choose(view, legal)
        if action is not None:
            assert action in legal, f"{action} is not listed"
            self.actions += 1
        return action

    def observe(self, events: list[dict[str, Any]]) -> None:
        self.inner.observe(events)


def _assert_only_own_cards(engine: Any, state: Any, seat: int, view: dict[str, Any], players: int) -> None:
    """No item of another seat's secret fields (its hand, by the game's contract) is in this seat's view."""
    for other in range(players):
        if other == seat:
            continue
        theirs = engine.view(state, other)
        for key in engine.secret_fields:
            assert not [item for item in theirs.get(key) or [] if contains(view, item)], (seat, other)


class CheckedGame:
    """The engine, with every batch of events checked: each seat's copy is ``Event.for_seat`` and carries
    no other seat's private part."""

    def __init__(self, engine: Any, players: int) -> None:
        self.engine, self.players = engine, players

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def apply(self, state: Any, seat: int, action: Any) -> list[Event]:
        events = self.engine.apply(state, seat, action)
        for e in events:
            for viewer in range(self.players):
                seen = e.for_seat(viewer)
                for other, private in e.private.items():
                    if other != viewer:
                        for key in private:
                            if key not in e.public and key not in e.private.get(viewer, {}):
                                assert key not in seen
        return events


@pytest.mark.parametrize(("game", "players", "raw", "games"), CASES, ids=lambda v: json.dumps(v))
@pytest.mark.parametrize("levels", [("hard", "easy"), ("hard", "hard")], ids="-".join)
def test_bots_finish_games_with_listed_actions_and_own_cards_only(
    game: str, players: int, raw: dict[str, Any] | None, games: int, levels: tuple[str, str]
) -> None:
    engine = get_game(game)
    settings = engine.settings(raw)
    checked = CheckedGame(engine, players)
    for g in range(games):
        rng = random.Random(f"{game}{players}{raw}{levels}{g}")
        state = engine.setup(settings, players, rng)
        bots = [
            Inspecting(
                make_bot(game, levels[s % 2], s, random.Random(rng.getrandbits(32))), engine, state, players
            )
            for s in range(players)
        ]
        outcome, actions = run(checked, state, bots, rng, max_actions=5_000)  # type: ignore[arg-type]
        assert outcome is not None, "the game did not finish"
        assert outcome.winners or outcome.tie
        assert actions == sum(b.actions for b in bots)
