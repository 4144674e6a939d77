"""Standings and Swiss pairings from the results: 3 points a win, 1 a draw, 0 a loss (a bye is a
win).  Ties are broken in the order the judge chose (``TIEBREAKS``; by default points, then
Buchholz, the sum of the opponents' points, then wins, then the game's own score), then by name.

Pairing for the next round (Swiss): players in standing order, each paired with the highest one
below who has not met them yet (and, in a pool's first round, is not of their club),
backtracking when the last ones would have to meet again; an odd player out gets a bye, the
lowest-standing one who has not had one.  The rules are given up in that order when no pairing
keeps them: the club first, then the rematch."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

WIN, DRAW, LOSS = 3, 1, 0


@dataclass
class Standing:
    player: str
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    opponents: list[str] = field(default_factory=list)
    buchholz: int = 0
    score: float = 0.0  # the game's own score or victory points, summed over the games that gave one

    @property
    def points(self) -> int:
        return WIN * self.wins + DRAW * self.draws + LOSS * self.losses

    def as_dict(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "points": self.points,
            "buchholz": self.buchholz,
            "played": self.played,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "byes": self.byes,
            "score": self.score,
        }

    def key(self, order: Sequence[str]) -> tuple[Any, ...]:
        """How it sorts, best first, by the tiebreaks in ``order``, then by name."""
        return (*(-TIEBREAKS[name](self) for name in order), self.player)


# The tiebreaks a judge may put in order: each a number, more is better.
TIEBREAKS: dict[str, Callable[[Standing], float]] = {
    "points": lambda s: s.points,
    "wins": lambda s: s.wins,
    "sos": lambda s: s.buchholz,  # strength of schedule
    "score": lambda s: s.score,
}
DEFAULT_ORDER = ("points", "sos", "wins", "score")


def checked_order(order: Sequence[str]) -> tuple[str, ...]:
    """The judge's order of tiebreaks, each named once; ValueError naming what is wrong."""
    unknown = [name for name in order if name not in TIEBREAKS]
    if unknown or len(set(order)) != len(order) or not order:
        raise ValueError(f"tiebreaks must be some of {', '.join(TIEBREAKS)}, each once, not {list(order)}")
    return tuple(order)


def standings(
    results: Iterable[Mapping[str, Any]], players: Iterable[str] = (), order: Sequence[str] = DEFAULT_ORDER
) -> list[Standing]:
    """Every player's record, best first by the tiebreaks in ``order``."""
    table: dict[str, Standing] = {p: Standing(p) for p in players if p}
    for r in results:
        a, b, winner = r["a"], r.get("b"), r.get("winner")
        if not a:
            continue
        first = table.setdefault(a, Standing(a))
        if b is None:  # a bye
            first.byes += 1
            first.wins += 1
            first.played += 1
            continue
        second = table.setdefault(b, Standing(b))
        for me, them, score in ((first, b, r.get("score_a")), (second, a, r.get("score_b"))):
            me.score += score or 0
            me.played += 1
            me.opponents.append(them)
            if winner is None:
                me.draws += 1
            elif winner == me.player:
                me.wins += 1
            else:
                me.losses += 1
    for s in table.values():
        s.buchholz = sum(table[o].points for o in s.opponents if o in table)
    return sorted(table.values(), key=lambda s: s.key(order))


def swiss_pairs(
    ranked: Sequence[Standing], clubs: Mapping[str, str] | None = None
) -> tuple[list[tuple[str, str]], str | None]:
    """The next round's pairs of one pool, best first, and the player with a bye (or None).
    ``clubs``: each player's club, kept apart (a pool's first round)."""
    players = [s.player for s in ranked]
    bye: str | None = None
    if len(players) % 2:
        bye = next((s.player for s in reversed(ranked) if not s.byes), players[-1])
        players.remove(bye)
    met = {s.player: set(s.opponents) for s in ranked}
    apart = {p: {q for q in players if clubs and clubs.get(p) and clubs.get(q) == clubs.get(p)} for p in players}
    rules: list[Mapping[str, set[str]]] = [{p: met[p] | apart[p] for p in players}, met, {}]
    for avoid in rules:
        pairs = _pair(players, avoid)
        if pairs is not None:
            return pairs, bye
    raise AssertionError("with nothing to avoid, any players pair")


def _pair(players: list[str], avoid: Mapping[str, set[str]]) -> list[tuple[str, str]] | None:
    """Pairs with nobody meeting whom they avoid, top down, backtracking; None if there are none."""
    if not players:
        return []
    top, rest = players[0], players[1:]
    for k, other in enumerate(rest):
        if other in avoid.get(top, set()):
            continue
        tail = _pair(rest[:k] + rest[k + 1 :], avoid)
        if tail is not None:
            return [(top, other), *tail]
    return None


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads as the start of a formula


def as_data(cell: str) -> str:
    """A text cell a spreadsheet shows as text, never runs (OWASP's advice on CSV injection): one
    that begins like a formula gets a leading apostrophe, which the spreadsheet hides."""
    return "'" + cell if cell.startswith(FORMULA_START) else cell


def as_csv(ranked: Sequence[tuple[str, Standing]]) -> str:
    """Each game's players, ranked within the game."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        ["rank", "player", "points", "buchholz", "played", "wins", "draws", "losses", "byes", "score", "game"]
    )
    rank: dict[str, int] = {}
    for game, s in ranked:
        rank[game] = rank.get(game, 0) + 1
        row = [rank[game], as_data(s.player), s.points, s.buchholz, s.played, s.wins, s.draws, s.losses, s.byes]
        writer.writerow([*row, f"{s.score:g}", game])
    return out.getvalue()
