"""Alpha Strike physical attacks (seed 004 digest §8) and rear-facing weapons (§10.3).

Standard: within 1", damage = SZ (not for MEL units).  Melee weapon: MEL units, within 2",
SZ + 1.  Charge: after a ground move into contact, inches x SZ / 8 rounded, +1 to hit, and 1
self-damage on a success against SZ 3+.  Death from above: after a jump, charge damage + 1, +1 to
hit; on a success the attacker takes its own SZ and the target always takes a crit roll; on a
miss the attacker takes 1, +1 against SZ 3+.  No heat or Fire Control modifiers, no range, no
overheat, and Weapon hits do not reduce it (§8.3, §8.6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..text import Text, say
from .attack import SKILL, WORDS
from .cards import UnitState
from .heat import ground_move_in

INCH_REACH = {"standard": 1.0, "melee_weapon": 2.0}
CHARGE_CONTACT_IN = 0.05  # a charge or death from above ends in base contact: this close, or within the uncertainty


@dataclass(frozen=True)
class MeleePlan:
    kind: str  # standard | melee_weapon | charge | dfa
    tn: int | None
    parts: tuple[tuple[Text, int], ...]
    damage: int
    why_not: Text | None = None


def melee_plan(
    attacker: UnitState,
    target: UnitState,
    kind: str,
    edge_in: float,
    inches_moved: float,
    attacker_move: str,
    target_move: str,
    shutdown_counts_immobile: bool = True,
    attacker_movement: bool = True,
) -> MeleePlan:
    """The TN (§8.3) and damage (§8.2) of a physical attack, or why it cannot be made."""
    mel = attacker.card.has("MEL")
    if kind == "standard" and mel:
        return MeleePlan(kind, None, (), 0, say("a unit with MEL makes melee weapon attacks, not standard ones (§8.2)"))
    if kind == "melee_weapon" and not mel:
        return MeleePlan(kind, None, (), 0, say("only units with MEL make melee weapon attacks (§8.2)"))
    if kind in INCH_REACH and edge_in > INCH_REACH[kind]:
        return MeleePlan(
            kind,
            None,
            (),
            0,
            say(
                'the target is {edge_in}" away; a {replace} attack reaches {inch_reach}" (§8.2)',
                edge_in=f"{edge_in:.1f}",
                replace=kind.replace("_", " "),
                inch_reach=f"{INCH_REACH[kind]:g}",
            ),
        )
    if kind in ("charge", "dfa") and edge_in > CHARGE_CONTACT_IN:
        return MeleePlan(kind, None, (), 0, say("a charge or death from above ends in base contact (§8.2)"))
    if kind == "dfa" and attacker_move != "jump":
        return MeleePlan(kind, None, (), 0, say("death from above needs a jump (§8.2)"))
    if kind == "charge" and attacker_move != "ground":
        return MeleePlan(kind, None, (), 0, say("a charge needs a ground move (§8.2)"))
    parts = [(SKILL, attacker.skill)]
    if attacker_movement:  # A5: the literal reading applies it to physical attacks too
        parts.append(
            (
                say("attacker {attacker_move}", attacker_move=WORDS[attacker_move]),
                {"still": -1, "ground": 0, "jump": 2}[attacker_move],
            )
        )
    if target.shutdown:  # A4: -4 as immobile (the likely intent), or no modifier at all (the literal text)
        immobile = shutdown_counts_immobile
    else:
        immobile = ground_move_in(target) <= 0 or target_move == "immobile"
    if immobile:
        parts.append((say("target immobile"), -4))
    elif target_move == "ground" and not target.shutdown:
        parts.append((say("target TMM"), target.tmm))
    elif target_move == "jump":
        parts.append((say("target TMM +1 for jumping"), target.tmm + 1))
    if kind in ("charge", "dfa"):
        parts.append((say("charge") if kind == "charge" else say("dfa"), 1))
    damage = {"standard": attacker.card.size, "melee_weapon": attacker.card.size + 1}.get(kind)
    if damage is None:  # §8.2: inches moved x SZ / 8, normal rounding; DFA one more
        damage = math.floor(inches_moved * attacker.card.size / 8 + 0.5) + (1 if kind == "dfa" else 0)
    return MeleePlan(kind, sum(v for _, v in parts), tuple(p for p in parts if p[1] or p[0] == SKILL), damage)


def self_damage(attacker: UnitState, target: UnitState, kind: str, hit: bool) -> int:
    """§8.4-8.5: what a charge or death from above costs the attacker."""
    if kind == "charge":
        return 1 if hit and target.card.size >= 3 else 0
    if kind == "dfa":
        return attacker.card.size if hit else 1 + (1 if target.card.size >= 3 else 0)
    return 0
