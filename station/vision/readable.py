"""Whether the detector can read a marker at this mount, and what to do when it cannot.

The station knows each marker's printed size, and once the table pose is known, how many pixels a
millimetre takes anywhere on the table at any height.  So a marker the army expects (or an anchor)
that is too small for the mount is said with its size in pixels and the fix, instead of only
"not seen".  And a marker read smaller than ids can be trusted at is never taken for a unit.

The two limits come from the misread sweep (``bench/camera_marker_sizes.py``, docs/camera.md,
1,260 markers a size on the project's renderer): from 18 px on 99.3-100 % were found; at 8-10 px
a few ids were misread as other valid ids (6 of 585 reads), and none from 11 px on.  The trust
limit keeps a margin over that, since real prints and sensors are rougher than the renderer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .geometry import Camera, marker_corners

TRUSTED_PX = 14.0  # a marker read with sides shorter than this is not trusted to be its id
RELIABLE_PX = 18.0  # from this size on the detector finds a marker in every frame
_GRID = 7  # table points per side where the smallest marker is looked for


def side_px(quads: np.ndarray) -> np.ndarray:
    """The mean side, in pixels, of each detected quad (N, 4, 2)."""
    quads = np.asarray(quads, float).reshape(-1, 4, 2)
    return np.linalg.norm(quads - np.roll(quads, 1, axis=1), axis=2).mean(axis=1)  # type: ignore[no-any-return]


def expected_px(
    camera: Camera, xy: Sequence[float], height_mm: float, size_mm: float, facing_deg: float = 90.0
) -> float:
    """The mean side in pixels of a marker of ``size_mm`` lying flat at ``xy``, ``height_mm`` up."""
    corners = camera.project(marker_corners(np.asarray(xy, float), facing_deg, size_mm, height_mm))
    return float(side_px(corners[None])[0])


def smallest_px(camera: Camera, table_mm: tuple[float, float], height_mm: float, size_mm: float) -> float:
    """The smallest a marker of ``size_mm`` at ``height_mm`` can be anywhere on the table, turned
    either way: where the camera sees the table smallest (its far side, for a tilted camera)."""
    xs = np.linspace(size_mm, table_mm[0] - size_mm, _GRID)
    ys = np.linspace(size_mm, table_mm[1] - size_mm, _GRID)
    corners = [
        marker_corners(np.array([x, y]), facing, size_mm, height_mm) for x in xs for y in ys for facing in (0, 45)
    ]
    return float(side_px(camera.project(np.vstack(corners)).reshape(-1, 4, 2)).min())


def print_at_least_mm(size_mm: float, px: float) -> int:
    """The printed size that makes a marker now ``px`` across reach RELIABLE_PX, in whole mm."""
    return math.ceil(size_mm * RELIABLE_PX / max(px, 1e-6))


def too_small(what: str, px: float, size_mm: float) -> str:
    """The diagnosis, with numbers and the fix."""
    return (
        f"{what} would be {px:.1f} px here, under the {RELIABLE_PX:g} px the detector reads reliably; "
        f"print it at ≥ {print_at_least_mm(size_mm, px)} mm, or mount the camera lower"
    )
