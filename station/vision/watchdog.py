"""Is this frame worth tracking?  A camera can go dark (lights off, lens cap, a hand over it) or
freeze (a USB camera whose driver hands back the same buffer).  Either would look to the tracker
as if every marker vanished, and vanished markers vote for falls; so such frames are held back from
the tracker and the dashboard says why, until frames look live again.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

DARK_LEVEL = 25.0  # mean grey level (0-255) below which no marker can be read
FROZEN_FRAMES = 15  # identical frames in a row (half a second at 30 fps) before a camera is frozen
PROBE_SCALE = 8  # frames are compared at 1/8 size: cheap, and still sees sensor noise


@dataclass
class FrameVerdict:
    usable: bool
    fault: str | None  # "dark" | "frozen" | None


class FrameWatchdog:
    """Judges each frame from the camera, keeping only what it needs from the last one."""

    def __init__(self, dark_level: float = DARK_LEVEL, frozen_frames: int = FROZEN_FRAMES) -> None:
        self.dark_level = dark_level
        self.frozen_frames = frozen_frames
        self._previous: np.ndarray | None = None
        self._repeats = 0

    def judge(self, frame: np.ndarray) -> FrameVerdict:
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        probe = cv2.resize(gray, None, fx=1 / PROBE_SCALE, fy=1 / PROBE_SCALE, interpolation=cv2.INTER_AREA)
        same = (
            self._previous is not None and self._previous.shape == probe.shape and np.array_equal(probe, self._previous)
        )
        self._repeats = self._repeats + 1 if same else 0
        self._previous = probe
        if float(probe.mean()) < self.dark_level:
            return FrameVerdict(False, "dark")
        if self._repeats >= self.frozen_frames - 1:
            return FrameVerdict(False, "frozen")
        return FrameVerdict(True, None)
