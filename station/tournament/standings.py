"""Standings and Swiss pairings from the results: 3 points a win, 1 a draw, 0 a loss (a bye is a
win); ties broken by Buchholz (the sum of the opponents' points), then by wins, then by name.

Pairing for the next round (Swiss): players in standing order, each paired with the highest one
below who has not met them yet, backtracking when the last ones would have to meet again; an odd
player out gets a bye, the lowest-standing one who has not had one."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
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
        }


def standings(results: Iterable[Mapping[str, Any]], players: Iterable[str] = ()) -> list[Standing]:
    """Every player's record, best first."""
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
        for me, them in ((first, b), (second, a)):
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
    return sorted(table.values(), key=lambda s: (-s.points, -s.buchholz, -s.wins, s.player))


def swiss_pairings(ranked: Sequence[Standing], tables: Sequence[str]) -> list[tuple[str, str, str | None]]:
    """(table, player, opponent or None for a bye) for the next round."""
    players = [s.player for s in ranked]
    met = {s.player: set(s.opponents) for s in ranked}
    bye: str | None = None
    if len(players) % 2:
        bye = next((p for p in reversed(players) if not ranked[players.index(p)].byes), players[-1])
        players.remove(bye)
    pairs = _pair(players, met) or _pair(players, {p: set() for p in players}) or []
    names = list(tables) + [f"table-{k + 1}" for k in range(len(tables), len(pairs) + 1)]
    out: list[tuple[str, str, str | None]] = [(names[k], a, b) for k, (a, b) in enumerate(pairs)]
    if bye is not None:
        out.append(("bye", bye, None))
    return out


def _pair(players: list[str], met: Mapping[str, set[str]]) -> list[tuple[str, str]] | None:
    """Pairs with no rematch, top down, backtracking; None if there are none."""
    if not players:
        return []
    top, rest = players[0], players[1:]
    for k, other in enumerate(rest):
        if other in met.get(top, set()):
            continue
        tail = _pair(rest[:k] + rest[k + 1 :], met)
        if tail is not None:
            return [(top, other), *tail]
    return None


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads as the start of a formula


def as_data(cell: str) -> str:
    """A text cell a spreadsheet shows as text, never runs (OWASP's advice on CSV injection): one
    that begins like a formula gets a leading apostrophe, which the spreadsheet hides."""
    return "'" + cell if cell.startswith(FORMULA_START) else cell


def as_csv(ranked: Sequence[Standing]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["rank", "player", "points", "buchholz", "played", "wins", "draws", "losses", "byes"])
    for k, s in enumerate(ranked, 1):
        writer.writerow([k, as_data(s.player), s.points, s.buchholz, s.played, s.wins, s.draws, s.losses, s.byes])
    return out.getvalue()
