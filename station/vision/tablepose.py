"""The camera's pose over the table from anchor markers, right for any real mount.

Why this design holds (docs/camera.md "How the table pose is found"):

* **Whole anchors, not corners, are the unit of trust.**  A moved or misprinted anchor moves its
  four corners together, so rejecting corners one by one (corner-level RANSAC) can keep a
  consistent-looking cluster of corners from a few nearby anchors and settle on a wrong pose, as
  it did for a camera tilted 2 degrees.  Here every set of three anchors proposes a pose, and each
  proposal is scored by how many *whole* anchors it puts within ``consensus_mm`` of where they lie.
* **A start that needs no guess.**  Each proposal comes from IPPE and SQPnP, which are exact for a
  planar target, then Levenberg-Marquardt over the proposal's twelve corners.  A pose that puts the
  camera under the table (the mirror solution of a plane) is thrown away.
* **All the evidence at the end.**  The winning consensus is refitted by Levenberg-Marquardt over
  every corner of every agreeing anchor.  An anchor still off by more than ``max_residual_mm`` is
  dropped and named, and the pose refitted from the others, so one moved anchor neither spoils the
  pose nor goes unnoticed.
* **Its own uncertainty.**  The fit's Jacobian gives the pose covariance (from the anchor
  centres' scatter, see ``_covariance``) and how the pose would shift if the lens were off, which
  ``uncertainty.py`` turns into a position error map.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from . import cv
from .geometry import Camera
from .uncertainty import MARKER_CENTRE_SIGMA_PX

log = logging.getLogger(__name__)

MIN_ANCHORS = 4
MAX_PROPOSALS = 600  # three-anchor proposals tried at most (all of them for up to 16 anchors)
ANCHOR_PRIOR_DOF = 1  # how many observations the detector's known scatter is worth against the anchors' own


@dataclass(frozen=True)
class SeenAnchor:
    id: int
    world: np.ndarray  # (4, 3) table mm of its printed corners, z = 0
    pixels: np.ndarray  # (4, 2) detected corners

    @property
    def centre(self) -> np.ndarray:
        return cast(np.ndarray, self.world[:, :2].mean(axis=0))


@dataclass(frozen=True)
class TablePose:
    rvec: np.ndarray
    tvec: np.ndarray
    used: tuple[int, ...]  # anchors the final fit rests on
    residuals_mm: dict[int, float]  # every anchor seen: how far the pose puts it from its place
    moved: dict[int, float]  # anchors left out of the fit, with their residuals
    reprojection_px: float  # RMS over the used corners
    covariance: np.ndarray  # (6, 6) of the camera's turn and tvec (cv.projection_jacobian), from the anchors' scatter
    lens_sensitivity: np.ndarray  # (6, 9): d(pose)/d(fx fy cx cy k1 k2 p1 p2 k3) as the refit responds

    @property
    def R(self) -> np.ndarray:
        return cv.rodrigues(self.rvec)


def _camera(rvec: np.ndarray, tvec: np.ndarray, K: np.ndarray, dist: np.ndarray) -> Camera:
    return Camera(K, dist, cv.rodrigues(rvec), tvec, (0, 0))


def anchor_residuals(
    anchors: Sequence[SeenAnchor], rvec: np.ndarray, tvec: np.ndarray, K: np.ndarray, dist: np.ndarray
) -> dict[int, float]:
    """Each anchor's centre on the table as the pose sees it, against where it lies (mm).  Centre to
    centre: the four corners' rays meet the table at the printed corners when the pose is right."""
    camera = _camera(rvec, tvec, K, dist)
    pixels = np.vstack([a.pixels for a in anchors])
    on_table = camera.on_plane(pixels, 0.0).reshape(-1, 4, 2).mean(axis=1)
    return {a.id: float(np.linalg.norm(seen - a.centre)) for a, seen in zip(anchors, on_table)}


def _fit(anchors: Sequence[SeenAnchor], K: np.ndarray, dist: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    world = np.vstack([a.world for a in anchors])
    pixels = np.vstack([a.pixels for a in anchors])
    try:
        rvec, tvec = cv.solve_planar_pose(world, pixels, K, dist)
    except ValueError:
        return None
    if (-cv.rodrigues(rvec).T @ tvec)[2] <= 0:  # the mirror solution: a camera under the table
        return None
    return rvec, tvec


def _proposals(count: int) -> list[tuple[int, ...]]:
    triples: list[tuple[int, ...]] = list(itertools.combinations(range(count), 3))
    if len(triples) <= MAX_PROPOSALS:
        return triples
    picks = np.random.default_rng(0).choice(len(triples), MAX_PROPOSALS, replace=False)  # fixed: repeatable
    return [triples[k] for k in sorted(picks)]


def _consensus(anchors: Sequence[SeenAnchor], K: np.ndarray, dist: np.ndarray, consensus_mm: float) -> list[SeenAnchor]:
    """The largest set of anchors that one three-anchor proposal puts in place."""
    best_key, best = None, list(anchors)
    for triple in _proposals(len(anchors)):
        pose = _fit([anchors[k] for k in triple], K, dist)
        if pose is None:
            continue
        residuals = anchor_residuals(anchors, *pose, K, dist)
        agreeing = [a for a in anchors if residuals[a.id] <= consensus_mm]
        key = (len(agreeing), -sum(residuals[a.id] for a in agreeing))
        if best_key is None or key > best_key:
            best_key, best = key, agreeing
    return best


def _covariance(
    anchors: Sequence[SeenAnchor], rvec: np.ndarray, tvec: np.ndarray, K: np.ndarray, dist: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """RMS reprojection (px), pose covariance (6, 6) and the pose's response to the lens (6, 9).

    The anchor, not the corner, is the unit of error.  A detected square's corners err together
    in shape (drawn a little large or skewed, 0.3 px RMS on the renderer), and that cancels in the
    square's centre, which errs by about 0.1 px: counting the corners as independent made the pose
    look 3-9 times less certain (in variance) than it was.  So each anchor's four corners are taken
    to share one offset of ``scatter`` px per axis, propagated through the fit's normal equations.
    The scatter pools the prior (the detector's own, worth ``ANCHOR_PRIOR_DOF`` observations) with
    the anchor centres' residuals on their 2n - 6 degrees of freedom, so anchors laid a little off
    their marks widen it and four anchors (two degrees of freedom) cannot narrow it by luck."""
    world = np.vstack([a.world for a in anchors])
    pixels = np.vstack([a.pixels for a in anchors])
    projected, J_pose, J_lens = cv.projection_jacobian(world, rvec, tvec, K, dist)
    residual = projected - pixels
    rms = float(np.sqrt(np.mean(residual**2) * 2))
    count = len(anchors)
    centre_residual = residual.reshape(count, 4, 2).mean(axis=1)
    dof = max(2 * count - 6, 0)
    scatter2 = (ANCHOR_PRIOR_DOF * MARKER_CENTRE_SIGMA_PX**2 + float(np.sum(centre_residual**2))) / (
        ANCHOR_PRIOR_DOF + dof
    )
    per_anchor = J_pose.reshape(count, 4, 2, 6).sum(axis=1)  # (n, 2, 6): the pose's pull by each anchor's offset
    spread = np.einsum("nik,nil->kl", per_anchor, per_anchor)
    normal = np.linalg.pinv(J_pose.T @ J_pose)
    return rms, scatter2 * normal @ spread @ normal, -normal @ J_pose.T @ J_lens


# The pose's six parameters of a covariance, as calibration files name them: earlier files, with
# none named, hold rvec's own coordinates (see ``from_rvec_coordinates``).
POSE_PARAMETERS = "turn, tvec"


def from_rvec_coordinates(rvec: np.ndarray) -> np.ndarray:
    """The (6, 6) map from a change of (rvec, tvec) to a change of (turn, tvec) at ``rvec``, to
    carry a covariance saved in rvec's coordinates over: C_turn = G C G^T."""
    step = 1e-6
    R = cv.rodrigues(rvec)
    G = np.eye(6)
    for k in range(3):
        nudged = np.array(rvec, float)
        nudged[k] += step
        turn = cv.rodrigues(nudged) @ R.T  # a small turn, so its skew part is the turn itself
        G[:3, k] = np.array([turn[2, 1] - turn[1, 2], turn[0, 2] - turn[2, 0], turn[1, 0] - turn[0, 1]]) / (2 * step)
    return G


def fit_table_pose(
    anchors: Sequence[SeenAnchor],
    K: np.ndarray,
    dist: np.ndarray,
    max_residual_mm: float = 3.0,
    consensus_mm: float | None = None,
) -> TablePose:
    """The pose from the anchors seen; ``moved`` names those that disagree with the rest."""
    if len(anchors) < MIN_ANCHORS:
        raise ValueError(
            f"{len(anchors)} anchors seen (ids {sorted(a.id for a in anchors)}); at least {MIN_ANCHORS} are needed"
        )
    consensus_mm = consensus_mm or max(3 * max_residual_mm, 6.0)
    used = _consensus(anchors, K, dist, consensus_mm)
    if len(used) < 3:
        raise ValueError("no camera pose puts three anchors where they lie")
    pose: tuple[np.ndarray, np.ndarray] | None = None
    for _ in range(len(anchors)):
        pose = _fit(used, K, dist)
        if pose is None:
            raise ValueError("no camera pose fits the anchors")
        residuals = anchor_residuals(anchors, *pose, K, dist)
        worst = max(used, key=lambda a: residuals[a.id])
        if residuals[worst.id] > max_residual_mm and len(used) > MIN_ANCHORS - 1:
            used = [a for a in used if a is not worst]  # name it and fit from the others
            continue
        back = [a for a in anchors if a not in used and residuals[a.id] <= max_residual_mm]
        if not back:
            break
        used = used + back  # one the first consensus missed fits after all
    else:  # the last change to ``used`` has not been fitted yet
        pose = _fit(used, K, dist) or pose
        assert pose is not None  # fitted at least once: there are three anchors or more
        residuals = anchor_residuals(anchors, *pose, K, dist)
    log.debug("table pose from anchors %s", [a.id for a in used])
    rms, covariance, sensitivity = _covariance(used, *pose, K, dist)
    used_ids = {a.id for a in used}
    moved = {a.id: residuals[a.id] for a in anchors if a.id not in used_ids}
    return TablePose(pose[0], pose[1], tuple(sorted(used_ids)), residuals, moved, rms, covariance, sensitivity)
