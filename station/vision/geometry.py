"""Camera geometry on the table, with the parallax correction.

Table frame: origin at a table corner, x along the near edge, y away from it, z up, in mm.  The
camera maps table points X to camera points R X + t.  A marker on a model sits ``height`` mm above
the table, so its pixel is found where the camera ray meets the plane z = height, not z = 0;
a naive homography to the table plane puts a 40 mm-high marker near the table edge tens of mm
off.  Facing is the direction the marker's printed top points, measured on that plane, in
degrees counter-clockwise from the table's x axis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from . import cv


@dataclass(frozen=True)
class Camera:
    K: np.ndarray  # 3x3
    dist: np.ndarray  # k1 k2 p1 p2 k3
    R: np.ndarray  # table -> camera rotation
    t: np.ndarray  # table -> camera translation, mm
    image_size: tuple[int, int]  # width, height

    @property
    def centre(self) -> np.ndarray:
        """The camera's optical centre in table coordinates."""
        return cast(np.ndarray, -self.R.T @ self.t)

    def rays(self, pixels: np.ndarray) -> np.ndarray:
        """Unit directions in table coordinates of the rays through ``pixels`` (N, 2)."""
        normalised = cv.undistort_pixels(pixels, self.K, self.dist)
        directions = np.column_stack([normalised, np.ones(len(normalised))]) @ self.R  # R^T d, row-wise
        return cast(np.ndarray, directions / np.linalg.norm(directions, axis=1, keepdims=True))

    def on_plane(self, pixels: np.ndarray, height: float | np.ndarray) -> np.ndarray:
        """Where the rays through ``pixels`` meet the plane z = height: (N, 2) table mm."""
        rays = self.rays(pixels)
        c = self.centre
        scale = (np.asarray(height, float) - c[2]) / rays[:, 2]
        return cast(np.ndarray, c[:2] + rays[:, :2] * scale[:, None])

    def project(self, points: np.ndarray) -> np.ndarray:
        return cv.project(points, cv.rvec_of(self.R), self.t, self.K, self.dist)


def overhead_camera(
    image_size: tuple[int, int] = (1920, 1080),
    focal_px: float = 950.0,
    table_mm: tuple[float, float] = (1219.2, 1219.2),
    height_mm: float = 1200.0,
    dist: tuple[float, ...] = (-0.12, 0.05, 0.0, 0.0, 0.0),
) -> Camera:
    """A camera above the table's centre looking straight down: the mount with no tilt."""
    return mounted_camera(image_size, focal_px, table_mm, height_mm, dist=dist)


def mounted_camera(
    image_size: tuple[int, int] = (1920, 1080),
    focal_px: float = 950.0,
    table_mm: tuple[float, float] = (1219.2, 1219.2),
    height_mm: float = 1200.0,
    tilt_deg: float = 0.0,
    tilt_toward_deg: float = 0.0,
    rotation_deg: float = 0.0,
    offset_mm: tuple[float, float] = (0.0, 0.0),
    dist: tuple[float, ...] = (-0.12, 0.05, 0.0, 0.0, 0.0),
) -> Camera:
    """A camera as people mount it: ``height_mm`` above the point ``offset_mm`` from the table's
    centre, turned ``rotation_deg`` about the vertical, then tilted ``tilt_deg`` off vertical
    toward the table direction ``tilt_toward_deg`` (degrees counter-clockwise from +x)."""
    w, h = image_size
    K = np.array([[focal_px, 0, w / 2], [0, focal_px, h / 2], [0, 0, 1.0]])
    r = np.radians(rotation_deg)
    # camera axes in table coordinates, looking straight down, image x turned by the rotation
    x_axis = np.array([np.cos(r), np.sin(r), 0.0])
    y_axis = np.array([np.sin(r), -np.cos(r), 0.0])
    z_axis = np.array([0.0, 0.0, -1.0])
    a, b = np.radians(tilt_deg), np.radians(tilt_toward_deg)
    axis = np.array([np.sin(b), -np.cos(b), 0.0])  # tilting about this swings the view toward b
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    tilt = np.eye(3) + np.sin(a) * k + (1 - np.cos(a)) * k @ k  # Rodrigues: a rotation about axis
    R = np.array([tilt @ x_axis, tilt @ y_axis, tilt @ z_axis])  # rows: camera axes in table frame
    centre = np.array([table_mm[0] / 2 + offset_mm[0], table_mm[1] / 2 + offset_mm[1], height_mm])
    return Camera(K, np.asarray(dist, float), R, -R @ centre, image_size)


def marker_corners(centre: np.ndarray, facing_deg: float, size: float, height: float) -> np.ndarray:
    """The four corners (TL, TR, BR, BL of the printed marker) of a flat marker, (4, 3) table mm."""
    a = np.radians(facing_deg)
    forward, right = np.array([np.cos(a), np.sin(a)]), np.array([np.sin(a), -np.cos(a)])
    half = size / 2
    xy = [
        centre + half * (-right + forward),
        centre + half * (right + forward),
        centre + half * (right - forward),
        centre + half * (-right - forward),
    ]
    return np.column_stack([np.array(xy), np.full(4, height)])


@dataclass(frozen=True)
class PlanarPose:
    x: float
    y: float
    facing_deg: float
    corners: np.ndarray  # (4, 2) table mm on the marker's plane
    size_mm: float  # measured side length: a check against the printed size
    axes_mm: tuple[float, float]  # the mean of its top and bottom sides, and of its left and right sides


def marker_pose(camera: Camera, image_corners: np.ndarray, height: float) -> PlanarPose:
    """Centre, facing and measured size of one marker seen at ``height`` above the table."""
    return pose_on_plane(camera.on_plane(image_corners, height))


def marker_poses(camera: Camera, image_corners: np.ndarray, heights: np.ndarray) -> list[PlanarPose]:
    """``marker_pose`` for many markers ((N, 4, 2) corners, N heights), with one undistortion."""
    on_plane = camera.on_plane(image_corners.reshape(-1, 2), np.repeat(np.asarray(heights, float), 4))
    return [pose_on_plane(corners) for corners in on_plane.reshape(-1, 4, 2)]


def pose_on_plane(corners: np.ndarray) -> PlanarPose:
    """Centre, facing and size from a marker's four corners (TL, TR, BR, BL) on its plane."""
    tl, tr, br, bl = corners
    forward = (tl + tr) / 2 - (bl + br) / 2
    right = (tr + br) / 2 - (tl + bl) / 2
    # average the two axes: forward, and right turned a quarter left
    direction = forward / np.linalg.norm(forward) + np.array([-right[1], right[0]]) / np.linalg.norm(right)
    centre = corners.mean(axis=0)
    sides = np.hypot(*(corners - corners[[3, 0, 1, 2]]).T)  # BL-TL, TL-TR, TR-BR, BR-BL
    axes = (float(sides[1] + sides[3]) / 2, float(sides[0] + sides[2]) / 2)
    return PlanarPose(
        float(centre[0]),
        float(centre[1]),
        float(np.degrees(np.arctan2(direction[1], direction[0])) % 360),
        corners,
        float(np.mean(sides)),
        axes,
    )


LEAN_STEPS_DEG = np.arange(0.0, 91.0, 5.0)
LEAN_NOISE_PX2 = 4 * 0.35**2  # two corners' squared error at the detector's 0.35 px scatter


def lean_degs(camera: Camera, image_corners: np.ndarray, heights: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """How far each marker leans from flat (degrees), from its four corners ((N, 4, 2) pixels) seen
    by one camera, at its height and printed size.

    The flat-plane aspect cannot tell: a marker leaning toward a camera that sees it obliquely
    looks longer than printed, one leaning away shorter, by sin(lean) tan(view angle).  So each of
    its four edges is tried as the edge it pivots on (left where it is, at its height), and the
    lean that best puts the other two corners where they were seen, raised and a marker's side
    away, wins.  All markers go through one projection."""
    n = len(image_corners)
    if not n:
        return np.zeros(0)
    heights, sizes = np.asarray(heights, float), np.asarray(sizes, float)
    flat = camera.on_plane(image_corners.reshape(-1, 2), np.repeat(heights, 4)).reshape(n, 4, 2)
    steps = np.radians(LEAN_STEPS_DEG)
    order = np.arange(4)
    b1, b2 = flat[:, order], flat[:, (order + 1) % 4]  # (N, 4 pivots, 2)
    along = (b2 - b1) / np.maximum(np.linalg.norm(b2 - b1, axis=-1, keepdims=True), 1e-9)
    toward = np.stack([-along[..., 1], along[..., 0]], axis=-1)
    far = flat[:, (order + 2) % 4] + flat[:, (order + 3) % 4] - b1 - b2
    toward *= np.sign(np.sum(far * toward, axis=-1, keepdims=True) + 1e-12)
    # tops over corners k + 2 (beside b2) and k + 3 (beside b1), for every lean: (N, 4, 2, S, 3)
    pivots = np.stack([b2, b1], axis=2)
    horizontal = np.cos(steps)[:, None] * toward[:, :, None, None, :] * sizes[:, None, None, None, None]
    lift = (np.sin(steps) * sizes[:, None] + heights[:, None])[:, None, None, :, None]
    moved = pivots[:, :, :, None, :] + horizontal
    tops = np.concatenate([moved, np.broadcast_to(lift, moved.shape[:-1] + (1,))], axis=-1)
    pixels = camera.project(tops.reshape(-1, 3)).reshape(n, 4, 2, len(steps), 2)
    seen = np.stack([image_corners[:, (order + 2) % 4], image_corners[:, (order + 3) % 4]], axis=2)  # (N, 4, 2, 2)
    error = np.sum((pixels - seen[:, :, :, None, :]) ** 2, axis=(2, 4)).min(axis=1)  # (N, S): best pivot
    # A flat marker seen from one side has a second, tilted reading that fits about as well (the
    # two-fold ambiguity of a small square): the smallest lean within the corners' noise wins.
    within = error <= error.min(axis=1, keepdims=True) + LEAN_NOISE_PX2
    return cast(np.ndarray, LEAN_STEPS_DEG[np.argmax(within, axis=1)])


def base_centre(pose: PlanarPose, offset_mm: tuple[float, float]) -> tuple[float, float]:
    """The base centre from the marker centre and the marker-to-base offset given in the
    marker's own frame (forward, right), in mm."""
    a = np.radians(pose.facing_deg)
    forward, right = np.array([np.cos(a), np.sin(a)]), np.array([np.sin(a), -np.cos(a)])
    xy = np.array([pose.x, pose.y]) + offset_mm[0] * forward + offset_mm[1] * right
    return float(xy[0]), float(xy[1])
