"""How far off a located base may be, anywhere on the table: the calibration's own error budget.

In the spirit of mrcal's projection uncertainty, the error is propagated, not guessed.  A base
at table point X (height h) is found by taking the pixel p where X is seen and casting its ray
back to the plane z = h.  If the pose is off by d_pose and the lens by d_lens, the same pixel lands
at X + dX with

    J_X dX = -(J_pose d_pose + J_lens d_lens),   d_pose = noise + S d_lens,

where J_* are derivatives of the projection at X (the pose as a small turn of the camera and its
translation, ``cv.projection_jacobian``), and S is how the table fit's pose responds to a
lens error (the refit compensates it where the anchors are, so errors between anchors are small and
those away from them larger).  Add the marker's own detection noise (a pixel scatter ``sigma_px``
through J_X) and the position covariance is

    C_X = A (J_pose C_pose J_pose^T + M C_lens M^T + sigma_px^2 I) A^T,  A = J_X^-1, M = J_lens + J_pose S.

The figure reported is the radial 1-sigma, sqrt(trace C_X) in mm: the RMS distance between where
a base is and where the station puts it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from . import cv

# A marker's detected centre scatters 0.09 px per axis: located with the true pose, 1,367 bases over
# the 19 mounts of tests/sim/mounts.py came out at sigma_px = 0.089 (bench/camera_mounts.py prints it).  The
# same figure is the prior for the anchors' centres in the table pose (tablepose._covariance).
MARKER_CENTRE_SIGMA_PX = 0.09
GRID_STEP_MM = 101.6  # 4 inches: 13 x 13 points over a 48" table
MAP_HEIGHTS_MM = (0.0, 60.0)


@dataclass(frozen=True)
class ErrorModel:
    K: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    pose_covariance: np.ndarray  # (6, 6)
    lens_sensitivity: np.ndarray  # (6, 9)
    lens_covariance: np.ndarray  # (9, 9) of fx fy cx cy k1 k2 p1 p2 k3; zeros when unknown
    sigma_px: float = MARKER_CENTRE_SIGMA_PX

    def sigma_mm(self, xy: np.ndarray, height: float | np.ndarray) -> np.ndarray:
        """Radial 1-sigma position error (mm) of bases at table points ``xy`` (N, 2) and heights."""
        xy = np.atleast_2d(np.asarray(xy, float))
        if not len(xy):
            return np.zeros(0)
        z = np.broadcast_to(np.asarray(height, float), (len(xy),))
        points = np.column_stack([xy, z])
        step = 1.0  # mm: the projection is smooth on this scale
        _, J_pose, J_lens = cv.projection_jacobian(points, self.rvec, self.tvec, self.K, self.dist)
        px = cv.project(points + [step, 0, 0], self.rvec, self.tvec, self.K, self.dist)
        py = cv.project(points + [0, step, 0], self.rvec, self.tvec, self.K, self.dist)
        p0 = cv.project(points, self.rvec, self.tvec, self.K, self.dist)
        J_X = np.stack([(px - p0) / step, (py - p0) / step], axis=-1)  # (N, 2, 2): d pixel / d (x, y)
        A = np.linalg.inv(J_X)
        J_pose = J_pose.reshape(-1, 2, 6)
        M = J_lens.reshape(-1, 2, 9) + J_pose @ self.lens_sensitivity
        pixel_cov = (
            J_pose @ self.pose_covariance @ J_pose.transpose(0, 2, 1)
            + M @ self.lens_covariance @ M.transpose(0, 2, 1)
            + self.sigma_px**2 * np.eye(2)
        )
        cov = A @ pixel_cov @ A.transpose(0, 2, 1)
        return cast(np.ndarray, np.sqrt(np.trace(cov, axis1=1, axis2=2)))

    def grid(self, table_mm: tuple[float, float], height: float, step: float = GRID_STEP_MM) -> dict[str, Any]:
        """The map at one height: cell centres along x and y, and sigma (rows along y)."""
        xs = np.arange(step / 2, table_mm[0], step)
        ys = np.arange(step / 2, table_mm[1], step)
        gx, gy = np.meshgrid(xs, ys)
        sigma = self.sigma_mm(np.column_stack([gx.ravel(), gy.ravel()]), height).reshape(gx.shape)
        return {
            "height_mm": height,
            "step_mm": step,
            "x_mm": np.round(xs, 1).tolist(),
            "y_mm": np.round(ys, 1).tolist(),
            "sigma_mm": np.round(sigma, 3).tolist(),
            "worst_mm": round(float(sigma.max()), 3),
            "median_mm": round(float(np.median(sigma)), 3),
        }

    def maps(self, table_mm: tuple[float, float], heights: Sequence[float] = MAP_HEIGHTS_MM) -> list[dict[str, Any]]:
        return [self.grid(table_mm, h) for h in heights]
