"""Everything the rules may ask about one table snapshot, computed at once.

Rules that scan the table (the nearest three targets, coherency, who can see whom, which
enemies are in the front arc) read this instead of measuring pair by pair: every edge-to-edge
and centre distance, every bearing, and a line of sight for every shooter and enemy target in
both directions (bases of one side never need to see each other).  Terrain is prepared once
per terrain file.  ``bench/measure_snapshot.py`` times it against its 10 ms budget.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from .measurement import Placed
from .pairwise import pair_distances
from .sightlines import Footprints, sightlines
from .terrain import LineOfSight, Piece

EYE_FRACTION = 0.9  # a model looks from near the top of its cylinder
STILL_MM = 0.05  # well inside a measurement's uncertainty (sigma >= 0.1 mm)
STILL_DEG = 0.05


@dataclass(frozen=True)
class Figure:
    """A base on the table with what line of sight needs: its side and its model's height."""

    placed: Placed
    side: str
    height_mm: float = 40.0

    @property
    def id(self) -> str:
        return self.placed.id


class Terrain:
    """Terrain pieces with their footprints prepared for the batched line-of-sight tests."""

    def __init__(self, pieces: Sequence[Piece]):
        self.pieces = tuple(pieces)
        self.footprints = Footprints.of(self.pieces)


@dataclass(frozen=True)
class TableGeometry:
    figures: tuple[Figure, ...]
    terrain: Terrain
    edge_mm: np.ndarray  # (N, N)
    centre_mm: np.ndarray  # (N, N)
    bearing_deg: np.ndarray  # (N, N): where j lies from i's facing, -180..180, positive to the left
    hidden: np.ndarray  # (N, N): share of j hidden from i's eye; NaN for bases of one side
    woods_mm: np.ndarray  # (N, N): woods crossed by i's centre ray to j
    blockers: np.ndarray  # (B, 3): shooter, target and piece index of each piece that stops a ray

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(f.id for f in self.figures)

    @classmethod
    def of(cls, figures: Sequence[Figure], terrain: Terrain | None = None) -> TableGeometry:
        n = len(figures)
        terrain = terrain or Terrain(())
        centre, bearing = _centres_and_bearings(figures)
        hidden, woods = np.full((n, n), np.nan), np.full((n, n), np.nan)
        shooter, target = np.nonzero(_enemies(figures))
        blockers = _trace(figures, terrain, shooter, target, hidden, woods)
        i, j = np.triu_indices(n, 1)
        edge = np.zeros((n, n))
        edge[i, j] = edge[j, i] = pair_distances([f.placed.base for f in figures], i, j)
        return cls(tuple(figures), terrain, edge, centre, bearing, hidden, woods, blockers)

    def update(self, figures: Sequence[Figure], terrain: Terrain | None = None) -> TableGeometry:
        """The geometry of the next snapshot, measuring again only the pairs in which a base moved.
        Between two snapshots usually one unit moves, so this is most of the saving; a new
        terrain, or bases arriving or leaving, start afresh."""
        terrain = terrain or self.terrain
        if (
            terrain is not self.terrain
            or [f.id for f in figures] != list(self.ids)
            or [f.side for f in figures] != [f.side for f in self.figures]
        ):
            return TableGeometry.of(figures, terrain)
        moved = np.array([_moved(old, new) for old, new in zip(self.figures, figures)], bool)
        if not moved.any():
            return self
        figures = [new if move else old for old, new, move in zip(self.figures, figures, moved)]
        centre, bearing = _centres_and_bearings(figures)
        touched = moved[:, None] | moved[None, :]
        i, j = np.nonzero(np.triu(touched, 1))
        edge = self.edge_mm.copy()
        edge[i, j] = edge[j, i] = pair_distances([f.placed.base for f in figures], i, j)
        hidden, woods = self.hidden.copy(), self.woods_mm.copy()
        shooter, target = np.nonzero(_enemies(figures) & touched)
        kept = self.blockers[~(moved[self.blockers[:, 0]] | moved[self.blockers[:, 1]])]
        blockers = np.concatenate([kept, _trace(figures, terrain, shooter, target, hidden, woods)])
        return TableGeometry(tuple(figures), terrain, edge, centre, bearing, hidden, woods, blockers)

    def index(self, element: str) -> int:
        try:
            return self.ids.index(element)
        except ValueError:
            raise KeyError(f"{element!r} is not on the table") from None

    def in_arc(self, origin: str, target: str, centre_deg: float = 0.0, half_width_deg: float = 90.0) -> bool:
        offset = (self.bearing_deg[self.index(origin), self.index(target)] - centre_deg + 180.0) % 360.0 - 180.0
        return bool(abs(offset) <= half_width_deg)

    def nearest(self, origin: str, among: Sequence[str], n: int = 3) -> list[tuple[str, float]]:
        """The ``n`` of ``among`` nearest ``origin``, edge to edge, nearest first."""
        row = self.edge_mm[self.index(origin)]
        found = sorted((float(row[self.index(other)]), other) for other in among if other != origin)
        return [(other, mm) for mm, other in found[:n]]

    def line_of_sight(self, shooter: str, target: str) -> LineOfSight:
        i, j = self.index(shooter), self.index(target)
        hidden = float(self.hidden[i, j])
        if math.isnan(hidden):
            raise ValueError(f"{shooter!r} and {target!r} are on the same side; no line of sight was traced")
        rows = (self.blockers[:, 0] == i) & (self.blockers[:, 1] == j)
        return LineOfSight(
            hidden >= 1.0,
            hidden,
            float(self.woods_mm[i, j]),
            tuple(sorted(self.terrain.pieces[k].id for k in self.blockers[rows, 2])),
        )


def _moved(old: Figure, new: Figure) -> bool:
    """Has the base moved more than a tracker's smoothing wobbles?  A still base keeps the pose
    it was measured at, so its measurements stand."""
    a, b = old.placed.base, new.placed.base
    return (
        math.hypot(a.x - b.x, a.y - b.y) > STILL_MM
        or abs((a.facing_deg - b.facing_deg + 180) % 360 - 180) > STILL_DEG
        or (a.kind, a.length, a.width, old.height_mm) != (b.kind, b.length, b.width, new.height_mm)
    )


def _centres_and_bearings(figures: Sequence[Figure]) -> tuple[np.ndarray, np.ndarray]:
    xy = np.array([(f.placed.base.x, f.placed.base.y) for f in figures], float).reshape(-1, 2)
    facing = np.array([f.placed.base.facing_deg for f in figures], float)
    dx, dy = xy[None, :, 0] - xy[:, None, 0], xy[None, :, 1] - xy[:, None, 1]
    return np.hypot(dx, dy), (np.degrees(np.arctan2(dy, dx)) - facing[:, None] + 180.0) % 360.0 - 180.0


def _enemies(figures: Sequence[Figure]) -> np.ndarray:
    side = np.array([f.side for f in figures])
    return cast(np.ndarray, side[:, None] != side[None, :])


def _trace(
    figures: Sequence[Figure],
    terrain: Terrain,
    shooter: np.ndarray,
    target: np.ndarray,
    hidden: np.ndarray,
    woods: np.ndarray,
) -> np.ndarray:
    """Lines of sight from each shooter to its target, written into ``hidden`` and ``woods``;
    returns the (shooter, target, piece) rows of the pieces that stop rays."""
    if not len(shooter):
        return np.zeros((0, 3), int)
    xy = np.array([(f.placed.base.x, f.placed.base.y) for f in figures], float)
    height = np.array([f.height_mm for f in figures], float)
    radius = np.array([f.placed.base.width / 2 for f in figures], float)
    inside = terrain.footprints.contains(xy)
    seen = sightlines(
        terrain.footprints,
        xy[shooter],
        height[shooter] * EYE_FRACTION,
        xy[target],
        radius[target],
        height[target],
        inside[shooter],
    )
    hidden[shooter, target] = seen.hidden_fraction
    woods[shooter, target] = seen.woods_mm
    return np.column_stack([shooter[seen.blocker_pair], target[seen.blocker_pair], seen.blocker_piece])
