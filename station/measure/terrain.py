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

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..datafile import Fields, load_json_file
from .bases import Base
from .measurement import Placed
from .sightlines import SOLID, Footprints, sightlines

FORMAT = "station-terrain/1"
SOLID_TYPES = SOLID  # what blocks a line of sight, and what a model can stand on
TYPES = ("woods", "building", "hill", "water", "obstacle", "trench", "wire")  # trench and wire: The Price of a Mile
MAX_PIECES = 200  # a crowded table has 30
MAX_POINTS = 64  # per outline: enough for a drawn wood, and keeps sight tests fast


Point = Sequence[float] | np.ndarray  # (x, y) mm


@dataclass(frozen=True)
class Piece:
    id: str
    type: str
    height_mm: float
    polygon: np.ndarray  # (N, 2) mm
    climbable: bool = False  # the players agreed its walls can be climbed (Бронепехота §4.1, §12.2)
    water_depth_mm: float | None = None  # water only: how deep; None is the game's own (Alpha Strike: 1")

    def contains(self, p: Point) -> bool:
        return bool(Footprints.of([self]).contains(np.asarray(p, float).reshape(1, 2))[0, 0])

    def distance_mm(self, p: Point) -> float:
        """From a point outside the piece to its outline (0 inside)."""
        point = np.asarray(p, float).reshape(2)
        return 0.0 if self.contains(point) else self._to_edge(point)

    def _to_edge(self, point: np.ndarray) -> float:
        a, b = self.polygon, np.roll(self.polygon, -1, axis=0)
        ab = b - a
        t = np.clip(np.einsum("ij,ij->i", point - a, ab) / np.maximum(np.einsum("ij,ij->i", ab, ab), 1e-12), 0.0, 1.0)
        return float(np.min(np.hypot(*(a + ab * t[:, None] - point).T)))

    def depth_mm(self, p: Point) -> float:
        """How far inside the piece a point is (0 outside): the distance to its nearest edge, for
        rules such as The Price of a Mile's "invisible more than 2" inside woods" (§6.2)."""
        point = np.asarray(p, float).reshape(2)
        return self._to_edge(point) if self.contains(point) else 0.0


def base_touches(base: Base, piece: Piece) -> bool:
    """Does any part of the base lie over the piece (Alpha Strike: «если любая часть её подставки
    касается этого элемента»)?  The base's outline and centre against the piece, and the piece's
    corners against the base, so a corner of a wood poking into a base counts too."""
    if any(piece.contains(p) for p in base.outline(48)) or piece.contains((base.x, base.y)):
        return True
    return any(base.contains(np.asarray(corner, float)) for corner in piece.polygon)


def base_gap_mm(base: Base, piece: Piece) -> float:
    """How far the base's edge is from the piece's outline: 0 when any part of it is over the
    piece (The Price of a Mile §5.5: a high obstacle is crossed from contact, to contact)."""
    if base_touches(base, piece):
        return 0.0
    return min(piece.distance_mm(p) for p in base.outline(48))


def _segments_cross(p1: np.ndarray, p2: np.ndarray, p3: np.ndarray, p4: np.ndarray) -> bool:
    def orient(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
        return float((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))

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
    return parse_terrain(load_json_file(path), str(path))


def parse_terrain(document: Any, where: str) -> list[Piece]:
    """A ``station-terrain/1`` document (from a file, the journal or the dashboard); every error
    names ``where``, the field and what is wrong."""
    f = Fields(where, document)
    f.reject_unknown(["format", "pieces"])
    f.get("format", str, check=lambda v: None if v == FORMAT else f"is {v!r}; expected {FORMAT!r}")
    pieces, ids = [], set()
    for item in f.items("pieces"):
        item.reject_unknown(["id", "type", "height_mm", "polygon", "climbable", "water_depth_mm"])
        piece_id = item.get("id", str)
        if piece_id in ids:
            item.fail(f"id {piece_id!r} is used twice", "id")
        ids.add(piece_id)
        kind = item.choice("type", TYPES)
        height = item.get("height_mm", (int, float), check=lambda v: None if 0 <= v <= 2000 else "must be 0 to 2000 mm")
        raw = item.get(
            "polygon",
            list,
            check=lambda v: (
                None
                if 3 <= len(v) <= MAX_POINTS
                and all(
                    isinstance(p, list)
                    and len(p) == 2
                    and all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in p)
                    for p in v
                )
                else f"must be 3 to {MAX_POINTS} [x, y] points in mm"
            ),
        )
        poly = np.array(raw, float)
        crossing = _self_intersecting(poly)  # before the area: a bow tie's two lobes cancel to zero
        if crossing:
            item.fail(f"crosses itself (edges {crossing[0]} and {crossing[1]}); draw its outline in order", "polygon")
        area = 0.5 * abs(
            float(np.dot(poly[:, 0], np.roll(poly[:, 1], -1)) - np.dot(poly[:, 1], np.roll(poly[:, 0], -1)))
        )
        if area < 1.0:
            item.fail("encloses no area (points repeated or in a line)", "polygon")
        depth = item.get(
            "water_depth_mm",
            (int, float),
            None,
            check=lambda v: None if 0 < v <= 2000 else "must be more than 0 and at most 2000 mm",
        )
        if depth is not None and kind != "water":
            item.fail(f"only water has a depth; this piece is {kind}", "water_depth_mm")
        climbable = item.get("climbable", bool, False)
        pieces.append(Piece(piece_id, kind, float(height), poly, climbable, None if depth is None else float(depth)))
    if len(pieces) > MAX_PIECES:
        f.fail(f"has {len(pieces)} pieces; at most {MAX_PIECES}", "pieces")
    return pieces


def terrain_document(pieces: Sequence[Piece]) -> dict[str, Any]:
    """The pieces as a ``station-terrain/1`` document, as the journal and the dashboard hold them."""
    return {
        "format": FORMAT,
        "pieces": [
            {
                "id": p.id,
                "type": p.type,
                "height_mm": p.height_mm,
                "polygon": [[round(float(x), 2), round(float(y), 2)] for x, y in p.polygon],
                **({"climbable": True} if p.climbable else {}),
                **({"water_depth_mm": p.water_depth_mm} if p.water_depth_mm is not None else {}),
            }
            for p in pieces
        ],
    }


@dataclass(frozen=True)
class LineOfSight:
    blocked: bool  # no ray gets through
    hidden_fraction: float  # share of the target's silhouette behind solid terrain
    woods_mm: float  # woods crossed by the centre ray, in mm
    blockers: tuple[str, ...]  # pieces that stopped at least one ray


def line_of_sight(
    shooter: Placed, eye_mm: float, target: Placed, target_height_mm: float, terrain: list[Piece]
) -> LineOfSight:
    """One line of sight; ``measure.table`` traces every shooter-target pair at once."""
    fp = Footprints.of(terrain)
    start = np.array([[shooter.base.x, shooter.base.y]])
    seen = sightlines(
        fp,
        start,
        np.array([eye_mm]),
        np.array([[target.base.x, target.base.y]]),
        np.array([target.base.width / 2]),
        np.array([target_height_mm]),
        fp.contains(start),
    )
    return LineOfSight(
        bool(seen.blocked[0]),
        float(seen.hidden_fraction[0]),
        float(seen.woods_mm[0]),
        tuple(sorted(terrain[k].id for k in seen.blockers_of(0))),
    )
