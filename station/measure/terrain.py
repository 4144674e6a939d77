"""Terrain and line of sight, in an honest 2.5D model.

Terrain pieces are prisms: a simple polygon on the table extruded to a height.  Models are
cylinders of their base's radius and a given height.  A line of sight is a fan of rays from the
shooter's eye to points spread over the target's silhouette (across its width and up its
height); a ray is blocked by a solid piece when it passes over the piece's footprint lower than
its top.  Woods never block a ray here; the length of woods the centre ray crosses is reported,
for rules such as Alpha Strike's (blocked at 6" of woods).  The hidden fraction is the share of
blocked rays, for cover rules that count halves and thirds.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..rules.fields import Fields, load_json_file
from .measurement import Placed

FORMAT = "station-terrain/1"
TYPES = ("woods", "building", "hill", "water", "obstacle")
SOLID = ("building", "hill", "obstacle")


@dataclass(frozen=True)
class Piece:
    id: str
    type: str
    height_mm: float
    polygon: np.ndarray  # (N, 2) mm

    @property
    def box(self) -> tuple[float, float, float, float]:
        (x0, y0), (x1, y1) = self.polygon.min(axis=0), self.polygon.max(axis=0)
        return float(x0), float(y0), float(x1), float(y1)

    def contains(self, p: np.ndarray) -> bool:
        x, y = p
        inside = False
        poly = self.polygon
        for (x1, y1), (x2, y2) in zip(poly, np.roll(poly, -1, axis=0)):
            if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
                inside = not inside
        return inside

    def inside_intervals(self, a: np.ndarray, b: np.ndarray) -> list[tuple[float, float]]:
        """The parts (t0, t1) of segment a→b that lie over the footprint."""
        ts = [0.0, 1.0]
        d = b - a
        for p, q in zip(self.polygon, np.roll(self.polygon, -1, axis=0)):
            e = q - p
            denom = d[0] * e[1] - d[1] * e[0]
            if abs(denom) < 1e-12:
                continue
            w = p - a
            t = (w[0] * e[1] - w[1] * e[0]) / denom
            s = (w[0] * d[1] - w[1] * d[0]) / denom
            if 0 <= t <= 1 and 0 <= s <= 1:
                ts.append(float(t))
        ts.sort()
        return [(t0, t1) for t0, t1 in zip(ts, ts[1:]) if t1 - t0 > 1e-9 and self.contains(a + d * (t0 + t1) / 2)]


def _segments_cross(p1, p2, p3, p4) -> bool:
    def orient(a, b, c) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    d1, d2, d3, d4 = orient(p3, p4, p1), orient(p3, p4, p2), orient(p1, p2, p3), orient(p1, p2, p4)
    return ((d1 > 0) != (d2 > 0)) and ((d3 > 0) != (d4 > 0)) and 0 not in (d1, d2, d3, d4)


def _self_intersecting(poly: np.ndarray) -> tuple[int, int] | None:
    n = len(poly)
    for i in range(n):
        for j in range(i + 2, n):
            if i == 0 and j == n - 1:
                continue  # neighbours through the closing edge
            if _segments_cross(poly[i], poly[(i + 1) % n], poly[j], poly[(j + 1) % n]):
                return i, j
    return None


def load_terrain(path: str | Path) -> list[Piece]:
    """A terrain file; every error names the file, the field and what is wrong."""
    f = Fields(str(path), load_json_file(path))
    f.reject_unknown(["format", "pieces"])
    f.get("format", str, check=lambda v: None if v == FORMAT else f"is {v!r}; expected {FORMAT!r}")
    pieces, ids = [], set()
    for item in f.items("pieces"):
        item.reject_unknown(["id", "type", "height_mm", "polygon"])
        piece_id = item.get("id", str)
        if piece_id in ids:
            item.fail(f"id {piece_id!r} is used twice", "id")
        ids.add(piece_id)
        kind = item.choice("type", TYPES)
        height = item.get("height_mm", (int, float), check=lambda v: None if 0 <= v <= 2000 else "must be 0 to 2000 mm")
        raw = item.get("polygon", list, check=lambda v: None if len(v) >= 3 and all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in p)
            for p in v) else "must be at least 3 [x, y] points in mm")
        poly = np.array(raw, float)
        crossing = _self_intersecting(poly)  # before the area: a bow tie's two lobes cancel to zero
        if crossing:
            item.fail(f"crosses itself (edges {crossing[0]} and {crossing[1]}); draw its outline in order", "polygon")
        area = 0.5 * abs(float(np.dot(poly[:, 0], np.roll(poly[:, 1], -1)) - np.dot(poly[:, 1], np.roll(poly[:, 0], -1))))
        if area < 1.0:
            item.fail("encloses no area (points repeated or in a line)", "polygon")
        pieces.append(Piece(piece_id, kind, float(height), poly))
    return pieces


@dataclass(frozen=True)
class LineOfSight:
    blocked: bool  # no ray gets through
    hidden_fraction: float  # share of the target's silhouette behind solid terrain
    woods_mm: float  # woods crossed by the centre ray, in mm
    blockers: tuple[str, ...]  # pieces that stopped at least one ray


def line_of_sight(shooter: Placed, eye_mm: float, target: Placed, target_height_mm: float, terrain: list[Piece],
                  across: int = 5, levels: int = 3) -> LineOfSight:
    a = shooter.base.centre
    b = target.base.centre
    direction = b - a
    length = float(np.linalg.norm(direction))
    side = np.array([-direction[1], direction[0]]) / length if length else np.array([0.0, 1.0])
    radius = target.base.width / 2
    rays = [(b + side * radius * k, target_height_mm * h)
            for k in np.linspace(-0.9, 0.9, across) for h in np.linspace(0.15, 0.95, levels)]
    # only pieces whose box meets the fan's box can touch a ray
    lo, hi = np.minimum(a, b) - radius, np.maximum(a, b) + radius
    terrain = [p for p in terrain if p.box[0] <= hi[0] and p.box[2] >= lo[0] and p.box[1] <= hi[1] and p.box[3] >= lo[1]]
    blocked_rays, blockers = 0, set()
    for end, end_z in rays:
        for piece in terrain:
            if piece.type not in SOLID:
                continue
            if any(min(eye_mm + (end_z - eye_mm) * t for t in interval) < piece.height_mm
                   for interval in piece.inside_intervals(a, end)):
                blocked_rays += 1
                blockers.add(piece.id)
                break
    woods = sum((t1 - t0) * length for piece in terrain if piece.type == "woods"
                for t0, t1 in piece.inside_intervals(a, b))
    return LineOfSight(blocked_rays == len(rays), blocked_rays / len(rays), float(woods), tuple(sorted(blockers)))
