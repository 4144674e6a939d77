"""Every edge-to-edge distance on the table at once, fast enough to run on every snapshot.

``closest_points`` (GJK) answers one pair with its two witness points, for a ruling to show.
Rules that scan the whole table (nearest three targets, coherency, every contact) need all
N(N-1)/2 distances each snapshot, and a Python loop over 3,000 GJK runs takes seconds.  This
module gets the same numbers with a handful of numpy passes, by a different route:

For convex bases A and B the gap between them is the largest separation along any direction u,
``f(u) = u.(cB - cA) - hA(u) - hB(u)``, where h is the base's support function about its centre
(a circle's radius, an oval's ``sqrt((a u.F)^2 + (b u.L)^2)``, a rectangle's ``a|u.F| + b|u.L|``;
every base is symmetric, so hB(-u) = hB(u)).  Where f is positive it is quasi-concave in the
direction's angle, so a grid of angles followed by repeated finer grids around the best one
converges on the maximum; if no grid angle separates the bases, the concave restriction of f to
a line of directions says whether any can (a gap thinner than the grid spacing) before the
search goes on.  Two round bases are closed-form.  Tests check this against GJK.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

from .bases import Base

FIRST_GRID = 16  # directions across the half circle facing the other base
# Golden steps narrow the bracket (2 pi / 16 wide) by 0.618 each.  Round and oval outlines make f
# smooth, so its error falls with the bracket squared: 14 steps leave under 1 micrometre.  A
# rectangle's corner makes a kink, where the error falls only linearly: 24 steps (1.9e-6 rad).
SMOOTH_STEPS = 14
KINKED_STEPS = 24
GOLD = 0.3819660112501051  # 2 - golden ratio


def _shape_arrays(bases: Sequence[Base]) -> tuple[np.ndarray, ...]:
    centre = np.array([(b.x, b.y) for b in bases], float).reshape(-1, 2)
    facing = np.radians([b.facing_deg for b in bases])
    half_length = np.array([b.length / 2 for b in bases], float)
    half_width = np.array([b.width / 2 for b in bases], float)
    is_rect = np.array([b.kind == "rect" for b in bases], bool)
    is_round = np.array([b.kind == "round" for b in bases], bool)
    return centre, facing, half_length, half_width, is_rect, is_round


class _Pairs:
    """Pairs being searched, each in its own frame: angle 0 points from A's centre to B's, and
    each base's facing is measured from there."""

    def __init__(
        self,
        gap: np.ndarray,
        alpha_a: np.ndarray,
        alpha_b: np.ndarray,
        shape_a: tuple[np.ndarray, ...],
        shape_b: tuple[np.ndarray, ...],
    ) -> None:
        self.columns = {
            "gap": gap,
            "cos_a": np.cos(alpha_a),
            "sin_a": np.sin(alpha_a),
            "cos_b": np.cos(alpha_b),
            "sin_b": np.sin(alpha_b),
            "la": shape_a[0],
            "wa": shape_a[1],
            "ra": shape_a[2],
            "lb": shape_b[0],
            "wb": shape_b[1],
            "rb": shape_b[2],
        }

    def subset(self, rows: np.ndarray) -> _Pairs:
        sub = object.__new__(_Pairs)
        sub.columns = {name: np.take(value, rows) for name, value in self.columns.items()}
        return sub

    def separation(self, theta: np.ndarray) -> np.ndarray:
        """f at angle(s) theta, per pair (P,) or per pair and grid column (P, K); positive where
        that direction separates the bases, by that many mm."""
        col = self.columns if theta.ndim == 1 else {k: v[:, None] for k, v in self.columns.items()}
        c, s = np.cos(theta), np.sin(theta)
        return cast(
            np.ndarray,
            col["gap"] * c
            - _support(c, s, col["cos_a"], col["sin_a"], col["la"], col["wa"], col["ra"])
            - _support(c, s, col["cos_b"], col["sin_b"], col["lb"], col["wb"], col["rb"]),
        )


def _support(
    c: np.ndarray,
    s: np.ndarray,
    cos_f: np.ndarray,
    sin_f: np.ndarray,
    half_length: np.ndarray,
    half_width: np.ndarray,
    is_rect: np.ndarray,
) -> np.ndarray:
    along = np.abs(c * cos_f + s * sin_f) * half_length
    across = np.abs(s * cos_f - c * sin_f) * half_width
    return cast(np.ndarray, np.where(is_rect, along + across, np.hypot(along, across)))


def _golden(
    fn: Callable[[np.ndarray], np.ndarray],
    lo: np.ndarray,
    hi: np.ndarray,
    mid: np.ndarray,
    best: np.ndarray,
    steps: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Maximise a unimodal ``fn`` per row over [lo, hi], given an inner point ``mid`` at least as
    good as the ends: each step probes the larger side and keeps the better point inside.
    Returns the narrowed bracket, so a search can go on for the rows that need it."""
    for _ in range(steps):
        right = hi - mid > mid - lo
        probe = np.where(right, mid + GOLD * (hi - mid), mid - GOLD * (mid - lo))
        value = fn(probe)
        better = value > best
        lo = np.where(better, np.where(right, mid, lo), np.where(right, lo, probe))
        hi = np.where(better, np.where(right, hi, mid), np.where(right, probe, hi))
        mid = np.where(better, probe, mid)
        best = np.where(better, value, best)
    return lo, hi, mid, best


def _any_separating(pairs: _Pairs) -> tuple[np.ndarray, np.ndarray]:
    """Whether any direction separates each pair, and one that does.  On the line of directions
    (1, t) the separation is concave in t, so it is unimodal in t's angle and a golden search
    over the whole half circle finds its maximum."""

    def along_line(theta: np.ndarray) -> np.ndarray:
        return cast(np.ndarray, pairs.separation(theta) / np.cos(theta))

    edge = np.pi / 2 - 1e-6
    zero = np.zeros(len(pairs.columns["gap"]))
    _, _, theta, best = _golden(along_line, zero - edge, zero + edge, zero, along_line(zero), KINKED_STEPS)
    return best > 0, theta


def _outside_rect(
    points: np.ndarray, centre: np.ndarray, facing: np.ndarray, half_length: np.ndarray, half_width: np.ndarray
) -> np.ndarray:
    """Distance from points (P, K, 2) to rectangles (P) they may lie in (0 inside): closed form."""
    rel = points - centre[:, None, :]
    c, s = np.cos(facing)[:, None], np.sin(facing)[:, None]
    along = np.abs(rel[..., 0] * c + rel[..., 1] * s) - half_length[:, None]
    across = np.abs(rel[..., 1] * c - rel[..., 0] * s) - half_width[:, None]
    return cast(np.ndarray, np.hypot(np.maximum(along, 0.0), np.maximum(across, 0.0)))


def _corners(centre: np.ndarray, facing: np.ndarray, half_length: np.ndarray, half_width: np.ndarray) -> np.ndarray:
    signs = np.array([(1, 1), (-1, 1), (-1, -1), (1, -1)], float)
    forward = np.stack([np.cos(facing), np.sin(facing)], axis=1)
    left = np.stack([-forward[:, 1], forward[:, 0]], axis=1)
    return cast(
        np.ndarray,
        centre[:, None, :]
        + (signs[None, :, 0, None] * half_length[:, None, None]) * forward[:, None, :]
        + (signs[None, :, 1, None] * half_width[:, None, None]) * left[:, None, :],
    )


def _rect_rect(
    ca: np.ndarray,
    fa: np.ndarray,
    la: np.ndarray,
    wa: np.ndarray,
    cb: np.ndarray,
    fb: np.ndarray,
    lb: np.ndarray,
    wb: np.ndarray,
) -> np.ndarray:
    """Two rectangles: overlapping if no face normal separates them (SAT); otherwise the nearest
    corner of either to the other, which for convex polygons is where the gap is."""
    corners_a, corners_b = _corners(ca, fa, la, wa), _corners(cb, fb, lb, wb)
    apart = np.zeros(len(ca), bool)
    for corners_p, corners_q, facing in ((corners_a, corners_b, fa), (corners_b, corners_a, fb)):
        for angle in (facing, facing + np.pi / 2):
            axis = np.stack([np.cos(angle), np.sin(angle)], axis=1)[:, None, :]
            p, q = (corners_p * axis).sum(axis=2), (corners_q * axis).sum(axis=2)
            apart |= (p.max(axis=1) < q.min(axis=1)) | (q.max(axis=1) < p.min(axis=1))
    gap = np.minimum(
        _outside_rect(corners_a, cb, fb, lb, wb).min(axis=1), _outside_rect(corners_b, ca, fa, la, wa).min(axis=1)
    )
    return np.where(apart, gap, 0.0)


def _searched_gaps(
    pairs: _Pairs, gap: np.ndarray, slack: np.ndarray, overlapping: np.ndarray, kinked: np.ndarray
) -> np.ndarray:
    """The largest separation of each pair, or 0.

    The best direction u is never far from the centre line: f(u) >= f(centre line) >= gap - the
    circumscribed radii, and f(u) <= gap cos(angle) - the inscribed radii, so cos(angle) >= 1 -
    slack / gap.  Where the centre line already separates the bases, that bracket and that
    direction start the golden search.  Otherwise a grid of directions finds a separating one
    (or, for a gap thinner than its spacing, the search along a line of directions does)."""
    count = len(gap)
    lo, hi, theta, best = np.zeros(count), np.zeros(count), np.zeros(count), pairs.separation(np.zeros(count))
    with np.errstate(invalid="ignore", divide="ignore"):
        reach = np.arccos(np.clip(1.0 - slack / gap, -1.0, 1.0))
    direct = (best > 0) & (reach < np.pi / 2)
    lo[direct], hi[direct] = -reach[direct], reach[direct]
    rest = np.flatnonzero(~direct & ~overlapping)
    if len(rest):
        step = np.pi / FIRST_GRID
        grid = np.linspace(-np.pi / 2 + step / 2, np.pi / 2 - step / 2, FIRST_GRID)
        sub = pairs.subset(rest)
        values = sub.separation(np.broadcast_to(grid, (len(rest), FIRST_GRID)))
        column = values.argmax(axis=1)
        found_theta, found = np.take(grid, column), np.take_along_axis(values, column[:, None], axis=1)[:, 0]
        missed = np.flatnonzero(found <= 0)
        if len(missed):  # no grid direction separates them: a gap thinner than the spacing, or an overlap
            separated, start = _any_separating(sub.subset(missed))
            found_theta[missed[separated]] = start[separated]
            found[missed[separated]] = sub.subset(missed[separated]).separation(start[separated])
        theta[rest], best[rest] = found_theta, found  # the positive stretch lies within a spacing of it
        lo[rest], hi[rest] = found_theta - step, found_theta + step
    gaps = np.zeros(count)
    keep = np.flatnonzero((best > 0) & ~overlapping)
    if len(keep):
        kept = pairs.subset(keep)
        lo, hi, theta, best = _golden(kept.separation, lo[keep], hi[keep], theta[keep], best[keep], SMOOTH_STEPS)
        corner = np.flatnonzero(kinked[keep])
        if len(corner):
            best[corner] = _golden(
                kept.subset(corner).separation,
                lo[corner],
                hi[corner],
                theta[corner],
                best[corner],
                KINKED_STEPS - SMOOTH_STEPS,
            )[3]
        gaps[keep] = best
    return gaps


def edge_distances(bases: Sequence[Base]) -> np.ndarray:
    """The N x N matrix of edge-to-edge distances in mm (0 where bases touch or overlap)."""
    n = len(bases)
    out = np.zeros((n, n))
    if n < 2:
        return out
    i, j = np.triu_indices(n, 1)
    result = pair_distances(bases, i, j)
    out[i, j] = result
    out[j, i] = result
    return out


def pair_distances(bases: Sequence[Base], i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Edge-to-edge distances in mm between bases[i[k]] and bases[j[k]] for every k."""
    centre, facing, half_length, half_width, is_rect, is_round = _shape_arrays(bases)
    delta = centre[j] - centre[i]
    gap = np.hypot(delta[:, 0], delta[:, 1])
    result = np.empty(len(i))
    both_round = is_round[i] & is_round[j]
    result[both_round] = gap[both_round] - half_length[i[both_round]] - half_length[j[both_round]]
    for rect, circle in ((i, j), (j, i)):  # a rectangle and a round base: the centre's distance, less the radius
        rows = np.flatnonzero(is_rect[rect] & is_round[circle])
        r, c = rect[rows], circle[rows]
        result[rows] = (
            _outside_rect(centre[c][:, None, :], centre[r], facing[r], half_length[r], half_width[r])[:, 0]
            - half_length[c]
        )
    rows = np.flatnonzero(is_rect[i] & is_rect[j])
    a, b = i[rows], j[rows]
    result[rows] = _rect_rect(
        centre[a], facing[a], half_length[a], half_width[a], centre[b], facing[b], half_length[b], half_width[b]
    )
    is_oval = ~(is_rect | is_round)
    search = np.flatnonzero(is_oval[i] | is_oval[j])
    if len(search):
        a, b = i[search], j[search]
        heading = np.arctan2(delta[search, 1], delta[search, 0])
        pairs = _Pairs(
            gap[search],
            facing[a] - heading,
            facing[b] - heading,
            (half_length[a], half_width[a], is_rect[a]),
            (half_length[b], half_width[b], is_rect[b]),
        )
        inner = np.minimum(half_length, half_width)  # inscribed and circumscribed radii
        outer = np.where(is_rect, np.hypot(half_length, half_width), np.maximum(half_length, half_width))
        result[search] = _searched_gaps(
            pairs,
            gap[search],
            outer[a] - inner[a] + outer[b] - inner[b],
            gap[search] <= inner[a] + inner[b],
            is_rect[a] | is_rect[b],
        )
    return np.maximum(result, 0.0)
