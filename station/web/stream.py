"""The dashboard's Server-Sent Events, made once and sent to every watcher.

One broadcaster thread reads the game's changes and turns them into SSE frames: an ``update``
(the new rulings plus the current state), a ``snapshot`` after a referee override or if it fell
behind, and a ``health`` frame every second when nothing changes.  Each frame is built and
serialised once, however many dashboards watch; a watcher that cannot keep up is sent a fresh
snapshot.

When frames go out is a token bucket (``FRAMES_PER_SECOND``, ``FRAME_BURST``): a change goes out
at once while the bucket holds a token, so a ruling reaches the screen in milliseconds even
straight after another frame (a shot, a lean and a fall come within milliseconds of one another
at a real table); whatever arrives while a frame is being built or sent rides in the next one;
and under a sustained flood the empty bucket holds every dashboard to 20 frames a second, each
frame carrying everything that changed since the last.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from ..bus import Bus, Subscription
from ..game import RECENT_RULINGS
from ..rules.text import with_messages
from ..runtime import Station
from . import heap

log = logging.getLogger(__name__)

FRAMES_PER_SECOND = 20.0  # sustained: at most 20 updates a second per dashboard, whatever the event rate
FRAME_BURST = 20.0  # frames that may go out back to back before the rate holds
KEEPALIVE_SECONDS = 1.0  # a health frame when idle; it also tells the server a watcher has gone
CHANGES_QUEUE = 8192  # game changes the broadcaster may fall behind by before sending a snapshot
TRIM_AFTER_LEAVING = 50  # watchers gone since the peak before freed memory is handed back
TRIMS_AFTER_LEAVING = 3  # ticks (about a second apart) on which it is handed back


def sse(event: str, data: dict[str, Any], event_id: int | None = None) -> bytes:
    """One SSE frame, encoded once: every watcher is sent the same bytes."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, ensure_ascii=False, separators=(',', ':'), allow_nan=False)}\n\n".encode()


Frame = tuple[int | None, bytes]  # the game version it shows (None for health), and its bytes
ENDED = -1  # the version of the last frame a game's stream sends: the game ended or stopped


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; ``wait`` takes one, saying how long
    to sleep first (0 while any is left)."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens, self._at = burst, clock()

    def wait(self) -> float:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self._at) * self.rate)
        self._at = now
        self.tokens -= 1
        return max(0.0, -self.tokens / self.rate)


class Broadcaster:
    """Game changes in, SSE frames out to every subscribed watcher."""

    def __init__(self, station: Station) -> None:
        self.station = station
        self.frames: Bus[Frame] = Bus()
        self._changes: Subscription[dict[str, Any]] | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()
        self._snapshot_lock = threading.Lock()  # one watcher builds a version's snapshot; the rest wait and share it
        self._snapshot: Frame | None = None
        self.snapshots_built = 0
        self._watchers_peak = self._watchers_before = self._trims_due = 0

    def close(self) -> None:
        """The game ended or stopped: every watcher gets an ``ended`` frame, then its stream ends
        (the dashboard goes back to the lobby), and the broadcaster's thread stops."""
        self._closed.set()
        self.frames.publish((ENDED, sse("ended", {"journal": self.station.journal.path.name})))

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def subscribe(self) -> Subscription[Frame]:
        with self._lock:
            if self._thread is None:  # started by the first watcher
                self._changes = self.station.bus.subscribe(CHANGES_QUEUE)
                self._thread = threading.Thread(target=self._run, name="sse-broadcast", daemon=True)
                self._thread.start()
        return self.frames.subscribe()

    def unsubscribe(self, subscription: Subscription[Frame]) -> None:
        self.frames.unsubscribe(subscription)

    def health(self) -> dict[str, Any]:
        """The station's health, with how the dashboards keep up: watchers, and the longest queue
        of changes not yet framed or frames not yet sent."""
        return {
            **self.station.health(),
            "watchers": self.frames.subscribers,
            "stream_backlog": self.frames.backlog(),
            "changes_backlog": self._changes.queue.qsize() if self._changes else 0,
        }

    def snapshot(self) -> Frame:
        """Everything a dashboard shows, for a new watcher or after a reset: built once per game
        version, however many watchers join (500 phones opening the page at once cost one),
        and holding the recent rulings only (older ones are paged from /api/rulings)."""
        game = self.station.game
        with self._snapshot_lock:
            cached = self._snapshot
            if cached is not None and cached[0] == game.version:
                return cached
            snapshot = game.snapshot(RECENT_RULINGS)
            self._snapshot = (
                snapshot["version"],
                sse(
                    "snapshot",
                    {
                        **snapshot,
                        "state": with_messages(snapshot["state"]),
                        "health": self.health(),
                        "table": game.table(),
                        "terrain_seq": game.terrain_seq(),
                    },
                    snapshot["version"],
                ),
            )
            self.snapshots_built += 1
            return self._snapshot

    def _run(self) -> None:
        changes, bucket = self._changes, TokenBucket(FRAMES_PER_SECOND, FRAME_BURST)
        assert changes is not None  # subscribed before this thread starts
        while not self._closed.is_set():
            first = changes.get(timeout=KEEPALIVE_SECONDS)
            if self._closed.is_set():
                return
            self._give_back_memory()
            if first is None:
                self.frames.publish((None, sse("health", self.health())))
                continue
            time.sleep(bucket.wait())  # nothing while a token is left; under a flood, the rate's pace
            messages = [first] + changes.drain()  # with all that came meanwhile
            try:
                self.frames.publish(self._frame(changes, messages))
            except Exception:  # a view that fails must not end every dashboard's stream
                log.exception("could not build a dashboard update")

    def _give_back_memory(self) -> None:
        """Once many watchers have left (and stopped leaving), hand back the heap they freed, on
        this tick and the next few: their connections and threads are let go a little later."""
        watchers, before = self.frames.subscribers, self._watchers_before
        self._watchers_before = watchers
        self._watchers_peak = max(self._watchers_peak, watchers)
        if self._watchers_peak - watchers >= TRIM_AFTER_LEAVING and watchers == before:  # and done leaving
            self._watchers_peak = watchers
            self._trims_due = TRIMS_AFTER_LEAVING
        if self._trims_due:
            self._trims_due -= 1
            heap.give_back()

    def _frame(self, changes: Subscription[dict[str, Any]], messages: list[dict[str, Any]]) -> Frame:
        if changes.lagged or any(m["reset"] for m in messages):
            changes.lagged = False
            return self.snapshot()
        game, version = self.station.game, messages[-1]["version"]
        return version, sse(
            "update",
            {
                "version": messages[-1]["version"],
                "seq": messages[-1]["seq"],
                "rulings": [r for m in messages for r in m["rulings"]],
                "statuses": {i: status for m in messages for i, status in m["statuses"].items()},
                "round_began": messages[-1]["round_began"],
                "state": with_messages(game.state_view()),
                "health": self.health(),
                "dice_waiting": game.dice_waiting(),
                "inputs_now": game.inputs_now(),
                "clocks": game.clocks(),
                "records": game.record_count(),
                "table": game.table(),
                "terrain_seq": game.terrain_seq(),
            },
            version,
        )


class Broadcasters:
    """The broadcaster of the game now running: a new game gets a new one, and ending a game
    closes the old one's streams."""

    def __init__(self) -> None:
        self._current: Broadcaster | None = None
        self._lock = threading.Lock()

    def of(self, station: Station) -> Broadcaster:
        with self._lock:
            if self._current is None or self._current.station is not station:
                if self._current is not None:
                    self._current.close()
                self._current = Broadcaster(station)
            return self._current

    def close(self, station: Station) -> None:
        with self._lock:
            if self._current is not None and self._current.station is station:
                self._current.close()
                self._current = None
