"""Lines of sight for many pairs at once, in the 2.5D model ``terrain`` describes.

A sight line is a fan of rays from the shooter's eye to points across the target's width
(``ACROSS``) and up its height (``LEVELS``).  A solid piece blocks a ray when the ray passes over
its footprint lower than its top.  The ray's height is linear along it, so over a footprint it
is lowest at the first or the last point over it: only the first and last boundary crossings
matter, and those come from the polygon's edges directly, even for a concave outline.  All the
rays to one target share their origin and their end points lie on one line, so every
cross product the edge tests need is linear in the ray's place across the target: they are
computed once per (pair, piece, edge) and scaled for each ray.

The same crossings give the length of a segment over a footprint (entries and exits by the
edge's orientation), used for woods along the centre ray and for terrain crossed by a move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

ACROSS = np.linspace(-0.9, 0.9, 5)  # ray end points across the target, in radii from its centre
LEVELS = np.linspace(0.15, 0.95, 3)  # ... and up it, in model heights
SOLID = ("building", "hill", "obstacle")


class Outline(Protocol):
    """A terrain piece as the sight lines need it (measure/terrain.py's Piece)."""

    @property
    def type(self) -> str: ...

    @property
    def height_mm(self) -> float: ...

    @property
    def polygon(self) -> np.ndarray: ...


@dataclass(frozen=True)
class Footprints:
    """Terrain polygons padded to one edge count, so every test runs over one array.  Vertex
    columns run round each outline and back to its first vertex, which also fills the padding,
    so edge e goes from column e to e + 1 and padded edges have no length."""

    x: np.ndarray  # (T, E + 1)
    y: np.ndarray
    orientation: np.ndarray  # (T,) +1 counter-clockwise, -1 clockwise
    centre: np.ndarray  # (T, 2) of a circle holding the outline
    radius: np.ndarray  # (T,)
    height: np.ndarray  # (T,) mm
    solid: np.ndarray  # (T,) bool
    woods: np.ndarray  # (T,) bool

    @classmethod
    def of(cls, pieces: Sequence[Outline]) -> Footprints:
        count = max((len(p.polygon) for p in pieces), default=3)
        x, y = np.zeros((len(pieces), count + 1)), np.zeros((len(pieces), count + 1))
        orientation, centre, radius = np.ones(len(pieces)), np.zeros((len(pieces), 2)), np.zeros(len(pieces))
        for k, piece in enumerate(pieces):
            poly = np.asarray(piece.polygon, float)
            n = len(poly)
            x[k, :n], x[k, n:] = poly[:, 0], poly[0, 0]
            y[k, :n], y[k, n:] = poly[:, 1], poly[0, 1]
            after = np.roll(poly, -1, axis=0)
            orientation[k] = 1.0 if (poly[:, 0] * after[:, 1] - poly[:, 1] * after[:, 0]).sum() > 0 else -1.0
            centre[k] = (poly.min(axis=0) + poly.max(axis=0)) / 2
            radius[k] = float(np.hypot(*(poly - centre[k]).T).max())
        return cls(
            x,
            y,
            orientation,
            centre,
            radius,
            np.array([p.height_mm for p in pieces], float),
            np.array([p.type in SOLID for p in pieces], bool),
            np.array([p.type == "woods" for p in pieces], bool),
        )

    @property
    def edges(self) -> int:
        return int(self.x.shape[1]) - 1

    def contains(self, points: np.ndarray) -> np.ndarray:
        """(N, T): is each point over each footprint (crossing number)."""
        px, py = points[:, 0, None, None], points[:, 1, None, None]
        x0, y0, x1, y1 = self.x[None, :, :-1], self.y[None, :, :-1], self.x[None, :, 1:], self.y[None, :, 1:]
        straddles = (y0 > py) != (y1 > py)
        with np.errstate(divide="ignore", invalid="ignore"):
            at = x0 + (py - y0) * (x1 - x0) / (y1 - y0)
        inside: np.ndarray = ((straddles & (px < at)).sum(axis=2) % 2).astype(bool)
        return inside


@dataclass(frozen=True)
class Crossings:
    """Where segments a + t (d + k spread) cross footprint edges, per (segment, piece) and k."""

    first: np.ndarray  # (C, K) t of the first point over the footprint (inf: never over it)
    last: np.ndarray  # (C, K) t of the last (-inf: never)
    inside: np.ndarray  # (C, K) t-length over the footprint
    entered: np.ndarray  # (C, K) how many times the segment came onto it from outside


def crossings(
    fp: Footprints,
    piece: np.ndarray,
    start: np.ndarray,
    start_inside: np.ndarray,
    direction: np.ndarray,
    spread: np.ndarray,
    ks: np.ndarray,
) -> Crossings:
    """For C (segment, piece) candidates: segment k runs from ``start`` along ``direction + k *
    spread`` for t in [0, 1]; ``start_inside`` says whether ``start`` is over the piece.

    An edge can only be crossed where its two ends lie on opposite sides of the ray's line, and
    which side a vertex is on is linear in k; so one dense pass finds the few (ray, edge) pairs
    that change side, and only those are intersected."""
    count, rays, edges = len(piece), len(ks), fp.edges
    wx = np.take(fp.x, piece, axis=0) - start[:, 0, None]  # (C, E + 1) vertices from the start
    wy = np.take(fp.y, piece, axis=0) - start[:, 1, None]
    dx, dy, sx, sy = direction[:, 0], direction[:, 1], spread[:, 0], spread[:, 1]
    f32 = np.float32  # signs only: single precision is plenty and halves the memory traffic
    wx32, wy32 = wx.astype(f32), wy.astype(f32)
    c0 = (
        dx.astype(f32)[:, None] * wy32 - dy.astype(f32)[:, None] * wx32
    )  # which side of the centre line each vertex is on ...
    c1 = sx.astype(f32)[:, None] * wy32 - sy.astype(f32)[:, None] * wx32  # ... and how that changes across the fan
    change = np.empty((rays, count, edges), bool)
    for k, kappa in enumerate(ks.astype(f32)):
        left = (c0 + kappa * c1) > 0
        np.not_equal(left[:, 1:], left[:, :-1], out=change[k])
    flat = np.flatnonzero(change)
    ray, rest = np.divmod(flat, count * edges)
    row, edge = np.divmod(rest, edges)
    at = row * (edges + 1) + edge
    ex = np.take(wx.ravel(), at + 1) - np.take(wx.ravel(), at)
    ey = np.take(wy.ravel(), at + 1) - np.take(wy.ravel(), at)
    slot = row * rays + ray
    ray_x = (dx[:, None] + ks[None, :] * sx[:, None]).ravel()  # (C * K) each ray's direction
    ray_y = (dy[:, None] + ks[None, :] * sy[:, None]).ravel()
    denom = np.take(ray_x, slot) * ey - np.take(ray_y, slot) * ex
    t = (np.take(wx.ravel(), at) * ey - np.take(wy.ravel(), at) * ex) / denom
    keep = (t >= 0) & (t <= 1)
    leaving = denom * np.take(np.take(fp.orientation, piece), row) > 0
    first: np.ndarray = np.full(count * rays, np.inf)
    last: np.ndarray = np.full(count * rays, -np.inf)
    np.fmin.at(first, slot, np.where(keep, t, np.nan))
    np.fmax.at(last, slot, np.where(keep, t, np.nan))
    sign = np.where(keep, np.where(leaving, 1.0, -1.0), 0.0)  # +1 leaving, -1 entering, 0 beyond the segment
    net = -np.bincount(slot, weights=sign, minlength=count * rays)
    signed_t = np.bincount(slot, weights=sign * t, minlength=count * rays)
    start_in = np.repeat(start_inside, rays)
    end_in = (start_in + net) > 0
    first = np.where(start_in, 0.0, first).reshape(count, rays)
    last = np.where(end_in, 1.0, last).reshape(count, rays)
    entries = np.bincount(slot, weights=sign < 0, minlength=count * rays)
    return Crossings(first, last, (signed_t + end_in).reshape(count, rays), entries.reshape(count, rays))


@dataclass(frozen=True)
class Sightlines:
    """Per pair: the share of rays blocked, the woods crossed by the centre ray, and the blockers."""

    hidden_fraction: np.ndarray  # (P,)
    woods_mm: np.ndarray  # (P,)
    blocker_pair: np.ndarray  # (B,) pair index of each (pair, piece) that blocks a ray
    blocker_piece: np.ndarray  # (B,) piece index

    @property
    def blocked(self) -> np.ndarray:
        return self.hidden_fraction >= 1.0

    def blockers_of(self, pair: int) -> np.ndarray:
        pieces: np.ndarray = self.blocker_piece[self.blocker_pair == pair]
        return pieces


def sightlines(
    fp: Footprints,
    shooter_xy: np.ndarray,
    eye_mm: np.ndarray,
    target_xy: np.ndarray,
    target_radius: np.ndarray,
    target_height: np.ndarray,
    shooter_inside: np.ndarray,
) -> Sightlines:
    """Lines of sight for P pairs given as arrays; ``shooter_inside`` (P, T) says which footprints
    each shooter's centre stands over."""
    pairs, rays = len(shooter_xy), len(ACROSS) * len(LEVELS)
    direction = target_xy - shooter_xy
    length = np.hypot(direction[:, 0], direction[:, 1])
    side = np.stack([-direction[:, 1], direction[:, 0]], axis=1) / np.where(length > 0, length, 1.0)[:, None]
    side[length == 0] = (0.0, 1.0)
    pair, piece = _near(fp, shooter_xy, direction, target_radius)
    hidden: np.ndarray = np.zeros(pairs)
    woods: np.ndarray = np.zeros(pairs)
    blocker_pair = blocker_piece = np.zeros(0, int)
    solid = np.take(fp.solid, piece)
    p, t = pair[solid], piece[solid]
    if len(p):
        c = crossings(
            fp, t, shooter_xy[p], shooter_inside[p, t], direction[p], side[p] * target_radius[p, None], ACROSS
        )
        over = np.flatnonzero(c.first.ravel() <= 1.0)  # rays that pass over the footprint
        row, across = np.divmod(over, len(ACROSS))
        owner = np.take(p, row)
        first, last = np.take(c.first, over), np.take(c.last, over)
        eye = np.take(eye_mm, owner)
        clearance = np.take(fp.height, np.take(t, row)) - eye
        top = np.take(target_height, owner)
        stopped = np.zeros(pairs * rays, bool)
        stops_any = np.zeros(len(over), bool)
        for level, height in enumerate(LEVELS):
            rise = top * height - eye
            stops = rise * np.where(rise < 0, last, first) < clearance  # a rising ray is lowest where it enters
            stopped[(owner * rays + across * len(LEVELS) + level)[stops]] = True
            stops_any |= stops
        hidden = np.bincount(np.flatnonzero(stopped) // rays, minlength=pairs) / rays
        blocking = _distinct(row[stops_any])
        blocker_pair, blocker_piece = p[blocking], t[blocking]
    wooded = np.take(fp.woods, piece)
    p, t = pair[wooded], piece[wooded]
    if len(p):
        c = crossings(fp, t, shooter_xy[p], shooter_inside[p, t], direction[p], np.zeros((len(p), 2)), np.zeros(1))
        woods = np.bincount(p, weights=c.inside[:, 0] * np.take(length, p), minlength=pairs)
    return Sightlines(hidden, woods, blocker_pair, blocker_piece)


def _distinct(sorted_values: np.ndarray) -> np.ndarray:
    return sorted_values[np.r_[True, sorted_values[1:] != sorted_values[:-1]]] if len(sorted_values) else sorted_values


def _near(
    fp: Footprints, start: np.ndarray, direction: np.ndarray, margin: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(pair, piece) candidates: pieces whose bounding circle reaches the rectangle around the
    segment, ``margin`` wide on each side and at each end."""
    if not len(fp.height):
        return np.zeros(0, int), np.zeros(0, int)
    f32 = np.float32  # a cull only needs to be generous, and single precision halves the traffic
    length = np.hypot(direction[:, 0], direction[:, 1])
    ux, uy = (direction / np.where(length > 0, length, 1.0)[:, None]).astype(f32).T[:, :, None]
    wx = fp.centre[None, :, 0].astype(f32) - start[:, 0, None].astype(f32)  # (P, T)
    wy = fp.centre[None, :, 1].astype(f32) - start[:, 1, None].astype(f32)
    radius = fp.radius[None, :].astype(f32) + f32(1.0)
    along = wx * ux + wy * uy
    widening = (margin / np.where(length > 0, length, 1.0)).astype(f32)[:, None]  # the fan is a cone, not a band
    near = (
        (np.abs(wx * uy - wy * ux) <= radius + np.maximum(along, 0) * widening)
        & (along >= -radius)
        & (along <= length[:, None].astype(f32) + radius)
    )
    return np.divmod(np.flatnonzero(near), near.shape[1])
