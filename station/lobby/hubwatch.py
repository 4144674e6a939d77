"""The hub between games.  The lobby keeps the hub's link open while no game runs, so its health
and its inventory (HELLO) always show, and pairing sees a trigger pulled or a model tilted.

It is the game's own link (``HubLink``) over a setup journal of its own (``setup/hub-*.jsonl``):
every event is journaled and acknowledged there, so a trigger pulled to pair a launcher never
reaches the next game as a shot.  It is stopped before a game opens the port.
"""

from __future__ import annotations

import datetime as _dt
import itertools
import logging
import threading
from collections import deque
from pathlib import Path
from typing import Any

from ..devices import protocol as p
from ..devices.link import BAUD, HubLink
from ..exclusive import InUse
from ..journal import Journal

log = logging.getLogger(__name__)

KEEP_SETUP_JOURNALS = 3
RECENT_EVENTS = 64


def _event_view(number: int, message: p.Message) -> dict[str, Any]:
    kind = {p.Shot: "launcher", p.DryFire: "launcher", p.Tilt: "tilt", p.Impact: "tilt"}.get(type(message))
    return {"n": number, "type": message.TYPE, "node": getattr(message, "node", None), "kind": kind}


class HubWatch:
    """A hub link with nowhere to deliver but a list of recent events, for the lobby."""

    def __init__(self, url: str, folder: Path, baud: int = BAUD) -> None:
        self.url, self.baud = url, baud
        self.folder = folder
        self._link: HubLink | None = None
        self._journal: Journal | None = None
        self._events: deque[dict[str, Any]] = deque(maxlen=RECENT_EVENTS)
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()
        self.refused: str | None = None  # why the port could not be had (another station holds it)

    @property
    def running(self) -> bool:
        return self._link is not None

    def start(self) -> None:
        if self._link is not None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        for old in sorted(self.folder.glob("hub-*.jsonl"))[:-KEEP_SETUP_JOURNALS]:
            old.unlink(missing_ok=True)
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
        self._journal = Journal(self.folder / f"hub-{stamp}.jsonl")
        self._link = HubLink(self.url, self._journal, self._deliver, baud=self.baud)
        try:
            self._link.claim()
        except InUse as exc:
            self.refused = str(exc)
            self.stop()
            raise
        self.refused = None
        self._link.start()
        log.info("watching the hub on %s between games", self.url)

    def stop(self) -> None:
        link, journal = self._link, self._journal
        self._link = self._journal = None
        if link is not None:
            link.stop()
        if journal is not None:
            journal.close()

    def _deliver(self, record: dict[str, Any]) -> None:
        if record.get("verdict") != "event":
            return
        message = p.decode(record["line"])
        with self._lock:
            self._events.append(_event_view(next(self._numbers), message))

    def events_since(self, number: int) -> list[dict[str, Any]]:
        """The hub's events after ``number`` (each has its ``n``): what pairing waits for."""
        with self._lock:
            return [e for e in self._events if e["n"] > number]

    def health(self) -> dict[str, Any]:
        if self._link is None:
            return {"state": "in use" if self.refused else "idle", "url": self.url, "last_error": self.refused}
        with self._lock:
            last = self._events[-1]["n"] if self._events else 0
        return {**self._link.snapshot(), "last_event": last}
