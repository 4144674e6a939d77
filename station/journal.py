"""The game journal: one append-only JSON Lines file, the single source of truth.

Every record is one line ``{"seq": N, "kind": ..., "mono": ..., "wall": ..., ...}``.  Raw
observations (serial lines in and out, operator inputs, dice, camera snapshots) are the inputs
of the fold; rulings are written too so that a replay can be checked against what the referee saw.

Durability: each append is written and flushed at once.  ``append(..., durable=True)`` returns
only after an fsync covering the record.  Appends that arrive while an fsync runs share the next
one (group commit); the syncer never waits longer than ``group_window`` (at most 50 ms) to gather
them.  A crash can tear only the last line; ``open`` drops such a tail, and nothing before it.

A full disk: the journal keeps a reserve file of ``reserve_bytes`` beside it.  When a write fails
for lack of space, the partial line is cut off again and the reserve is given up, so whatever was
half done (an input, its dice, its rulings) still fits.  From then until there is room for the
reserve again, ``accepting()`` is False and the station takes no new inputs: the hub keeps its
events unacknowledged and resends them later, and the dashboard says why.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .clock import Clock, SystemClock
from .durable import make_folders, sync_folder
from .exclusive import FileLock
from .gcpause import without_cycle_collection

log = logging.getLogger(__name__)

MAX_GROUP_WINDOW = 0.050
RESERVE_BYTES = 1 << 20  # room kept back for finishing what was under way when the disk filled
RESERVE_RETRY = 1.0  # seconds between attempts to take the reserve back
READ_CHUNK = 4096
SLOW_SYNC = 0.1  # an fsync slower than this is counted: it holds up ACKs to the hub


class JournalError(Exception):
    """A journal that cannot be trusted: names the file and line."""


class JournalFull(JournalError):
    """The journal's disk is full (or failing): nothing new can be recorded until it has room."""


@dataclass(frozen=True, slots=True)
class Recovery:
    """What ``open`` found: how many records, and whether a torn tail was dropped."""

    records: int
    torn_bytes: int


def _dumps(record: dict[str, Any]) -> str:
    """One record as one line of strict JSON: a NaN or an infinity (which no browser reads back)
    is refused here, where it is made, and never journaled."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=False, allow_nan=False)


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
    return _scan_bytes(path, path.read_bytes())


def _scan_bytes(path: Path, data: bytes) -> tuple[list[dict[str, Any]], int]:
    end = data.rfind(b"\n") + 1  # everything after the last newline is a torn tail
    if not _looks_torn(data[end:]):
        raise JournalError(f"{path}: does not end like a journal; is it one? (left untouched)")
    try:  # fast path: the whole complete part as one JSON array, parsed in one C call
        with without_cycle_collection():  # a long journal is a great many dicts, and no cycles
            records = json.loads(b"[" + data[:end].rstrip(b"\n").replace(b"\n", b",") + b"]") if end else []
        if all(isinstance(r, dict) and r.get("seq") == i for i, r in enumerate(records, start=1)) and all(
            "kind" in r for r in records
        ):
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
    """Appends records to one file.  Thread-safe; the only writer of its file: a second Journal
    on the same file, in this process or another, raises ``exclusive.InUse``."""

    def __init__(
        self,
        path: str | Path,
        clock: Clock | None = None,
        group_window: float = 0.0,
        reserve_bytes: int = RESERVE_BYTES,
    ) -> None:
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
        self.on_synced: list[Callable[[], None]] = []  # told after each fsync (the MQTT publisher)
        # told of each record as it is written, under the journal's lock and so in seq order,
        # whichever thread wrote it (the live game queues what it must apply); must not block
        self.on_written: list[Callable[[dict[str, Any]], None]] = []
        self._closed = False
        # Before reading a byte: a live game's last line is not a torn tail to cut off.
        make_folders(self.path.parent)
        self._owner = FileLock(self.path, f"journal {self.path}")
        try:
            self.recovery = self._recover()
        except BaseException:
            self._owner.release()
            raise
        self._file = open(self.path, "ab", buffering=0)
        self._reader = open(self.path, "rb", buffering=0)
        sync_folder(self.path.parent)  # a new journal's name, durable before its first record is
        self._end = self.path.stat().st_size  # where the last complete line ends
        self.reserve_path = self.path.with_name(f".{self.path.name}.reserve")
        self.reserve_bytes = reserve_bytes
        self.fault: str | None = None  # why the journal is not accepting, for the dashboard
        self.write_failures = 0
        self.sync_max_s = 0.0  # the slowest fsync so far: the disk's worst stall
        self.slow_syncs = 0
        self._next_reserve_try = 0.0
        self._low = not self._make_reserve()
        if self._low:
            self.fault = f"no room for the {reserve_bytes} byte reserve beside {self.path}"
            log.error("%s: disk nearly full; taking no new inputs until there is room", self.path)
        self._syncer = threading.Thread(target=self._sync_loop, name="journal-sync", daemon=True)
        self._syncer.start()

    def _recover(self) -> Recovery:
        """Read the file (the lock created it if it was missing) and cut off a torn tail."""
        records, valid = _scan(self.path)
        torn = self.path.stat().st_size - valid
        if torn:
            log.warning("%s: dropping a torn tail of %d bytes left by a crash", self.path, torn)
            with open(self.path, "r+b") as f:
                f.truncate(valid)
                f.flush()
                os.fsync(f.fileno())
        self._written_seq = self._synced_seq = len(records)
        self._recovered: list[dict[str, Any]] | None = records  # what open read, until the first append makes it stale
        return Recovery(len(records), torn)

    @property
    def records(self) -> list[dict[str, Any]]:
        """Every record so far, read back from the file (for resuming a game).  Only the records
        ``open`` read are kept, and only until the first append, so resuming parses the file once
        and a long game costs disk, not RAM."""
        with self._lock:
            if self._recovered is not None:
                return self._recovered
            end = self._end
        return _scan_bytes(self.path, self._pread(0, end))[0] if end else []

    @property
    def written(self) -> int:
        """The seq of the last record written."""
        with self._lock:
            return self._written_seq

    @property
    def synced(self) -> int:
        """The seq of the last record on disk (fsync'd): what may be told to anyone else."""
        with self._lock:
            return self._synced_seq

    # -- reading back -----------------------------------------------------------------------------
    def _pread(self, offset: int, size: int) -> bytes:
        return os.pread(self._reader.fileno(), size, offset)

    def _line_start(self, offset: int, end: int) -> int:
        """The first line start at or after ``offset`` (``end`` if none)."""
        if offset == 0:
            return 0
        position = offset - 1
        while position < end:
            chunk = self._pread(position, min(READ_CHUNK, end - position))
            newline = chunk.find(b"\n")
            if newline >= 0:
                return position + newline + 1
            position += len(chunk)
        return end

    def _seq_at(self, offset: int) -> int:
        head = self._pread(offset, 32)
        return int(head[len(_RECORD_START) : head.index(b",")])

    def _locate(self, seq: int, end: int) -> int:
        """Byte offset of the first record with a seq of at least ``seq``: a binary search over
        the file, since seqs rise line by line."""
        lo, hi = 0, end
        while lo < hi:
            mid = (lo + hi) // 2
            start = self._line_start(mid, end)
            if start >= end or self._seq_at(start) >= seq:
                hi = mid
            else:
                lo = mid + 1
        return self._line_start(lo, end)

    def read_since(
        self, seq: int, limit: int = 500, keep: Callable[[dict[str, Any]], bool] | None = None
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` records after ``seq`` (only those ``keep`` accepts), from the file."""
        with self._lock:
            end = self._end
        position = self._locate(seq + 1, end)
        records: list[dict[str, Any]] = []
        buffer = b""
        while position < end and len(records) < limit:
            chunk = self._pread(position, min(READ_CHUNK * 16, end - position))
            position += len(chunk)
            *lines, buffer = (buffer + chunk).split(b"\n")
            for line in lines:
                record = json.loads(line)
                if keep is None or keep(record):
                    records.append(record)
                    if len(records) >= limit:
                        break
        return records

    def read(self, seq: int) -> dict[str, Any] | None:
        """Record ``seq`` from the file, or None if there is no such record."""
        found = self.read_since(seq - 1, 1) if seq >= 1 else []
        return found[0] if found and found[0]["seq"] == seq else None

    def append(self, kind: str, durable: bool = False, **fields: Any) -> dict[str, Any]:
        """Stamp, write and flush one record; with ``durable`` wait for its fsync.  Raises
        JournalFull, leaving the file as it was, when the record cannot be written."""
        with self._lock:
            if self._closed:
                raise JournalError(f"{self.path}: journal is closed")
            seq = self._written_seq + 1
            record = {
                "seq": seq,
                "kind": kind,
                "mono": round(self.clock.monotonic(), 6),
                "wall": self.clock.wall_iso(),
                **fields,
            }
            self._write_line((_dumps(record) + "\n").encode("utf-8"))
            self._written_seq, self._recovered = seq, None
            self._wake.notify()
            for listener in self.on_written:
                listener(record)
            if durable:
                while self._synced_seq < seq and not self._closed:
                    self._synced.wait()
        return record

    def _write_line(self, line: bytes) -> None:
        """Write all of ``line`` or none of it: a short write is finished, a failed one cut off."""
        for attempt in range(2):
            try:
                view = memoryview(line)
                while view:
                    view = view[self._file.write(view) :]
                self._end += len(line)
                return
            except OSError as exc:
                self._file.truncate(self._end)  # never leave half a line before the next one
                self.write_failures += 1
                if attempt == 0 and exc.errno in (errno.ENOSPC, errno.EDQUOT) and self._give_up_reserve():
                    continue
                self._low = True
                self.fault = f"cannot write {self.path}: {exc.strerror or exc}"
                log.error("%s", self.fault)
                raise JournalFull(f"{self.fault}; nothing was recorded, free some space and try again") from None

    def _give_up_reserve(self) -> bool:
        if not self.reserve_path.exists():
            return False
        self.reserve_path.unlink()
        self._low = True
        self.fault = f"the disk under {self.path} is full; running on the reserve, taking no new inputs"
        log.error("%s", self.fault)
        return True

    def _make_reserve(self) -> bool:
        """Allocate the reserve file (for real, not a sparse file); False when there is no room."""
        try:
            if self.reserve_path.exists() and self.reserve_path.stat().st_blocks * 512 >= self.reserve_bytes:
                return True
            if shutil.disk_usage(self.reserve_path.parent).free < 2 * self.reserve_bytes:
                return False  # leave room to play, not just for the reserve
            fd = os.open(self.reserve_path, os.O_CREAT | os.O_WRONLY, 0o600)
            try:
                os.posix_fallocate(fd, 0, self.reserve_bytes)
            finally:
                os.close(fd)
            return True
        except OSError as exc:
            log.warning("%s: cannot make the reserve (%s)", self.reserve_path, exc)
            self.reserve_path.unlink(missing_ok=True)
            return False

    def accepting(self) -> bool:
        """Whether new inputs may be recorded.  After the disk filled, this tries (once a second)
        to take the reserve back, and answers True again once it could."""
        with self._lock:
            if not self._low:
                return True
            now = time.monotonic()
            if now < self._next_reserve_try or self._closed:
                return False
            self._next_reserve_try = now + RESERVE_RETRY
            if not self._make_reserve():
                return False
            self._low, self.fault = False, None
        log.warning("%s: there is room again; taking inputs", self.path)
        return True

    def health(self) -> dict[str, Any]:
        """For the dashboard (asked every second), which also notices when space comes back."""
        self.accepting()
        with self._lock:
            try:
                free = shutil.disk_usage(self.path.parent).free
            except OSError:
                free = None
            return {
                "state": "full" if self._low else "ok",
                "error": self.fault,
                "free_bytes": free,
                "records": self._written_seq,
                "write_failures": self.write_failures,
                "sync_max_ms": round(self.sync_max_s * 1000, 1),
                "slow_syncs": self.slow_syncs,
            }

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
            started = time.monotonic()
            try:
                os.fsync(self._file.fileno())
            except OSError as exc:  # a failing disk: say so and try again; nothing is lost in memory
                with self._lock:
                    self.fault = f"cannot sync {self.path}: {exc.strerror or exc}"
                log.error("%s", self.fault)
                if self._closed:
                    return  # close() makes the last attempt
                time.sleep(0.5)
                continue
            took = time.monotonic() - started
            with self._lock:
                self.sync_max_s = max(self.sync_max_s, took)
                self.slow_syncs += took > SLOW_SYNC
                self._synced_seq = max(self._synced_seq, target)
                if not self._low:
                    self.fault = None
                self._synced.notify_all()
            for listener in self.on_synced:  # outside the lock: a listener may read the journal
                listener()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._wake.notify_all()
        self._syncer.join()
        try:
            os.fsync(self._file.fileno())
        except OSError as exc:
            log.error("%s: last sync failed (%s)", self.path, exc)
        self._file.close()
        self._reader.close()
        self.reserve_path.unlink(missing_ok=True)
        self._owner.release()
        with self._lock:
            self._synced.notify_all()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
