"""Lens and table calibration, stored as versioned JSON (``station-calibration/1``).

* Lens: intrinsics and distortion from ChArUco views; RMS reprojection error, warned above 1 px.
* Table: the camera's pose from anchor markers laid flat at known table positions, fitted with
  RANSAC and refined; each anchor's residual in mm, and a refusal, saying which anchor, when the
  worst is too large (an anchor moved, misprinted, or a bad lens calibration).
"""
from __future__ import annotations

import datetime as _dt
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from . import cv
from .geometry import Camera, marker_corners

log = logging.getLogger(__name__)

FORMAT = "station-calibration/1"
RMS_WARN_PX = 1.0
MAX_ANCHOR_RESIDUAL_MM = 3.0


class CalibrationError(ValueError):
    pass


@dataclass(frozen=True)
class Anchor:
    id: int
    x: float
    y: float
    size_mm: float = 40.0
    facing_deg: float = 90.0  # printed top toward the far edge


def default_anchors(table_mm: tuple[float, float], size_mm: float = 40.0, inset: float = 40.0) -> list[Anchor]:
    """Anchors 0-7: the four corners and four edge midpoints, ``inset`` mm inside the edges."""
    w, h = table_mm
    xs, ys = (inset, w / 2, w - inset), (inset, h / 2, h - inset)
    spots = [(x, y) for y in ys for x in xs if not (x == w / 2 and y == h / 2)]
    return [Anchor(i, x, y, size_mm) for i, (x, y) in enumerate(spots)]


@dataclass
class Calibration:
    image_size: tuple[int, int]
    K: np.ndarray
    dist: np.ndarray
    rms_px: float
    views: int
    R: np.ndarray | None = None
    t: np.ndarray | None = None
    table_mm: tuple[float, float] | None = None
    anchors: list[Anchor] = field(default_factory=list)
    residuals_mm: dict[int, float] = field(default_factory=dict)

    @property
    def has_table(self) -> bool:
        return self.R is not None

    def camera(self) -> Camera:
        if self.R is None or self.t is None:
            raise CalibrationError("this calibration has no table pose; run `station calibrate table`")
        return Camera(self.K, self.dist, self.R, self.t, self.image_size)

    def health(self) -> dict[str, Any]:
        """What the dashboard shows: is it calibrated, and how well."""
        worst = max(self.residuals_mm.values()) if self.residuals_mm else None
        return {"lens_rms_px": round(self.rms_px, 3), "lens_ok": self.rms_px <= RMS_WARN_PX,
                "table": self.has_table, "worst_anchor_mm": None if worst is None else round(worst, 2),
                "anchors_used": len(self.residuals_mm), "image_size": list(self.image_size)}

    def check_image(self, image: np.ndarray, source: str) -> None:
        h, w = image.shape[:2]
        if (w, h) != tuple(self.image_size):
            raise CalibrationError(f"{source} is {w}x{h} but the calibration is for {self.image_size[0]}x"
                                   f"{self.image_size[1]}: another camera or resolution; calibrate again")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": FORMAT, "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "lens": {"image_size": list(self.image_size), "K": self.K.tolist(), "dist": self.dist.tolist(),
                     "rms_px": self.rms_px, "views": self.views}}
        if self.has_table:
            data["table"] = {"R": self.R.tolist(), "t": self.t.tolist(), "size_mm": list(self.table_mm),
                             "anchors": [a.__dict__ for a in self.anchors],
                             "residuals_mm": {str(k): v for k, v in self.residuals_mm.items()}}
        return data

    def save(self, path: str | Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=2))
        tmp.replace(path)  # never leave a half-written calibration behind


def load_calibration(path: str | Path) -> Calibration:
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise CalibrationError(f"{path}: no such calibration file") from None
    except (OSError, ValueError) as exc:
        raise CalibrationError(f"{path}: not a readable calibration ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CalibrationError(f"{path}: format must be {FORMAT!r}, found {data.get('format') if isinstance(data, dict) else None!r}")
    try:
        lens = data["lens"]
        K, dist = np.array(lens["K"], float), np.array(lens["dist"], float).reshape(-1)
        if K.shape != (3, 3) or len(dist) not in (4, 5, 8, 12, 14):
            raise ValueError("K must be 3x3 and dist 4-14 numbers")
        cal = Calibration(tuple(lens["image_size"]), K, dist, float(lens["rms_px"]), int(lens.get("views", 0)))
        if "table" in data:
            table = data["table"]
            cal.R, cal.t = np.array(table["R"], float), np.array(table["t"], float)
            if cal.R.shape != (3, 3) or cal.t.shape != (3,):
                raise ValueError("table R must be 3x3 and t 3 numbers")
            cal.table_mm = tuple(table["size_mm"])
            cal.anchors = [Anchor(**a) for a in table["anchors"]]
            cal.residuals_mm = {int(k): float(v) for k, v in table["residuals_mm"].items()}
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # a field of the wrong kind (found by fuzzing)
        raise CalibrationError(f"{path}: damaged calibration ({exc})") from None
    return cal


def calibrate_lens(images: Sequence[np.ndarray], board=None) -> Calibration:
    """Intrinsics and distortion from ChArUco views; at least 5 usable views."""
    board = board or cv.charuco_board()
    sizes = {(im.shape[1], im.shape[0]) for im in images}
    if len(sizes) != 1:
        raise CalibrationError(f"the images differ in size ({sorted(sizes)}); use one camera mode")
    objects, pixels = [], []
    for image in images:
        obj, img = cv.detect_charuco(board, image)
        if len(obj) >= 12:
            objects.append(obj)
            pixels.append(img)
    if len(objects) < 5:
        raise CalibrationError(f"the ChArUco board was found in {len(objects)} of {len(images)} images; "
                               "at least 5 views are needed (tilt the board, cover the corners of the frame)")
    size = sizes.pop()
    rms, K, dist = cv.calibrate_camera(objects, pixels, size)
    if rms > RMS_WARN_PX:
        log.warning("lens calibration RMS reprojection error %.2f px is above %.1f px", rms, RMS_WARN_PX)
    return Calibration(size, K, dist, rms, len(objects))


def calibrate_table(image: np.ndarray, lens: Calibration, anchors: Sequence[Anchor], table_mm: tuple[float, float],
                    max_residual_mm: float = MAX_ANCHOR_RESIDUAL_MM) -> Calibration:
    """The camera's pose from the anchors seen in ``image``; refuses a poor fit, saying why."""
    lens.check_image(image, "the table image")
    detection = cv.MarkerDetector().detect(image)
    by_id = {a.id: a for a in anchors}
    seen = [(by_id[i], c) for i, c in zip(detection.ids, detection.corners) if i in by_id]
    if len(seen) < 3:
        raise CalibrationError(f"only {len(seen)} of {len(anchors)} anchors were found (ids "
                               f"{sorted(a.id for a, _ in seen)}); at least 3 are needed, better all")
    world = np.vstack([marker_corners(np.array([a.x, a.y]), a.facing_deg, a.size_mm, 0.0) for a, _ in seen])
    pixels = np.vstack([c for _, c in seen])
    try:
        rvec, tvec, _ = cv.solve_pose(world, pixels, lens.K, lens.dist)
    except ValueError as exc:
        raise CalibrationError(str(exc)) from None
    cal = Calibration(lens.image_size, lens.K, lens.dist, lens.rms_px, lens.views, cv.rodrigues(rvec), tvec,
                      table_mm, list(anchors))
    camera = cal.camera()
    for (anchor, corners), start in zip(seen, range(0, len(world), 4)):
        # centre to centre: the detector pulls all four corners alike, which moves no centre
        on_table = camera.on_plane(corners, 0.0).mean(axis=0)
        cal.residuals_mm[anchor.id] = float(np.linalg.norm(on_table - world[start:start + 4, :2].mean(axis=0)))
    worst = max(cal.residuals_mm, key=cal.residuals_mm.get)
    if cal.residuals_mm[worst] > max_residual_mm:
        raise CalibrationError(f"anchor {worst} is {cal.residuals_mm[worst]:.1f} mm from where the others put it "
                               f"(limit {max_residual_mm} mm): was it moved, or printed at the wrong scale? "
                               f"Residuals: " + ", ".join(f"{k}: {v:.1f}" for k, v in sorted(cal.residuals_mm.items())))
    return cal
