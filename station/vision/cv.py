"""Every OpenCV ArUco/ChArUco call of the station, in one place (OpenCV 5 class API).

Marker convention (README "Markers"):
* table anchors and unit markers: ``DICT_4X4_250``; anchors use ids 0-15, units 16-249;
* the lens-calibration board: ChArUco from ``DICT_5X5_100``, so it never reads as a unit.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

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
        # is what facing accuracy needs.  It pulls all four corners ~0.7 px inward alike, which
        # moves no centre and turns no facing (bench/vision_accuracy.py).
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_CONTOUR
        # Reading bits from 8 samples per cell instead of 4: on ~24 px markers with sensor noise
        # the default failed 7 decodes in 36; this one none, at the same speed.
        params.perspectiveRemovePixelPerCell = 8
        self._detector = cv2.aruco.ArucoDetector(marker_dictionary(), params)

    def detect(self, image: np.ndarray) -> Detection:
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        corners, ids, _ = self._detector.detectMarkers(gray)
        if ids is None or not len(ids):
            return Detection(np.zeros(0, int), np.zeros((0, 4, 2)))
        return Detection(ids.reshape(-1).astype(int), np.asarray(corners, float).reshape(-1, 4, 2))


def charuco_board(squares: tuple[int, int] = (9, 6), square_mm: float = 30.0,
                  marker_mm: float = 22.0) -> cv2.aruco.CharucoBoard:
    return cv2.aruco.CharucoBoard(squares, square_mm, marker_mm, cv2.aruco.getPredefinedDictionary(CHARUCO_DICT))


def charuco_image(board: cv2.aruco.CharucoBoard, size_px: tuple[int, int], margin_px: int = 0) -> np.ndarray:
    return board.generateImage(size_px, marginSize=margin_px, borderBits=1)


def detect_charuco(board: cv2.aruco.CharucoBoard, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Object points (N, 3) in mm on the board and their image points (N, 2) for one view."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _, _ = cv2.aruco.CharucoDetector(board).detectBoard(gray)
    if ids is None or len(ids) < 6:
        return np.zeros((0, 3)), np.zeros((0, 2))
    obj, img = board.matchImagePoints(corners, ids)
    return np.asarray(obj, float).reshape(-1, 3), np.asarray(img, float).reshape(-1, 2)


def calibrate_camera(object_points: list[np.ndarray], image_points: list[np.ndarray],
                     image_size: tuple[int, int]) -> tuple[float, np.ndarray, np.ndarray]:
    """RMS reprojection error (px), camera matrix and distortion (k1 k2 p1 p2 k3)."""
    rms, K, dist, _, _ = cv2.calibrateCamera([o.astype(np.float32) for o in object_points],
                                             [i.astype(np.float32) for i in image_points],
                                             image_size, None, None)
    return float(rms), K, dist.reshape(-1)


def undistort_pixels(points: np.ndarray, K: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Pixels (N, 2) to normalised, undistorted image coordinates (N, 2)."""
    if not len(points):
        return np.zeros((0, 2))
    return cv2.undistortPoints(points.reshape(-1, 1, 2).astype(np.float64), K, dist).reshape(-1, 2)


def project(points: np.ndarray, rvec: np.ndarray, tvec: np.ndarray, K: np.ndarray, dist: np.ndarray) -> np.ndarray:
    projected, _ = cv2.projectPoints(points.reshape(-1, 1, 3).astype(np.float64), rvec, tvec, K, dist)
    return projected.reshape(-1, 2)


def solve_pose(object_points: np.ndarray, image_points: np.ndarray, K: np.ndarray,
               dist: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Robust pose (RANSAC, then Levenberg-Marquardt on the inliers): rvec, tvec, inlier mask."""
    ok, rvec, tvec, inliers = cv2.solvePnPRansac(object_points.astype(np.float64), image_points.astype(np.float64),
                                                 K, dist, reprojectionError=2.0, iterationsCount=200,
                                                 flags=cv2.SOLVEPNP_ITERATIVE)
    if not ok or inliers is None:
        raise ValueError("no camera pose fits the anchors")
    mask = np.zeros(len(object_points), bool)
    mask[inliers.reshape(-1)] = True
    rvec, tvec = cv2.solvePnPRefineLM(object_points[mask].astype(np.float64), image_points[mask].astype(np.float64),
                                      K, dist, rvec, tvec)
    return rvec.reshape(3), tvec.reshape(3), mask


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


def table_maps(K: np.ndarray, dist: np.ndarray, rvec: np.ndarray, tvec: np.ndarray, table_mm: tuple[float, float],
               mm_per_px: float) -> tuple[np.ndarray, np.ndarray]:
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
