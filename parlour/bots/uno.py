"""UNO bots. ``easy`` plays a random matching card; ``hard`` plays the hand the way a careful player does.

Both work from the seat's view (own hand, counts, top card, pending penalty) and the events the seat
received; the hard bot remembers the discard pile since the last reshuffle, who drew on which colour,
and how each opponent's Wild Draw Fours turned out when challenged.
"""

from __future__ import annotations

import random
from typing import Any

from parlour.bots.base import Bot
from parlour.games.uno import CARDS, COLORS

Act = dict[str, Any]
_POINTS = {"skip": 20, "reverse": 20, "draw2": 20, "wild": 50, "wild-draw4": 50}


def _plays(legal: list[Act]) -> list[Act]:
    return [a for a in legal if a["type"] == "play"]


def _find(legal: list[Act], kind: str) -> Act | None:
    return next((a for a in legal if a["type"] == kind), None)


def _color_counts(hand: list[dict[str, Any]], without: int | None = None) -> dict[str, int]:
    """Cards per colour in the hand (Wilds not counted), optionally leaving one card out."""
    counts = dict.fromkeys(COLORS, 0)
    for c in hand:
        if c["color"] != "wild" and c["id"] != without:
            counts[c["color"]] += 1
    return counts


def _next_seat(view: dict[str, Any], seat: int) -> int:
    """The next active seat after ``seat`` in the current direction."""
    n, d, active = view["players"], view["direction"], view["active"]
    s = (seat + d) % n
    while not active[s]:
        s = (s + d) % n
    return s


class EasyUnoBot(Bot):
    """Plays a random playable card (naming its most-held colour), else draws; calls UNO, never catches."""

    game = "uno"
    level = "easy"

    def choose(self, view: dict[str, Any], legal: list[Act]) -> Act | None:
        if not legal:
            return None
        call = _find(legal, "call_uno")
        if call is not None:
            return call
        if view["turn"] != self.seat:
            return None  # no jump-ins, no catching
        accept = _find(legal, "accept")
        if accept is not None:
            return accept
        plays = _plays(legal)
        if view["pending"]["draw_stack"] or not plays:
            return _find(legal, "draw") or _find(legal, "pass") or self.rng.choice(legal)
        counts = _color_counts(view["hand"])
        best = max(counts, key=lambda c: counts[c])
        plays = [a for a in plays if a.get("color") in (None, best)]
        return self.rng.choice(plays)


class HardUnoBot(Bot):
    """Keeps Wilds for when they matter, names its most-held colour, hits a player close to going out
    with draw cards, challenges a Wild Draw Four when the odds favour it, always calls UNO, catches
    others, and uses the house rules the room gave it (stacking, jump-in, seven swap, zero rotate)."""

    game = "uno"
    level = "hard"

    CHALLENGE_AT = 0.22
    """Challenge when P(guilty) beats this: winning costs them 4 and gives us a turn; losing costs us 2."""

    def __init__(self, seat: int, rng: random.Random) -> None:
        super().__init__(seat, rng)
        self.discards: list[int] = []  # card ids in the discard pile since the last reshuffle
        self.color: str | None = None
        self.color_before: str | None = None  # the colour in force before the last play
        self.lacks: dict[int, set[str]] = {}  # colours a seat drew on instead of playing
        self.bluffs: dict[int, list[int]] = {}  # per seat: [guilty, innocent] challenge results

    def observe(self, events: list[dict[str, Any]]) -> None:
        for e in events:
            kind = e["type"]
            if kind == "deal":
                self.discards, self.lacks = [], {}
            elif kind == "first_card":
                self.discards = [e["card"]["id"]]
                self.color = e["color"]
            elif kind == "play":
                self.color_before, self.color = self.color, e["color"]
                self.discards.append(e["card"]["id"])
                self.lacks.get(e["seat"], set()).discard(e["color"])
            elif kind == "reshuffle":
                self.discards = self.discards[-1:]
            elif kind == "draw" and e["reason"] == "draw" and e["seat"] != self.seat and self.color:
                self.lacks.setdefault(e["seat"], set()).add(self.color)
            elif kind in ("swap", "rotate"):
                self.lacks = {}
            elif kind == "challenge":
                record = self.bluffs.setdefault(e["offender"], [0, 0])
                record[0 if e["guilty"] else 1] += 1

    # ------------------------------------------------------------------ decisions

    def choose(self, view: dict[str, Any], legal: list[Act]) -> Act | None:
        if not legal:
            return None
        catch = _find(legal, "catch")
        if catch is not None:
            return catch
        call = _find(legal, "call_uno")
        if call is not None:
            return call
        plays = _plays(legal)
        if view["turn"] != self.seat:
            return self._best(view, plays) if plays else None  # jump in whenever we can
        pending = view["pending"]
        if pending["challenge"] is not None:
            if plays:
                return self._best(view, plays)  # stack the Wild Draw Four onwards
            odds = self._guilty_odds(view, pending["challenge"]["offender"])
            return _find(legal, "challenge" if odds > self.CHALLENGE_AT else "accept")
        if pending["draw_stack"]:
            return self._best(view, plays) if plays else _find(legal, "draw")
        if pending["drawn_card_playable"]:
            play = self._best(view, plays) if plays else None
            passing = _find(legal, "pass")
            if play is None or (passing is not None and self._score(view, play, drawn=True) < 0):
                return passing or play
            return play
        if not plays:
            return _find(legal, "draw")
        best = self._best(view, plays)
        draw = _find(legal, "draw")
        if draw is not None and self._score(view, best) < -20:
            return draw  # only a Wild we would rather keep: draw instead
        return best

    def _best(self, view: dict[str, Any], plays: list[Act]) -> Act:
        """The highest-scoring play, with a Wild's colour and a Seven's target chosen well."""
        best, best_score = plays[0], -1e9
        for a in plays:
            card = CARDS[a["card"]]
            if card["color"] == "wild" and a.get("color") != self._name_color(view, a["card"]):
                continue
            if "target" in a and a["target"] != self._swap_target(view):
                continue
            s = self._score(view, a)
            if s > best_score:
                best, best_score = a, s
        return best

    def _name_color(self, view: dict[str, Any], wild: int) -> str:
        """Our most-held colour after the play (ties: one the next player lacks, then points)."""
        counts = _color_counts(view["hand"], without=wild)
        nxt_lacks = self.lacks.get(_next_seat(view, self.seat), set())
        points = dict.fromkeys(COLORS, 0)
        for c in view["hand"]:
            if c["color"] != "wild":
                points[c["color"]] += c["value"] if c["value"] is not None else 20
        return max(COLORS, key=lambda col: (counts[col], col in nxt_lacks, points[col]))

    def _swap_target(self, view: dict[str, Any]) -> int:
        """Seven Swap: the opponent holding the fewest cards."""
        counts, active = view["counts"], view["active"]
        others = [s for s in range(view["players"]) if s != self.seat and active[s]]
        return min(others, key=lambda s: counts[s])

    def _score(self, view: dict[str, Any], a: Act, drawn: bool = False) -> float:
        """How much we like a play; below zero means we would rather keep the card."""
        card = CARDS[a["card"]]
        hand = view["hand"]
        counts = view["counts"]
        settings = view["settings"]
        mine = len(hand)
        nxt = _next_seat(view, self.seat)
        threat = counts[nxt] <= 2 or min(counts[s] for s in range(view["players"]) if s != self.seat) <= 1
        others_playable = sum(
            1 for c in hand if c["color"] != "wild" and (c["color"] == view["color"] or _same_symbol(c, view))
        )
        if card["type"] in ("wild", "wild-draw4"):
            score = -30.0
            if card["type"] == "wild-draw4":
                legit = not any(c["color"] == view["color"] for c in hand)
                if not legit and settings["challenge_wild_draw4"]:
                    return 5.0 if threat and mine <= 3 else -100.0  # a bluff only when it might save the game
                score += 60 if counts[nxt] <= 3 else 15
            if others_playable == 0:
                score += 45
            if mine <= 2 or threat:
                score += 40
            return score
        score = 10 + 3 * _color_counts(hand, without=a["card"])[card["color"]]
        score += (card["value"] if card["value"] is not None else 20) / 5
        if card["color"] in self.lacks.get(nxt, set()):
            score += 4
        kind = card["type"]
        if kind == "draw2":
            score += 30 if counts[nxt] <= 3 else 3
        elif kind == "skip" or (kind == "reverse" and sum(view["active"]) == 2):
            score += 20 if counts[nxt] <= 3 else 2
            if mine == 2:
                score += 15  # keep the turn and go out next
        elif card["value"] == 7 and "target" in a:
            target = a["target"]
            score += 30 if counts[target] < mine - 1 else -25
        elif card["value"] == 0 and settings["zero_rotate"] and mine > 1:
            prev = _next_seat({**view, "direction": -view["direction"]}, self.seat)
            score += 3 * (mine - 1 - counts[prev])
        return score

    def _guilty_odds(self, view: dict[str, Any], offender: int) -> float:
        """P(the Wild Draw Four was a bluff): how likely their hand held the previous colour, weighed by
        how often players bluff at all (a prior of 1 in 10, updated by this offender's record)."""
        color = self.color_before
        if color is None:
            return 0.0
        unseen = [c for c in range(len(CARDS)) if c not in set(self.discards) and c not in _ids(view["hand"])]
        pool = len(unseen)
        of_color = sum(1 for c in unseen if CARDS[c]["color"] == color)
        k = view["counts"][offender]
        p_none = 1.0
        for i in range(k):
            p_none *= max(0, pool - of_color - i) / max(1, pool - i)
        p_had = 1 - p_none
        if color in self.lacks.get(offender, set()):
            p_had *= 0.3
        guilty, innocent = self.bluffs.get(offender, [0, 0])
        bluff_rate = (1 + guilty) / (10 + guilty + innocent)
        return bluff_rate * p_had / (bluff_rate * p_had + p_none) if p_had + p_none else 0.0


def _same_symbol(card: dict[str, Any], view: dict[str, Any]) -> bool:
    top = view["top"]
    return card["type"] == top["type"] and (card["type"] != "number" or card["value"] == top["value"])


def _ids(hand: list[dict[str, Any]]) -> set[int]:
    return {c["id"] for c in hand}


BOTS: dict[str, type[Bot]] = {"easy": EasyUnoBot, "hard": HardUnoBot}
