"""How a model moved during its activation, from the camera's successive positions.

The camera sees a path of poses (x, y, facing).  Rules price movement differently: Бронепехота
charges vehicles per turn on the spot and by direction (Table 2), infantry for crossing
obstacles (Table 1); Alpha Strike charges extra inches in woods.  So this module breaks a path
into what rules price: distance forward, backward and sideways relative to the facing, the
separate turns, and the terrain crossed; each ruleset sets its own prices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .sightlines import Footprints, crossings
from .terrain import Piece

JITTER_MM = 2.0  # the camera's noise: smaller moves are not movement
TURN_MIN_DEG = 10.0  # a smaller change of facing is a model nudged straight, not a turn


@dataclass(frozen=True)
class Movement:
    path_mm: float  # along the positions seen
    straight_mm: float  # from the first position to the last
    turned_deg: float  # total change of facing, every turn counted
    forward_mm: float = 0.0  # along the facing the model had at the start of each leg
    backward_mm: float = 0.0
    sideways_mm: float = 0.0
    turns: tuple[float, ...] = ()  # each separate turn, degrees (positive: to the left)
    pivots: int = 0  # turns made in place, with no travel between the snapshots that saw them


@dataclass(frozen=True)
class Crossing:
    """A terrain piece the path went over: how far inside it, and how many times it entered."""

    piece: str
    type: str
    height_mm: float
    inside_mm: float
    entered: int
    climbable: bool = False


def append_position(
    path: tuple[tuple[float, float, float], ...], where: tuple[float, float, float], jitter_mm: float = JITTER_MM
) -> tuple[tuple[float, float, float], ...]:
    """The path with ``where`` added, unless it is only camera noise away from the last point."""
    if path:
        shift = math.hypot(where[0] - path[-1][0], where[1] - path[-1][1])
        turn = abs(_turn(path[-1][2], where[2]))
        if shift < jitter_mm and turn < 2.0:
            return path
    return path + (where,)


def _turn(a: float, b: float) -> float:
    return (b - a + 180) % 360 - 180


def movement(path: Sequence[tuple[float, float, float]]) -> Movement:
    if len(path) < 2:
        return Movement(0.0, 0.0, 0.0)
    forward = backward = sideways = length = 0.0
    turns: list[float] = []
    on_the_spot = 0.0  # facing changed with no travel between: one turn, however many snapshots saw it
    pivots = 0
    for (x0, y0, f0), (x1, y1, f1) in zip(path, path[1:]):
        dx, dy = x1 - x0, y1 - y0
        step = math.hypot(dx, dy)
        change = _turn(f0, f1)
        if step < JITTER_MM:
            on_the_spot += change
            continue
        length += step
        heading = math.radians(f0)
        along = dx * math.cos(heading) + dy * math.sin(heading)
        forward += max(along, 0.0)
        backward += max(-along, 0.0)
        sideways += abs(-dx * math.sin(heading) + dy * math.cos(heading))
        turns += [turn for turn in (on_the_spot, change) if abs(turn) >= TURN_MIN_DEG]
        pivots += abs(on_the_spot) >= TURN_MIN_DEG
        on_the_spot = 0.0
    if abs(on_the_spot) >= TURN_MIN_DEG:
        turns.append(on_the_spot)
        pivots += 1
    turned = sum(abs(_turn(a[2], b[2])) for a, b in zip(path, path[1:]))
    return Movement(
        length,
        math.hypot(path[-1][0] - path[0][0], path[-1][1] - path[0][1]),
        turned,
        forward,
        backward,
        sideways,
        tuple(turns),
        pivots,
    )


def terrain_crossed(path: Sequence[tuple[float, float, float]], pieces: Sequence[Piece]) -> list[Crossing]:
    """The pieces the path's centre line passed over, with the length inside each (for terrain
    priced per inch) and how often it entered (for obstacles priced per crossing)."""
    if len(path) < 2 or not pieces:
        return []
    fp = Footprints.of(pieces)
    xy = np.array([(p[0], p[1]) for p in path], float)
    starts, ends = xy[:-1], xy[1:]
    legs, count = len(starts), len(pieces)
    piece = np.tile(np.arange(count), legs)
    leg = np.repeat(np.arange(legs), count)
    inside_start = fp.contains(starts)
    seen = crossings(
        fp, piece, starts[leg], inside_start[leg, piece], ends[leg] - starts[leg], np.zeros((len(leg), 2)), np.zeros(1)
    )
    lengths = np.hypot(*(ends - starts).T)[leg]
    inside = np.bincount(piece, weights=seen.inside[:, 0] * lengths, minlength=count)
    began_inside = fp.contains(xy[:1])[0]
    entered = np.bincount(piece, weights=seen.entered[:, 0], minlength=count).astype(int)
    return [
        Crossing(p.id, p.type, p.height_mm, round(float(inside[k]), 1), int(entered[k]), p.climbable)
        for k, p in enumerate(pieces)
        if inside[k] > 0 or entered[k] or began_inside[k]
    ]


def level_changes(
    path: Sequence[tuple[float, float, float]],
    pieces: Sequence[Piece],
    types: Sequence[str],
    sample_mm: float = 5.0,
    water_depth_mm: float | None = None,
) -> list[float]:
    """Each change of ground height along the path (mm, + up, - down), where the ground is the
    highest piece of ``types`` under the centre line, less the depth of the water there when
    ``water_depth_mm`` is given (a water piece's own depth, else that): for rules that price
    climbing, and wading in and out, by height and forbid steps too high (Alpha Strike §5.4).
    Sampled every ``sample_mm``, so a step is found where a piece's edge is crossed, not at the
    snapshot points only."""
    raised = [p for p in pieces if p.type in types]
    sunk = [p for p in pieces if p.type == "water"] if water_depth_mm is not None else []
    if len(path) < 2 or not raised + sunk:
        return []
    xy = np.array([(p[0], p[1]) for p in path], float)
    points = [xy[:1]]
    for a, b in zip(xy, xy[1:]):
        n = max(1, math.ceil(math.hypot(*(b - a)) / sample_mm))
        points.append(a + (b - a) * (np.arange(1, n + 1)[:, None] / n))
    sampled = np.concatenate(points)
    heights = np.zeros(len(sampled))
    if raised:
        inside = Footprints.of(raised).contains(sampled)
        heights += np.where(inside, np.array([p.height_mm for p in raised]), 0.0).max(axis=1)
    if sunk:
        depths = np.array([water_depth_mm if p.water_depth_mm is None else p.water_depth_mm for p in sunk])
        heights -= np.where(Footprints.of(sunk).contains(sampled), depths, 0.0).max(axis=1)
    steps = np.diff(heights)
    return [float(s) for s in steps[np.abs(steps) > 1e-9]]
