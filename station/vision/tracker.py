"""Bases over time: smoothing, stillness, and fallen-model detection that a hand cannot fool.

A marker that vanishes is either hidden (a hand or arm over it) or gone because its model fell.
The tracker keeps a background image of the still table and finds what differs from it: a hand
or an arm is one large changed blob, a fallen model only a small one.  A missing marker inside
(a margin around) a large blob is hidden and proves nothing; missing anywhere else, it counts
towards a fall, and ``fall_frames`` such frames make a ``ModelFell``.  A
marker seen tipped over (``Locator``) counts the same way.  A TILT report from the hub for a model
with a sensor decides at once.  Reappearing upright gives ``ModelUp``.

Two things one frame cannot tell:
* **A lean.**  A model leaning 30 degrees is flagged tipped in only about a quarter of single
  frames: on the flat plane its marker's aspect is 0.87 on average but scatters by 0.11, as the
  lean turns toward or away from the camera.  ``Locator`` fits each marker's lean in 3D instead
  (``geometry.lean_degs``).  On the renderer, a 30-degree lean reads 20 degrees or more in 60 %
  of frames (the rest read flat: a small square's two-fold ambiguity), a 15-degree lean in 2 %,
  an upright marker never.  A track with ``LEAN_QUORUM`` of its last ``LEAN_WINDOW``
  leans at ``LEAN_DEG`` or more has fallen: the window is already the evidence over time.
* **A false marker.**  A new track is only reported once seen in ``confirm_frames`` frames in a
  row, so a pattern read as a marker in one frame (a hand's shadow, a printed icon) makes no base.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from ..measure.bases import MM_PER_INCH
from .locate import BaseSighting, Locator

CHANGE_LEVEL = 12  # grey levels (after 4x4 averaging, so noise stays well under it): changed
SCALE = 4  # the change mask is worked out at a quarter of the frame's resolution
OCCLUDER_MARKERS = 11  # a changed blob larger than this many marker areas is a hand or an arm
MARGIN_MARKERS = 1.5  # and a marker this close counts as under it: a hand touching its white
# margin breaks the quiet zone ArUco needs, so the marker is missed while in plain view
LEAN_WINDOW = 10
LEAN_QUORUM = 5
LEAN_DEG = 20.0


@dataclass(frozen=True)
class ModelFell:
    element: str
    frame: int
    evidence: str  # "vanished", "tipped", "leaning" or "tilt sensor"


@dataclass(frozen=True)
class ModelUp:
    element: str
    frame: int


@dataclass
class Track:
    element: str
    x: float
    y: float
    facing: float
    pixel: tuple[float, float]
    size_px: float
    status: str = "up"  # up | hidden | fallen
    fall_votes: int = 0
    last_seen: int = 0
    confidence: float = 1.0
    sigma_mm: float = 0.0
    sightings: int = 0  # frames in a row it was seen while still tentative
    leans: list[float] = field(default_factory=list)  # the last LEAN_WINDOW sightings'


@dataclass
class TrackerOutput:
    frame: int
    still: bool
    tracks: list[Track]
    events: list[ModelFell | ModelUp] = field(default_factory=list)
    appeared: list[str] = field(default_factory=list)  # tracks confirmed in this frame

    def snapshot(self, mm_per_unit: float = MM_PER_INCH) -> dict[str, Any]:
        """The TableSnapshot observation: positions in mm and game units, facing, status."""
        return {
            "frame": self.frame,
            "still": self.still,
            "units": [
                {
                    "element": t.element,
                    "x_mm": round(t.x, 2),
                    "y_mm": round(t.y, 2),
                    "x_units": round(t.x / mm_per_unit, 3),
                    "y_units": round(t.y / mm_per_unit, 3),
                    "facing_deg": round(t.facing, 2),
                    "status": t.status,
                    "confidence": round(t.confidence, 3),
                    "sigma_mm": round(t.sigma_mm, 3),
                }
                for t in self.tracks
            ],
        }


class Tracker:
    def __init__(
        self,
        locator: Locator,
        fall_frames: int = 10,
        smoothing: float = 0.5,
        move_mm: float = 3.0,
        confirm_frames: int = 3,
    ) -> None:
        self.locator = locator
        self.fall_frames = fall_frames
        self.confirm_frames = confirm_frames
        self.tentative: dict[str, Track] = {}
        self.smoothing = smoothing
        self.move_mm = move_mm
        self.tracks: dict[str, Track] = {}
        self.frame = 0
        self._previous: np.ndarray | None = None
        self._background: np.ndarray | None = None

    def _learn_background(self, small: np.ndarray) -> np.ndarray:
        """What differs from the background (a quarter-resolution mask); the background learns,
        slowly, wherever nothing changed.  Runs every frame so the background stays current."""
        if self._background is None:
            self._background = small
        differs = (cv2.absdiff(small, self._background) > CHANGE_LEVEL).astype(np.uint8)
        changed = np.asarray(cv2.morphologyEx(differs, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)))
        # learn fast where nothing changed, slowly elsewhere, so that a start-up with a hand in view
        # or a box set down for good fades out of the background in about a hundred frames
        rate = np.where(changed > 0, 0.01, 0.1).astype(np.float32)
        self._background = (1 - rate) * self._background + rate * small
        return changed

    def _occluders(self, changed: np.ndarray) -> np.ndarray:
        """The large changed blobs (hands, arms), grown by a margin.  Only needed, and only worked
        out, in frames where some marker is missing."""
        marker_px = max((t.size_px for t in self.tracks.values()), default=24.0) / SCALE
        count, labels, stats, _ = cv2.connectedComponentsWithStats(changed)
        big = [i for i in range(1, count) if stats[i, cv2.CC_STAT_AREA] > OCCLUDER_MARKERS * marker_px**2]
        mask = np.isin(labels, big).astype(np.uint8)
        grow = int(2 * MARGIN_MARKERS * marker_px) | 1
        return cv2.dilate(mask, np.ones((grow, grow), np.uint8)) if big else mask

    def update(self, image: np.ndarray, tilt: Mapping[str, str] | None = None) -> TrackerOutput:
        """One frame; ``tilt`` maps elements to the hub's latest TILT state, where there is one."""
        self.frame += 1
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        detection = self.locator.detector.detect(gray)
        sightings, _ = self.locator.locate_detection(detection)
        pixels = {int(i): c for i, c in zip(detection.ids, detection.corners)}
        events: list[ModelFell | ModelUp] = []
        moved = False
        seen: set[str] = set()
        appeared = []
        for s in sightings:
            if s.element not in self.tracks:
                if not self._confirmed(s, pixels[s.marker]):
                    continue
                appeared.append(s.element)
            seen.add(s.element)
            moved |= self._observe(gray, s, pixels[s.marker], events)
        for element in [e for e in self.tentative if e not in {s.element for s in sightings}]:
            del self.tentative[element]  # a run of sightings must be unbroken
        small = cv2.resize(gray, None, fx=1 / SCALE, fy=1 / SCALE, interpolation=cv2.INTER_AREA).astype(np.float32)
        changed = self._learn_background(small)  # the quarter-size frame serves both background checks
        missing = [track for element, track in self.tracks.items() if element not in seen]
        if missing:
            occluders = self._occluders(changed)
            for track in missing:
                self._missing(occluders, track, events)
        for element, state in (tilt or {}).items():
            tilted = self.tracks.get(element)
            if tilted and state == "fallen" and tilted.status != "fallen":
                tilted.status = "fallen"
                events.append(ModelFell(element, self.frame, "tilt sensor"))
            elif tilted and state == "upright" and tilted.status == "fallen" and element in seen:
                tilted.status = "up"
                events.append(ModelUp(element, self.frame))
        still = not moved and self._scene_still(small)
        self._previous = small
        # copies: an output is what this frame saw, and must not change with later frames
        return TrackerOutput(self.frame, still, [replace(t) for t in self.tracks.values()], events, appeared)

    def _confirmed(self, s: BaseSighting, corners: np.ndarray) -> bool:
        """Count a new marker's sightings; True once it has been seen ``confirm_frames`` in a row."""
        track = self.tentative.setdefault(
            s.element, Track(s.element, s.x_mm, s.y_mm, s.facing_deg, tuple(corners.mean(axis=0)), 0.0)
        )
        track.sightings += 1
        if track.sightings < self.confirm_frames:
            return False
        del self.tentative[s.element]
        return True

    def _observe(self, gray: np.ndarray, s: BaseSighting, corners: np.ndarray, events: list[Any]) -> bool:
        track = self.tracks.get(s.element)
        centre = corners.mean(axis=0)
        size = float(np.linalg.norm(corners[0] - corners[1]))
        if track is None:
            track = self.tracks[s.element] = Track(s.element, s.x_mm, s.y_mm, s.facing_deg, tuple(centre), size)
        moved = math.hypot(s.x_mm - track.x, s.y_mm - track.y) > self.move_mm
        a = 1.0 if moved else self.smoothing  # a model being moved is followed, a still one averaged
        track.x += a * (s.x_mm - track.x)
        track.y += a * (s.y_mm - track.y)
        track.facing = (track.facing + a * ((s.facing_deg - track.facing + 180) % 360 - 180)) % 360
        track.confidence, track.last_seen, track.sigma_mm = s.confidence, self.frame, s.sigma_mm
        track.leans = (track.leans + [s.lean_deg])[-LEAN_WINDOW:]
        if sum(lean >= LEAN_DEG for lean in track.leans) >= LEAN_QUORUM:
            if track.status != "fallen":
                track.status = "fallen"
                events.append(ModelFell(track.element, self.frame, "leaning"))
            return moved
        if s.tipped:
            self._vote_fall(track, "tipped", events)
            return moved
        track.pixel, track.size_px, track.fall_votes = tuple(centre), size, 0
        if track.status == "fallen":
            events.append(ModelUp(track.element, self.frame))
        track.status = "up"
        return moved

    def _missing(self, occluders: np.ndarray, track: Track, events: list[Any]) -> None:
        if track.status == "fallen":
            return
        x = min(int(track.pixel[0] / SCALE), occluders.shape[1] - 1)
        y = min(int(track.pixel[1] / SCALE), occluders.shape[0] - 1)
        if occluders[y, x]:
            track.status = "hidden"  # a hand or an arm: no evidence either way
            return
        self._vote_fall(track, "vanished", events)

    def _vote_fall(self, track: Track, evidence: str, events: list[Any]) -> None:
        track.fall_votes += 1
        if track.fall_votes >= self.fall_frames and track.status != "fallen":
            track.status = "fallen"
            events.append(ModelFell(track.element, self.frame, evidence))

    def _scene_still(self, small: np.ndarray) -> bool:
        """Still when under 0.2 % of the quarter-size frame changed since the last frame."""
        if self._previous is None or self._previous.shape != small.shape:
            return False
        return float((cv2.absdiff(small, self._previous) > CHANGE_LEVEL).mean()) < 0.002
