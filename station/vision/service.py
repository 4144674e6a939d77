"""The camera in a running station: frames in, tracker, and camera records out to the journal.

It runs in its own thread, never waits on the web server, and journals at a bounded rate: a
TableSnapshot at most every ``snapshot_interval`` seconds (and at once when something fell, appeared or
got up), plus every ModelFell and ModelUp.  The hub's TILT postures, as the rules know them, go
into the tracker so a model with a sensor is judged by its sensor first.

Faults: dark and frozen frames are kept from the tracker (``watchdog``); a camera that stops
delivering frames is opened again with back-off when the service was given ``reopen``; no frame
for ``stall_after`` seconds shows as ``stalled``; and while the journal's disk is full, camera
records are not journaled (counted in ``records_skipped``).  Each shows on the dashboard.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol

import numpy as np

from ..journal import JournalFull
from . import cv
from .calibration import Calibration
from .locate import Locator, specs_from
from .sources import SourceError
from .tracker import ModelFell, Tracker, TrackerOutput
from .watchdog import FrameWatchdog

log = logging.getLogger(__name__)


class GameSink(Protocol):
    """All the camera needs of a game: to journal what it saw, and the hub's latest postures
    (so a model with a tilt node is judged by its sensor first).  ``station.game.Game`` is one."""

    def observe_camera(self, fields: Mapping[str, Any]) -> Any: ...

    def observe_table(self, snapshot: Mapping[str, Any]) -> Any: ...

    def postures(self) -> dict[str, str]: ...


class CameraService:
    def __init__(
        self,
        frames: Iterator[np.ndarray],
        calibration: Calibration,
        game: GameSink,
        marker_specs: list[dict[str, Any]],
        mm_per_unit: float,
        snapshot_interval: float = 0.5,
        reopen: Callable[[], Iterator[np.ndarray]] | None = None,
        reopen_backoff: tuple[float, ...] = (0.5, 1.0, 2.0, 5.0),
        stall_after: float = 2.0,
    ) -> None:
        self.frames = frames
        self.reopen = reopen
        self.reopen_backoff = reopen_backoff
        self.stall_after = stall_after
        self.watchdog = FrameWatchdog()
        self.faults = {"dark": 0, "frozen": 0, "lost": 0}
        self.records_skipped = 0
        self._last_frame_at: float | None = None
        self.calibration = calibration
        self.game = game
        self.tracker = Tracker(Locator(calibration, specs_from(marker_specs)))
        self.mm_per_unit = mm_per_unit
        self.snapshot_interval = snapshot_interval
        self.state = "starting"
        self.error: str | None = None
        self.frames_seen = 0
        self.fps = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._last: tuple[np.ndarray, list[Any]] | None = None
        self._still: tuple[float, bytes] | None = None
        self._table_still: tuple[float, bytes] | None = None
        self._maps: tuple[np.ndarray, np.ndarray] | None = None
        self._still_lock = threading.Lock()
        self._started: float | None = None
        self._last_snapshot = 0.0

    def start(self) -> CameraService:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def health(self) -> dict[str, Any]:
        state = self.state
        quiet = time.monotonic() - self._last_frame_at if self._last_frame_at is not None else None
        if state in ("running", "dark", "frozen") and quiet is not None and quiet > self.stall_after:
            state = "stalled"  # the driver blocks: no frame, and no error either
        return {
            "state": state,
            "error": self.error,
            "frames": self.frames_seen,
            "fps": round(self.fps, 1),
            "seen_ago_s": None if quiet is None else round(quiet, 1),
            "faults": dict(self.faults),
            "records_skipped": self.records_skipped,
            "calibration": self.calibration.health(),
        }

    def latest_frame(self) -> np.ndarray | None:
        """The newest frame, for the guided calibration's live view."""
        last = self._last
        return None if last is None else last[0]

    def set_calibration(self, calibration: Calibration) -> None:
        """Track with a new calibration from now on (saved by the guided calibration): the same
        markers, a new locator, and the pictures and maps made from the old one forgotten."""
        specs = self.tracker.locator.specs
        self.tracker = Tracker(Locator(calibration, specs))
        self.calibration = calibration
        self._maps = None
        log.info("camera: tracking with the new calibration")

    def uncertainty_maps(self) -> list[dict[str, Any]]:
        """The calibration's error maps (worked out once per calibration)."""
        return self.calibration.uncertainty_maps()

    def still(self, max_age: float = 2.0) -> bytes | None:
        """A JPEG of the latest frame with the tracked bases drawn on it, made at most every
        ``max_age`` seconds however many people watch, so it never becomes a video stream."""
        with self._still_lock:
            now = time.monotonic()
            if self._still and now - self._still[0] < max_age:
                return self._still[1]
            if self._last is None:
                return None
            frame, tracks = self._last
            labels = [
                (t.pixel, f"{t.element} {t.status}" if t.status != "up" else t.element, t.status == "fallen")
                for t in tracks
            ]
            self._still = (now, cv.annotated_still(frame, labels))
            return self._still[1]

    def table_still(self, max_age: float = 2.0, mm_per_px: float = 2.0) -> bytes | None:
        """The latest frame warped to a top-down view of the table (``mm_per_px``), so the map can
        show it under the bases and terrain can be drawn over it.  Made at most every ``max_age``."""
        with self._still_lock:
            now = time.monotonic()
            if self._table_still and now - self._table_still[0] < max_age:
                return self._table_still[1]
            R, t = self.calibration.R, self.calibration.t
            if self._last is None or not self.calibration.table_mm or R is None or t is None:
                return None
            if self._maps is None:
                self._maps = cv.table_maps(
                    self.calibration.K,
                    self.calibration.dist,
                    cv.rvec_of(R),
                    t,
                    self.calibration.table_mm,
                    mm_per_px,
                )
            self._table_still = (now, cv.rectified_jpeg(self._last[0], self._maps))
            return self._table_still[1]

    def _run(self) -> None:
        attempt = 0
        while not self._stop.is_set():
            try:
                for frame in self.frames:
                    if self._stop.is_set():
                        return
                    self._on_frame(frame)
                    attempt = 0
                self.state = "ended"  # a recording ran out
                return
            except (SourceError, ValueError) as exc:
                self.error = str(exc)
                log.error("camera: %s", exc)
                if self.reopen is None:
                    self.state = "error"
                    return
            self.state = "lost"
            self.faults["lost"] += 1
            while not self._stop.wait(self.reopen_backoff[min(attempt, len(self.reopen_backoff) - 1)]):
                attempt += 1
                try:
                    self.frames = self.reopen()
                    log.info("camera open again")
                    break
                except SourceError as exc:
                    self.error = str(exc)

    def _on_frame(self, frame: np.ndarray) -> None:
        self.calibration.check_image(frame, "the camera frame")
        self._last_frame_at = time.monotonic()
        self.frames_seen += 1
        if self._started is None:
            self._started = self._last_frame_at
        self.fps = self.frames_seen / max(self._last_frame_at - self._started, 1e-6)
        verdict = self.watchdog.judge(frame)
        if not verdict.usable:
            fault = verdict.fault or "unusable"
            if self.state != fault:
                self.faults[fault] += 1
                log.warning("camera %s: holding its frames back from the tracker", fault)
            self.state = fault
            self._last = (frame, self._last[1] if self._last else [])
            return
        if self.state != "running":
            self.state, self.error = "running", None
        out = self.tracker.update(frame, tilt=self.game.postures())
        self._last = (frame, out.tracks)
        try:
            self._journal(out)
        except JournalFull:
            self.records_skipped += len(out.events) + 1

    def _journal(self, out: TrackerOutput) -> None:
        for event in out.events:
            fields = {"event": type(event).__name__, "element": event.element, "frame": event.frame}
            if isinstance(event, ModelFell):
                fields["evidence"] = event.evidence
            self.game.observe_camera(fields)
        now = time.monotonic()
        if out.events or out.appeared or now - self._last_snapshot >= self.snapshot_interval:
            self._last_snapshot = now
            self.game.observe_table(
                {
                    "table_mm": list(self.calibration.table_mm or ()),
                    "residual_mm": self.calibration.health().get("worst_anchor_mm"),
                    **out.snapshot(self.mm_per_unit),
                }
            )
