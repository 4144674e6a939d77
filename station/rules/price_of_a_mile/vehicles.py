"""The Price of a Mile's vehicles and tanks (seed 003 digest §15): damage points from a
successful damage roll (d10, a tank d6), immobilised by a small count from anything but hand-held
small arms, destroyed at 10; a vehicle tests Morale after damage (-1 at 5 points) and a tank
never does; an artillery direct hit is Power 8 and always does at least 1 point; and a tank within
12" shakes every squad that activates."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from ...dice import Roller
from ...measure.measurement import too_close_to_call
from ...measure.pairwise import edge_distances
from ...measure.relations import nearest_gap
from ..text import Text, say
from .state import INCH, Fighter, MileState
from .where import placed, placed_many

DESTROYED_AT = 10  # §15.1, §15.2
IMMOBILISED_UP_TO = {"vehicle": 2, "tank": 1}  # points from one hit
TANK_TERROR_IN = 12.0  # §13.1
MORALE_TARGET = 8
HEAVY_DAMAGE = 5  # §15.1: -1 to the vehicle's test


def damage(
    state: MileState, victim: Fighter, power: int, hand_held: bool, roller: Roller, key: str, direct_hit: bool = False
) -> tuple[MileState, Text]:
    """§15.4: d10 + Power >= Toughness does d10 points (a tank d6); a direct artillery hit always
    does at least one."""
    roll = roller.roll(10, f"{key}/damage")
    hurt = roll + power >= state.stat(victim, "toughness")
    if not hurt and not direct_hit:
        return state, say("{victim} shrugs it off (d10 {roll}+{power})", victim=victim.id, roll=roll, power=power)
    points = roller.roll(6 if victim.vehicle == "tank" else 10, f"{key}/points") if hurt else 1
    total = victim.damage + points
    stuck = victim.immobilised or (not hand_held and points <= IMMOBILISED_UP_TO[victim.vehicle or "vehicle"])
    gone = total >= DESTROYED_AT
    state = state.with_fighter(
        replace(victim, damage=total, immobilised=stuck, status="out" if gone else victim.status)
    )
    words = say(
        "{victim} takes {points} damage point(s) (d10 {roll}+{power}), {total} in all",
        victim=victim.id,
        points=points,
        roll=roll,
        power=power,
        total=total,
    )
    state, riders = _passengers_hit(state, victim.id, points, roller, key)
    if riders:
        words += say("; passengers: ") + ", ".join(riders)
    if gone:
        return state, words + say(": destroyed (§15)")
    if stuck and not victim.immobilised:
        words += say(", immobilised")
    if victim.vehicle == "vehicle":  # §15.1: a vehicle tests; a tank never does (§15.2)
        test = roller.roll(10, f"{key}/morale")
        total_test = test + state.stat(state.fighters[victim.id], "morale") - (1 if total >= HEAVY_DAMAGE else 0)
        if total_test < MORALE_TARGET:
            state = state.with_fighter(replace(state.fighters[victim.id], disordered=True))
            words += say("; Morale d10 {test}: {total_test}, Disordered", test=test, total_test=total_test)
        else:
            words += say("; Morale d10 {test}: {total_test}, holds", test=test, total_test=total_test)
    return state, words


def nearest_vehicle(state: MileState, shooter: Fighter, seen: Collection[str]) -> str | None:
    """§6.1: any shooter may pick the nearest visible enemy vehicle, wherever it ranks."""
    origin = placed(state, shooter.id)
    vehicles = [
        f.id
        for f in state.fighters.values()
        if f.vehicle and f.standing and f.player != shooter.player and f.id in seen
    ]
    others = placed_many(state, vehicles)
    if origin is None or not others:
        return None
    gaps = edge_distances([origin.base] + [o.base for o in others])[0, 1:]
    return others[int(gaps.argmin())].id


def tank_near(state: MileState, squad_id: str) -> tuple[str | None, str | None]:
    """§13.1: an enemy tank, not immobilised, within 12" of the squad; and the nearest such
    tank when the camera cannot place it on either side of 12" (the referee's to call)."""
    mine = placed_many(state, [f.id for f in state.standing(squad_id)])
    tanks = placed_many(
        state,
        [
            f.id
            for f in state.fighters.values()
            if f.vehicle == "tank" and f.standing and not f.immobilised and f.player != state.squads[squad_id].player
        ],
    )
    found = nearest_gap(mine, tanks)
    if found is None:
        return None, None
    gap, sigma, _, tank = found
    terror = TANK_TERROR_IN * INCH
    return (tank if gap <= terror else None), (tank if too_close_to_call(gap, terror, sigma) else None)


def _passengers_hit(
    state: MileState, truck: str, points: int, roller: Roller, key: str
) -> tuple[MileState, list[Text]]:
    """§15.1: each damage point a truck takes is a Power 0 hit on its passengers."""
    riders = [f for f in state.fighters.values() if f.aboard == truck and f.standing]
    words = []
    for k in range(points if riders else 0):
        riders = [f for f in riders if state.fighters[f.id].standing]
        if not riders:
            break
        victim = riders[k % len(riders)]
        roll = roller.roll(10, f"{key}/passenger/{k}")
        if roll >= state.stat(victim, "toughness"):
            state = state.with_fighter(replace(state.fighters[victim.id], status="out"))
            words.append(say("{victim} out (d10 {roll})", victim=victim.id, roll=roll))
        else:
            words.append(say("{victim} unhurt (d10 {roll})", victim=victim.id, roll=roll))
    return state, words
