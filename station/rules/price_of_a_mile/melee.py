"""The Price of a Mile melee (seed 003 digest §10): bases in contact (under 1") roll d10 + Melee;
the higher wins (a tie goes to the attacker unless the defender holds an obstacle); a margin of 4
takes the loser out at once; otherwise the loser takes a Power 1 hit and, if it lives, falls back
2".  The side with more bases in the fight gets +1 Melee and +1 Power."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...dice import Roller
from ...measure.bases import closest_points
from ...measure.measurement import pair_sigma, too_close_to_call
from ...measure.relations import in_contact
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..inputs import Args
from ..text import Text, joined, say
from . import vehicles
from .shooting import attacked_neutral, panic
from .state import CONTACT_IN, INCH, INPUTS, Fighter, MileState, Rules
from .where import placed, placed_many

CRITICAL_MARGIN = 4  # §10.2
LOSER_POWER = 1  # §7.3
HERO_CRITICAL_POWER = 2  # §10.2
VEHICLE_LOSES_POWER = 3  # §15.1


def _in_the_fight(state: MileState, against: Fighter, player: str) -> int:
    """How many of ``player``'s standing bases touch ``against`` (§10.3)."""
    mine = placed(state, against.id)
    if mine is None:
        return 0
    others = placed_many(state, [f.id for f in state.fighters.values() if f.player == player and f.standing])
    return sum(1 for o in others if in_contact(mine, o, CONTACT_IN * INCH))


def _damage(
    state: MileState, loser: Fighter, power: int, critical: bool, roller: Roller, key: str
) -> tuple[MileState, Text, bool]:
    """§10.1-10.2, §12.1: the loser's fate; True if it must fall back."""
    if critical and not loser.hero:
        return (
            state.with_fighter(replace(loser, status="out")),
            say("{loser} is taken out by a critical blow (§10.2)", loser=loser.id),
            False,
        )
    power += HERO_CRITICAL_POWER if critical else 0
    dice = [roller.roll(10, f"{key}/damage/{k}") for k in range(2 if loser.hero else 1)]  # §12.1: a Hero rolls two
    toughness = state.stat(loser, "toughness")
    if all(d + power >= toughness for d in dice):
        return (
            state.with_fighter(replace(loser, status="out")),
            say("{loser} out (d10 {dice} + {power})", loser=loser.id, dice=dice, power=power),
            False,
        )
    back = 6 if loser.hero else 2
    return (
        state,
        say(
            '{loser} survives (d10 {dice} + {power}) and falls back {back}" (§10.1)',
            loser=loser.id,
            dice=dice,
            power=power,
            back=back,
        ),
        True,
    )


def _contact_in_doubt(state: MileState, attacker: Fighter, defender: Fighter, said: bool) -> float | None:
    """§5.4: the two bases must be in contact (under 1").  Refused when the camera sees them
    apart; their gap when it cannot place them on one side of the inch (the referee decides); with
    no camera on both, the referee's word (``said``) stands, and without it the station asks."""
    a, d = placed(state, attacker.id), placed(state, defender.id)
    if a is None or d is None:
        if not said:
            raise Refused(
                say(
                    'the camera has not placed both {attacker} and {defender}: say contact if they touch (under 1")',
                    attacker=attacker.id,
                    defender=defender.id,
                ),
                "§5.4",
            )
        return None
    gap = closest_points(a.base, d.base)[0]
    doubt = gap > CONTACT_IN * INCH and too_close_to_call(gap, CONTACT_IN * INCH, pair_sigma(a, d))
    if gap > CONTACT_IN * INCH and not doubt:
        raise Refused(
            say('{attacker} and {defender} are not in contact (under 1")', attacker=attacker.id, defender=defender.id),
            "§5.4",
        )
    return gap if doubt else None


@INPUTS.register(
    "melee",
    "§10",
    arg.model("attacker", "the base that charges", required=True),
    arg.model("defender", "the base charged", required=True),
    arg.flag("defender_holds", "the defender stands its ground"),
    arg.integer("fell_back_before", "bases of the defender's squad already forced back in this fight", 0, 10),
    arg.taped(
        arg.flag(
            "contact", "the referee's word that the two are in contact (under 1\"), when the camera has not placed both"
        )
    ),
)
def melee(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, Ruling]:
    roller = rules.roller
    melee_weapons = rules.data["melee_weapons"]
    options = state.options
    attacker, defender = state.fighters.get(str(args.get("attacker"))), state.fighters.get(str(args.get("defender")))
    holds = bool(args.get("defender_holds", False))
    if (
        attacker is None
        or defender is None
        or not attacker.standing
        or not defender.standing
        or (attacker.player == defender.player and not state.neutral(defender))
    ):
        raise Refused(say("give two standing enemy bases"), "§10")
    gap = _contact_in_doubt(state, attacker, defender, bool(args.get("contact")))
    if state.activation and attacker.id in state.activation.actions:  # §5.4: contact ends its actions
        act = state.activation
        state = state.evolve(activation=replace(act, actions={**act.actions, attacker.id: 0}))
    sides = {
        attacker.id: _in_the_fight(state, defender, attacker.player),
        defender.id: _in_the_fight(state, attacker, defender.player),
    }
    rolls, totals, bonus = {}, {}, {}
    for me, foe in ((attacker, defender), (defender, attacker)):
        weapon = melee_weapons[me.melee_weapon]
        more = (  # §10.3: the more numerous side; §12.1-12.2 a follow-up's fight, §10.4 a stormer's new foe
            sides[me.id] > max(1, sides[foe.id])
            or state.followed.get(me.id) in ("hero", "cavalry")
            or state.followed.get(foe.id) == "storm"
        )
        cavalry = me.mounted and not foe.mounted  # §12.2
        bonus[me.id] = (1 if more else 0, weapon["power"] if options.melee_weapon_power else 0)
        rolls[me.id] = roller.roll(10, f"{seq}/melee/{me.id}")
        if rolls[me.id] == 1 and me.squad and "hold_the_line" in state.squads[me.squad].rules:  # §16.5
            rolls[me.id] = roller.roll(10, f"{seq}/melee/{me.id}/again")
        if me.insulted:  # §16.9: an insulted fighter rolls two dice and keeps the worse
            rolls[me.id] = min(rolls[me.id], roller.roll(10, f"{seq}/melee/{me.id}/insult"))
            bonus[me.id] = (bonus[me.id][0], bonus[me.id][1] + 1)  # and +1 Power if it wins
        totals[me.id] = (
            rolls[me.id] + state.stat(me, "melee") + weapon["melee"] + bonus[me.id][0] + (1 if cavalry else 0)
        )
    won = (
        attacker
        if totals[attacker.id] > totals[defender.id] or (totals[attacker.id] == totals[defender.id] and not holds)
        else defender
    )
    lost = defender if won is attacker else attacker
    for f in (attacker, defender):
        if f.insulted and state.fighters[f.id].standing:
            state = state.with_fighter(replace(state.fighters[f.id], insulted=False))
    margin = totals[won.id] - totals[lost.id]
    power = LOSER_POWER + bonus[won.id][0] + bonus[won.id][1]
    if lost.vehicle:  # §15.1: a vehicle that loses takes a hit at Power 3, which is not hand-held small arms
        hand_held = options.vehicle_melee_hand_held  # so 1-2 points immobilise it, unless the club reads otherwise
        state, fate = vehicles.damage(state, lost, VEHICLE_LOSES_POWER, hand_held, roller, f"{seq}/melee")
        falls_back = False
    elif won.vehicle:  # §15.1-15.2: a vehicle that wins does no harm
        state, fate, falls_back = state, say("{won} drives them off without harm (§15)", won=won.id), False
    else:
        state, fate, falls_back = _damage(state, lost, power, margin >= CRITICAL_MARGIN, roller, f"{seq}/melee")
    words = [
        say(
            "Melee {attacker} {totals} (d10 {rolls}) against {defender} {totals2} (d10 {rolls2}): {won} wins",
            attacker=attacker.id,
            totals=totals[attacker.id],
            rolls=rolls[attacker.id],
            defender=defender.id,
            totals2=totals[defender.id],
            rolls2=rolls[defender.id],
            won=won.id,
        ),
        fate,
    ]
    follows = "storm" if holds and won is attacker else "hero" if won.hero else "cavalry" if won.mounted else None
    if follows == "cavalry" and (lost.mounted or lost.vehicle):
        follows = None  # §12.2: «после победы над пехотинцем»
    done = (attacker.id, defender.id)
    state = state.evolve(
        followed={k: v for k, v in state.followed.items() if k not in done},
        may_follow={
            **{k: v for k, v in state.may_follow.items() if k not in done},
            **({won.id: follows} if follows else {}),
        },
    )
    if holds and won is attacker:  # §10.4: storming a held obstacle or position
        words.append(
            say(
                "{attacker} may take {defender}'s place; a new enemy it touches there fights it at once, with +1 Melee and +1 Power as the more numerous side (§10.4)",
                attacker=attacker.id,
                defender=defender.id,
            )
        )
    if won.hero or (won.mounted and not lost.mounted and not lost.vehicle):  # §12.1, §12.2
        words.append(say('{won} may move up to 3" and fight a new enemy, as a multi-base fight', won=won.id))
    if falls_back and (_already_back(args) + 1) % 3 == 0:  # this fall-back makes a third: one base flees
        state, fled = panic(state, lost.squad, 3, state.positions.get(won.id, (0, 0))[:2])
        words.append(fled)
    state, turned = attacked_neutral(state, defender, attacker.player)
    words += turned
    if gap is not None:
        words.append(
            say(
                'Contact too close to call: {gap}" apart, within the camera\'s uncertainty of 1"; the referee decides (override "void" if they were not in contact)',
                gap=f"{gap / INCH:.2f}",
            )
        )
    return state, Ruling(
        f"{seq}:melee",
        seq,
        RulingKind.SHOT,
        joined(words, ". ") + ".",
        "§10",
        needs_referee=gap is not None,
        element=attacker.id,
        details={"totals": totals, "winner": won.id, "margin": margin},
    )


def _already_back(args: Mapping[str, Any]) -> int:
    """Bases of the same squad already forced back in this fight (§10.1: every 3 of them, one flees)."""
    value = args.get("fell_back_before", 0)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
