"""Everything the rules may ask about one table snapshot, computed at once.

Rules that scan the table (the nearest three targets, coherency, who can see whom, which
enemies are in the front arc) read this instead of measuring pair by pair: every edge-to-edge
and centre distance, every bearing, and a line of sight for every shooter and enemy target in
both directions (bases of one side never need to see each other).  Terrain is prepared once
per terrain file.  ``bench/measure_snapshot.py`` times it against its 10 ms budget.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .measurement import Placed
from .pairwise import edge_distances
from .sightlines import Footprints, sightlines
from .terrain import LineOfSight, Piece

EYE_FRACTION = 0.9  # a model looks from near the top of its cylinder


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
    ids: tuple[str, ...]
    edge_mm: np.ndarray  # (N, N)
    centre_mm: np.ndarray  # (N, N)
    bearing_deg: np.ndarray  # (N, N): where j lies from i's facing, -180..180, positive to the left
    hidden: np.ndarray  # (N, N): share of j hidden from i's eye; NaN for bases of one side
    woods_mm: np.ndarray  # (N, N): woods crossed by i's centre ray to j
    blockers: np.ndarray  # (B, 3): shooter, target and piece index of each piece that stops a ray
    piece_ids: tuple[str, ...]

    @classmethod
    def of(cls, figures: Sequence[Figure], terrain: Terrain | None = None) -> "TableGeometry":
        n = len(figures)
        terrain = terrain or Terrain(())
        xy = np.array([(f.placed.base.x, f.placed.base.y) for f in figures], float).reshape(-1, 2)
        facing = np.array([f.placed.base.facing_deg for f in figures], float)
        delta_x = xy[None, :, 0] - xy[:, None, 0]
        delta_y = xy[None, :, 1] - xy[:, None, 1]
        bearing = (np.degrees(np.arctan2(delta_y, delta_x)) - facing[:, None] + 180.0) % 360.0 - 180.0
        hidden = np.full((n, n), np.nan)
        woods = np.full((n, n), np.nan)
        side = np.array([f.side for f in figures])
        shooter, target = np.nonzero(side[:, None] != side[None, :])
        blockers = np.zeros((0, 3), int)
        if len(shooter):
            height = np.array([f.height_mm for f in figures], float)
            radius = np.array([f.placed.base.width / 2 for f in figures], float)
            inside = terrain.footprints.contains(xy)
            seen = sightlines(terrain.footprints, xy[shooter], height[shooter] * EYE_FRACTION, xy[target],
                              radius[target], height[target], inside[shooter])
            hidden[shooter, target] = seen.hidden_fraction
            woods[shooter, target] = seen.woods_mm
            blockers = np.column_stack([shooter[seen.blocker_pair], target[seen.blocker_pair], seen.blocker_piece])
        return cls(tuple(f.id for f in figures), edge_distances([f.placed.base for f in figures]),
                   np.hypot(delta_x, delta_y), bearing, hidden, woods, blockers, tuple(p.id for p in terrain.pieces))

    def index(self, element: str) -> int:
        try:
            return self.ids.index(element)
        except ValueError:
            raise KeyError(f"{element!r} is not on the table") from None

    def in_arc(self, origin: str, target: str, centre_deg: float = 0.0, half_width_deg: float = 90.0) -> bool:
        offset = (self.bearing_deg[self.index(origin), self.index(target)] - centre_deg + 180.0) % 360.0 - 180.0
        return abs(offset) <= half_width_deg

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
        return LineOfSight(hidden >= 1.0, hidden, float(self.woods_mm[i, j]),
                           tuple(sorted(self.piece_ids[k] for k in self.blockers[rows, 2])))
