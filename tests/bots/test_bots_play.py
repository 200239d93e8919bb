"""Bots finish games of every game and setting combination, only ever choosing listed actions, and only
ever given what their seat may see."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

from parlour.bots import Bot, make_bot
from parlour.bots.catalog import get_game
from parlour.bots.simulate import run
from parlour.games import Event

UNO_FLAGS = ["stacking", "jump_in", "seven_swap", "zero_rotate", "forced_play", "draw_until_playable"]


def _uno_settings() -> list[dict[str, Any]]:
    """Every house rule on and off in pairs, with and without the challenge, single rounds."""
    out = []
    for a, b in itertools.combinations([*UNO_FLAGS, None], 2):
        for challenge in (True, False):
            raw: dict[str, Any] = {"target_score": 0, "challenge_wild_draw4": challenge}
            raw.update({f: True for f in (a, b) if f})
            out.append(raw)
    out.append({**dict.fromkeys(UNO_FLAGS, True), "target_score": 0})
    return out


CASES: list[tuple[str, int, dict[str, Any] | None, int]] = [
    *(("uno", n, s, 2) for n in (2, 4) for s in _uno_settings()),
    ("uno", 2, {"target_score": 200}, 4),  # a match over several rounds
    *(
        ("cheat", n, {"rank_sequence": seq}, 8)
        for n in (3, 4, 7)
        for seq in ("ascending", "up_or_down", "any")
    ),
    ("cheat", 4, {"decks": 2}, 8),
    *(
        ("dots", n, {"width": w, "height": h, "max_players": 8}, g)
        for n in (2, 3)
        for w, h, g in ((2, 2, 10), (4, 4, 4), (6, 5, 3))
    ),
    ("dots", 2, {"width": 9, "height": 9}, 3),
]


class Inspecting(Bot):
    """Wraps a bot: checks every view and event it is given against the engine, and every action."""

    def __init__(self, inner: Bot, game: Any, state: Any) -> None:
        super().__init__(inner.seat, inner.rng)
        self.inner, self.engine, self.state = inner, game, state
        self.actions = 0

    def choose(self, view: dict[str, Any], legal: list[Any]) -> Any:
        assert view == self.engine.view(self.state, self.seat)
        assert legal == self.engine.legal_actions(self.state, self.seat)
        _assert_only_own_cards(self.engine.name, self.state, self.seat, view)
        action = self.inner.choose(view, legal)
        if action is not None:
            assert action in legal, f"{action} is not listed"
            self.actions += 1
        return action

    def observe(self, events: list[dict[str, Any]]) -> None:
        self.inner.observe(events)


def _assert_only_own_cards(game: str, state: Any, seat: int, view: dict[str, Any]) -> None:
    """The view's hand is exactly the seat's own; no other hand's card ids appear as cards anywhere."""
    if game == "dots":
        return
    own = sorted(c["id"] for c in view["hand"])
    assert own == sorted(state.hands[seat])
    others = {c for s, hand in enumerate(state.hands) if s != seat for c in hand}
    shown = _card_ids({k: v for k, v in view.items() if k != "hand"})
    public = {view["top"]["id"]} if game == "uno" else set()
    assert not (shown - public) & others


def _card_ids(obj: Any) -> set[int]:
    """Every ``id`` of a card-shaped dict nested in ``obj``."""
    found: set[int] = set()
    if isinstance(obj, dict):
        if "id" in obj and ("rank" in obj or "color" in obj):
            found.add(obj["id"])
        for v in obj.values():
            found |= _card_ids(v)
    elif isinstance(obj, list):
        for v in obj:
            found |= _card_ids(v)
    return found


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
            Inspecting(make_bot(game, levels[s % 2], s, random.Random(rng.getrandbits(32))), engine, state)
            for s in range(players)
        ]
        outcome, actions = run(checked, state, bots, rng, max_actions=5_000)  # type: ignore[arg-type]
        assert outcome is not None, "the game did not finish"
        assert outcome.winners or outcome.tie
        assert actions == sum(b.actions for b in bots)
