"""Quick rules' attacks (seed 002 digest §7-10, §14): virtual shots, grenades, close combat with
the return strike, and rams, all "exploding six" d6 plus a stat against the target's Armour.

Attack > Armour: infantry die, a vehicle or gun takes the difference.  Attack = Armour: infantry
are wounded (face down, Armour -2, cannot act until healed), a vehicle or gun takes 1 damage.
Less: no effect (§7).  A vehicle or gun is destroyed once its damage exceeds its Durability (§13).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...dice import Roller
from ...measure.measurement import measure
from ...measure.terrain import line_of_sight
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..input_args import BY_THE_REFEREE
from ..text import Text, joined, say
from .state import Fighter, QuickState
from .turns import fighters_action
from .where import CONTACT_MM, convention, distance, operator_of, placed, within

EXPLOSION_CAP = 20  # a chain of sixes this long has never been rolled; it keeps a bad roller finite
AIMED = CLOSE = COVER = WOUNDED = 2  # §7: +2 aimed, +2 close target, +2 Armour in cover, -2 Armour wounded
CLOSE_STEPS, GRENADE_STEPS, BLAST_STEPS, MELEE_STEPS = 2, 3, 2, 1
GRENADE_SHOOTING, BLAST_SHOOTING = 5, 3  # §8


def exploding_d6(roller: Roller, key: str) -> list[int]:
    """§9: a six is rolled again and added, while sixes come."""
    rolls = [roller.roll(6, f"{key}/0")]
    while rolls[-1] == 6 and len(rolls) < EXPLOSION_CAP:
        rolls.append(roller.roll(6, f"{key}/{len(rolls)}"))
    return rolls


def effective_armour(fighter: Fighter, in_cover: bool = False) -> int:
    return fighter.armour + (COVER if in_cover else 0) - (WOUNDED if fighter.wounded else 0)


def resolve(state: QuickState, target: Fighter, attack: int, armour: int) -> tuple[QuickState, str]:
    """§7's table, §13 destruction."""
    name = target.name
    if attack < armour:
        return state, say("{attack} against Armour {armour}: no effect", attack=attack, armour=armour)
    if target.soldier:
        if attack > armour:
            return state.with_fighter(replace(target, dead=True, wounded=False)), say(
                "{attack} against Armour {armour}: {name} is killed", attack=attack, armour=armour, name=name
            )
        return state.with_fighter(replace(target, wounded=True)), say(
            "{attack} against Armour {armour}: {name} is wounded (face down)", attack=attack, armour=armour, name=name
        )
    damage = attack - armour if attack > armour else 1
    total = target.damage + damage
    dead = target.durability is not None and total > target.durability
    state = state.with_fighter(replace(target, damage=total, dead=dead))
    return state, (
        say(
            "{attack} against Armour {armour}: {damage} damage to {name} ({total} of durability {durability})",
            attack=attack,
            armour=armour,
            damage=damage,
            name=name,
            total=total,
            durability=target.durability,
        )
        + (say(", destroyed (§13)") if dead else "")
    )


def _can_act(state: QuickState, fighter: Fighter | None, what: str) -> Fighter:
    if state.turn == 0:
        raise Refused(say("roll off first to see who goes first"), "§4.2")
    if fighter is None or fighter.dead:
        raise Refused(say("no {what} on the table by that id", what=what), "§7")
    if fighter.player != state.active_player:
        raise Refused(say("it is {active_player}'s turn", active_player=state.active_player), "§4.2")
    if fighter.wounded:
        raise Refused(say("{name} is wounded and cannot attack until healed", name=fighter.name), "§12")
    return fighter


def _target(state: QuickState, target_id: Any, attacker: Fighter) -> Fighter:
    target = state.fighters.get(str(target_id))
    if target is None or target.dead:
        raise Refused(say("no target {target_id} on the table", target_id=repr(target_id)), "§7")
    if target.player == attacker.player:
        raise Refused(say("{name} is on the same side", name=target.name), "§7")
    return target


def _sight(state: QuickState, shooter: Fighter, target: Fighter) -> tuple[bool, bool, dict[str, Any]]:
    """(visible, in cover, details): "bend down and look" as the 2.5D model sees it; more than
    half hidden is cover (+2 Armour)."""
    a, b = placed(state, shooter), placed(state, target)
    if a is None or b is None:
        return True, False, {}
    sight = line_of_sight(a, shooter.height_mm * 0.9, b, target.height_mm, list(state.terrain))
    return (
        not sight.blocked,
        sight.hidden_fraction > 0.5,
        {"hidden_fraction": round(sight.hidden_fraction, 3), "blockers": list(sight.blockers)},
    )


def _strike(
    state: QuickState, roller: Roller, key: str, target: Fighter, bonus: int, armour: int
) -> tuple[QuickState, str]:
    """One attack: an exploding d6 plus ``bonus`` against ``armour``, resolved by §7's table."""
    rolls = exploding_d6(roller, key)
    state, outcome = resolve(state, state.fighters[target.id], sum(rolls) + bonus, armour)
    return state, f"d6 {'+'.join(map(str, rolls))} + {bonus} = {outcome}"


def _clear_shot(state: QuickState, shooter: Fighter, target: Fighter) -> tuple[bool, dict[str, Any], list[Text]]:
    """§10: nobody shoots or throws within 1 step of an enemy; §7: the target must be seen.
    Returns whether the target is in cover, what the line of sight found, and an enemy the
    camera cannot place on either side of that 1 step (ruled as measured, for the referee)."""
    close, doubtful = within(state, shooter, MELEE_STEPS, enemies=True)
    doubt = (
        say(
            "{name} stands within the camera's uncertainty of 1 step from {enemy}",
            name=shooter.name,
            enemy=", ".join(f.name for f in doubtful),
        )
        if doubtful
        else None
    )
    if close:
        why = say("{name} is within 1 step of an enemy: close combat, no shooting", name=shooter.name)
        raise Refused(why + (say(" ({doubt}: the referee decides)", doubt=doubt) if doubt else ""), "§10")
    visible, in_cover, sight = _sight(state, shooter, target)
    if not visible:
        raise Refused(say("{name} cannot be seen from {name2}'s position", name=target.name, name2=shooter.name), "§7")
    return in_cover, sight, [say("Too close to call: {doubt}; the referee decides.", doubt=doubt)] if doubt else []


@fighters_action(
    "virtual_shot",
    "§6-7",
    arg.model("shooter", "the fighter who shoots", required=True),
    arg.model("target", "the enemy shot at", required=True),
    arg.weapon("weapon", "which of the shooter's virtual weapons (needed when it has several)"),
    arg.taped(arg.flag("moved", "the shooter moved or fought this turn: no aimed +2 (the referee's word, no camera)")),
    arg.taped(
        arg.integer(
            "distance",
            "steps to the target by the referee's tape, for the close target +2 (no camera)",
            0,
            200,
            distance=True,
        )
    ),
    arg.taped(arg.flag("cover", "the target is more than half hidden: cover +2 (the referee's word, no camera)")),
)
def virtual_shot(state: QuickState, seq: int, args: Mapping[str, Any], roller: Roller) -> tuple[QuickState, Ruling]:
    """§6-7: one shooting action; each weapon once; for infantry, aimed +2 if he has not moved or
    fought, and +2 within 2 steps; the target's Armour +2 in cover, -2 if wounded."""
    shooter = _can_act(state, state.fighters.get(str(args.get("shooter"))), "shooter")
    target = _target(state, args.get("target"), shooter)
    weapons = [w for w in shooter.weapons if w.kind == "virtual"]
    weapon = (
        next((w for w in weapons if w.id == args.get("weapon")), None)
        if args.get("weapon")
        else (weapons[0] if len(weapons) == 1 else None)
    )
    if weapon is None:
        raise Refused(
            say(
                "say which of {name}'s virtual weapons fires ({value})",
                name=shooter.name,
                value=", ".join(w.id for w in weapons) or say("none"),
            ),
            "§6",
        )
    if weapon.id in shooter.fired:
        raise Refused(say("{name} has already fired this turn", name=weapon.name), "§6.1")
    operator = operator_of(state, shooter) if shooter.kind == "gun" else None
    if shooter.kind == "gun" and operator is None:
        raise Refused(say("no friendly fighter was seen next to the gun"), "§6.1")
    if shooter.fired_gun:
        raise Refused(say("{name} fired a gun this turn, so not his own weapon", name=shooter.name), "§6.1")
    in_cover, sight, doubts = _clear_shot(state, shooter, target)
    gap = distance(state, shooter, target)
    steps, measured = gap.steps, gap.measured
    rolls = exploding_d6(roller, f"{seq}/shot")
    moved = len(state.paths.get(shooter.id, ())) > 1
    taped = measured is None  # no camera on the two: what it cannot see is the referee's word
    if taped:
        moved = moved or bool(args.get("moved"))
        steps = args.get("distance") if isinstance(args.get("distance"), int) else None
        in_cover = bool(args.get("cover"))
    # «Прицельная стрельба пехотинцев», «Близкая цель (только для пехотинцев …)»: infantrymen only;
    # a machine's or a cyborg's virtual weapon gets neither (cyborgs are not infantry, as for §4.1 victory)
    infantry = shooter.kind == "infantry"
    aimed = infantry and not moved and not shooter.fought
    close = infantry and steps is not None and steps <= CLOSE_STEPS
    if infantry and (doubt := gap.close_call(CLOSE_STEPS, target.name)):
        doubts.append(doubt)
    attack = sum(rolls) + shooter.shooting + (AIMED if aimed else 0) + (CLOSE if close else 0)
    armour = effective_armour(target, in_cover)
    state = state.with_fighter(replace(state.fighters[shooter.id], shot=True, fired=shooter.fired | {weapon.id}))
    if operator is not None:  # §6.1: he served the gun, so not his own weapon this turn
        state = state.with_fighter(replace(state.fighters[operator.id], fired_gun=True))
    state, outcome = resolve(state, state.fighters[target.id], attack, armour)
    parts = (
        [say("d6 {rolls}", rolls="+".join(map(str, rolls))), say("Shooting {shooting}", shooting=shooter.shooting)]
        + ([say("aimed +2")] if aimed else [])
        + ([say("close target +2")] if close else [])
    )
    text = (
        say("{name} shoots {name2} with {name3}: ", name=shooter.name, name2=target.name, name3=weapon.name)
        + joined(parts, " + ")
        + " = "
        + outcome
        + (say(" (cover +2)") if in_cover else "")
        + "."
        + (" " + joined(doubts, " ") if doubts else "")
        + (say(" Moved, distance and cover by the referee's word.") if taped else "")
    )
    details = {
        "shooter": shooter.id,
        "target": target.id,
        "rolls": rolls,
        "attack": attack,
        "armour": armour,
        "aimed": aimed,
        "close": close,
        **(BY_THE_REFEREE if taped else {}),
        **sight,
    }
    if measured:
        details["measured"] = measured
    return state, Ruling(
        f"{seq}:shot",
        seq,
        RulingKind.SHOT,
        text,
        "§7 §9",
        needs_referee=bool(doubts),
        element=shooter.id,
        details=details,
    )


@fighters_action(
    "grenade",
    "§8",
    arg.model("thrower", "the infantryman who throws", required=True),
    arg.model("target", "the enemy the grenade is thrown at", required=True),
    arg.taped(arg.integer("distance", "steps to the target by the referee's tape (no camera)", 0, 200, distance=True)),
    arg.taped(arg.flag("cover", "the target is more than half hidden: cover +2 (the referee's word, no camera)")),
    arg.taped(
        arg.models(
            "caught", "everyone else within 2 steps of the target, the thrower too (the referee's word, no camera)"
        )
    ),
)
def grenade(state: QuickState, seq: int, args: Mapping[str, Any], roller: Roller) -> tuple[QuickState, Ruling]:
    """§8: one grenade a player-turn for the side, within 3 steps; Shooting 5 at the target, then
    Shooting 3 at everyone within 2 steps of it, the thrower too if he is that close."""
    thrower = _can_act(state, state.fighters.get(str(args.get("thrower"))), "thrower")
    target = _target(state, args.get("target"), thrower)
    if thrower.kind != "infantry":
        raise Refused(say("only infantry throw grenades"), "§8")
    if state.grenade_used:
        raise Refused(say("this side has thrown its grenade this turn"), "§6.1")
    if thrower.shot and not thrower.fired_gun:
        raise Refused(say("{name} has used his shooting action", name=thrower.name), "§4.3")
    gap = distance(state, thrower, target)
    steps, measured = gap.steps, gap.measured
    taped = measured is None  # no camera on the two: the referee's tape and word
    if taped and isinstance(args.get("distance"), int):
        steps = args["distance"]
    reach_doubt = gap.close_call(GRENADE_STEPS, target.name)
    if steps is not None and steps > GRENADE_STEPS and not reach_doubt:
        raise Refused(
            say("{name} is {steps} steps away; a grenade reaches 3", name=target.name, steps=f"{steps:.1f}"), "§8"
        )
    in_cover, _, doubts = _clear_shot(state, thrower, target)
    in_cover = bool(args.get("cover")) if taped else in_cover
    doubts += [reach_doubt] if reach_doubt else []
    state = state.evolve(grenade_used=True).with_fighter(replace(thrower, shot=True))
    state, said = _strike(state, roller, f"{seq}/grenade", target, GRENADE_SHOOTING, effective_armour(target, in_cover))
    words = [say("{name} throws a grenade at {name2}: {said}", name=thrower.name, name2=target.name, said=said)]
    caught, edge = within(state, target, BLAST_STEPS, enemies=False)
    if taped:
        named = [state.fighters.get(str(i)) for i in args.get("caught") or ()]
        caught = [f for f in named if f is not None and not f.dead and f.id != target.id]
    if edge:
        doubts.append(
            say(
                "Too close to call: {names} within the camera's uncertainty of the blast's 2 steps; ruled as measured.",
                names=", ".join(f.name for f in edge),
            )
        )
    for victim in caught:
        state, said = _strike(
            state, roller, f"{seq}/blast/{victim.id}", victim, BLAST_SHOOTING, effective_armour(victim)
        )
        words.append(say("blast on {name}: {said}", name=victim.name, said=said))
    details = {"thrower": thrower.id, "target": target.id, **({"measured": measured} if measured else {})}
    details |= BY_THE_REFEREE if taped else {}
    text = joined(words, "; ") + "." + (" " + joined(doubts, " ") if doubts else "")
    if taped:
        text += say(" Distance, cover and who the blast caught by the referee's word.")
    return state, Ruling(
        f"{seq}:grenade",
        seq,
        RulingKind.SHOT,
        text,
        "§8 §9",
        needs_referee=bool(doubts),
        element=thrower.id,
        details=details,
    )


@fighters_action(
    "close_combat",
    "§10",
    arg.model("attacker", "the fighter who attacks", required=True),
    arg.model("target", "the enemy attacked", required=True),
)
def close_combat(state: QuickState, seq: int, args: Mapping[str, Any], roller: Roller) -> tuple[QuickState, Ruling]:
    """§10: within 1 step, once a turn; d6 + Close combat against Armour (wounded -2); the target
    strikes back the same way, worked out from the state before the combat.  Infantry need a
    powerful close-combat weapon to hurt a vehicle, and a vehicle never strikes back."""
    attacker = _can_act(state, state.fighters.get(str(args.get("attacker"))), "attacker")
    target = _target(state, args.get("target"), attacker)
    if attacker.fought:
        raise Refused(say("{name} has already fought this turn", name=attacker.name), "§4.3")
    if not attacker.soldier:
        raise Refused(say("vehicles ram instead (§14)"), "§10")
    if not target.soldier and not any(w.powerful_melee for w in attacker.weapons):
        raise Refused(
            say("{name} has no powerful close-combat weapon to attack a {kind}", name=attacker.name, kind=target.kind),
            "§10",
        )
    gap = distance(state, attacker, target)
    steps, measured = gap.steps, gap.measured
    doubt = gap.close_call(MELEE_STEPS, target.name)
    if steps is not None and steps > MELEE_STEPS and not doubt:
        raise Refused(
            say("{name} is {steps} steps away; close combat is within 1", name=target.name, steps=f"{steps:.1f}"), "§10"
        )
    before = state
    state = state.with_fighter(replace(attacker, fought=True))
    state, said = _strike(state, roller, f"{seq}/attack", target, attacker.melee, effective_armour(target))
    words = [say("{name} attacks {name2}: {said}", name=attacker.name, name2=target.name, said=said)]
    striker = before.fighters[target.id] if state.options.simultaneous_return else state.fighters[target.id]
    # §12 «Раненые … не атакуют в рукопашном бою»: a man wounded before this fight never strikes
    # back; one wounded by its first blow does only when both blows are worked out together (§10)
    wounded_before = before.fighters[target.id].wounded
    if (
        target.soldier
        and not striker.dead
        and not wounded_before
        and (state.options.simultaneous_return or not striker.wounded)
    ):
        state, said = _strike(
            state,
            roller,
            f"{seq}/return",
            state.fighters[attacker.id],
            striker.melee,
            effective_armour(before.fighters[attacker.id]),
        )
        words.append(say("{name} strikes back: {said}", name=target.name, said=said))
    elif target.soldier and wounded_before:
        words.append(say("{name} is wounded and does not strike back (§12)", name=target.name))
    details = {"attacker": attacker.id, "target": target.id, **({"measured": measured} if measured else {})}
    text = joined(words, "; ") + "." + (" " + doubt if doubt else "")
    return state, Ruling(
        f"{seq}:melee",
        seq,
        RulingKind.MELEE,
        text,
        "§10 §9",
        needs_referee=bool(doubt),
        element=attacker.id,
        details=details,
    )


def _rams_into_contact(state: QuickState, rammer: Fighter, target: Fighter) -> None:
    """§14 «Техника при передвижении может протаранить другую технику»: a ram is made while
    moving, and it ends in contact.  Where the camera has placed both: refused unless the rammer
    moved this turn and its base touches the target's (within the measurement's 2σ, so a ram the
    camera cannot tell from contact stands)."""
    a, b = placed(state, rammer), placed(state, target)
    if a is None or b is None:
        return  # no camera: the referee's word that it was a ram
    if len(state.paths.get(rammer.id, ())) <= 1:
        raise Refused(say("{name} has not moved this turn: a ram is made while moving", name=rammer.name), "§14")
    gap = measure(a, b, convention(state))
    if gap.mm > CONTACT_MM and not gap.too_close_to_call(CONTACT_MM / state.step_mm):  # the gap measure found
        raise Refused(
            say(
                "{name} is {steps} steps from {name2}: a ram ends in contact",
                name=rammer.name,
                name2=target.name,
                steps=f"{gap.exact:.1f}",
            ),
            "§14",
        )


@fighters_action(
    "ram",
    "§14",
    arg.model("rammer", "the vehicle that rams", required=True),
    arg.model("target", "the enemy rammed", required=True),
)
def ram(state: QuickState, seq: int, args: Mapping[str, Any], roller: Roller) -> tuple[QuickState, Ruling]:
    """§14: a moving vehicle rams a vehicle: d6 + its Armour against the target's Armour, and the
    target answers the same way.  Infantry always dodge."""
    rammer = _can_act(state, state.fighters.get(str(args.get("rammer"))), "rammer")
    target = _target(state, args.get("target"), rammer)
    if rammer.kind != "vehicle" or target.kind != "vehicle":
        raise Refused(say("only a vehicle rams, and only a vehicle (infantry always dodge)"), "§14")
    _rams_into_contact(state, rammer, target)
    before = state
    state, said = _strike(state, roller, f"{seq}/ram", target, rammer.armour, target.armour)
    state, back = _strike(
        state, roller, f"{seq}/ram-back", state.fighters[rammer.id], target.armour, before.fighters[rammer.id].armour
    )
    text = say(
        "{name} rams {name2}: {said}; it answers: {back}.", name=rammer.name, name2=target.name, said=said, back=back
    )
    return state, Ruling(
        f"{seq}:ram",
        seq,
        RulingKind.MELEE,
        text,
        "§14 §9",
        element=rammer.id,
        details={"rammer": rammer.id, "target": target.id},
    )
