"""Alpha Strike heat (seed 004 digest §9): how much overheat a unit may declare, what its heat
level does to it, and the End Phase update with shutdown, restart and cooling.

The End Phase follows the digest's consistent model for its contradictions (A7, A8): cool (or
heat up by the overheat used) first, then add the Engine hit's heat and the HT heat received
(at most 2 a turn), then shut down at 4.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..text import joined, say
from .cards import UnitState

SHUTDOWN = 4  # §9.4: the fourth box, "S"
HT_CAP = 2  # §9.3
DEEP_WATER_IN = 2.0  # §9.4: «стоит в воде глубиной не менее 2 дюймов» (option deep_water_only)


def max_overheat(unit: UnitState) -> int:
    """§9.1: up to OV, limited by the heat boxes left (a Stalker at heat 3 may use only 1)."""
    return 0 if unit.shutdown else max(0, min(unit.card.overheat, SHUTDOWN - unit.heat))


def heat_effects(unit: UnitState) -> dict[str, int]:
    """§9.2, in force the turn after the heat was gained: +heat to weapon attacks, -2" of ground MV
    a level, and -1 TMM from level 2.  Jumping is not affected."""
    return {"to_hit": unit.heat, "move_in": -2 * unit.heat, "tmm": -1 if unit.heat >= 2 else 0}


def ground_move_in(unit: UnitState) -> int:
    return max(0, unit.move_in + heat_effects(unit)["move_in"])


@dataclass(frozen=True)
class TurnHeat:
    """What a unit did this turn that matters to heat."""

    overheat_used: int = 0
    fired_weapons: bool = False
    in_water: bool = False
    water_depth_in: float = 0.0  # how deep, for the literal 2"-deep cooling (deep_water_only)
    ht_received: int = 0


def end_phase(unit: UnitState, turn: TurnHeat, deep_water_only: bool = False) -> tuple[UnitState, str]:
    """§9.4: a shut-down unit restarts at 0; overheat adds its points (in water one fewer); a unit
    that fired nothing drops to 0; one that fired without overheat keeps its heat, or loses 1 in
    water (``deep_water_only``: only in water 2" deep, the literal rule, which the quick-start's
    1" water never meets and a map's deeper water does).  Then the Engine hit's +1 when it fired, and HT heat up to 2.  At 4 it shuts down."""
    heat, said = unit.heat, []
    if unit.shutdown:
        heat, said = 0, [say("restarts at heat 0")]
    elif turn.overheat_used:
        heat += turn.overheat_used - (1 if turn.in_water else 0)
        said.append(
            say("overheat +{overheat_used}", overheat_used=turn.overheat_used)
            + (say(" -1 in water") if turn.in_water else "")
        )
    elif not turn.fired_weapons:
        heat, said = 0, [say("no weapon attack: cools to 0")]
    elif turn.in_water and (not deep_water_only or turn.water_depth_in >= DEEP_WATER_IN):
        heat -= 1
        said.append(say("fired without overheat, in water: -1"))
    if unit.engine_hits and turn.fired_weapons:
        heat += 1
        said.append(say("engine hit: +1"))
    if turn.ht_received:
        heat += min(HT_CAP, turn.ht_received)
        said.append(say("HT +{min}", min=min(HT_CAP, turn.ht_received)))
    heat = max(0, min(SHUTDOWN, heat))
    shutdown = heat >= SHUTDOWN
    text = (
        say("heat {heat}→{heat2}", heat=unit.heat, heat2=heat)
        + (say(" ({said})", said=joined(said)) if said else "")
        + (say(": shuts down") if shutdown else "")
    )
    return replace(unit, heat=heat, shutdown=shutdown), text
