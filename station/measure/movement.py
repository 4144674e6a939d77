"""How far a model moved during its activation, from the camera's successive positions."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

JITTER_MM = 2.0  # the camera's noise: smaller moves are not movement


@dataclass(frozen=True)
class Movement:
    path_mm: float  # along the positions seen
    straight_mm: float  # from the first position to the last
    turned_deg: float  # total change of facing, every turn counted


def append_position(path: tuple[tuple[float, float, float], ...], where: tuple[float, float, float],
                    jitter_mm: float = JITTER_MM) -> tuple[tuple[float, float, float], ...]:
    """The path with ``where`` added, unless it is only camera noise away from the last point."""
    if path:
        shift = math.hypot(where[0] - path[-1][0], where[1] - path[-1][1])
        turn = abs((where[2] - path[-1][2] + 180) % 360 - 180)
        if shift < jitter_mm and turn < 2.0:
            return path
    return path + (where,)


def movement(path: Sequence[tuple[float, float, float]]) -> Movement:
    if len(path) < 2:
        return Movement(0.0, 0.0, 0.0)
    length = sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(path, path[1:]))
    turned = sum(abs((b[2] - a[2] + 180) % 360 - 180) for a, b in zip(path, path[1:]))
    return Movement(length, math.hypot(path[-1][0] - path[0][0], path[-1][1] - path[0][1]), turned)
