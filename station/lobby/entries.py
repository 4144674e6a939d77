"""What the lobby reads from the data folder: regular files only, each odd entry named once.

The data folder is edited by hand (a club copies journals in, an army file is saved from a text
editor), so it can hold what no listing expects.  A dangling symbolic link or a loop made the
history answer 500 and ``station serve`` fail to start; a FIFO named ``*.jsonl`` hung it for good
(opening one waits for a writer); a link to a file outside the folder was listed and served for
download.  So the lobby looks at each entry without following it (``lstat``) and reads only
regular files: a link, a FIFO, a socket or a device is left alone, named in the log once and in
the lobby's messages while it is there.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from collections.abc import Iterable
from pathlib import Path

from ..rules.text import Text, say

log = logging.getLogger(__name__)

LINK = say("a symbolic link (not followed)")
NOT_A_FILE = say("not a regular file (a FIFO, a socket or a device)")


class Skipped:
    """The entries left alone, with why, by the listing that met them (the history, each game's
    shelf); each is logged once, and said while it is there."""

    def __init__(self) -> None:
        self._now: dict[str, dict[Path, Text]] = {}
        self._told: set[Path] = set()
        self._lock = threading.Lock()

    def regular_files(self, listing: str, paths: Iterable[Path]) -> list[Path]:
        """The regular files among ``paths``, looked at without following anything; every other
        entry is what ``listing`` skips now (what it skipped before and is gone is forgotten)."""
        found: list[Path] = []
        odd: dict[Path, Text] = {}
        for path in paths:
            try:
                mode = os.lstat(path).st_mode
            except OSError as exc:  # gone meanwhile, or unreadable
                odd[path] = say("unreadable ({why})", why=exc.strerror or "")
                continue
            if stat.S_ISLNK(mode):
                odd[path] = LINK
            elif not stat.S_ISREG(mode):
                odd[path] = NOT_A_FILE
            else:
                found.append(path)
        with self._lock:
            self._now[listing] = odd
            for path, why in odd.items():
                if path not in self._told:
                    self._told.add(path)
                    log.warning("data folder: %s is %s; left alone", path, why)
        return found

    def said(self) -> list[Text]:
        """Each entry left alone, as a sentence a page says in its language."""
        with self._lock:
            return [
                say("{path} is {why}; the station leaves it alone", path=str(path), why=why)
                for odd in self._now.values()
                for path, why in sorted(odd.items())
            ]
