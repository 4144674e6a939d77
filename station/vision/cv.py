"""Every OpenCV ArUco/ChArUco call of the station, in one place (OpenCV 5 class API).

Marker convention (docs/camera.md "Markers"):
* table anchors and unit markers: ``DICT_4X4_250``; anchors use ids 0-15, units 16-249;
* the lens-calibration board: ChArUco from ``DICT_5X5_100``, so it never reads as a unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import cv2
import numpy as np

from . import DEFAULT_BOARD as DEFAULT_BOARD  # re-exported: the board spec beside its parser

MARKER_DICT = cv2.aruco.DICT_4X4_250
CHARUCO_DICT = cv2.aruco.DICT_5X5_100
UNIT_IDS = range(16, 250)


def marker_dictionary() -> cv2.aruco.Dictionary:
    return cv2.aruco.getPredefinedDictionary(MARKER_DICT)


def marker_image(marker_id: int, pixels: int) -> np.ndarray:
    """The marker alone (black border included, no white margin), ``pixels`` square."""
    return cv2.aruco.generateImageMarker(marker_dictionary(), marker_id, pixels, borderBits=1)


@dataclass(frozen=True)
class Detection:
    """Markers found in one frame: ids (N,) and corners (N, 4, 2) in image pixels, in ArUco order
    (top-left, top-right, bottom-right, bottom-left of the printed marker)."""

    ids: np.ndarray
    corners: np.ndarray


class MarkerDetector:
    """ArUco detection tuned for small markers in large frames, with refined corners."""

    def __init__(self, min_perimeter_rate: float = 0.01) -> None:
        params = cv2.aruco.DetectorParameters()
        # The default 0.03 drops markers under ~29 px a side in a 1080p frame; ours are ~24 px.
        params.minMarkerPerimeterRate = min_perimeter_rate
        # Contour refinement fits each edge as a whole: on 24 px markers it cuts the corners'
        # sideways scatter from 0.54 px (CORNER_REFINE_SUBPIX) to 0.21 px at no extra cost, which
        # is what facing accuracy needs.  Its edges run through the centres of the dark border's
        # outermost pixels, half a pixel inside the printed edge: ``detect`` moves them back out.
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_CONTOUR
        # Reading bits from 8 samples per cell instead of 4: on ~24 px markers with sensor noise
        # the default failed 7 decodes in 36; this one none, at the same speed.
        params.perspectiveRemovePixelPerCell = 8
        # The black border must read black almost everywhere.  OpenCV's default (35 % of its cells
        # may be wrong) lets printed text, icons and other dictionaries' markers decode as one of
        # ours: over 840 photos of OpenCV's documentation it found 21 markers that were not there,
        # this finds one, and keeps 195 of the 197 real ones in rendered table frames.
        params.maxErroneousBitsInBorderRate = BORDER_ERROR_RATE
        self._detector = cv2.aruco.ArucoDetector(marker_dictionary(), params)

    def detect(self, image: np.ndarray) -> Detection:
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        # A white frame around the picture, as the printed margin would be: without it a marker
        # whose border lies 3-20 px from the frame's edge is missed (its quiet zone is cut off, and
        # the detector drops contours near the border), even at 56 px across.  With it every marker
        # 0-30 px from any edge is found (tests/test_camera_mounts.py); it costs one copy a frame.
        padded = cv2.copyMakeBorder(gray, *(EDGE_PAD_PX,) * 4, cv2.BORDER_CONSTANT, value=255)
        corners, ids, _ = self._detector.detectMarkers(padded)
        if ids is None or not len(ids):
            return Detection(np.zeros(0, int), np.zeros((0, 4, 2)))
        quads = np.asarray(corners, float).reshape(-1, 4, 2) - EDGE_PAD_PX
        return Detection(ids.reshape(-1).astype(int), widen_edges(quads, EDGE_BIAS_PX))


BORDER_ERROR_RATE = 0.1
EDGE_PAD_PX = 40  # white added around the frame before detecting (MarkerDetector.detect)
EDGE_BIAS_PX = 0.5  # measured on the renderer: corners sat 0.64-0.78 px inside along the diagonal


def widen_edges(quads: np.ndarray, offset_px: float) -> np.ndarray:
    """Move every edge of each quad (N, 4, 2) ``offset_px`` outward along its normal.

    The contour a detector follows is made of the dark pixels' centres, so its fitted edges lie
    half a pixel inside the printed edge.  Uncorrected, a 25 px marker reads 4 % small, and a
    table pose fitted to anchor corners trades that shrinkage against the spread of the anchors:
    the camera comes out tens of millimetres too high."""
    centre = quads.mean(axis=1, keepdims=True)
    edge = np.roll(quads, -1, axis=1) - quads  # edge k runs from corner k to corner k + 1
    normal = np.stack([edge[..., 1], -edge[..., 0]], axis=-1)
    normal /= np.maximum(np.linalg.norm(normal, axis=-1, keepdims=True), 1e-9)
    midpoint = quads + edge / 2
    outward = np.sign(np.sum((midpoint - centre) * normal, axis=-1, keepdims=True))
    normal *= outward
    before = np.roll(normal, 1, axis=1)  # corner k joins edge k - 1 and edge k
    # the shift s with s . n_before = s . n_after = offset: a 2x2 solve per corner
    a, b, c, d = before[..., 0], before[..., 1], normal[..., 0], normal[..., 1]
    det = a * d - b * c
    det = np.where(np.abs(det) < 1e-6, 1e-6, det)
    sx = offset_px * (d - b) / det
    sy = offset_px * (a - c) / det
    return cast(np.ndarray, quads + np.stack([sx, sy], axis=-1))


def charuco_board(
    squares: tuple[int, int] = (9, 6),
    square_mm: float = 30.0,
    marker_mm: float = 22.0,
    dictionary: int = CHARUCO_DICT,
    legacy: bool = False,
) -> cv2.aruco.CharucoBoard:
    board = cv2.aruco.CharucoBoard(squares, square_mm, marker_mm, cv2.aruco.getPredefinedDictionary(dictionary))
    board.setLegacyPattern(legacy)
    return board


BOARD_SPEC = "COLSxROWS:SQUARE_MM:MARKER_MM:DICT[:legacy]"


def parse_board(spec: str) -> cv2.aruco.CharucoBoard:
    """A ChArUco board from ``9x6:30:22:DICT_5X5_100``, with ``:legacy`` for boards printed by
    OpenCV before 4.6 (an even number of rows starts with the other colour there).  Raises
    ValueError naming the part that is wrong."""
    parts = spec.strip().split(":")
    if len(parts) not in (4, 5) or (len(parts) == 5 and parts[4].lower() != "legacy"):
        raise ValueError(f"{spec!r} is not {BOARD_SPEC}, e.g. 9x6:30:22:DICT_5X5_100")
    try:
        cols, rows = (int(n) for n in parts[0].lower().split("x"))
    except ValueError:
        raise ValueError(f"{parts[0]!r} is not COLSxROWS, e.g. 9x6") from None
    try:
        square, marker = float(parts[1]), float(parts[2])
    except ValueError:
        raise ValueError(f"square {parts[1]!r} and marker {parts[2]!r} must be sizes in mm") from None
    if cols < 3 or rows < 3 or not 0 < marker < square:
        raise ValueError(f"{spec!r}: a board needs at least 3x3 squares and markers smaller than squares")
    name = parts[3].upper()
    if not (name.startswith("DICT_") and hasattr(cv2.aruco, name)):
        raise ValueError(f"{parts[3]!r} is not an ArUco dictionary such as DICT_5X5_100 or DICT_6X6_250")
    return charuco_board((cols, rows), square, marker, getattr(cv2.aruco, name), legacy=len(parts) == 5)


def charuco_image(board: cv2.aruco.CharucoBoard, size_px: tuple[int, int], margin_px: int = 0) -> np.ndarray:
    return board.generateImage(size_px, marginSize=margin_px, borderBits=1)


def detect_charuco(board: cv2.aruco.CharucoBoard, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Object points (N, 3) in mm on the board and their image points (N, 2) for one view."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(gray)
    if ids is None or len(ids) < 6:
        return np.zeros((0, 3)), np.zeros((0, 2))
    obj, img = board.matchImagePoints(list(corners), ids)
    return np.asarray(obj, float).reshape(-1, 3), np.asarray(img, float).reshape(-1, 2)


@dataclass(frozen=True)
class LensFit:
    rms_px: float
    K: np.ndarray
    dist: np.ndarray  # k1 k2 p1 p2 k3
    covariance: np.ndarray  # (9, 9) of fx fy cx cy k1 k2 p1 p2 k3, from the fit's own Jacobian
    view_rms_px: np.ndarray  # each view's RMS reprojection error


REDUCED_LENS = (
    cv2.CALIB_FIX_PRINCIPAL_POINT
    | cv2.CALIB_FIX_ASPECT_RATIO
    | cv2.CALIB_ZERO_TANGENT_DIST
    | cv2.CALIB_FIX_K2
    | cv2.CALIB_FIX_K3
)


def calibrate_camera(
    object_points: list[np.ndarray], image_points: list[np.ndarray], image_size: tuple[int, int], reduced: bool = False
) -> LensFit:
    """Intrinsics and distortion (k1 k2 p1 p2 k3) with their standard deviations.  ``reduced``
    fits only the focal length and k1 (centre fixed at the middle, square pixels): what one or
    two views can determine."""
    flags = REDUCED_LENS if reduced else 0
    K0 = np.array([[max(image_size), 0, image_size[0] / 2], [0, max(image_size), image_size[1] / 2], [0, 0, 1.0]])
    if reduced:
        flags |= cv2.CALIB_USE_INTRINSIC_GUESS
    rms, K, dist, rvecs, tvecs, std, _, per_view = cv2.calibrateCameraExtended(
        [o.astype(np.float32) for o in object_points],
        [i.astype(np.float32) for i in image_points],
        image_size,
        K0,
        np.zeros(5),
        flags=flags,
    )
    dist = dist.reshape(-1)[:5]
    if reduced:  # few free parameters, fx and fy tied: their own deviations suffice
        std = std.reshape(-1)[:9].copy()
        std[0] = std[0] or std[1]  # OpenCV reports the tied one as fixed
        covariance = np.diag(std**2)
        covariance[0, 1] = covariance[1, 0] = std[0] * std[1]
    else:
        covariance = _lens_covariance(object_points, image_points, K, dist, rvecs, tvecs)
    return LensFit(float(rms), K, dist, covariance, per_view.reshape(-1))


def _lens_covariance(
    object_points: Sequence[np.ndarray],
    image_points: Sequence[np.ndarray],
    K: np.ndarray,
    dist: np.ndarray,
    rvecs: Sequence[np.ndarray],
    tvecs: Sequence[np.ndarray],
) -> np.ndarray:
    """The full covariance of the nine lens parameters, with every view's pose as a nuisance
    parameter: sigma^2 (J^T J)^-1 over all views' corners.  OpenCV reports only its diagonal, and
    the diagonal alone overstates a position error several times, because a focal length error
    and a distortion error largely cancel each other where the board was seen."""
    views = len(object_points)
    rows, residuals = [], []
    for k, (obj, img) in enumerate(zip(object_points, image_points)):
        projected, jac = cv2.projectPoints(obj.reshape(-1, 1, 3).astype(np.float64), rvecs[k], tvecs[k], K, dist)
        block = np.zeros((jac.shape[0], 9 + 6 * views))
        block[:, :9] = jac[:, 6:15]
        block[:, 9 + 6 * k : 15 + 6 * k] = jac[:, :6]
        rows.append(block)
        residuals.append((projected.reshape(-1, 2) - img.reshape(-1, 2)).ravel())
    J, r = np.vstack(rows), np.concatenate(residuals)
    sigma2 = float(r @ r) / max(len(r) - J.shape[1], 1)
    return cast(np.ndarray, sigma2 * np.linalg.pinv(J.T @ J)[:9, :9])


def undistort_pixels(points: np.ndarray, K: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Pixels (N, 2) to normalised, undistorted image coordinates (N, 2)."""
    if not len(points):
        return np.zeros((0, 2))
    return cv2.undistortPoints(points.reshape(-1, 1, 2).astype(np.float64), K, dist).reshape(-1, 2)


def project(points: np.ndarray, rvec: np.ndarray, tvec: np.ndarray, K: np.ndarray, dist: np.ndarray) -> np.ndarray:
    projected, _ = cv2.projectPoints(points.reshape(-1, 1, 3).astype(np.float64), rvec, tvec, K, dist)
    return projected.reshape(-1, 2)


def solve_planar_pose(
    object_points: np.ndarray, image_points: np.ndarray, K: np.ndarray, dist: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The pose of a planar target (z = 0) from all its points: IPPE and SQPnP, which are exact for
    a plane and need no first guess, each refined by Levenberg-Marquardt over every point; the one
    that reprojects better wins.  No RANSAC here: outliers are dropped a whole marker at a time
    by the caller, because one marker's four corners move together when it is misplaced."""
    obj, img = object_points.astype(np.float64), image_points.astype(np.float64)
    best, best_error = None, np.inf
    for method in (cv2.SOLVEPNP_IPPE, cv2.SOLVEPNP_SQPNP):
        try:
            ok, rvec, tvec = cv2.solvePnP(obj, img, K, dist, flags=method)
        except cv2.error:
            continue
        if not ok:
            continue
        rvec, tvec = cv2.solvePnPRefineLM(obj, img, K, dist, rvec, tvec)
        error = float(np.mean((project(obj, rvec.reshape(3), tvec.reshape(3), K, dist) - img) ** 2))
        if error < best_error:
            best, best_error = (rvec.reshape(3), tvec.reshape(3)), error
    if best is None:
        raise ValueError("no camera pose fits the anchors")
    return best


def projection_jacobian(
    points: np.ndarray, rvec: np.ndarray, tvec: np.ndarray, K: np.ndarray, dist: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pixels (N, 2) of ``points`` and the derivatives of the 2N pixel coordinates (x0 y0 x1 ...)
    with respect to the pose (2N, 6) and to the lens (2N, 9: fx fy cx cy k1 k2 p1 p2 k3).

    The pose's six are a small turn d of the camera (R becomes exp([d]x) R) and tvec, not rvec's own
    coordinates: a rotation near 180 degrees, which is a camera looking straight down, has two
    rvecs, and a covariance worked out for one of them is wrong for the other (the fit may return
    either, and ``rvec_of`` the other).  The small turn is the same however the rotation is written."""
    dist5 = np.zeros(5)
    dist5[: min(len(dist), 5)] = np.asarray(dist, float)[:5]
    points = points.reshape(-1, 3).astype(np.float64)
    pixels, jac = cv2.projectPoints(points.reshape(-1, 1, 3), rvec, tvec, K, dist5)
    J_camera = jac[:, 3:6].reshape(-1, 2, 3)  # d pixel / d camera-frame point (as d pixel / d tvec)
    x, y, z = (points @ rodrigues(rvec).T).T  # each point turned into the camera's axes
    zero = np.zeros_like(x)
    turn = np.stack([np.stack([zero, z, -y], -1), np.stack([-z, zero, x], -1), np.stack([y, -x, zero], -1)], 1)
    J_turn = (J_camera @ turn).reshape(-1, 3)  # d (R X) / d d = -[R X]x
    return pixels.reshape(-1, 2), np.hstack([J_turn, jac[:, 3:6]]), jac[:, 6:15]


def rodrigues(rvec: np.ndarray) -> np.ndarray:
    return cv2.Rodrigues(np.asarray(rvec, float).reshape(3))[0]


def rvec_of(R: np.ndarray) -> np.ndarray:
    return cv2.Rodrigues(np.asarray(R, float))[0].reshape(3)


def annotated_still(image: np.ndarray, labels: list[tuple[tuple[float, float], str, bool]], width: int = 960) -> bytes:
    """A JPEG of ``image`` scaled to ``width`` with each (pixel, text, alarm) label drawn: the
    dashboard's low-rate camera still."""
    scale = width / image.shape[1]
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    for (x, y), text, alarm in labels:
        colour = (60, 60, 230) if alarm else (80, 200, 80)
        centre = (int(x * scale), int(y * scale))
        cv2.circle(small, centre, 9, colour, 2, cv2.LINE_AA)
        cv2.putText(small, text, (centre[0] + 11, centre[1] + 4), cv2.FONT_HERSHEY_SIMPLEX, 0.4, colour, 1, cv2.LINE_AA)
    ok, data = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return data.tobytes()


def marker_crop_jpeg(image: np.ndarray, quad: np.ndarray, size: int = 96, margin: float = 0.8) -> bytes:
    """A square JPEG around one detected marker (its quad with ``margin`` of its size about it),
    so the referee sees which model the camera means."""
    centre = quad.mean(axis=0)
    half = (np.ptp(quad, axis=0).max() / 2) * (1 + margin)
    h, w = image.shape[:2]
    x0, y0 = int(max(0, centre[0] - half)), int(max(0, centre[1] - half))
    x1, y1 = int(min(w, centre[0] + half)), int(min(h, centre[1] + half))
    crop = cv2.resize(image[y0:y1, x0:x1], (size, size), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return data.tobytes()


def table_maps(
    K: np.ndarray, dist: np.ndarray, rvec: np.ndarray, tvec: np.ndarray, table_mm: tuple[float, float], mm_per_px: float
) -> tuple[np.ndarray, np.ndarray]:
    """Where each pixel of a top-down picture of the table (far edge at the top, ``mm_per_px``)
    falls in the camera's image: the maps ``rectified`` resamples with, made once per calibration."""
    width, depth = table_mm
    cols, rows = max(int(width / mm_per_px), 1), max(int(depth / mm_per_px), 1)
    x, y = np.meshgrid((np.arange(cols) + 0.5) * mm_per_px, depth - (np.arange(rows) + 0.5) * mm_per_px)
    pixels = project(np.column_stack([x.ravel(), y.ravel(), np.zeros(x.size)]), rvec, tvec, K, dist)
    return pixels[:, 0].reshape(rows, cols).astype(np.float32), pixels[:, 1].reshape(rows, cols).astype(np.float32)


def rectified_jpeg(image: np.ndarray, maps: tuple[np.ndarray, np.ndarray]) -> bytes:
    """The table seen from straight above: the backdrop the dashboard draws terrain over."""
    flat = cv2.remap(image, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    ok, data = cv2.imencode(".jpg", flat, [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return data.tobytes()
