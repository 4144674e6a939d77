"""The game journal: one append-only JSON Lines file, the single source of truth.

Every record is one line ``{"seq": N, "kind": ..., "mono": ..., "wall": ..., ...}``.  Raw
observations (serial lines in and out, operator inputs, dice, camera snapshots) are the inputs
of the fold; rulings are written too so that a replay can be checked against what the referee saw.

Durability: each append is written and flushed at once.  ``append(..., durable=True)`` returns
only after an fsync covering the record.  Appends that arrive while an fsync runs share the next
one (group commit); the syncer never waits longer than ``group_window`` (at most 50 ms) to gather
them.  A crash can tear only the last line; ``open`` drops such a tail, and nothing before it.
"""
from __future__ import annotations

import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .clock import Clock, SystemClock

log = logging.getLogger(__name__)

MAX_GROUP_WINDOW = 0.050


class JournalError(Exception):
    """A journal that cannot be trusted: names the file and line."""


@dataclass(frozen=True, slots=True)
class Recovery:
    """What ``open`` found: how many records, and whether a torn tail was dropped."""

    records: int
    torn_bytes: int


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=False)


_RECORD_START = b'{"seq":'


def _looks_torn(tail: bytes) -> bool:
    """What a crash can leave: the start of one of our records, or a zero-filled block."""
    tail = tail.rstrip(b"\n")
    return tail.startswith(_RECORD_START) or _RECORD_START.startswith(tail) or not tail.strip(b"\x00")


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """Every complete record of a journal, read-only.  A torn last line is ignored; a bad line
    anywhere else means the file was edited or damaged and is an error naming that line."""
    records, _ = _scan(Path(path))
    return records


def _scan(path: Path) -> tuple[list[dict[str, Any]], int]:
    """Records and the byte offset where the valid prefix ends."""
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1  # everything after the last newline is a torn tail
    if not _looks_torn(data[end:]):
        raise JournalError(f"{path}: does not end like a journal; is it one? (left untouched)")
    try:  # fast path: the whole complete part as one JSON array, parsed in one C call
        records = json.loads(b"[" + data[:end].rstrip(b"\n").replace(b"\n", b",") + b"]") if end else []
        if all(isinstance(r, dict) and r.get("seq") == i for i, r in enumerate(records, start=1)) \
                and all("kind" in r for r in records):
            return records, end
    except ValueError:
        pass
    return _scan_lines(path, data)


def _scan_lines(path: Path, data: bytes) -> tuple[list[dict[str, Any]], int]:
    """The slow path, line by line, to find and name what is wrong."""
    records: list[dict[str, Any]] = []
    offset = 0
    lines = data.split(b"\n")
    for number, line in enumerate(lines[:-1], start=1):  # lines[-1]: empty, or a torn tail
        try:
            record = json.loads(line)
            if not isinstance(record, dict) or "seq" not in record or "kind" not in record:
                raise ValueError("not a journal record")
        except ValueError as exc:
            if number == len(lines) - 1 and not lines[-1] and _looks_torn(line):
                # A complete-looking but unparsable final line: still a torn write (e.g. zeros).
                log.warning("%s: line %d unreadable (%s); treating as torn tail", path, number, exc)
                break
            raise JournalError(f"{path}: line {number} is not a journal record ({exc})") from None
        expected = records[-1]["seq"] + 1 if records else 1
        if record["seq"] != expected:
            raise JournalError(f"{path}: line {number} has seq {record['seq']}, expected {expected}")
        records.append(record)
        offset += len(line) + 1
    return records, offset


class Journal:
    """Appends records to one file.  Thread-safe; the only writer of its file."""

    def __init__(self, path: str | Path, clock: Clock | None = None, group_window: float = 0.0) -> None:
        if not 0 <= group_window <= MAX_GROUP_WINDOW:
            raise ValueError(f"group_window must be 0-{MAX_GROUP_WINDOW} s")
        self.path = Path(path)
        self.clock = clock or SystemClock()
        self.group_window = group_window
        self._lock = threading.Lock()
        self._synced = threading.Condition(self._lock)
        self._wake = threading.Condition(self._lock)
        self._written_seq = 0
        self._synced_seq = 0
        self._closed = False
        self.recovery = self._recover()
        self._file = open(self.path, "ab", buffering=0)
        self._syncer = threading.Thread(target=self._sync_loop, name="journal-sync", daemon=True)
        self._syncer.start()

    def _recover(self) -> Recovery:
        if not self.path.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.touch()
            self._records: list[dict[str, Any]] = []
            return Recovery(0, 0)
        records, valid = _scan(self.path)
        torn = self.path.stat().st_size - valid
        if torn:
            log.warning("%s: dropping a torn tail of %d bytes left by a crash", self.path, torn)
            with open(self.path, "r+b") as f:
                f.truncate(valid)
                f.flush()
                os.fsync(f.fileno())
        self._records = records
        self._written_seq = self._synced_seq = len(records)
        return Recovery(len(records), torn)

    @property
    def records(self) -> list[dict[str, Any]]:
        """Records present when the journal was opened (for resuming a game)."""
        return self._records

    def append(self, kind: str, durable: bool = False, **fields: Any) -> dict[str, Any]:
        """Stamp, write and flush one record; with ``durable`` wait for its fsync."""
        with self._lock:
            if self._closed:
                raise JournalError(f"{self.path}: journal is closed")
            seq = self._written_seq + 1
            record = {"seq": seq, "kind": kind, "mono": round(self.clock.monotonic(), 6),
                      "wall": self.clock.wall_iso(), **fields}
            self._file.write((_dumps(record) + "\n").encode("utf-8"))
            self._written_seq = seq
            self._wake.notify()
            if durable:
                while self._synced_seq < seq and not self._closed:
                    self._synced.wait()
        return record

    def wait_durable(self, seq: int) -> None:
        with self._lock:
            while self._synced_seq < seq and not self._closed:
                self._synced.wait()

    def _sync_loop(self) -> None:
        while True:
            with self._lock:
                while self._synced_seq == self._written_seq and not self._closed:
                    self._wake.wait()
                if self._closed and self._synced_seq == self._written_seq:
                    return
            if self.group_window:
                time.sleep(self.group_window)
            with self._lock:
                target = self._written_seq
            os.fsync(self._file.fileno())
            with self._lock:
                self._synced_seq = max(self._synced_seq, target)
                self._synced.notify_all()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._wake.notify_all()
        self._syncer.join()
        os.fsync(self._file.fileno())
        self._file.close()
        with self._lock:
            self._synced.notify_all()

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

