"""The tournament's memory: SQLite (the standard library's sqlite3, one file, WAL), so a restart
of the tournament screen loses nothing.

Every journal record a table publishes is kept once, keyed by (table, journal, seq): the broker
may deliver a record twice (QoS 1) and a station sends again what the broker had not
acknowledged, and both are dropped here.  What a record means for the tournament (a game begun,
a result, a judge called) is applied in the same transaction as the record is kept, so it is
applied exactly once too.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..records import Kind
from .messages import Message
from .results import Pairing, Result, put_result

SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    table_id TEXT NOT NULL, journal TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL,
    body TEXT NOT NULL, received REAL NOT NULL, PRIMARY KEY (table_id, journal, seq));
CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY, state TEXT, health TEXT, updated REAL);
CREATE TABLE IF NOT EXISTS games (
    table_id TEXT NOT NULL, journal TEXT NOT NULL, round INTEGER NOT NULL, game TEXT, players TEXT NOT NULL,
    winner TEXT, ended INTEGER NOT NULL DEFAULT 0, started TEXT, PRIMARY KEY (table_id, journal));
CREATE TABLE IF NOT EXISTS rounds (number INTEGER PRIMARY KEY, opened REAL NOT NULL);
CREATE TABLE IF NOT EXISTS pairings (
    round INTEGER NOT NULL, table_id TEXT NOT NULL, a TEXT NOT NULL, b TEXT, PRIMARY KEY (round, table_id));
CREATE TABLE IF NOT EXISTS results (
    round INTEGER NOT NULL, table_id TEXT NOT NULL, a TEXT NOT NULL, b TEXT, winner TEXT,
    source TEXT NOT NULL, PRIMARY KEY (round, table_id));
CREATE TABLE IF NOT EXISTS judge_calls (
    table_id TEXT NOT NULL, journal TEXT NOT NULL, seq INTEGER NOT NULL, note TEXT, at TEXT,
    handled REAL, PRIMARY KEY (table_id, journal, seq));
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    name TEXT PRIMARY KEY, id TEXT NOT NULL UNIQUE, club TEXT NOT NULL, game TEXT NOT NULL, army TEXT,
    checked_in INTEGER NOT NULL DEFAULT 0, dropped INTEGER NOT NULL DEFAULT 0, registered REAL NOT NULL);
CREATE TABLE IF NOT EXISTS changes (
    at REAL NOT NULL, judge TEXT NOT NULL, what TEXT NOT NULL, round INTEGER, table_id TEXT,
    body TEXT NOT NULL, why TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rejects (
    received REAL NOT NULL, topic TEXT NOT NULL, reason TEXT NOT NULL, payload BLOB NOT NULL,
    digest TEXT NOT NULL UNIQUE);
"""
# Columns later versions added to a table, for a tournament file an older version wrote.
ADDED_COLUMNS = (
    ("pairings", "game", "TEXT"),
    ("pairings", "first", "TEXT"),  # who plays first, by the seeded toss (roster.py)
    ("results", "reason", "TEXT"),  # station/game.py RESULTS, or "bye"
    ("results", "score_a", "REAL"),  # the game's own score or victory points, if the judge gave them
    ("results", "score_b", "REAL"),
    ("results", "confirmed", "INTEGER NOT NULL DEFAULT 1"),  # a table's result waits for the judge (0)
)
KEPT_OF_A_REJECT = 1024  # bytes of a rejected message kept, to see what it was
REJECTS_KEPT = 1000  # the latest rejected messages kept; the counter counts them all


@dataclass(frozen=True)
class SetAside:
    """A message set aside, with why (subscriber.py)."""

    topic: str
    reason: str
    payload: bytes


Taken = Message | SetAside  # what one delivery comes to


def _bump(db: sqlite3.Connection, counter: str) -> None:
    db.execute("INSERT INTO counters VALUES (?, 1) ON CONFLICT(name) DO UPDATE SET value = value + 1", (counter,))


def _name(db: sqlite3.Connection, player: Any) -> Any:
    """A registered player's name for the id their army carries (roster.py); any other as it is."""
    if not isinstance(player, str):
        return player
    row = db.execute("SELECT name FROM players WHERE id = ?", (player,)).fetchone()
    return row[0] if row else player


def _round_open(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT COALESCE(MAX(number), 0) FROM rounds").fetchone()[0])


def _round_for_pairing(db: sqlite3.Connection) -> int:
    """The round open, if nothing was paired, played or scored in it yet, else the next."""
    number = _round_open(db)
    used = any(
        db.execute(f"SELECT 1 FROM {table} WHERE round = ? LIMIT 1", (number,)).fetchone()
        for table in ("pairings", "games", "results")
    )
    return number + 1 if used or number == 0 else number


def _add_columns(db: sqlite3.Connection) -> None:
    for table, column, kind in ADDED_COLUMNS:
        if column not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


class Marks:
    """Each journal's mark: the last seq kept with every one before it.  A gap (a record a broker
    lost) holds it, so the table sends again from there (publish.py).  Kept in memory, worked out
    from the records at start, so a commit costs no more statements for it."""

    def __init__(self, kept: Iterable[tuple[str, str, int]] = ()) -> None:
        self._mark: dict[tuple[str, str], int] = {}
        self._ahead: dict[tuple[str, str], set[int]] = {}
        self._newest: dict[str, str] = {}  # each table's journal last heard of
        for table, journal, seq in kept:
            self.kept(table, journal, seq)

    def kept(self, table: str, journal: str, seq: int) -> None:
        key = (table, journal)
        self._newest[table] = journal
        mark = self._mark.get(key, 0)
        if seq != mark + 1:
            if seq > mark:
                self._ahead.setdefault(key, set()).add(seq)
            return
        ahead = self._ahead.get(key, set())
        mark = seq
        while mark + 1 in ahead:
            mark += 1
            ahead.discard(mark)
        self._mark[key] = mark

    def newest(self) -> list[dict[str, Any]]:
        return [
            {"table": table, "journal": journal, "seq": self._mark.get((table, journal), 0)}
            for table, journal in sorted(self._newest.items())
        ]


class Store:
    """One SQLite file behind a lock: the subscriber writes from paho's thread, the pages read
    from the web server's threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")  # a record acknowledged to the broker is on disk
        self._db.execute("PRAGMA journal_size_limit=4194304")  # the WAL shrinks back after a checkpoint
        self._db.executescript(SCHEMA)
        _add_columns(self._db)
        self._lock = threading.Lock()
        self._marks = Marks(self._db.execute("SELECT table_id, journal, seq FROM records ORDER BY received"))
        if self.current_round() == 0:
            self.open_round()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def rows(self, sql: str, *args: Any) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(r) for r in self._db.execute(sql, args).fetchall()]

    # -- what the subscriber learns -----------------------------------------------------------------
    def keep(self, batch: Sequence[Taken]) -> list[bool]:
        """A batch of what the broker delivered, in one transaction (one synchronous commit for
        all): each record kept and applied once (False: it was already kept), each state or
        health the latest, each rejected message set aside.  All of it or none of it."""
        kept = []
        with self.transaction() as db:
            for taken in batch:
                if isinstance(taken, SetAside):
                    self._reject(db, taken)
                    kept.append(False)
                elif taken.what == "records":
                    kept.append(self._keep_record(db, taken.table, taken.body["journal"], taken.body["record"]))
                else:
                    self._keep_state(db, taken.table, taken.what, taken.body)
                    kept.append(False)
        with self._lock:  # committed: only now may the tables hear of it
            for taken, was_kept in zip(batch, kept, strict=True):
                if was_kept and isinstance(taken, Message):
                    self._marks.kept(taken.table, taken.body["journal"], taken.body["record"]["seq"])
        return kept

    def keep_record(self, table: str, journal: str, record: dict[str, Any]) -> bool:
        """Keep one record and apply what it means, once; False if it was already kept."""
        return self.keep([Message("records", table, {"journal": journal, "record": record})])[0]

    def keep_state(self, table: str, what: str, body: dict[str, Any]) -> None:
        """The latest retained ``state`` or ``health`` of a table."""
        self.keep([Message(what, table, body)])

    def reject(self, topic: str, reason: str, payload: bytes) -> None:
        """A message set aside (subscriber.py): counted as malformed, and kept with its reason
        (its first kilobyte), the latest ``REJECTS_KEPT`` of them."""
        self.keep([SetAside(topic, reason, payload)])

    def _keep_record(self, db: sqlite3.Connection, table: str, journal: str, record: dict[str, Any]) -> bool:
        seq, kind = int(record["seq"]), str(record["kind"])
        kept = db.execute(
            "INSERT OR IGNORE INTO records VALUES (?, ?, ?, ?, ?, ?)",
            (table, journal, seq, kind, json.dumps(record, separators=(",", ":")), time.time()),
        ).rowcount
        if kept:
            self._apply(db, table, journal, record)
            _bump(db, "records")
        return bool(kept)

    @staticmethod
    def _keep_state(db: sqlite3.Connection, table: str, what: str, body: dict[str, Any]) -> None:
        column = {"state": "state", "health": "health"}[what]
        db.execute("INSERT OR IGNORE INTO tables (table_id) VALUES (?)", (table,))
        db.execute(
            f"UPDATE tables SET {column} = ?, updated = ? WHERE table_id = ?", (json.dumps(body), time.time(), table)
        )

    @staticmethod
    def _reject(db: sqlite3.Connection, rejected: SetAside) -> None:
        """Kept once by its digest: the same message delivered again (its acknowledgement lost in
        a restart) is not a second reject."""
        digest = hashlib.sha256(rejected.topic.encode() + b"\0" + rejected.payload).hexdigest()
        kept = db.execute(
            "INSERT OR IGNORE INTO rejects VALUES (?, ?, ?, ?, ?)",
            (time.time(), rejected.topic[:200], rejected.reason[:500], rejected.payload[:KEPT_OF_A_REJECT], digest),
        ).rowcount
        if kept:
            db.execute("DELETE FROM rejects WHERE rowid <= (SELECT MAX(rowid) FROM rejects) - ?", (REJECTS_KEPT,))
            _bump(db, "malformed")

    def count(self, name: str) -> None:
        with self.transaction() as db:
            _bump(db, name)

    def marks(self) -> list[dict[str, Any]]:
        """Each table's newest journal with its mark: what the tournament confirms to the tables."""
        with self._lock:
            return self._marks.newest()

    def _apply(self, db: sqlite3.Connection, table: str, journal: str, record: dict[str, Any]) -> None:
        kind = record["kind"]
        if kind == Kind.GAME:  # the journal's header: a game begun at this table, in the round now open
            players = [_name(db, a.get("player")) for a in record.get("armies", []) if isinstance(a, dict)]
            round_now = db.execute("SELECT MAX(number) FROM rounds").fetchone()[0] or 1
            db.execute(
                "INSERT OR IGNORE INTO games VALUES (?, ?, ?, ?, ?, NULL, 0, ?)",
                (table, journal, round_now, record.get("game"), json.dumps(players), record.get("wall")),
            )
        elif kind == Kind.END:  # the referee ended the game: its result goes into the standings
            game = db.execute(
                "SELECT round, players FROM games WHERE table_id = ? AND journal = ?", (table, journal)
            ).fetchone()
            winner = _name(db, record.get("winner"))
            db.execute(
                "UPDATE games SET winner = ?, ended = 1 WHERE table_id = ? AND journal = ?", (winner, table, journal)
            )
            if game is not None:
                players = json.loads(game["players"]) + [None, None]
                put_result(
                    db, Result(game["round"], table, players[0], players[1], winner, record.get("result")), "table"
                )
        elif kind == Kind.JUDGE:
            db.execute(
                "INSERT OR IGNORE INTO judge_calls VALUES (?, ?, ?, ?, ?, NULL)",
                (table, journal, record["seq"], record.get("note", ""), record.get("wall")),
            )

    def rejects(self) -> list[dict[str, Any]]:
        return self.rows("SELECT received, topic, reason FROM rejects ORDER BY rowid")

    # -- what the judges do --------------------------------------------------------------------------
    def current_round(self) -> int:
        with self._lock:
            return _round_open(self._db)

    def open_round(self, pairings: Sequence[Pairing] = ()) -> int:
        """The round these pairings are for: the one open, if nothing was paired, played or
        scored in it yet (the first pairing of an evening is round 1), else the next.  A bye is
        a win."""
        with self.transaction() as db:
            number = _round_for_pairing(db) if pairings else _round_open(db) or 1
            if number > _round_open(db):
                db.execute("INSERT INTO rounds VALUES (?, ?)", (number, time.time()))
            for p in pairings:
                db.execute(
                    "INSERT INTO pairings (round, table_id, a, b, game, first) VALUES (?, ?, ?, ?, ?, ?)",
                    (number, p.table, p.a, p.b, p.game, p.first),
                )
                if p.b is None:
                    put_result(db, Result(number, p.table, p.a, None, p.a, "bye"), "bye")
        return number

    def round_for_pairing(self) -> int:
        """The round ``open_round`` pairs."""
        with self._lock:
            return _round_for_pairing(self._db)

    def handle_call(self, table: str) -> dict[str, Any] | None:
        """Every open call of a table handled: the latest (its journal and seq), or None."""
        with self.transaction() as db:
            latest = db.execute(
                "SELECT journal, MAX(seq) AS seq FROM judge_calls WHERE table_id = ? AND handled IS NULL"
                " GROUP BY journal ORDER BY MAX(at) DESC LIMIT 1",
                (table,),
            ).fetchone()
            db.execute(
                "UPDATE judge_calls SET handled = ? WHERE table_id = ? AND handled IS NULL", (time.time(), table)
            )
            return {"journal": latest["journal"], "handled": latest["seq"]} if latest else None

    # -- what the pages show -------------------------------------------------------------------------
    def tables(self) -> list[dict[str, Any]]:
        rows = self.rows("SELECT * FROM tables ORDER BY table_id")
        calls = self.rows("SELECT * FROM judge_calls WHERE handled IS NULL ORDER BY at")
        seen = {r["table_id"] for r in rows}
        rows += [
            {"table_id": c["table_id"], "state": None, "health": None, "updated": None}
            for c in calls
            if c["table_id"] not in seen
        ]
        return [
            {
                "table": row["table_id"],
                "state": json.loads(row["state"]) if row["state"] else None,
                "health": json.loads(row["health"]) if row["health"] else None,
                "judge_calls": [c for c in calls if c["table_id"] == row["table_id"]],
            }
            for row in rows
        ]

    def records_of(self, table: str) -> list[tuple[str, int]]:
        return [
            (r["journal"], r["seq"])
            for r in self.rows("SELECT journal, seq FROM records WHERE table_id = ? ORDER BY journal, seq", table)
        ]

    def counters(self) -> dict[str, int]:
        return {r["name"]: r["value"] for r in self.rows("SELECT * FROM counters")}

    def results(self) -> list[dict[str, Any]]:
        return self.rows("SELECT * FROM results ORDER BY round, table_id")

    def pairings(self) -> list[dict[str, Any]]:
        return self.rows("SELECT * FROM pairings ORDER BY round, table_id")

    def games(self) -> list[dict[str, Any]]:
        return self.rows("SELECT * FROM games ORDER BY round, table_id")

    def close(self) -> None:
        with self._lock:
            self._db.close()
