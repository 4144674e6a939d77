"""Every game a station has played, read from its journals for the lobby's history.

A journal is read cheaply: its first line (the header), its last record (the end of the game, if
the referee ended it) and its line count.  Entries are cached by file size and time, so a lobby
that polls the history does not re-read long journals that have not changed.
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..fold import HEADER_KIND
from ..game import END_KIND
from .entries import Skipped

log = logging.getLogger(__name__)

TAIL_BYTES = 64 * 1024  # enough for the last records of any journal


@dataclass(frozen=True)
class PlayedGame:
    """One journal as the history lists it."""

    name: str  # the journal's file name: the game's id in the API
    path: Path
    game: str
    armies: tuple[str, ...]  # "player: army name"
    started: str | None  # wall-clock ISO times of the first and last records
    last: str | None
    records: int
    rulings: int
    end: dict[str, Any] | None  # the referee's end record, or None while the game is unfinished

    @property
    def finished(self) -> bool:
        return self.end is not None

    @property
    def seconds(self) -> float | None:
        """How long the game ran, from its first record to its last."""
        if not self.started or not self.last:
            return None
        return (_dt.datetime.fromisoformat(self.last) - _dt.datetime.fromisoformat(self.started)).total_seconds()

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "game": self.game,
            "armies": list(self.armies),
            "started": self.started,
            "last": self.last,
            "seconds": self.seconds,
            "records": self.records,
            "rulings": self.rulings,
            "finished": self.finished,
            "winner": (self.end or {}).get("winner"),
            "result": (self.end or {}).get("result"),  # victory, time, concession, draw; none before the referee chose
            "summary": (self.end or {}).get("summary"),
            "note": (self.end or {}).get("note"),
        }


def _last_record(path: Path, size: int) -> dict[str, Any] | None:
    """The last whole record (a torn tail is skipped, as the journal itself would).  Read from
    the end, TAIL_BYTES at a time and further back while no whole record has been seen: a record
    longer than that (an end with a long note) is still found."""
    window = TAIL_BYTES
    with path.open("rb") as f:
        while True:
            start = max(0, size - window)
            f.seek(start)
            lines = f.read(size - start).splitlines()
            whole = lines if start == 0 else lines[1:]  # the first line read may be a record's tail
            for line in reversed(whole):
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and "kind" in record:
                    return record
            if start == 0:
                return None
            window *= 4


RULING_MARK = b'"kind":"ruling"'  # how a ruling record begins, after its seq
END_MARK = b'"kind":"end","mono"'  # how an end record begins, after its seq
END_LINE = re.compile(rb'^\{"seq":\d+,"kind":"end",')  # an end record's line (never a value inside one)
CHUNK = 1 << 20


def _count(path: Path) -> tuple[int, int, int]:
    """(records, rulings, ends): the referee counts rulings, not the hub's heartbeats; counted in
    the bytes, as a history of long games must list quickly.  ``ends`` counts what looks like an
    end record (``_end_anywhere`` makes sure)."""
    records = 0
    marks = {RULING_MARK: 0, END_MARK: 0}
    tails = dict.fromkeys(marks, b"")
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            records += chunk.count(b"\n")
            for mark in marks:
                joined = tails[mark] + chunk  # a mark cut by the chunk's edge is counted once, here
                marks[mark] += joined.count(mark)
                tails[mark] = joined[-(len(mark) - 1) :]
    return records, marks[RULING_MARK], marks[END_MARK]


def _end_anywhere(path: Path) -> dict[str, Any] | None:
    """The last end record wherever it is: records journaled after an end (a late heartbeat, a
    station that went on writing) do not make an ended game unfinished."""
    found = None
    with path.open("rb") as f:
        for line in f:
            if END_LINE.match(line):
                try:
                    found = json.loads(line)
                except ValueError:
                    continue
    return found


def read_played(path: Path) -> PlayedGame | None:
    """The history entry of one journal, or None for a file that is not a game's journal."""
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            header = json.loads(f.readline())
        if not isinstance(header, dict) or header.get("kind") != HEADER_KIND:
            return None
        last = _last_record(path, size)
        records, rulings, ends = _count(path)
        end = last if last and last.get("kind") == END_KIND else _end_anywhere(path) if ends else None
    except (OSError, ValueError) as exc:
        log.warning("history: %s is not a readable journal (%s)", path, exc)
        return None
    armies = tuple(
        f"{a.get('player', '?')}: {a.get('name', '?')}" for a in header.get("armies", []) if isinstance(a, dict)
    )
    return PlayedGame(
        path.name,
        path,
        str(header.get("game")),
        armies,
        header.get("wall"),
        (last or header).get("wall"),
        records,
        rulings,
        end,
    )


class History:
    """The journals in one folder, newest first."""

    def __init__(self, folder: Path, skipped: Skipped | None = None) -> None:
        self.folder = folder
        self.skipped = skipped or Skipped()
        self._cache: dict[Path, tuple[tuple[int, int], PlayedGame | None]] = {}
        self._lock = threading.Lock()

    def games(self) -> list[PlayedGame]:
        """Every journal that is a regular file (entries.py says why), newest first."""
        stats = {}
        for path in self.skipped.regular_files("journals", self.folder.glob("*.jsonl")):
            try:
                stats[path] = path.stat()
            except OSError:  # removed meanwhile
                continue
        found = []
        with self._lock:
            for path in sorted(stats, key=lambda p: stats[p].st_mtime, reverse=True):
                stat = stats[path]
                key = (stat.st_size, stat.st_mtime_ns)
                cached = self._cache.get(path)
                if cached is None or cached[0] != key:
                    cached = (key, read_played(path))
                    self._cache[path] = cached
                if cached[1] is not None:
                    found.append(cached[1])
        return found

    def find(self, name: str) -> PlayedGame | None:
        """A game by its journal's file name; never a path outside the folder."""
        return next((g for g in self.games() if g.name == name), None)

    def unfinished(self, running: Path | None = None) -> PlayedGame | None:
        """The newest game that was not ended and is not running now: what a power cut left."""
        return next((g for g in self.games() if not g.finished and g.path != running), None)
