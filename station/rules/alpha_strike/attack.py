"""Alpha Strike weapon attacks and damage (seed 004 digest §6-7): the target number from the
measured geometry, the damage for the range band, and the damage-application flowchart with
critical hits.  Pure functions over ``UnitState``; dice come from the injected roller.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from ...dice import Roller
from ..text import Text, joined, say
from .cards import UnitState
from .heat import ground_move_in, heat_effects

SKILL = say("skill")  # the first part of every target number (§6.3)
WORDS = {  # the range bands and phases as the rulings say them
    "short": say("short"),
    "medium": say("medium"),
    "long": say("long"),
    "initiative": say("initiative"),
    "movement": say("movement"),
    "combat": say("combat"),
    "end": say("end"),
    "still": say("still"),
    "ground": say("ground"),
    "jump": say("jump"),
    "immobile": say("immobile"),
    "woods": say("woods"),
    "water": say("water"),
    "fire_control": say("fire control"),
    "mp": say("motive"),
    "weapon": say("weapon"),
    "engine": say("engine"),
    "ammo": say("ammo"),
}

BANDS = ((6.0, 0, "short"), (24.0, 2, "medium"), (42.0, 4, "long"))  # §6.3: upper edge in inches, TN modifier
MOVE_MODIFIER = {"still": -1, "ground": 0, "jump": 2}  # §6.4 attacker movement
WOODS_BLOCK_IN = 6.0  # §6.1 / A19: 6" or more of woods blocks
CRIT_TABLE = {
    2: "ammo",
    3: "engine",
    4: "fire_control",
    5: None,
    6: "weapon",
    7: "mp",
    8: "weapon",
    9: None,
    10: "fire_control",
    11: "engine",
    12: "destroyed",
}  # §7.4


def band_of(edge_in: float) -> tuple[int, int, str] | None:
    """(band index, TN modifier, name) for an edge-to-edge distance in inches; None beyond 42" (A17)."""
    for k, (top, modifier, label) in enumerate(BANDS):
        if edge_in <= top:
            return k, modifier, label
    return None


@dataclass(frozen=True)
class Geometry:
    """What the measurement layer found between attacker and target."""

    edge_in: float
    hidden_fraction: float = 0.0  # behind solid terrain
    woods_in: float = 0.0  # woods along the line
    target_in_woods: bool = False
    target_in_water: bool = False
    rear: bool = False  # the line crosses the target's rear side (§6.6)


@dataclass(frozen=True)
class TargetNumber:
    value: int | None  # None: no attack possible
    parts: tuple[tuple[Text, int], ...]
    band: str | None
    why_not: Text | None = None


def target_number(
    attacker: UnitState,
    target: UnitState,
    geometry: Geometry,
    attacker_move: str,
    target_move: str,
    sniper: bool = False,
) -> TargetNumber:
    """§6.4: Skill plus every modifier that applies, or why there is no attack."""
    band = band_of(geometry.edge_in)
    if band is None:
        return TargetNumber(
            None, (), None, say('{edge_in}" is beyond long range (42")', edge_in=f"{geometry.edge_in:.1f}")
        )
    index, range_mod, label = band
    if attacker.damage_at(index) in ("-", "0"):  # §2.2: 0 or a dash, no weapon attack at that range
        return TargetNumber(
            None,
            (),
            label,
            say("{name} has no weapon attack at {label} range", name=attacker.card.name, label=WORDS[label]),
        )
    if geometry.hidden_fraction > 2 / 3:  # A18: less than a third visible
        return TargetNumber(None, (), label, say("less than a third of the target is visible: no line of sight (§6.1)"))
    if geometry.woods_in >= WOODS_BLOCK_IN:
        return TargetNumber(
            None,
            (),
            label,
            say('{woods_in}" of woods block the line of sight (§6.1)', woods_in=f"{geometry.woods_in:.1f}"),
        )
    if sniper:  # §11.2
        range_mod = {0: 0, 2: 1, 4: 2}[range_mod]
    parts = [
        (SKILL, attacker.skill),
        (say("attacker {attacker_move}", attacker_move=WORDS[attacker_move]), MOVE_MODIFIER[attacker_move]),
    ]
    if target.shutdown or ground_move_in(target) <= 0 or target_move == "immobile":  # A24: heat can immobilise
        parts.append((say("target immobile"), -4))
    elif target_move == "ground":  # §9.2: heat 2+ takes 1 from a ground-moving target's TMM
        parts.append((say("target TMM"), max(0, target.tmm + heat_effects(target)["tmm"])))
    elif target_move == "jump":
        parts.append((say("target TMM +1 for jumping"), target.tmm + 1))
    if geometry.target_in_woods or geometry.woods_in > 0:
        parts.append((say("woods"), 1))  # A6: one +1 for in or through woods
    if geometry.hidden_fraction >= 1 / 3 or geometry.target_in_water:
        parts.append((say("partial cover"), 1))
    if attacker.heat:
        parts.append((say("heat"), attacker.heat))
    if attacker.fire_control_hits:
        parts.append((say("fire control hits"), 2 * attacker.fire_control_hits))
    parts.append((say("{label} range", label=WORDS[label]) + (say(" (Sniper)") if sniper else ""), range_mod))
    return TargetNumber(sum(v for _, v in parts), tuple(p for p in parts if p[1] or p[0] == SKILL), label)


def modifiers(parts: tuple[tuple[Text, int], ...]) -> Text:
    """A target number's parts as the rulings write them: "skill 4, attacker stood still +0, …"."""
    return joined(
        say("skill {v}", v=v) if n == SKILL else say("{name} {value}", name=n, value=f"{v:+d}") for n, v in parts
    )


@dataclass(frozen=True)
class Hit:
    damage: int
    text: str
    double_six: bool
    minimal_failed: bool = False


def weapon_damage(
    attacker: UnitState, band: str, rear: bool, overheat: int, roller: Roller, key: str
) -> tuple[int, bool, str]:
    """§6.6: the band's damage after Weapon hits, +1 from the rear, + overheat at S and M (and L
    with OVL); minimal damage 0* deals 1 on a 1D6 of 4+.  (damage, minimal failed, how)"""
    index = {"short": 0, "medium": 1, "long": 2}[band]
    printed = attacker.damage_at(index)
    boost = overheat if index < 2 or attacker.card.has("OVL") else 0
    bonus = (1 if rear else 0) + boost
    if printed == "0*":
        if boost:  # A10: 0* with overheat deals the overheat, no roll (at long range only with OVL)
            return boost + (1 if rear else 0), False, say("minimal damage with {boost} overheat", boost=boost)
        roll = roller.roll(6, f"{key}/minimal")
        if roll < 4:
            return 0, True, say("minimal damage: 1D6 {roll}, no damage (§7.6)", roll=roll)
        return 1 + (1 if rear else 0), False, say("minimal damage: 1D6 {roll}, 1 damage", roll=roll)
    damage = int(printed) + bonus
    how = (
        say("{printed} at {band} range", printed=printed, band=WORDS[band])
        + (say(", +1 from the rear") if rear else "")
        + (say(", +{boost} overheat", boost=boost) if boost else "")
    )
    return damage, False, how


def apply_damage(
    target: UnitState, damage: int, double_six: bool, minimal_failed: bool, roller: Roller, key: str
) -> tuple[UnitState, list[Text]]:
    """§7.2, questions 1-6: armour first, then structure; a crit roll on a natural double six and
    whenever structure is damaged and the unit survives; destroyed when damage is left over or the
    structure is gone.  Destruction takes effect in the End Phase (§4.3)."""
    words: list[Text] = []
    if minimal_failed:
        return target, words
    if double_six:
        target, said = critical_hit(target, roller, f"{key}/crit-double-six")
        words.append(say("double six: ") + said)
    taken = min(target.armour, damage)
    target = replace(target, armour=target.armour - taken)
    left = damage - taken
    if taken:
        words.append(say("armour -{taken} (now {armour})", taken=taken, armour=target.armour))
    if left == 0:
        return target, words
    into = min(target.structure, left)
    target = replace(target, structure=target.structure - into)
    words.append(say("structure -{into} (now {structure})", into=into, structure=target.structure))
    if left - into > 0 or target.structure == 0:
        words.append(say("destroyed (removed in the End Phase)"))
        return replace(target, destroyed=True), words
    target, said = critical_hit(target, roller, f"{key}/crit")
    words.append(say("critical roll: ") + said)
    return target, words


def critical_hit(target: UnitState, roller: Roller, key: str, depth: int = 0) -> tuple[UnitState, str]:
    """§7.4 table, §7.5 effects; an inapplicable result deals 1 extra damage, which never crits."""
    roll = roller.roll(6, f"{key}/1") + roller.roll(6, f"{key}/2")
    result = CRIT_TABLE[roll]
    if result is None:
        return target, say("2D6 {roll}, no critical hit", roll=roll)
    if result == "destroyed":
        return replace(target, destroyed=True), say("2D6 {roll}, unit destroyed", roll=roll)
    if result == "ammo":
        if target.card.has("CASEII") or target.card.has("ENE"):
            return target, say("2D6 {roll}, ammo hit, no effect (CASE II / ENE)", roll=roll)
        if target.card.has("CASE"):
            hurt, words = apply_damage(target, 1, False, False, roller, f"{key}/case") if depth < 3 else (target, [])
            return hurt, say("2D6 {roll}, ammo hit: CASE, 1 damage ({words})", roll=roll, words=joined(words, "; "))
        return replace(target, destroyed=True), say("2D6 {roll}, ammo hit, destroyed (no CASE)", roll=roll)
    if result == "engine":
        if target.engine_hits:
            return replace(target, engine_hits=2, destroyed=True), say(
                "2D6 {roll}, second engine hit: destroyed", roll=roll
            )
        return replace(target, engine_hits=1), say("2D6 {roll}, engine hit: +1 heat whenever it fires", roll=roll)
    if result in ("fire_control", "weapon", "mp") and _track_full(target, result):  # A13: a fifth box
        return _inapplicable(target, roll, result)
    if result == "fire_control":
        return replace(target, fire_control_hits=target.fire_control_hits + 1), say(
            "2D6 {roll}, fire control hit: +2 to hit from now on", roll=roll
        )
    if result == "weapon":
        if all(target.damage_at(k) in ("0", "-") for k in range(3)):
            return _inapplicable(target, roll, "weapon")
        return replace(target, weapon_hits=target.weapon_hits + 1), say("2D6 {roll}, weapon hit: damage -1", roll=roll)
    if target.move_in == 0:  # §7.3: «Если последствие … неприменимо», as Weapon's at 0 damage: 1 damage
        return _inapplicable(target, roll, "mp")
    # MP hit (§7.5, A12): half the current MV and TMM, rounded half up, at least 2" and 1; jump
    # MV halves too
    mv_loss = max(2, math.floor(target.move_in / 2 + 0.5))
    tmm_loss = max(1, math.floor(target.tmm / 2 + 0.5))
    moved = replace(
        target,
        mp_hits=target.mp_hits + 1,
        move_in=max(0, target.move_in - mv_loss),
        tmm=max(0, target.tmm - tmm_loss),
        jump_in=target.jump_in - math.floor(target.jump_in / 2 + 0.5),
    )
    return moved, say(
        '2D6 {roll}, motive hit: MV {move_in}→{move_in2}", TMM {tmm}→{tmm2}',
        roll=roll,
        move_in=target.move_in,
        move_in2=moved.move_in,
        tmm=target.tmm,
        tmm2=moved.tmm,
    ) + (say(" (immobile)") if moved.move_in == 0 else "")


CRIT_BOXES = 4  # §7.5: Fire Control, MP and Weapon tracks each have four boxes


def _track_full(target: UnitState, result: str) -> bool:
    hits = {"fire_control": target.fire_control_hits, "weapon": target.weapon_hits, "mp": target.mp_hits}[result]
    return hits >= CRIT_BOXES


def _inapplicable(target: UnitState, roll: int, what: str) -> tuple[UnitState, Text]:
    """§7.3: a result that cannot apply deals 1 extra damage instead, which never crits."""
    if target.armour:
        return replace(target, armour=target.armour - 1), say(
            "2D6 {roll}, {what} hit cannot apply: 1 damage to armour", roll=roll, what=WORDS[what]
        )
    structure = target.structure - 1
    return replace(target, structure=structure, destroyed=structure <= 0), say(
        "2D6 {roll}, {what} hit cannot apply: 1 damage to structure", roll=roll, what=WORDS[what]
    ) + (say(", destroyed") if structure <= 0 else "")
