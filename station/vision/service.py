"""The camera in a running station: frames in, tracker, and camera records out to the journal.

It runs in its own thread, never waits on the web server, and journals at a bounded rate: a
TableSnapshot at most every ``snapshot_interval`` seconds (and at once when something fell or
got up), plus every ModelFell and ModelUp.  The hub's TILT postures, as the rules know them, go
into the tracker so a model with a sensor is judged by its sensor first.
"""
from __future__ import annotations

import logging
import threading
import time
from typing import Any, Iterator

import numpy as np

from ..game import Game
from . import cv
from .calibration import Calibration
from .locate import Locator, specs_from
from .sources import SourceError
from .tracker import ModelFell, Tracker

log = logging.getLogger(__name__)


class CameraService:
    def __init__(self, frames: Iterator[np.ndarray], calibration: Calibration, game: Game, marker_specs: list[dict],
                 mm_per_unit: float, snapshot_interval: float = 0.5) -> None:
        self.frames = frames
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
        self._last: tuple[np.ndarray, list] | None = None
        self._still: tuple[float, bytes] | None = None
        self._table_still: tuple[float, bytes] | None = None
        self._maps: tuple[np.ndarray, np.ndarray] | None = None
        self._still_lock = threading.Lock()

    def start(self) -> "CameraService":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def health(self) -> dict[str, Any]:
        return {"state": self.state, "error": self.error, "frames": self.frames_seen, "fps": round(self.fps, 1),
                "calibration": self.calibration.health()}

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
            labels = [(t.pixel, f"{t.element} {t.status}" if t.status != "up" else t.element, t.status == "fallen")
                      for t in tracks]
            self._still = (now, cv.annotated_still(frame, labels))
            return self._still[1]

    def table_still(self, max_age: float = 2.0, mm_per_px: float = 2.0) -> bytes | None:
        """The latest frame warped to a top-down view of the table (``mm_per_px``), so the map can
        show it under the bases and terrain can be drawn over it.  Made at most every ``max_age``."""
        with self._still_lock:
            now = time.monotonic()
            if self._table_still and now - self._table_still[0] < max_age:
                return self._table_still[1]
            if self._last is None or not self.calibration.table_mm:
                return None
            if self._maps is None:
                self._maps = cv.table_maps(self.calibration.K, self.calibration.dist, cv.rvec_of(self.calibration.R),
                                           self.calibration.t, self.calibration.table_mm, mm_per_px)
            self._table_still = (now, cv.rectified_jpeg(self._last[0], self._maps))
            return self._table_still[1]

    def _run(self) -> None:
        last_snapshot = 0.0
        started = time.monotonic()
        try:
            for frame in self.frames:
                if self._stop.is_set():
                    break
                self.state = "running"
                self.calibration.check_image(frame, "the camera frame")
                out = self.tracker.update(frame, tilt=self.game.postures())
                self._last = (frame, out.tracks)
                self.frames_seen += 1
                self.fps = self.frames_seen / max(time.monotonic() - started, 1e-6)
                for event in out.events:
                    fields = {"event": type(event).__name__, "element": event.element, "frame": event.frame}
                    if isinstance(event, ModelFell):
                        fields["evidence"] = event.evidence
                    self.game.observe_camera(self.game.journal.append("camera", **fields))
                now = time.monotonic()
                if out.events or now - last_snapshot >= self.snapshot_interval:
                    last_snapshot = now
                    self.game.observe_table({"table_mm": list(self.calibration.table_mm or ()),
                                             "residual_mm": self.calibration.health().get("worst_anchor_mm"),
                                             **out.snapshot(self.mm_per_unit)})
            self.state = "ended"
        except (SourceError, ValueError) as exc:
            self.state, self.error = "error", str(exc)
            log.error("camera stopped: %s", exc)
