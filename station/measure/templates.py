"""Templates and scatter: which bases a blast or a flame strip touches, and where a shot drifts."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .bases import Base
from .measurement import Placed
from .pairwise import edge_distances


def blast(centre: tuple[float, float], radius_mm: float, bases: Sequence[Placed]) -> list[str]:
    """Every base any part of which lies under a circular template."""
    return _under(Base("round", 2 * radius_mm, 2 * radius_mm, *centre), bases)


def strip(
    origin: tuple[float, float], direction_deg: float, length_mm: float, width_mm: float, bases: Sequence[Placed]
) -> list[str]:
    """Every base under a straight strip template laid from ``origin`` (e.g. a flamethrower's 8"x1")."""
    a = math.radians(direction_deg)
    centre = (origin[0] + math.cos(a) * length_mm / 2, origin[1] + math.sin(a) * length_mm / 2)
    return _under(Base("rect", length_mm, width_mm, *centre, direction_deg), bases)


def _under(template: Base, bases: Sequence[Placed]) -> list[str]:
    if not bases:
        return []
    touching = edge_distances([template] + [b.base for b in bases])[0, 1:] <= 1e-6
    return [b.id for b, touches in zip(bases, touching) if touches]


def scatter(
    point: tuple[float, float], direction_roll: int, direction_sides: int, distance_mm: float
) -> tuple[float, float]:
    """Move ``point`` by ``distance_mm`` in the direction a die gives, read as a clock face: a roll of
    ``direction_sides`` points up the table (+y), and each step turns one face clockwise."""
    if not 1 <= direction_roll <= direction_sides:
        raise ValueError(f"a D{direction_sides} cannot roll {direction_roll}")
    heading = math.radians(90 - 360 * (direction_roll % direction_sides) / direction_sides)
    return point[0] + distance_mm * math.cos(heading), point[1] + distance_mm * math.sin(heading)
