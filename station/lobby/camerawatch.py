"""The camera between games: its health shows in the lobby, and pairing offers the marker a
model brings under it, with a crop of it, before the game starts.

It keeps the latest frame of the source (the calibration desk's ``FrameGrabber``) and reads the
unit markers in it at most a few times a second.  Each marker id remembers the watch number at
which it was first seen, so "newly seen since I pressed Pair" is a comparison.  It lets go of the
camera before a game opens it.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from typing import Any

from ..vision.cv import UNIT_IDS, MarkerDetector, annotated_still, marker_crop_jpeg
from ..vision.sources import FrameGrabber, SourceError, open_source, replayed

log = logging.getLogger(__name__)

DETECT_EVERY_S = 0.3


class CameraWatch:
    def __init__(self, spec: str, fps: float | None = None) -> None:
        self.spec, self.fps = spec, fps
        self._grabber: FrameGrabber | None = None
        self._detector = MarkerDetector()
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)
        self._first_seen: dict[int, int] = {}
        self._quads: dict[int, Any] = {}
        self._frame: Any = None
        self._checked_at = 0.0
        self.error: str | None = None

    @property
    def running(self) -> bool:
        return self._grabber is not None

    def start(self) -> None:
        if self._grabber is not None:
            return
        try:
            frames = replayed(lambda: open_source(self.spec), self.fps) if self.fps else open_source(self.spec)
        except SourceError as exc:
            self.error = str(exc)
            log.warning("camera between games: %s", exc)
            return
        self.error = None
        self._grabber = FrameGrabber(frames).start()

    def stop(self) -> None:
        grabber, self._grabber = self._grabber, None
        if grabber is not None:
            frames = grabber.hand_over()
            close = getattr(frames, "close", None)
            if close is not None:
                close()

    def _look(self) -> None:
        """Read the markers of the latest frame, at most every ``DETECT_EVERY_S``."""
        grabber = self._grabber
        frame = grabber.latest_frame() if grabber else None
        if frame is None or time.monotonic() - self._checked_at < DETECT_EVERY_S:
            return
        self._checked_at = time.monotonic()
        found = self._detector.detect(frame)
        quads = {int(i): q for i, q in zip(found.ids, found.corners, strict=True) if int(i) in UNIT_IDS}
        number = next(self._numbers)
        for marker_id in quads:
            self._first_seen.setdefault(marker_id, number)
        for gone in set(self._first_seen) - set(quads):
            del self._first_seen[gone]  # taken away: seen again later, it is new again
        self._frame, self._quads = frame, quads

    def markers(self) -> list[dict[str, Any]]:
        """The unit markers in view now, each with the watch number it was first seen at."""
        with self._lock:
            self._look()
            return [{"id": i, "n": self._first_seen[i]} for i in sorted(self._quads)]

    def crop(self, marker_id: int) -> bytes | None:
        with self._lock:
            quad = self._quads.get(marker_id)
            return None if quad is None or self._frame is None else marker_crop_jpeg(self._frame, quad)

    def preview(self) -> bytes | None:
        """The latest frame as a small JPEG, for the settings page to show what the camera sees."""
        grabber = self._grabber
        frame = grabber.latest_frame() if grabber else None
        return None if frame is None else annotated_still(frame, [], width=640)

    def health(self) -> dict[str, Any]:
        grabber = self._grabber
        if grabber is None:
            return {"state": "error" if self.error else "idle", "source": self.spec, "error": self.error}
        frame = grabber.latest_frame()
        state = "error" if grabber.error else "running" if frame is not None else "starting"
        return {"state": state, "source": self.spec, "error": grabber.error}
