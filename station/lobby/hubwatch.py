"""The hubs between games.  The lobby keeps every hub's link open while no game runs, so their
health and inventories (HELLO) always show, and pairing sees a trigger pulled or a model tilted.

They are the game's own links (``HubLink``) over a setup journal of their own
(``setup/hub-*.jsonl``): every event is journaled and acknowledged there, so a trigger pulled to
pair a launcher never reaches the next game as a shot.  They are stopped before a game opens the
ports.  A node of a hub that says its id is named with it ("T1@3F2A"), so pairing writes that
into the army and two boards' default T1s are two nodes.
"""

from __future__ import annotations

import datetime as _dt
import itertools
import logging
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..devices import protocol as p
from ..devices.link import BAUD, HubLink, hubs_health
from ..events import NODE_AT
from ..exclusive import InUse
from ..journal import Journal

log = logging.getLogger(__name__)

KEEP_SETUP_JOURNALS = 3
RECENT_EVENTS = 64


def _event_view(number: int, message: p.Message, hub_id: str) -> dict[str, Any]:
    """An event for the pairing page; ``kind`` is set only for a player's gesture (a trigger
    pulled, a model tilted), never for a node's report of how it lies when it starts."""
    kind = {p.Shot: "launcher", p.DryFire: "launcher", p.Tilt: "tilt", p.Impact: "tilt"}.get(type(message))
    if isinstance(message, p.Tilt) and message.first:
        kind = None
    node = getattr(message, "node", None)
    if node is not None and hub_id:
        node = f"{node}{NODE_AT}{hub_id}"
    return {"n": number, "type": message.TYPE, "node": node, "kind": kind, "hub": hub_id}


class HubWatch:
    """The hubs' links with nowhere to deliver but a list of recent events, for the lobby."""

    def __init__(self, urls: tuple[str, ...], folder: Path, baud: int = BAUD) -> None:
        self.urls, self.baud = urls, baud
        self.folder = folder
        self._links: list[HubLink] = []
        self._journal: Journal | None = None
        self._events: deque[dict[str, Any]] = deque(maxlen=RECENT_EVENTS)
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()
        self.refused: str | None = None  # why the port could not be had (another station holds it)

    @property
    def running(self) -> bool:
        return bool(self._links)

    def start(self) -> None:
        if self._links:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        for old in sorted(self.folder.glob("hub-*.jsonl"))[:-KEEP_SETUP_JOURNALS]:
            old.unlink(missing_ok=True)
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
        self._journal = Journal(self.folder / f"hub-{stamp}.jsonl")
        only = len(self.urls) == 1
        for url in self.urls:
            link = HubLink(url, self._journal, lambda r: None, baud=self.baud, only_hub=only)
            link.deliver = self._deliverer(link)
            self._links.append(link)
        try:
            for link in self._links:
                link.claim()
        except InUse as exc:
            self.refused = str(exc)
            self.stop()
            raise
        self.refused = None
        for link in self._links:
            link.start()
        log.info("watching the hubs on %s between games", ", ".join(self.urls))

    def stop(self) -> None:
        links, journal = self._links, self._journal
        self._links, self._journal = [], None
        for link in links:
            link.stop()
        if journal is not None:
            journal.close()

    def _deliverer(self, link: HubLink) -> Callable[[dict[str, Any]], None]:
        def deliver(record: dict[str, Any]) -> None:
            if record.get("verdict") != "event":
                return
            message = p.decode(record["line"])
            with self._lock:
                self._events.append(_event_view(next(self._numbers), message, link.hub_id))

        return deliver

    def events_since(self, number: int) -> list[dict[str, Any]]:
        """The hub's events after ``number`` (each has its ``n``): what pairing waits for."""
        with self._lock:
            return [e for e in self._events if e["n"] > number]

    def health(self) -> dict[str, Any]:
        if not self._links:
            state = {
                "state": "in use" if self.refused else "idle",
                "url": ", ".join(self.urls),
                "last_error": self.refused,
            }
            return {**state, "hubs": []}
        with self._lock:
            last = self._events[-1]["n"] if self._events else 0
        return {**hubs_health([link.snapshot() for link in self._links]), "last_event": last}
