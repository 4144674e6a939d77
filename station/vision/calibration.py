"""Lens and table calibration, stored as versioned JSON (``station-calibration/1``).

* Lens: intrinsics and distortion from ChArUco views; RMS reprojection error, warned above 1 px.
* Table: the camera's pose from anchor markers laid flat at known table positions
  (``tablepose.py``: consensus of whole anchors, then a fit over all their corners); each anchor's
  residual in mm, and a refusal, naming the anchor, when one disagrees with the others (moved,
  misprinted, or a bad lens calibration).  It keeps the fit's covariance, from which
  ``uncertainty.py`` maps the expected position error over the table.
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..datafile import write_text_atomic
from . import cv
from .geometry import Camera, marker_corners
from .quality import image_problems
from .readable import RELIABLE_PX, expected_px, print_at_least_mm, side_px, too_small
from .tablepose import MIN_ANCHORS, POSE_PARAMETERS, SeenAnchor, TablePose, fit_table_pose, from_rvec_coordinates
from .uncertainty import ErrorModel

log = logging.getLogger(__name__)

FORMAT = "station-calibration/1"
RMS_WARN_PX = 1.0
MAX_ANCHOR_RESIDUAL_MM = 3.0


class CalibrationError(ValueError):
    pass


class MovedAnchorError(CalibrationError):
    """One or more anchors disagree with the rest.  ``calibration`` is the pose from the others,
    which a referee may accept by leaving the named anchors out (``--without``)."""

    def __init__(self, message: str, calibration: Calibration) -> None:
        super().__init__(message)
        self.calibration = calibration


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
    lens_covariance: np.ndarray | None = None  # (9, 9) of fx fy cx cy k1 k2 p1 p2 k3, from the lens fit
    pose_covariance: np.ndarray | None = None  # (6, 6) the camera's turn and tvec (tablepose.POSE_PARAMETERS)
    lens_sensitivity: np.ndarray | None = None  # (6, 9)
    used_anchors: tuple[int, ...] = ()
    view_rms_px: list[float] = field(default_factory=list)  # each lens view's reprojection error, not saved
    _maps: list[dict[str, Any]] | None = field(
        default=None, repr=False, compare=False
    )  # uncertainty_maps, worked out once

    @property
    def has_table(self) -> bool:
        return self.R is not None

    def camera(self) -> Camera:
        if self.R is None or self.t is None:
            raise CalibrationError("this calibration has no table pose; run `station calibrate table`")
        return Camera(self.K, self.dist, self.R, self.t, self.image_size)

    def error_model(self) -> ErrorModel | None:
        """The position error budget, or None for a calibration made before it was kept."""
        if self.R is None or self.t is None or self.pose_covariance is None or self.lens_sensitivity is None:
            return None
        lens = self.lens_covariance if self.lens_covariance is not None else np.zeros((9, 9))
        return ErrorModel(
            self.K, self.dist, cv.rvec_of(self.R), self.t, self.pose_covariance, self.lens_sensitivity, lens
        )

    def uncertainty_maps(self) -> list[dict[str, Any]]:
        """The error maps at 0 and 60 mm, worked out once: health() is read every second by every
        dashboard, and the maps change only with the calibration."""
        if self._maps is None:
            model = self.error_model()
            self._maps = model.maps(self.table_mm) if model is not None and self.table_mm else []
        return self._maps

    def health(self) -> dict[str, Any]:
        """What the dashboard shows: is it calibrated, and how well."""
        used = [self.residuals_mm[k] for k in self.used_anchors if k in self.residuals_mm] or list(
            self.residuals_mm.values()
        )
        worst = max(used) if used else None
        maps = self.uncertainty_maps()
        worst_sigma = max(m["worst_mm"] for m in maps) if maps else None
        return {
            "lens_rms_px": round(self.rms_px, 3),
            "lens_ok": self.rms_px <= RMS_WARN_PX,
            "table": self.has_table,
            "worst_anchor_mm": None if worst is None else round(worst, 2),
            "anchors_used": len(used),
            "image_size": list(self.image_size),
            "worst_sigma_mm": worst_sigma,
        }

    def check_image(self, image: np.ndarray, source: str) -> None:
        h, w = image.shape[:2]
        if (w, h) != tuple(self.image_size):
            raise CalibrationError(
                f"{source} is {w}x{h} but the calibration is for {self.image_size[0]}x"
                f"{self.image_size[1]}: another camera or resolution; calibrate again"
            )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "format": FORMAT,
            "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "lens": {
                "image_size": list(self.image_size),
                "K": self.K.tolist(),
                "dist": self.dist.tolist(),
                "rms_px": self.rms_px,
                "views": self.views,
            },
        }
        if self.lens_covariance is not None:
            data["lens"]["covariance"] = self.lens_covariance.tolist()
        if self.R is not None and self.t is not None:
            data["table"] = {
                "R": self.R.tolist(),
                "t": self.t.tolist(),
                "size_mm": list(self.table_mm or ()),
                "anchors": [a.__dict__ for a in self.anchors],
                "residuals_mm": {str(k): v for k, v in self.residuals_mm.items()},
                "used_anchors": list(self.used_anchors),
            }
            if self.pose_covariance is not None and self.lens_sensitivity is not None:
                data["table"]["pose_parameters"] = POSE_PARAMETERS
                data["table"]["pose_covariance"] = self.pose_covariance.tolist()
                data["table"]["lens_sensitivity"] = self.lens_sensitivity.tolist()
        return data

    def save(self, path: str | Path) -> None:
        write_text_atomic(Path(path), json.dumps(self.to_json(), indent=2))  # a power cut leaves the old or the new


def _array(value: Any, shape: tuple[int, ...], what: str) -> np.ndarray:
    array = np.array(value, float)
    if array.shape != shape or not np.all(np.isfinite(array)):
        raise ValueError(f"{what} must be {'x'.join(map(str, shape))} finite numbers")
    return array


def load_calibration(path: str | Path) -> Calibration:
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise CalibrationError(f"{path}: no such calibration file") from None
    except (OSError, ValueError) as exc:
        raise CalibrationError(f"{path}: not a readable calibration ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CalibrationError(
            f"{path}: format must be {FORMAT!r}, found {data.get('format') if isinstance(data, dict) else None!r}"
        )
    try:
        lens = data["lens"]
        K, dist = np.array(lens["K"], float), np.array(lens["dist"], float).reshape(-1)
        if K.shape != (3, 3) or len(dist) not in (4, 5, 8, 12, 14):
            raise ValueError("K must be 3x3 and dist 4-14 numbers")
        cal = Calibration(tuple(lens["image_size"]), K, dist, float(lens["rms_px"]), int(lens.get("views", 0)))
        if "covariance" in lens:
            cal.lens_covariance = _array(lens["covariance"], (9, 9), "lens covariance")
        if "table" in data:
            table = data["table"]
            cal.R, cal.t = np.array(table["R"], float), np.array(table["t"], float)
            if cal.R.shape != (3, 3) or cal.t.shape != (3,):
                raise ValueError("table R must be 3x3 and t 3 numbers")
            cal.table_mm = tuple(table["size_mm"])
            cal.anchors = [Anchor(**a) for a in table["anchors"]]
            cal.residuals_mm = {int(k): float(v) for k, v in table["residuals_mm"].items()}
            cal.used_anchors = tuple(int(k) for k in table.get("used_anchors", cal.residuals_mm))
            if "pose_covariance" in table:
                cal.pose_covariance = _array(table["pose_covariance"], (6, 6), "table pose_covariance")
                cal.lens_sensitivity = _array(table["lens_sensitivity"], (6, 9), "table lens_sensitivity")
                if table.get("pose_parameters") != POSE_PARAMETERS:  # written in rvec's coordinates
                    G = from_rvec_coordinates(cv.rvec_of(cal.R))
                    cal.pose_covariance, cal.lens_sensitivity = G @ cal.pose_covariance @ G.T, G @ cal.lens_sensitivity
    except (KeyError, TypeError, ValueError, AttributeError) as exc:  # a field of the wrong kind (found by fuzzing)
        raise CalibrationError(f"{path}: damaged calibration ({exc})") from None
    return cal


def calibrate_lens(images: Sequence[np.ndarray], board: Any = None, min_views: int = 5) -> Calibration:
    """Intrinsics and distortion from ChArUco photos.  Five views or more fit the full lens; with
    fewer (``min_views`` lowered, as for a single test photo) only the focal length and k1."""
    board = board or cv.charuco_board()
    sizes = {(im.shape[1], im.shape[0]) for im in images}
    if len(sizes) != 1:
        raise CalibrationError(f"the images differ in size ({sorted(sizes)}); use one camera mode")
    views = [view for view in (board_view(board, image) for image in images) if view is not None]
    if len(views) < min_views:
        problems = sorted({p for image in images for p in image_problems(image)})
        hint = f" ({'; '.join(problems)})" if problems else ""
        raise CalibrationError(
            f"the ChArUco board was found in {len(views)} of {len(images)} images{hint}; "
            f"at least {min_views} views are needed (tilt the board, cover the corners of the frame)"
        )
    return lens_from_views(views, sizes.pop())


MIN_VIEW_CORNERS = 12


def board_view(board: Any, image: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The board's corners in one photo (object mm, image px), or None if too few were found."""
    obj, img = cv.detect_charuco(board, image)
    return (obj, img) if len(obj) >= MIN_VIEW_CORNERS else None


def lens_from_views(views: Sequence[tuple[np.ndarray, np.ndarray]], size: tuple[int, int]) -> Calibration:
    """The lens fit itself, for the command line and the dashboard's guided calibration alike."""
    if not views:
        raise CalibrationError("no view of the board yet")
    fit = cv.calibrate_camera([o for o, _ in views], [i for _, i in views], size, reduced=len(views) < 5)
    if fit.rms_px > RMS_WARN_PX:
        log.warning("lens calibration RMS reprojection error %.2f px is above %.1f px", fit.rms_px, RMS_WARN_PX)
    cal = Calibration(size, fit.K, fit.dist, fit.rms_px, len(views), lens_covariance=fit.covariance)
    cal.view_rms_px = [float(v) for v in fit.view_rms_px]
    return cal


def seen_anchors(image: np.ndarray, anchors: Sequence[Anchor]) -> list[SeenAnchor]:
    """The anchors detected in ``image``, with their printed corners on the table."""
    detection = cv.MarkerDetector().detect(image)
    by_id = {a.id: a for a in anchors}
    return [
        SeenAnchor(
            int(i), marker_corners(np.array([by_id[i].x, by_id[i].y]), by_id[i].facing_deg, by_id[i].size_mm, 0.0), c
        )
        for i, c in zip(detection.ids, detection.corners)
        if i in by_id
    ]


def calibrate_table(
    image: np.ndarray,
    lens: Calibration,
    anchors: Sequence[Anchor],
    table_mm: tuple[float, float],
    max_residual_mm: float = MAX_ANCHOR_RESIDUAL_MM,
    without: Sequence[int] = (),
) -> Calibration:
    """The camera's pose from the anchors seen in ``image``; refuses a poor fit, saying why.
    Anchors in ``without`` are left out (a referee's answer to a named moved anchor)."""
    lens.check_image(image, "the table image")
    in_use = [a for a in anchors if a.id not in set(without)]
    seen = seen_anchors(image, in_use)
    if len(seen) < MIN_ANCHORS:
        problems = image_problems(image)
        why = f"the image is {' and '.join(problems)}; " if problems else ""
        raise CalibrationError(
            f"{why}only {len(seen)} of {len(in_use)} anchors were found (ids "
            f"{sorted(a.id for a in seen)}); at least {MIN_ANCHORS} are needed, better all"
            + _small_anchors(seen, in_use)
        )
    try:
        pose = fit_table_pose(seen, lens.K, lens.dist, max_residual_mm)
    except ValueError as exc:
        raise CalibrationError(str(exc)) from None
    cal = _with_pose(lens, pose, anchors, table_mm)
    if pose.moved:
        listed = ", ".join(f"{k}: {v:.1f}" for k, v in sorted(pose.residuals_mm.items()))
        names = ", ".join(f"anchor {k} is {v:.1f} mm" for k, v in sorted(pose.moved.items()))
        raise MovedAnchorError(
            f"{names} from where the others put it (limit {max_residual_mm} mm): was it moved, or printed at the "
            f"wrong scale? Put it back, or leave it out with --without {','.join(map(str, sorted(pose.moved)))}. "
            f"Residuals: {listed}",
            cal,
        )
    return cal


def _small_anchors(seen: Sequence[SeenAnchor], anchors: Sequence[Anchor]) -> str:
    """Why the others may be missing, when the ones found are small: their size in pixels and the fix."""
    if not seen:
        return ""
    sizes = side_px(np.array([a.pixels for a in seen]))
    if float(np.median(sizes)) >= RELIABLE_PX:
        return ""
    printed = max(a.size_mm for a in anchors)
    return (
        f". The anchors found measure {sizes.min():.1f}-{sizes.max():.1f} px across, under the {RELIABLE_PX:g} px "
        f"the detector reads reliably: print them at ≥ {print_at_least_mm(printed, float(sizes.min()))} mm, "
        "or mount the camera lower"
    )


@dataclass(frozen=True)
class MissingAnchor:
    """An anchor laid but not found in the picture the pose came from, and why (``kind``):
    ``outside`` the picture, ``small`` for this mount (``px`` across, under RELIABLE_PX), or
    ``hidden``: inside the picture and big enough, yet not found (covered, in shadow, not laid)."""

    id: int
    kind: str
    px: float
    size_mm: float

    def said(self) -> str:
        if self.kind == "outside":
            return "outside the picture"
        if self.kind == "small":
            return too_small(f"anchor {self.id}", self.px, self.size_mm)
        return f"not found where it would be {self.px:.0f} px across: covered, in shadow, or not laid?"

    def as_dict(self) -> dict[str, Any]:
        """For the calibration page, which words it in the page's language."""
        return {"kind": self.kind, "px": round(self.px, 1), "print_mm": print_at_least_mm(self.size_mm, self.px)}


def missing_anchors(cal: Calibration, without: Sequence[int] = ()) -> list[MissingAnchor]:
    """Each anchor laid but not found in the picture the pose came from, and why; ``without``: the
    anchors the referee left out (calibrate table --without), which are not missing."""
    if cal.R is None:
        return []
    camera = cal.camera()
    width, height = cal.image_size
    said = []
    for anchor in cal.anchors:
        if anchor.id in cal.residuals_mm or anchor.id in without:
            continue  # seen (used, or named as moved), or left out on purpose
        pixel = camera.project(np.array([[anchor.x, anchor.y, 0.0]]))[0]
        px = expected_px(camera, (anchor.x, anchor.y), 0.0, anchor.size_mm, anchor.facing_deg)
        inside = 0 <= pixel[0] < width and 0 <= pixel[1] < height
        kind = "outside" if not inside else "small" if px < RELIABLE_PX else "hidden"
        said.append(MissingAnchor(anchor.id, kind, px, anchor.size_mm))
    return said


def _with_pose(
    lens: Calibration, pose: TablePose, anchors: Sequence[Anchor], table_mm: tuple[float, float]
) -> Calibration:
    return Calibration(
        lens.image_size,
        lens.K,
        lens.dist,
        lens.rms_px,
        lens.views,
        pose.R,
        pose.tvec,
        table_mm,
        list(anchors),
        dict(pose.residuals_mm),
        lens.lens_covariance,
        pose.covariance,
        pose.lens_sensitivity,
        pose.used,
    )
