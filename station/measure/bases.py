"""Base outlines on the table and the exact closest points between them.

A base is a convex shape (round, oval, rectangular: every base and vehicle footprint in the
rulebooks) with a pose: centre and facing.  Closest points come from GJK on support functions,
exact for circles and rectangles and converging to well under 0.01 mm for ovals, so "edge to
edge" means what a player measures with a ruler between the nearest points of two bases.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

MM_PER_INCH = 25.4  # exact, by definition

# Bases are named by shape and size in mm: "round25" (diameter), "oval75x42", "rect50x100".  An
# oval or rectangle lies lengthwise along the model's facing: its length is the larger number.
# These are the common sizes; any size from 5 to 500 mm is allowed, e.g. a vehicle's "rect70x130".
COMMON_BASES = (
    "round25",
    "round32",
    "round40",
    "round50",
    "oval60x35",
    "oval75x42",
    "oval105x70",
    "rect20x20",
    "rect25x50",
    "rect50x100",
)
BASE_NAME = re.compile(r"^(?:(round)(\d+(?:\.\d+)?)|(oval|rect)(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?))$")
SIZE_MM = (5.0, 500.0)


def parse_base_name(name: str) -> tuple[str, float, float]:
    """(kind, length, width) for a base name, or ValueError saying what a name looks like."""
    match = BASE_NAME.match(name) if isinstance(name, str) else None
    sizes = [float(v) for v in (match.groups()[1:2] + match.groups()[3:]) if v is not None] if match else []
    if not match or not all(SIZE_MM[0] <= v <= SIZE_MM[1] for v in sizes):
        raise ValueError(
            f"{name!r} is not a base: write round<diameter>, oval<a>x<b> or rect<a>x<b> in mm "
            f"({SIZE_MM[0]:g}-{SIZE_MM[1]:g}), e.g. {', '.join(COMMON_BASES[:3])} or rect70x130"
        )
    if match.group(1):
        return "round", sizes[0], sizes[0]
    return match.group(3), max(sizes), min(sizes)


@dataclass(frozen=True)
class Base:
    """A base outline: ``kind`` round (``length`` = diameter), oval or rect (length along the
    facing, width across), at centre (x, y) mm facing ``facing_deg`` (counter-clockwise from x)."""

    kind: str
    length: float
    width: float
    x: float = 0.0
    y: float = 0.0
    facing_deg: float = 0.0

    @classmethod
    def named(cls, name: str, x: float = 0.0, y: float = 0.0, facing_deg: float = 0.0) -> Base:
        return cls(*parse_base_name(name), x, y, facing_deg)

    def at(self, x: float, y: float, facing_deg: float | None = None) -> Base:
        return Base(self.kind, self.length, self.width, x, y, self.facing_deg if facing_deg is None else facing_deg)

    @property
    def centre(self) -> np.ndarray:
        return np.array([self.x, self.y])

    @property
    def axes(self) -> tuple[np.ndarray, np.ndarray]:
        a = math.radians(self.facing_deg)
        return np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])

    def support(self, d: np.ndarray) -> np.ndarray:
        """The outline's farthest point in direction ``d``."""
        forward, left = self.axes
        u, v = float(d @ forward), float(d @ left)
        hl, hw = self.length / 2, self.width / 2
        if self.kind == "round":
            n = math.hypot(u, v) or 1.0
            return self.centre + hl * (u * forward + v * left) / n
        if self.kind == "rect":
            return self.centre + math.copysign(hl, u) * forward + math.copysign(hw, v) * left
        n = math.hypot(hl * u, hw * v) or 1.0  # ellipse: x = A d / sqrt(d^T A d), A = diag(a^2, b^2)
        return self.centre + (hl * hl * u * forward + hw * hw * v * left) / n

    def contains(self, p: np.ndarray | tuple[float, float]) -> bool:
        return bool(self.contains_many(np.asarray(p, float).reshape(1, 2))[0])

    def contains_many(self, points: np.ndarray) -> np.ndarray:
        """(N,) bool: which of the (N, 2) points lie on the base (its outline included)."""
        forward, left = self.axes
        rel = points - self.centre
        u, v = rel @ forward, rel @ left
        hl, hw = self.length / 2, self.width / 2
        if self.kind == "rect":
            return np.asarray((np.abs(u) <= hl) & (np.abs(v) <= hw))
        return np.asarray((u / hl) ** 2 + (v / hw) ** 2 <= 1.0)

    def outline(self, n: int = 64) -> np.ndarray:
        forward, left = self.axes
        t = np.linspace(0, 2 * np.pi, n, endpoint=False)
        if self.kind == "rect":
            corners = [(1, 1), (-1, 1), (-1, -1), (1, -1)]
            return np.array(
                [self.centre + a * self.length / 2 * forward + b * self.width / 2 * left for a, b in corners]
            )
        return self.centre + np.outer(np.cos(t) * self.length / 2, forward) + np.outer(np.sin(t) * self.width / 2, left)


def reach_outline(base: Base, mm: float, n: int = 96) -> np.ndarray:
    """Every point within ``mm`` of the base's edge, as an outline: the base grown by ``mm`` in
    every direction.  A range measured edge to edge ends on this line."""
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.array([base.support(d) + mm * d for d in np.column_stack([np.cos(t), np.sin(t)])])


def _closest_on_segment(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
    """The point of segment ab nearest the origin, and its parameter t in [0, 1]."""
    ab = b - a
    denom = float(ab @ ab)
    t = 0.0 if denom == 0 else min(1.0, max(0.0, -float(a @ ab) / denom))
    return a + t * ab, t


def closest_points(
    p: Base, q: Base, tolerance: float = 1e-6, iterations: int = 64
) -> tuple[float, np.ndarray, np.ndarray]:
    """Edge-to-edge distance (0 when the bases touch or overlap) and the two nearest points.

    GJK on the Minkowski difference P - Q, keeping for each simplex vertex the two support points
    it came from so the nearest points can be recovered."""

    def support(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        sp, sq = p.support(d), q.support(-d)
        return sp - sq, sp, sq

    d = q.centre - p.centre
    if not d.any():
        d = np.array([1.0, 0.0])
    simplex = [support(-d)]
    w, sp, sq = simplex[0]
    best = (float(np.linalg.norm(w)), sp, sq)
    for _ in range(iterations):
        if len(simplex) == 1:
            v, sp, sq = simplex[0]
        else:
            (a, pa, qa), (b, pb, qb) = simplex
            v, t = _closest_on_segment(a, b)
            sp, sq = pa + t * (pb - pa), qa + t * (qb - qa)
            if t in (0.0, 1.0):
                simplex = [simplex[0] if t == 0.0 else simplex[1]]
        dist = float(np.linalg.norm(v))
        best = (dist, sp, sq)
        if dist < tolerance:
            return 0.0, sp, sq
        new = support(-v)
        if dist - float(new[0] @ (v / dist)) < tolerance:  # no point gets closer to the origin
            return dist, sp, sq
        if len(simplex) == 2:
            # keep the pair of the three that is nearest the origin; if the triangle holds it, overlap
            a, b, c = simplex[0][0], simplex[1][0], new[0]
            if _triangle_contains_origin(a, b, c):
                return 0.0, sp, sq
            candidates = [[simplex[0], new], [simplex[1], new]]
            simplex = min(candidates, key=lambda s: float(np.linalg.norm(_closest_on_segment(s[0][0], s[1][0])[0])))
        else:
            simplex.append(new)
    return best


def _triangle_contains_origin(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> bool:
    def cross(o: np.ndarray, u: np.ndarray) -> float:
        return float(o[0] * u[1] - o[1] * u[0])

    d1, d2, d3 = cross(b - a, -a), cross(c - b, -b), cross(a - c, -c)
    return (d1 >= 0 and d2 >= 0 and d3 >= 0) or (d1 <= 0 and d2 <= 0 and d3 <= 0)


def centre_distance(p: Base, q: Base) -> float:
    return float(np.hypot(p.x - q.x, p.y - q.y))


def overlapping(p: Base, q: Base, tolerance_mm: float = 2.0) -> bool:
    """Do the bases overlap by more than the camera's noise?  Both are shrunk by the tolerance
    all round; if they still touch, a real overlap is on the table (Alpha Strike §5.5)."""

    def shrunk(b: Base) -> Base:
        return Base(
            b.kind, max(b.length - 2 * tolerance_mm, 1.0), max(b.width - 2 * tolerance_mm, 1.0), b.x, b.y, b.facing_deg
        )

    return closest_points(shrunk(p), shrunk(q))[0] <= 1e-6
