"""The referee's logins, kept on the server, and the token they were opened with.

A signed cookie alone cannot be taken back: replayed from another phone after a logout it would
still be valid until the station restarts.  So the cookie only names a session that the server
keeps (``Sessions``), and a session ends when:

* the referee logs out (that session);
* the token changes, by a claim or by ``station token --new`` on the station (every session);
* it is older than its lifetime (``--session-hours``, 12 by default: a club evening).

``RefereeToken`` follows the config file, so ``station token --new`` run beside a live station
takes effect within a second, without a restart.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ..config import ConfigError, load_config

log = logging.getLogger(__name__)

SESSION_HOURS = 12.0
MOST_SESSIONS = 1000  # a referee who logs in again and again never grows the server's memory
CONFIG_CHECK_S = 1.0  # how often the config file is looked at for a new token


class Sessions:
    """The open sessions by id, each with the time it expires."""

    def __init__(self, hours: float = SESSION_HOURS, clock: Callable[[], float] = time.monotonic) -> None:
        self.lifetime_s, self.clock = hours * 3600.0, clock
        self._expires: dict[str, float] = {}
        self._lock = threading.Lock()

    def open(self) -> str:
        sid = secrets.token_urlsafe(24)
        with self._lock:
            now = self.clock()
            self._expires = {s: t for s, t in self._expires.items() if t > now}
            while len(self._expires) >= MOST_SESSIONS:  # the oldest goes first (dicts keep order)
                del self._expires[next(iter(self._expires))]
            self._expires[sid] = now + self.lifetime_s
        return sid

    def valid(self, sid: object) -> bool:
        if not isinstance(sid, str):
            return False
        with self._lock:
            expires = self._expires.get(sid)
            if expires is not None and expires <= self.clock():
                del self._expires[sid]
                expires = None
        return expires is not None

    def close(self, sid: object) -> None:
        with self._lock:
            if isinstance(sid, str):
                self._expires.pop(sid, None)

    def close_all(self) -> None:
        with self._lock:
            self._expires.clear()


class RefereeToken:
    """The token in force, with the config file it came from (``None``: given directly, as the
    tests and ``station demo`` do); a new token closes every session."""

    def __init__(
        self,
        token: str,
        sessions: Sessions,
        config: Path | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._token, self.sessions, self.config, self.clock = token, sessions, config, clock
        self._checked = clock()
        self._stamp = self._file_stamp()
        self._lock = threading.Lock()

    def _file_stamp(self) -> int | None:
        try:
            return self.config.stat().st_mtime_ns if self.config is not None else None
        except OSError:
            return None

    def current(self) -> str:
        """The token, re-read from the config file if it changed since the last look."""
        if self.config is None or self.clock() - self._checked < CONFIG_CHECK_S:
            return self._token
        with self._lock:
            self._checked = self.clock()
            stamp = self._file_stamp()
            if stamp is not None and stamp != self._stamp:
                self._stamp = stamp
                try:
                    token = load_config(self.config)["referee_token"]
                except ConfigError as exc:  # a half-edited file: keep the token in force
                    log.warning("the config file changed but cannot be read (%s); the token stays", exc)
                else:
                    if token != self._token:
                        log.info("the referee token changed in %s: every session is closed", self.config)
                        self._token = token
                        self.sessions.close_all()
            return self._token

    def change(self, token: str) -> None:
        """A new token (a claim): every session opened with the old one ends."""
        with self._lock:
            self._token = token
            self._stamp = self._file_stamp()
            self.sessions.close_all()
