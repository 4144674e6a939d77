"""Where every base is in one frame: parallax-corrected centre, facing, and single-frame signs of
a fall.

For each detected unit marker the camera ray through each corner is intersected with the plane at
that marker's height (from the army file), which is the parallax correction.  The base centre is
then the marker centre moved by the marker-to-base offset.  A marker that measures much smaller
than printed, or clearly not square on its plane, is tipped over or not at its height: evidence
of a fall that the tracker weighs with other frames and with the hub's TILT events.
"""
from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Mapping

import numpy as np

from . import cv
from .calibration import Calibration
from .geometry import base_centre, marker_poses
from ..measure.bases import MM_PER_INCH

log = logging.getLogger(__name__)

TIPPED_ASPECT = 0.8  # shorter axis / longer axis on the marker's plane below this: tipped over
SIZE_TOLERANCE = 0.2  # measured / printed size outside 1 +- this: not at its height, or tipped


@dataclass(frozen=True)
class MarkerSpec:
    id: int
    element: str
    unit: str
    player: str
    size_mm: float
    height_mm: float
    offset_mm: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class BaseSighting:
    marker: int
    element: str
    unit: str
    player: str
    x_mm: float
    y_mm: float
    facing_deg: float
    tipped: bool  # single-frame evidence of a fall
    confidence: float
    size_ratio: float
    aspect: float

    def as_dict(self) -> dict[str, Any]:
        view = asdict(self)
        view.update(x_in=round(self.x_mm / MM_PER_INCH, 3), y_in=round(self.y_mm / MM_PER_INCH, 3))
        for key in ("x_mm", "y_mm", "facing_deg", "confidence", "size_ratio", "aspect"):
            view[key] = round(view[key], 3)
        return view


def specs_from(raw: Iterable[Mapping[str, Any]]) -> dict[int, MarkerSpec]:
    return {int(s["id"]): MarkerSpec(int(s["id"]), s["element"], s["unit"], s["player"], float(s["size_mm"]),
                                     float(s["height_mm"]), tuple(s.get("offset_mm", (0.0, 0.0))))
            for s in raw}


class Locator:
    """One frame in, the bases seen in it out (plus warnings for markers nobody owns)."""

    def __init__(self, calibration: Calibration, specs: Mapping[int, MarkerSpec],
                 detector: cv.MarkerDetector | None = None) -> None:
        self.calibration = calibration
        self.camera = calibration.camera()
        self.specs = dict(specs)
        self.anchor_ids = {a.id for a in calibration.anchors}
        self.detector = detector or cv.MarkerDetector()

    def locate(self, image: np.ndarray, source: str = "frame") -> tuple[list[BaseSighting], list[str]]:
        self.calibration.check_image(image, source)
        return self.locate_detection(self.detector.detect(image))

    def locate_detection(self, detection: cv.Detection) -> tuple[list[BaseSighting], list[str]]:
        sightings, warnings = [], []
        known = [k for k, marker_id in enumerate(detection.ids) if int(marker_id) in self.specs]
        for marker_id in detection.ids:
            if int(marker_id) not in self.specs and marker_id not in self.anchor_ids:
                warnings.append(f"marker {marker_id} belongs to no unit in the army files")
        if not known:
            return sightings, warnings
        heights = [self.specs[int(detection.ids[k])].height_mm for k in known]
        poses = marker_poses(self.camera, detection.corners[known], heights)  # one undistortion per frame
        for k, pose in zip(known, poses):
            marker_id = detection.ids[k]
            spec = self.specs[int(marker_id)]
            x, y = base_centre(pose, spec.offset_mm)
            sides = np.linalg.norm(pose.corners - np.roll(pose.corners, 1, axis=0), axis=1)
            axes = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
            aspect = float(min(axes) / max(axes))
            ratio = pose.size_mm / spec.size_mm
            tipped = aspect < TIPPED_ASPECT or abs(ratio - 1) > SIZE_TOLERANCE
            confidence = float(np.clip(aspect - 3 * max(0.0, abs(ratio - 1) - 0.05), 0, 1))
            sightings.append(BaseSighting(int(marker_id), spec.element, spec.unit, spec.player, x, y,
                                          pose.facing_deg, tipped, confidence, ratio, aspect))
        return sightings, warnings
