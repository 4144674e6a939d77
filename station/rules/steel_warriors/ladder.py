"""Steel Warriors' dice ladder (seed 001 digest §3, §6.3-6.4): d4 to d12 by steps, clamped at
both ends; the rate-of-fire die from summed rates; and the target's Range die by zone."""

from __future__ import annotations

import math

LADDER = (4, 6, 8, 10, 12)
ZONES = 5  # §6.4: beyond the fifth zone no fire at infantry


def step(die: int, steps: int) -> int:
    """§3: raise or lower a die by steps, clamped at d4 and d12."""
    return LADDER[max(0, min(len(LADDER) - 1, LADDER.index(die) + steps))]


def rof_die(total: float) -> int:
    """§6.3: the summed rate of fire rounded DOWN to a die; under 4 is a d4, 12 or more a d12."""
    return max([4] + [d for d in LADDER if d <= total])


def zone(distance_in: float, quality: int) -> int:
    """§6.4, digest §13.2: zones are as wide as the shooter's Quality die has faces; a distance
    on a boundary belongs to the nearer zone."""
    return max(1, math.ceil(distance_in / quality - 1e-9))


def range_die(zone_number: int, steps: int) -> int:
    """§6.4-6.5: zone 1 is a d4, each zone one step more; prone and cover add steps."""
    return step(4, zone_number - 1 + steps)


def casualties(pool: list[int], target_die: int) -> int:
    """§6.8: the pool's maxima over the target die's maximum, rounded half up."""
    return math.floor(sum(pool) / target_die + 0.5)
