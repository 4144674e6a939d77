"""Where every base is in one frame: parallax-corrected centre, facing, and single-frame signs of
a fall.

For each detected unit marker the camera ray through each corner is intersected with the plane at
that marker's height (from the army file), which is the parallax correction.  The base centre is
then the marker centre moved by the marker-to-base offset.  A marker that measures much smaller
than printed, or clearly not square on its plane, is tipped over or not at its height: evidence
of a fall that the tracker weighs with other frames and with the hub's TILT events.

What is not a base is said, never reported as one: a marker whose longer side is far from its
printed size (a false detection: an icon, text, another dictionary's marker, or a misprint), one
that would put a base off the table, one id seen twice in a frame (a copied marker), and every
army marker not seen at all.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from ..measure.bases import MM_PER_INCH
from . import cv
from .calibration import Calibration
from .geometry import PlanarPose, base_centre, lean_degs, marker_poses
from .readable import RELIABLE_PX, TRUSTED_PX, print_at_least_mm, side_px, smallest_px, too_small

log = logging.getLogger(__name__)

TIPPED_ASPECT = 0.8  # shorter axis / longer axis on the marker's plane below this: tipped over
SIZE_TOLERANCE = 0.2  # measured / printed size outside 1 +- this: not at its height, or tipped
# The longer side of a marker keeps its printed size even when tipped (it turns about the other
# axis) or dropped from a 60 mm model to the table (5 % from 1.2 m): off by more than this, it is
# not that marker at all.
FALSE_SIZE = 0.3
LEAN_CHECK_ASPECT = 0.98  # an upright 24 px marker reads 0.99 +- 0.007
LEAN_CHECK_SIZE = 0.02


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
    sigma_mm: float = 0.0  # expected position error here (1 sigma, radial), from the calibration's budget
    lean_deg: float = 0.0  # how far the marker leans from flat, from a fit of its four corners

    def as_dict(self) -> dict[str, Any]:
        view = asdict(self)
        view.update(x_in=round(self.x_mm / MM_PER_INCH, 3), y_in=round(self.y_mm / MM_PER_INCH, 3))
        for key in ("x_mm", "y_mm", "facing_deg", "confidence", "size_ratio", "aspect", "sigma_mm", "lean_deg"):
            view[key] = round(view[key], 3)
        return view


@dataclass(frozen=True)
class SmallMarkers:
    """Markers too small for the mount: the smallest they can be in the picture, and the fix."""

    markers: tuple[tuple[int, str], ...]  # (id, element)
    px: float
    size_mm: float

    @property
    def names(self) -> str:
        return ", ".join(f"{m} ({element})" for m, element in self.markers)

    @property
    def print_mm(self) -> int:
        return print_at_least_mm(self.size_mm, self.px)

    def said(self) -> str:
        return too_small(f"marker{'s' if len(self.markers) > 1 else ''} {self.names}", self.px, self.size_mm)


def specs_from(raw: Iterable[Mapping[str, Any]]) -> dict[int, MarkerSpec]:
    return {
        int(s["id"]): MarkerSpec(
            int(s["id"]),
            s["element"],
            s["unit"],
            s["player"],
            float(s["size_mm"]),
            float(s["height_mm"]),
            tuple(s.get("offset_mm", (0.0, 0.0))),
        )
        for s in raw
    }


class Locator:
    """One frame in, the bases seen in it out (plus warnings for markers nobody owns)."""

    def __init__(
        self, calibration: Calibration, specs: Mapping[int, MarkerSpec], detector: cv.MarkerDetector | None = None
    ) -> None:
        self.calibration = calibration
        self.camera = calibration.camera()
        self.specs = dict(specs)
        self.anchor_ids = {a.id for a in calibration.anchors}
        self.detector = detector or cv.MarkerDetector()
        self.error_model = calibration.error_model()
        self._smallest: dict[int, float] = {}  # per marker: its smallest size in pixels on this table
        # a calibration made before the error budget was kept: its worst anchor residual, as before
        self.fallback_sigma_mm = float(calibration.health().get("worst_anchor_mm") or 1.0)

    def locate(self, image: np.ndarray, source: str = "frame") -> tuple[list[BaseSighting], list[str]]:
        self.calibration.check_image(image, source)
        return self.locate_detection(self.detector.detect(image))

    def locate_detection(self, detection: cv.Detection) -> tuple[list[BaseSighting], list[str]]:
        sightings: list[BaseSighting] = []
        warnings: list[str] = []
        ids = [int(i) for i in detection.ids]
        counts = Counter(ids)
        for marker_id, times in sorted(counts.items()):
            if marker_id not in self.specs and marker_id not in self.anchor_ids:
                warnings.append(f"marker {marker_id} belongs to no unit in the army files")
            elif times > 1 and marker_id in self.specs:
                warnings.append(
                    f"marker {marker_id} ({self.specs[marker_id].element}) is seen {times} times in one "
                    "frame: a copied marker? None of them is used"
                )
        known = [k for k, marker_id in enumerate(ids) if marker_id in self.specs and counts[marker_id] == 1]
        read_px = side_px(detection.corners)
        for k in [k for k in known if read_px[k] < TRUSTED_PX]:
            spec = self.specs[ids[k]]
            warnings.append(
                f"marker {spec.id} ({spec.element}) read at {read_px[k]:.1f} px, under the {TRUSTED_PX:g} px "
                "at which ids are trusted (smaller ones get misread as others); ignored"
            )
        known = [k for k in known if read_px[k] >= TRUSTED_PX]
        missing = [m for m in sorted(self.specs) if m not in counts]
        if missing:
            warnings.append("not seen: " + ", ".join(f"marker {m} ({self.specs[m].element})" for m in missing))
            warnings += [small.said() for small in self.too_small(missing)]
        if not known:
            return sightings, warnings
        heights = np.array([self.specs[ids[k]].height_mm for k in known])
        poses = marker_poses(self.camera, detection.corners[known], heights)  # one undistortion per frame
        kept: list[tuple[int, BaseSighting]] = []
        for k, pose in zip(known, poses):
            spec = self.specs[ids[k]]
            sighting = self._sighting(spec, pose)
            problem = self._implausible(spec, pose, sighting)
            if problem:
                warnings.append(f"marker {spec.id} ({spec.element}) {problem}; ignored")
                continue
            kept.append((k, sighting))
        # a marker that reads square and at its printed size on its plane fits flat within the
        # detector's noise, so its lean is 0 without the fit: only the others are fitted
        doubtful = [(k, s) for k, s in kept if s.aspect < LEAN_CHECK_ASPECT or abs(s.size_ratio - 1) > LEAN_CHECK_SIZE]
        leans = lean_degs(
            self.camera,
            detection.corners[[k for k, _ in doubtful]],
            np.array([self.specs[s.marker].height_mm for _, s in doubtful]),
            np.array([self.specs[s.marker].size_mm for _, s in doubtful]),
        )
        leaning = {s.marker: float(lean) for (_, s), lean in zip(doubtful, leans)}
        sightings = [replace(s, lean_deg=leaning[s.marker]) if s.marker in leaning else s for _, s in kept]
        return self._with_sigmas(sightings), warnings

    def smallest_px(self, marker: int) -> float:
        """The smallest marker ``marker`` can be in this camera's picture, anywhere on the table."""
        if marker not in self._smallest:
            spec = self.specs[marker]
            table = self.calibration.table_mm or (1219.2, 1219.2)
            self._smallest[marker] = smallest_px(self.camera, table, spec.height_mm, spec.size_mm)
        return self._smallest[marker]

    def too_small(self, markers: Iterable[int]) -> list[SmallMarkers]:
        """The markers too small for this mount to be read everywhere on the table, grouped where
        they are alike (the same size in pixels and printed size)."""
        alike: dict[tuple[float, float], list[int]] = {}
        for m in markers:
            px = self.smallest_px(m)
            if px < RELIABLE_PX:
                alike.setdefault((round(px, 1), self.specs[m].size_mm), []).append(m)
        return [
            SmallMarkers(tuple((m, self.specs[m].element) for m in group), px, size)
            for (px, size), group in sorted(alike.items())
        ]

    def _with_sigmas(self, sightings: list[BaseSighting]) -> list[BaseSighting]:
        if not sightings:
            return sightings
        if self.error_model is None:
            return [replace(s, sigma_mm=self.fallback_sigma_mm) for s in sightings]
        xy = np.array([[s.x_mm, s.y_mm] for s in sightings])
        sigmas = self.error_model.sigma_mm(xy, np.array([self.specs[s.marker].height_mm for s in sightings]))
        return [replace(s, sigma_mm=float(sigma)) for s, sigma in zip(sightings, sigmas)]

    @staticmethod
    def _sighting(spec: MarkerSpec, pose: PlanarPose) -> BaseSighting:
        x, y = base_centre(pose, spec.offset_mm)
        aspect = min(pose.axes_mm) / max(pose.axes_mm)
        ratio = pose.size_mm / spec.size_mm
        tipped = aspect < TIPPED_ASPECT or abs(ratio - 1) > SIZE_TOLERANCE
        confidence = float(np.clip(aspect - 3 * max(0.0, abs(ratio - 1) - 0.05), 0, 1))
        return BaseSighting(
            spec.id,
            spec.element,
            spec.unit,
            spec.player,
            x,
            y,
            pose.facing_deg,
            tipped,
            confidence,
            ratio,
            aspect,
        )

    def _implausible(self, spec: MarkerSpec, pose: PlanarPose, sighting: BaseSighting) -> str | None:
        """Why this cannot be the army's marker, or None."""
        longer = max(pose.axes_mm)
        if abs(longer / spec.size_mm - 1) > FALSE_SIZE:
            return (
                f"measures {longer:.0f} mm at its height of {spec.height_mm:g} mm, not its printed "
                f"{spec.size_mm:g} mm: a false detection, a misprint or a wrong height in the army file"
            )
        table = self.calibration.table_mm
        if table:
            margin = spec.size_mm
            if not (-margin <= sighting.x_mm <= table[0] + margin and -margin <= sighting.y_mm <= table[1] + margin):
                return (
                    f"would put its base at x {sighting.x_mm:.0f} y {sighting.y_mm:.0f} mm, off the "
                    f"{table[0]:g} x {table[1]:g} mm table: a false detection?"
                )
        return None
