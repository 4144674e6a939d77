"""One daemon per journal and per serial port.

A second daemon on a live game's journal would "recover a torn tail" that is only a line being
written, append records with seqs the first one also writes, and read half of the hub's lines
from the port they share.  So whoever opens a journal, a data folder or a hub port for writing
takes an exclusive ``flock`` first, and a second taker is refused at once, by name and pid.

``flock`` locks die with their process: a daemon killed by a power cut leaves nothing to clean
up, and the next start takes the lock as if it had never been held.  The lock is taken on the
journal (or folder, or port) itself, so there are no lock files to litter the data folder; a
refusal finds who holds it in /proc.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path


class InUse(Exception):
    """Another process holds what we wanted: the message names it and, when known, its pid."""


def _describe(what: str, pids: list[int]) -> str:
    holder = f"process {', '.join(map(str, pids))}" if pids else "another process"
    return f"{what} is in use by {holder}: one station per journal and per port (stop that one first)"


class FileLock:
    """An exclusive lock on a file (created if missing) or a folder, held as long as this object
    is open or the process lives."""

    def __init__(self, path: str | Path, what: str) -> None:
        self.path = Path(path)
        flags = os.O_RDONLY | os.O_CLOEXEC | (0 if self.path.is_dir() else os.O_CREAT)
        self._fd: int | None = os.open(self.path, flags, 0o644)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(self._fd)
            self._fd = None
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
            raise InUse(_describe(what, holders(self.path))) from None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def holders(path: str | Path) -> list[int]:
    """The pids (other than ours) with ``path`` open, read from /proc: how a refusal names who
    has the journal or port (a lock itself keeps no pid)."""
    try:
        target = os.path.realpath(path)
    except OSError:
        return []
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if any(os.path.realpath(fd) == target for fd in (entry / "fd").iterdir()):
                found.append(int(entry.name))
        except OSError:  # gone, or not ours to look at
            continue
    return sorted(found)


def port_in_use(url: str, exc: Exception) -> InUse | None:
    """``exc`` from opening ``url`` exclusively, as an InUse naming the holders if that is what
    it means (pyserial says "Could not exclusively lock port ...")."""
    if "exclusively lock" not in str(exc):
        return None
    return InUse(_describe(f"serial port {url}", holders(url)))
