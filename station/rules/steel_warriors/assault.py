"""Steel Warriors assault and close combat (seed 001 digest §8): the enhanced reaction test, the
charge's combat move, arrival within 2", the defender's morale test (its threat worked out here,
its result the referee's, since the test itself is lost), the melee between figures in contact,
and the casualty d6."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...measure.measurement import CALL_SIGMAS
from ...measure.pairwise import edge_distances
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..input_args import BY_THE_REFEREE
from ..inputs import Args
from ..text import joined, say
from .army import MORALE_WORDS
from .ladder import step
from .state import INPUTS, Rules, WarState, named_become
from .turns import command_test, spend
from .where import nearest_gap, placed_many

ASSAULT_MODIFIER = {"confident": 0, "steady": 1, "shaken": 3}  # §8.1
ARRIVED_IN = 2.0  # §8.1
CONTACT_IN = 0.5  # figures in base contact, within the camera's noise
CAVALRY_STEPS = 2  # §8.1 step 9


@INPUTS.register(
    "assault",
    "§8.1 steps 1-4",
    arg.unit("squad", "the squad acting", required=True),
    arg.unit("target", "the enemy squad assaulted", required=True),
)
def assault(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§8.1 steps 1-4: "Attack!": Quality > Leadership (+1 Steady, +3 Shaken); failing loses the
    whole activation; passing rolls the combat move towards the enemy."""
    roller = rules.roller
    data = rules.data
    squad_id, target_id = str(args.get("squad")), str(args.get("target"))
    squad, target = state.squads.get(squad_id), state.squads.get(target_id)
    if squad is None or target is None or squad.player == target.player:
        raise Refused(say("give the acting squad and an enemy squad"), "§8.1")
    if squad.morale not in ASSAULT_MODIFIER:
        raise Refused(say("a {morale} squad never assaults", morale=MORALE_WORDS[squad.morale]), "§8.1")
    if squad.suppression:
        raise Refused(say("{squad_id} is suppressed", squad_id=squad_id), "§6.7")
    if not melee_capable(state, squad_id):
        raise Refused(
            say(
                "{squad_id}: robots and bronescafs never fight in close combat, so this squad never assaults",
                squad_id=squad_id,
            ),
            "§8",
        )
    state = spend(state, squad_id, "§8.1")
    passed, roll, need = command_test(state, squad_id, roller, f"{seq}/assault", ASSAULT_MODIFIER[squad.morale])
    if not passed:
        state = state.evolve(activation=replace(state.acting(), actions=0))
        return state, [
            Ruling(
                f"{seq}:assault",
                seq,
                RulingKind.STATUS,
                say(
                    "{squad_id} is ordered to attack {target_id}: d{quality} {roll}, more than {need} needed: the attack fails and the whole activation is lost (§8.1).",
                    squad_id=squad_id,
                    target_id=target_id,
                    quality=squad.quality,
                    roll=roll,
                    need=need,
                ),
                "§8.1",
            )
        ]
    faces = data["movement"][squad.movement]
    rolls = [roller.roll(faces, f"{seq}/assault/charge/{k}") for k in range(2)]
    state = state.evolve(activation=replace(state.acting(), dash_in=float(sum(rolls))))
    return state, [
        Ruling(
            f"{seq}:assault",
            seq,
            RulingKind.MOVE,
            say(
                '{squad_id} attacks {target_id}: d{quality} {roll} beats {need}. Charge 2d{faces} {rolls}+{rolls2} = {sum}" straight at the enemy; within 2" it arrives (§8.1).',
                squad_id=squad_id,
                target_id=target_id,
                quality=squad.quality,
                roll=roll,
                need=need,
                faces=faces,
                rolls=rolls[0],
                rolls2=rolls[1],
                sum=sum(rolls),
            ),
            "§8.1",
            details={"charge_in": sum(rolls)},
        )
    ]


def _gap_in(state: WarState, a: list[str], b: list[str]) -> tuple[float, float]:
    """The nearest edge-to-edge gap between two squads, and the camera's uncertainty of it (2σ)."""
    gap = nearest_gap(state, a, b)
    if gap is None:
        raise Refused(
            say("the camera has not placed both squads: give the distance left between them in inches, from the tape"),
            "§8",
        )
    return gap[0], CALL_SIGMAS * gap[1]


def melee_capable(state: WarState, squad_id: str) -> bool:
    """§8: «Реально для ближнего боя были приспособлены только пехотинцы и всадники. Роботы и
    бронескафы к ближнему бою были не способны.»"""
    squad = state.squads[squad_id]
    return squad.movement != "bronescaf" and not all(state.figures[f].armour == "robot" for f in squad.figures)


def threat(state: WarState, attackers: str, defenders: str) -> int:
    """§8.1 step 6: +1 when the attackers outnumber the defenders, +2 at twice, +3 at three times;
    a cavalryman charging «в клинки» counts as two infantrymen, and such riders, like every
    terrifying attacker, double every threat."""
    squad = state.squads[attackers]
    riders = [f for f in state.fighting(attackers) if not f.on_foot]
    a = len(state.fighting(attackers)) + (len(riders) if squad.blades else 0)
    d = max(1, len(state.fighting(defenders)))
    value = 0 if a <= d else max(1, a // d)
    return value * (2 if squad.terrifying or squad.blades else 1)


@INPUTS.register(
    "charge",
    "§8.1 steps 4-7",
    arg.unit("squad", "the squad acting", required=True),
    arg.unit("target", "the enemy squad charged", required=True),
    arg.taped(
        arg.number(
            "distance",
            "left between the nearest figures after the charge, by the referee's tape, with no camera",
            0,
            200,
            True,
        )
    ),
)
def charge(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§8.1 steps 4-7: after the charge is moved, did it arrive?  If so, the defender tests Morale
    with the threat shown; if it fails, it falls back to 6" in front of the attackers."""
    squad_id, target_id = str(args.get("squad")), str(args.get("target"))
    if squad_id not in state.squads or target_id not in state.squads:
        raise Refused(say("give the attacking and the defending squad"), "§8.1")
    taped = arg.given_number(args, "distance")
    gap, doubt = (
        (taped, 0.0)
        if taped is not None
        else _gap_in(state, [f.id for f in state.fighting(squad_id)], [f.id for f in state.fighting(target_id)])
    )
    if gap > ARRIVED_IN + doubt:  # within the camera's uncertainty of 2" it arrives, and the referee decides
        return state, [
            Ruling(
                f"{seq}:charge",
                seq,
                RulingKind.WARNING,
                say(
                    "{squad_id}'s charge stops {gap}\" short: {target_id} may fire once at it, casualties only (shoot with reaction), and then the attackers test at +1 a casualty to charge again or fall back suppressed (§8.1).",
                    squad_id=squad_id,
                    gap=f"{gap:.1f}",
                    target_id=target_id,
                ),
                "§8.1",
                needs_referee=True,
                details=BY_THE_REFEREE if taped is not None else {},
            )
        ]
    value = threat(state, squad_id, target_id)
    return state, [
        Ruling(
            f"{seq}:charge",
            seq,
            RulingKind.STATUS,
            say("{squad_id}'s charge arrives ({gap}\"", squad_id=squad_id, gap=f"{gap:.1f}")
            + (
                say(', within the camera\'s ±{doubt}" of 2": the referee decides', doubt=f"{doubt:.1f}")
                if gap > ARRIVED_IN
                else ""
            )
            + say(
                '). {target_id} tests its morale with threat +{value}; if it fails it falls back to 6" in front of the attackers and loses morale; if it stands, resolve close_combat (§8.1).',
                target_id=target_id,
                value=value,
            ),
            "§8.1",
            needs_referee=True,
            details={"threat": value} | (BY_THE_REFEREE if taped is not None else {}),
        )
    ]


def _pairs_in_contact(
    state: WarState, attackers: list[str], defenders: list[str], engaged: Any
) -> list[tuple[str, str]]:
    """§8.1 step 8: who fights whom.  With the camera, every attacker and defender whose bases
    touch; with no camera on either squad, the referee's word: the figures they name in contact
    (every fighter when they name none, as the charge leaves each facing an opponent), paired in
    order, the larger side's spare figures joining the fights from the first on."""
    mine, theirs = placed_many(state, attackers), placed_many(state, defenders)
    if mine and theirs:
        gaps = edge_distances([x.base for x in mine] + [x.base for x in theirs])[: len(mine), len(mine) :]
        return [
            (mine[i].id, theirs[j].id)
            for i in range(len(mine))
            for j in range(len(theirs))
            if gaps[i, j] <= CONTACT_IN * state.unit_mm
        ]
    named = set(engaged) if isinstance(engaged, list) else set(attackers + defenders)
    a, d = [f for f in attackers if f in named], [f for f in defenders if f in named]
    if not a or not d:
        return []
    return [(a[k % len(a)], d[k % len(d)]) for k in range(max(len(a), len(d)))]


@INPUTS.register(
    "close_combat",
    "§8.1 steps 8-12",
    arg.unit("squad", "the squad acting", required=True),
    arg.unit("target", "the enemy squad fought", required=True),
    arg.taped(
        arg.models(
            "engaged", "with no camera: the figures of both squads in base contact (every fighter, when left out)"
        )
    ),
)
def close_combat(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§8.1 steps 8-12: every figure in base contact rolls its Quality die, stepped up for its
    weapon and a horse; in each pair the lower roll is a casualty (ties fight on); then each
    casualty rolls a d6: 1-2 killed, 3-4 wounded, 5-6 unhurt."""
    roller = rules.roller
    weapons = rules.data["weapons"]
    a_id, d_id = str(args.get("squad")), str(args.get("target"))
    if a_id not in state.squads or d_id not in state.squads:
        raise Refused(say("give the attacking and the defending squad"), "§8")
    attackers, defenders = [f.id for f in state.fighting(a_id)], [f.id for f in state.fighting(d_id)]
    for side in (a_id, d_id):
        if not melee_capable(state, side):
            raise Refused(say("{side}: robots and bronescafs do not fight in close combat", side=side), "§8")
    pairs = _pairs_in_contact(state, attackers, defenders, args.get("engaged"))
    if not pairs:
        raise Refused(say("no figures are in base contact: place each fighter against an opponent"), "§8.1")
    engaged = {x for p in pairs for x in p}
    loose = sorted(set(attackers + defenders) - engaged)
    dice = {}
    for fid in sorted(engaged):
        f = state.figures[fid]
        steps = (
            weapons[f.weapon]["close_combat"]
            + (CAVALRY_STEPS if state.squads[f.squad].movement == "cavalry" and not f.on_foot else 0)
            + (1 if f.melee_weapon else 0)  # §8.1 step 9: a fixed bayonet, sword or axe
        )
        dice[fid] = step(state.squads[f.squad].quality, steps)
    rolls = {fid: roller.roll(die, f"{seq}/melee/{fid}") for fid, die in dice.items()}
    lost = sorted({a if rolls[a] < rolls[d] else d for a, d in pairs if rolls[a] != rolls[d]})
    words = [
        joined(
            say(
                "{a} d{a_die} {a_roll} v {d} d{d_die} {d_roll}",
                a=a,
                a_die=dice[a],
                a_roll=rolls[a],
                d=d,
                d_die=dice[d],
                d_roll=rolls[d],
            )
            for a, d in pairs
        )
    ]
    for fid in lost:
        roll = roller.roll(6, f"{seq}/melee/{fid}/fate")
        status = "killed" if roll <= 2 else "unverified" if roll <= 4 else "ok"
        if status != "ok":
            state = state.with_figure(replace(state.figures[fid], status=status))
        words.append(
            say(
                "{fid} falls (d6 {roll}: {what})",
                fid=fid,
                roll=roll,
                what=say("killed") if status == "killed" else say("wounded") if status != "ok" else say("unhurt"),
            )
        )
    losses = {side: sum(1 for f in lost if state.figures[f].squad == side) for side in (a_id, d_id)}
    if losses[a_id] != losses[d_id]:
        worse = a_id if losses[a_id] > losses[d_id] else d_id
        other = d_id if worse == a_id else a_id
        value = losses[worse] * (2 if state.squads[other].terrifying else 1)
        words.append(
            say(
                '{worse} lost more and tests morale with threat +{value}; if it passes, {other} tests on the same terms; whoever fails falls back 6" and loses morale, its unhurt and wounded taken prisoner (§8.1)',
                worse=worse,
                value=value,
                other=other,
            )
        )
    else:
        words.append(say("equal losses: the close combat goes on next turn unless a morale test breaks it (§8.1)"))
    if loose:
        words.append(
            say("not facing anyone: {loose} (every fighter must face an opponent, §8.1)", loose=", ".join(loose))
        )
    return state, [
        Ruling(
            f"{seq}:melee",
            seq,
            RulingKind.SHOT,
            say("Close combat: ") + joined(words, "; ") + ".",
            "§8",
            needs_referee=True,
            details={"pairs": pairs, "rolls": rolls, "lost": lost}
            | ({} if placed_many(state, attackers) and placed_many(state, defenders) else BY_THE_REFEREE),
        )
    ]


@INPUTS.register("recharge", "§8.1 step 5", arg.unit("squad", "the squad acting", required=True))
def recharge(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§8.1 step 5: when the defenders' free fire caused casualties, the attackers test Quality >
    Leadership + 1 a casualty: success makes one more combat move, failure puts a suppression
    marker on them and sends them back to where the charge began."""
    roller = rules.roller
    data = rules.data
    squad_id = str(args.get("squad"))
    act = state.activation
    if act is None or act.squad != squad_id:
        raise Refused(say("{squad_id} is not the charging squad acting now", squad_id=squad_id), "§8.1")
    lost = act.free_fire_losses  # counted from the free fire (shoot with reaction), never typed in
    if lost < 1:
        raise Refused(
            say("the free fire at {squad_id} caused no casualties, so there is no test to press on", squad_id=squad_id),
            "§8.1",
        )
    passed, roll, need = command_test(state, squad_id, roller, f"{seq}/recharge", lost)
    if not passed:
        state = state.suppress(squad_id)
        return state, [
            Ruling(
                f"{seq}:recharge",
                seq,
                RulingKind.STATUS,
                say(
                    "{squad_id} wavers under fire ({lost} casualties): d{quality} {roll}, more than {need} needed: a suppression marker, and back to where the charge began (§8.1).",
                    squad_id=squad_id,
                    lost=lost,
                    quality=state.squads[squad_id].quality,
                    roll=roll,
                    need=need,
                ),
                "§8.1",
                needs_referee=True,
            )
        ]
    faces = data["movement"][state.squads[squad_id].movement]
    rolls = [roller.roll(faces, f"{seq}/recharge/move/{k}") for k in range(2)]
    state = state.evolve(activation=replace(act, dash_in=float(sum(rolls))))
    return state, [
        Ruling(
            f"{seq}:recharge",
            seq,
            RulingKind.MOVE,
            say(
                '{squad_id} presses on ({lost} casualties): d{quality} {roll} beats {need}; one more combat move, 2d{faces} {rolls}+{rolls2} = {sum}" (§8.1).',
                squad_id=squad_id,
                lost=lost,
                quality=state.squads[squad_id].quality,
                roll=roll,
                need=need,
                faces=faces,
                rolls=rolls[0],
                rolls2=rolls[1],
                sum=sum(rolls),
            ),
            "§8.1",
        )
    ]


@INPUTS.register("prisoners", "§8.1 step 12", arg.models("figures", "the fallen figures taken prisoner", required=True))
def prisoners(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§8.1 step 12: the side that fled the close combat loses its unhurt and wounded fallen
    fighters as prisoners (the referee names them)."""
    state, taken = named_become(
        state,
        args.get("figures"),
        ("ok", "unverified"),
        "prisoner",
        lambda fid: say("{fid} cannot be taken prisoner", fid=fid),
        say("name the figures taken prisoner"),
        "§8.1",
    )
    return state, [
        Ruling(
            f"{seq}:prisoners",
            seq,
            RulingKind.STATUS,
            say("Taken prisoner: {taken} (§8.1).", taken=", ".join(taken)),
            "§8.1",
        )
    ]
