"""Base outlines on the table and the exact closest points between them.

A base is a convex shape (round, oval, rectangular: every base and vehicle footprint in the
rulebooks) with a pose: centre and facing.  Closest points come from GJK on support functions,
exact for circles and rectangles and converging to well under 0.01 mm for ovals, so "edge to
edge" means what a player measures with a ruler between the nearest points of two bases.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

MM_PER_INCH = 25.4  # exact, by definition

# Named sizes (mm): round bases by diameter; ovals and rectangles by (length along facing, width).
ROUND_BASES = {"round25": 25.0, "round32": 32.0, "round40": 40.0, "round50": 50.0}
OVAL_BASES = {"oval60x35": (60.0, 35.0), "oval75x42": (75.0, 42.0), "oval105x70": (105.0, 70.0)}
RECT_BASES = {"rect20x20": (20.0, 20.0), "rect25x50": (50.0, 25.0), "rect50x100": (100.0, 50.0)}
NAMED_BASES = (*ROUND_BASES, *OVAL_BASES, *RECT_BASES)


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
    def named(cls, name: str, x: float = 0.0, y: float = 0.0, facing_deg: float = 0.0) -> "Base":
        if name in ROUND_BASES:
            return cls("round", ROUND_BASES[name], ROUND_BASES[name], x, y, facing_deg)
        if name in OVAL_BASES:
            return cls("oval", *OVAL_BASES[name], x, y, facing_deg)
        if name in RECT_BASES:
            return cls("rect", *RECT_BASES[name], x, y, facing_deg)
        known = sorted(ROUND_BASES) + sorted(OVAL_BASES) + sorted(RECT_BASES)
        raise ValueError(f"unknown base {name!r}; named bases are {', '.join(known)}")

    def at(self, x: float, y: float, facing_deg: float | None = None) -> "Base":
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

    def contains(self, p: np.ndarray) -> bool:
        forward, left = self.axes
        u, v = (p - self.centre) @ forward, (p - self.centre) @ left
        hl, hw = self.length / 2, self.width / 2
        if self.kind == "rect":
            return abs(u) <= hl and abs(v) <= hw
        return (u / hl) ** 2 + (v / hw) ** 2 <= 1.0

    def outline(self, n: int = 64) -> np.ndarray:
        forward, left = self.axes
        t = np.linspace(0, 2 * np.pi, n, endpoint=False)
        if self.kind == "rect":
            corners = [(1, 1), (-1, 1), (-1, -1), (1, -1)]
            return np.array([self.centre + a * self.length / 2 * forward + b * self.width / 2 * left for a, b in corners])
        return (self.centre + np.outer(np.cos(t) * self.length / 2, forward) + np.outer(np.sin(t) * self.width / 2, left))


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


def closest_points(p: Base, q: Base, tolerance: float = 1e-6, iterations: int = 64) -> tuple[float, np.ndarray, np.ndarray]:
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
            candidates = [(simplex[0], new), (simplex[1], new)]
            simplex = list(min(candidates, key=lambda s: np.linalg.norm(_closest_on_segment(s[0][0], s[1][0])[0])))
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
