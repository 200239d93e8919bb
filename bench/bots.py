"""Bot strength benchmark (not a test): ``python bench/bots.py [--only NAME ...] [--games-* K]``.

* ``hard-easy``: hard against easy in each game (``parlour.bots.simulate``).
* ``dots-mcts``: Dots hard against OpenSpiel's MCTSBot (random rollouts, 1,000 simulations) on
  3×3 boxes, alternating who moves first. Bar: ≥ 70% wins.
* ``uno-rlcard``: UNO hard against RLCard's ``uno-rule-v1`` agent, wrapped onto our engine's view,
  2 players, alternating seats. Bar: ≥ 55% wins.
* ``cheat-random``: Cheat hard against three random-legal bots, 4 players. Bar: hard wins at least
  twice as often as a random seat.
* ``cheat-bluff``: Cheat hard, then easy, against three bold bluffers (a human's style: half their
  plays lies, of one to three cards, whatever they hold), 4 players. Bar: hard wins at least its fair
  share (25%).
* ``dots-time``: the hard Dots bot's CPU time per move, hard against hard over whole games on large
  boards (no search there) and on small ones (searched late game). Bar: every move ≤ 50 ms.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import time
from typing import Any

from parlour.bots import make_bot
from parlour.bots.base import Bot
from parlour.bots.catalog import get_game
from parlour.bots.cheat import proven_or_last
from parlour.bots.simulate import SimResult, play, simulate
from parlour.games.dots import line_xyd


def openspiel_action(xyd: tuple[int, int, int], width: int, height: int) -> int:
    """Our line (x, y, d) as OpenSpiel's dots_and_boxes action id.

    Found by experiment: with R×C boxes, horizontal lines come first in row-major order
    (``"h", row, col`` = our (col, row, 0) → row*C + col), then vertical ones
    (``"v", row, col`` = our (col, row, 1) → (R+1)*C + row*(C+1) + col).
    """
    x, y, d = xyd
    rows, cols = height - 1, width - 1
    return y * cols + x if d == 0 else (rows + 1) * cols + y * (cols + 1) + x


def dots_vs_mcts(games: int, sims: int, seed: int, log: Any) -> dict[str, Any]:
    """Hard (our seat alternates 0/1) against MCTS; both engines are stepped in lockstep."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts

    width = height = 4
    spiel_game = pyspiel.load_game("dots_and_boxes", {"num_rows": height - 1, "num_cols": width - 1})
    engine = get_game("dots")
    settings = engine.settings({"width": width, "height": height})
    to_ours = {
        openspiel_action(line_xyd(lid), width, height): lid
        for lid in engine.setup(settings, 2, random.Random()).free
    }
    wins = ties = 0
    started = time.perf_counter()
    for g in range(games):
        rng = random.Random(seed * 1_000_003 + g)
        ours = g % 2
        bot = make_bot("dots", "hard", ours, random.Random(rng.getrandbits(64)))
        np_rng = np.random.RandomState(rng.getrandbits(32))
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np_rng)
        opponent = mcts.MCTSBot(
            spiel_game, uct_c=2, max_simulations=sims, evaluator=evaluator, random_state=np_rng
        )
        state = engine.setup(settings, 2, rng)
        spiel = spiel_game.new_initial_state()
        while engine.outcome(state) is None:
            seat = engine.to_act(state)[0]
            assert spiel.current_player() == seat, "engines disagree on whose turn it is"
            if seat == ours:
                line = bot.choose(engine.view(state, seat), engine.legal_actions(state, seat))
                spiel.apply_action(openspiel_action(line_xyd(line), width, height))
            else:
                action = opponent.step(spiel)
                spiel.apply_action(action)
                line = to_ours[action]
            engine.apply(state, seat, line)
        assert spiel.is_terminal()
        outcome = engine.outcome(state)
        assert outcome is not None
        if outcome.tie:
            ties += 1
        elif outcome.winners == [ours]:
            wins += 1
        print(f"  dots-mcts game {g + 1}/{games}: wins {wins} ties {ties}", file=log, flush=True)
    return {
        "games": games,
        "simulations": sims,
        "wins": wins,
        "ties": ties,
        "losses": games - wins - ties,
        "win_rate": wins / games,
        "seconds": round(time.perf_counter() - started, 1),
    }


_RL_COLOR = {"red": "r", "yellow": "y", "green": "g", "blue": "b"}
_RL_TRAIT = {
    "skip": "skip",
    "reverse": "reverse",
    "draw2": "draw_2",
    "wild": "wild",
    "wild-draw4": "wild_draw_4",
}
_OUR_COLOR = {v: k for k, v in _RL_COLOR.items()}


def _rl_card(card: dict[str, Any]) -> str:
    """Our card as RLCard's string: ``r-5``, ``g-draw_2``; Wilds in hand carry a placeholder colour."""
    trait = str(card["value"]) if card["type"] == "number" else _RL_TRAIT[card["type"]]
    return ("r" if card["color"] == "wild" else _RL_COLOR[card["color"]]) + "-" + trait


class RLCardRuleBot(Bot):
    """RLCard's ``uno-rule-v1`` agent (``UNORuleAgentV1``) playing our engine through the seat's view.

    Its legal actions are computed as RLCard computes them (matching cards and Wilds; Wild Draw Four
    only when nothing else matches; ``draw`` only when nothing can be played), and the rules RLCard
    does not have are answered as RLCard plays them: a drawn card that matches the colour, or a Wild,
    is played at once (RLCard does that automatically), a Wild Draw Four is accepted (RLCard has no
    challenge), UNO is always called (every play from two cards carries the call).
    """

    game = "uno"
    level = "rlcard-rule-v1"

    def __init__(self, seat: int, rng: random.Random) -> None:
        from rlcard.models.uno_rule_models import UNORuleAgentV1

        super().__init__(seat, rng)
        self.agent = UNORuleAgentV1()

    def choose(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any] | None:
        if not legal:
            return None
        by_type = {a["type"]: a for a in legal}
        if "call_uno" in by_type:
            return by_type["call_uno"]
        if view["turn"] != self.seat:
            return None
        if "accept" in by_type:
            return by_type["accept"]
        plays = [a for a in legal if a["type"] == "play"]
        if view["pending"]["draw_stack"]:
            return by_type["draw"]
        if view["pending"]["drawn_card_playable"]:
            card = next(c for c in view["hand"] if c["id"] == view["pending"]["drawn_card"])
            if card["color"] == "wild" or card["color"] == view["color"]:
                colour = self.rng.choice(list(_RL_COLOR))
                return next((a for a in plays if a.get("color") in (None, colour)), plays[0])
            return by_type["pass"]
        hand = view["hand"]
        top = view["top"]
        rl_legal: list[str] = []
        wild4: list[str] = []
        for card in hand:
            if card["type"] == "wild":
                rl_legal += [f"{c}-wild" for c in "rgby" if f"{c}-wild" not in rl_legal]
            elif card["type"] == "wild-draw4":
                wild4 = [f"{c}-wild_draw_4" for c in "rgby"]
            elif card["color"] == view["color"] or (
                top["color"] != "wild" and _rl_card(card).split("-")[1] == _rl_card(top).split("-")[1]
            ):
                rl_legal.append(_rl_card(card))
        rl_legal = rl_legal or wild4 or ["draw"]
        choice = self.agent.step(
            {"raw_legal_actions": rl_legal, "raw_obs": {"hand": [_rl_card(c) for c in hand]}}
        )
        if choice == "draw":
            return by_type["draw"]
        colour, trait = choice.split("-", 1)
        for a in plays:
            card = next(c for c in hand if c["id"] == a["card"])
            if trait in ("wild", "wild_draw_4"):
                if _RL_TRAIT[card["type"]] == trait and a.get("color") == _OUR_COLOR[colour]:
                    return a
            elif _rl_card(card) == choice:
                return a
        raise AssertionError(f"RLCard chose {choice}, which our engine does not list")


def uno_vs_rlcard(games: int, seed: int) -> dict[str, Any]:
    """Hard against the RLCard rule agent, 2 players, one round per game, seats alternating."""
    import numpy as np

    np.random.seed(seed)  # the agent draws its random choices from numpy's global generator
    engine = get_game("uno")
    settings = engine.settings({"target_score": 0})
    wins = 0
    actions = 0
    started = time.perf_counter()
    for g in range(games):
        rng = random.Random(seed * 1_000_003 + g)
        ours = g % 2
        bots: list[Bot] = [
            make_bot("uno", "hard", s, random.Random(rng.getrandbits(64)))
            if s == ours
            else RLCardRuleBot(s, random.Random(rng.getrandbits(64)))
            for s in range(2)
        ]
        outcome, n = play(engine, settings, bots, rng)
        actions += n
        wins += outcome is not None and outcome.winners == [ours]
    return _rate(wins, games) | {
        "average_actions": round(actions / games, 1),
        "seconds": round(time.perf_counter() - started, 1),
    }


def _rate(wins: float, games: int) -> dict[str, Any]:
    result = SimResult("", 2, ["x"], games, wins=[wins])
    lo, hi = result.interval(0)
    return {
        "games": games,
        "wins": wins,
        "win_rate": round(wins / games, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
    }


def cheat_vs_random(games: int, seed: int) -> dict[str, Any]:
    """Hard against three random-legal bots, 4 players (seats rotate)."""
    started = time.perf_counter()
    r = simulate("cheat", 4, ["hard", "random", "random", "random"], games, seed)
    random_rate = sum(r.wins[1:]) / 3 / games
    return _rate(r.wins[0], games) | {
        "random_seat_win_rate": round(random_rate, 4),
        "ratio": round(r.rate(0) / random_rate, 2) if random_rate else None,
        "seconds": round(time.perf_counter() - started, 1),
    }


class CheatBluffer(Bot):
    """A bold human's style, for the bots to face: on its turn it lies half the time, one to three cards
    from anywhere in its hand claimed as the first allowed rank, and otherwise plays all it holds of an
    allowed rank, if any; off its turn it calls like the easy bot (what its hand proves false, a last
    card)."""

    game = "cheat"
    level = "bluffer"

    def choose(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any] | None:
        if not legal:
            return None
        call = proven_or_last(view, legal)
        if call is not None:
            return call
        if view["turn"] != self.seat:
            return None
        hand = [c["id"] for c in view["hand"]]
        ranks = view["ranks"]
        honest = [r for r in ranks if any(c["rank"] == r for c in view["hand"])]
        if honest and (len(hand) <= 4 or self.rng.random() < 0.5):
            rank = honest[0]
            cards = [c["id"] for c in view["hand"] if c["rank"] == rank][:4]
            return {"type": "play", "cards": cards, "rank": rank}
        cards = self.rng.sample(hand, min(len(hand), self.rng.choice((1, 1, 2, 3))))
        return {"type": "play", "cards": cards, "rank": ranks[0]}


def cheat_vs_bluffers(games: int, seed: int, level: str) -> dict[str, Any]:
    """One ``level`` bot against three :class:`CheatBluffer` seats, 4 players (its seat rotates)."""
    started = time.perf_counter()
    engine = get_game("cheat")
    settings = engine.settings(None)
    master = random.Random(seed)
    wins = 0.0
    for g in range(games):
        rng = random.Random(master.getrandbits(64))
        seat = g % 4
        bots: list[Bot] = [
            make_bot("cheat", level, s, random.Random(rng.getrandbits(64)))
            if s == seat
            else CheatBluffer(s, random.Random(rng.getrandbits(64)))
            for s in range(4)
        ]
        outcome, _ = play(engine, settings, bots, rng)
        if outcome is not None and seat in outcome.winners:
            wins += 1 / len(outcome.winners)
    return _rate(wins, games) | {"fair_share": 0.25, "seconds": round(time.perf_counter() - started, 1)}


HARD_EASY = [
    ("dots", 2, None),
    ("uno", 2, {"target_score": 0}),
    ("uno", 4, {"target_score": 0}),
    ("cheat", 4, None),
]


def hard_vs_easy(games: int, seed: int) -> dict[str, Any]:
    """One hard seat against easy ones in each game (seats rotate)."""
    out = {}
    for game, players, settings in HARD_EASY:
        started = time.perf_counter()
        r = simulate(game, players, ["hard", "easy"], games, seed, settings)
        out[f"{game}_{players}p"] = _rate(r.wins[0], games) | {
            "fair_share": round(1 / players, 4),
            "seconds": round(time.perf_counter() - started, 1),
        }
    return out


def dots_move_time(
    seed: int, sizes: tuple[tuple[int, int], ...] = ((50, 50), (50, 2), (20, 35), (6, 6), (4, 4))
) -> dict[str, Any]:
    """CPU time of each of the hard Dots bot's moves over one hard-vs-hard game per board size (the
    collector held off while a move is timed, as ``serve`` freezes its heap)."""
    game = get_game("dots")
    out: dict[str, Any] = {}
    for width, height in sizes:
        rng = random.Random(seed)
        bots = [make_bot("dots", "hard", s, random.Random(seed + s)) for s in range(2)]
        state = game.setup(game.settings({"width": width, "height": height}), 2, rng)
        took: list[float] = []
        while game.outcome(state) is None:
            seat = game.to_act(state)[0]
            view, legal = game.view(state, seat), game.legal_actions(state, seat)
            gc.collect()
            gc.disable()
            try:
                start = time.thread_time()
                line = bots[seat].choose(view, legal)
                took.append(time.thread_time() - start)
            finally:
                gc.enable()
            game.apply(state, seat, line)
        out[f"{width}x{height}"] = {
            "moves": len(took),
            "mean_ms": round(1000 * sum(took) / len(took), 3),
            "slowest_ms": round(1000 * max(took), 3),
            "bar_50ms_met": max(took) <= 0.050,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=["hard-easy", "dots-mcts", "uno-rlcard", "cheat-random", "cheat-bluff", "dots-time"],
    )
    parser.add_argument("--games-easy", type=int, default=1000, help="games per game for hard vs easy")
    parser.add_argument("--games-mcts", type=int, default=200)
    parser.add_argument("--mcts-sims", type=int, default=1000)
    parser.add_argument("--games-rlcard", type=int, default=5000)
    parser.add_argument("--games-cheat", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    chosen = args.only or ["hard-easy", "dots-mcts", "uno-rlcard", "cheat-random", "dots-time"]
    results: dict[str, Any] = {}
    if "hard-easy" in chosen:
        results["hard_vs_easy"] = hard_vs_easy(args.games_easy, args.seed)
    if "uno-rlcard" in chosen:
        results["uno_vs_rlcard_rule_v1"] = uno_vs_rlcard(args.games_rlcard, args.seed)
    if "cheat-random" in chosen:
        results["cheat_vs_random"] = cheat_vs_random(args.games_cheat, args.seed)
    if "cheat-bluff" in chosen:
        results["cheat_vs_bluffers"] = {
            level: cheat_vs_bluffers(args.games_cheat, args.seed, level) for level in ("hard", "easy")
        }
    if "dots-mcts" in chosen:
        results["dots_vs_mcts"] = dots_vs_mcts(args.games_mcts, args.mcts_sims, args.seed, sys.stderr)
    if "dots-time" in chosen:
        results["dots_move_time"] = dots_move_time(args.seed)
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
