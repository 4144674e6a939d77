"""A round's pairings and results as the tournament keeps them (store.py's tables)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True)
class Pairing:
    """Two players at a table in a round (``b`` None: a bye), of a game's pool, with who plays
    first by the toss."""

    table: str
    a: str
    b: str | None
    game: str | None = None
    first: str | None = None


@dataclass(frozen=True)
class Result:
    """A game's result: ``winner`` None is a draw; ``reason`` one of station/game.py's RESULTS
    or "bye"; the scores are the game's own (victory points), when given."""

    round: int
    table: str
    a: str | None
    b: str | None
    winner: str | None
    reason: str | None = None
    score_a: float | None = None
    score_b: float | None = None


def put_result(db: sqlite3.Connection, result: Result, source: str) -> None:
    """The result of a round's table, replacing any before it; ``source``: table, judge or bye.
    A table's result counts at once, and waits for the judge's confirmation before the next
    round is paired (roster.py)."""
    r = result
    db.execute(
        "INSERT OR REPLACE INTO results (round, table_id, a, b, winner, source, reason, score_a, score_b, confirmed)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (r.round, r.table, r.a, r.b, r.winner, source, r.reason, r.score_a, r.score_b, source != "table"),
    )
