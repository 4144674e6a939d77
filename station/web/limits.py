"""How much the dashboard serves at once (settings of ``run`` and ``serve``), and the seats of
its long-lived streams.  See server.py for how the server applies them."""

from __future__ import annotations

import logging
import resource
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace

log = logging.getLogger(__name__)

SPARE_FILES = 64  # descriptors kept back for the journal, the port, the camera, logs and reads


@dataclass(frozen=True)
class WebLimits:
    """How many of what the dashboard serves at once; the defaults fit a club evening on a Pi."""

    spectators: int = 200  # dashboard streams of those without the referee's token
    referee_streams: int = 4  # streams kept for the referee's own screens
    workers: int = 16  # threads for short requests (pages, the API, the referee's controls); each open stream adds one
    connections: int = 1000  # open sockets at most
    idle_timeout: int = 10  # seconds a half-sent request or an unused keep-alive may sit
    session_hours: float = 12.0  # how long a referee's login lasts (web/sessions.py)

    def fitted(self) -> WebLimits:
        """These limits, with the connection cap lowered to what the open-file limit allows
        after raising the soft limit to the hard one."""
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = hard if hard != resource.RLIM_INFINITY else max(soft, self.connections + SPARE_FILES)
        if soft < wanted:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
                soft = wanted
            except (ValueError, OSError) as exc:
                log.warning("could not raise the open-file limit to %d: %s", wanted, exc)
        room = soft - SPARE_FILES
        if self.connections <= room:
            return self
        log.warning(
            "open-file limit %d allows %d connections, not %d: raise LimitNOFILE in the unit (docs/pi.md)",
            soft,
            max(room, 1),
            self.connections,
        )
        return replace(self, connections=max(room, 1))


class Seats:
    """Dashboard streams now open, spectators' and the referee's apart: each holds a worker
    thread while it watches, so each kind has its cap, and the referee's are never taken by
    spectators."""

    def __init__(self, limits: WebLimits) -> None:
        self.caps = {"spectator": limits.spectators, "referee": limits.referee_streams}
        self.taken = {"spectator": 0, "referee": 0}
        self.refused = 0
        self._lock = threading.Lock()
        self.on_change: Callable[[int], None] = lambda open_streams: None  # the server sizes its threads

    def take(self, kind: str) -> bool:
        with self._lock:
            if self.taken[kind] >= self.caps[kind]:
                self.refused += 1
                return False
            self.taken[kind] += 1
            self.on_change(sum(self.taken.values()))
            return True

    def give_back(self, kind: str) -> None:
        with self._lock:
            self.taken[kind] -= 1
            self.on_change(sum(self.taken.values()))
