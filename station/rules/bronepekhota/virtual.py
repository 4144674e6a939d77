"""§7 virtual shooting: dice resolve every shot, on the camera's positions and the terrain.

The referee (or a player at the dashboard) declares shooter, target and weapon (§7.2).  The
station checks §3.2 turn, §7.6 rate of fire, §7.7 ammunition and the §7.3 conditions (field of
view, line of fire, not in close combat), measures the distance in steps rounded up and the
cover (Table 5), then rolls: I Range against the distance (doubled by §11.1 aimed fire), II each
Power die against the armour plus cover, III the pilot's Survival Test for a damaged vehicle,
IV special properties (an exploding weapon attacks everything within 2 steps with 1D20).
Grenades (§7.8) explode D6 steps towards the target and attack everything within 1 step.
Every roll is journaled through the injected roller; every measurement goes with its ruling.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ...dice import DiceExpression, Roller
from ...measure.measurement import Measurement, Placed, measure
from ...measure.pairwise import edge_distances
from ...measure.relations import bearing_deg, bearing_sigma_deg
from ...measure.templates import blast
from ...measure.terrain import line_of_sight
from ...measure.units import BRONEPEKHOTA
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind, voided
from ..inputs import Args
from ..text import Text, joined, say
from . import contact
from .damage import pilot_after_damage, take_damage
from .melee import MELEE_MARK
from .moving import AIMED_MARK, JUMP_MARK
from .panic import PANIC_MARK
from .roster import name
from .shooting import _check_players_out, _whose_turn
from .state import INPUTS, REPAIR_MARK, Element, GameState, Rules, Weapon
from .tables import cover

STEP_MM = BRONEPEKHOTA.unit.mm
EYE = 0.9  # a model looks from near the top of its cylinder, as on the dashboard
GRENADE = Weapon("grenade", "grenade", "D6", "1D20")  # §7.8: Range D6, blast 1 step, Power 1D20
BLAST_POWER = "1D20"  # §7.4 IV and §7.8
EXPLOSION_STEPS = 2  # §7.4 IV: the heavy rocket attacks everything within 2 steps of the target
GRENADE_BLAST_STEPS = 1


@INPUTS.register(
    "virtual_shot",
    "§7",
    arg.model("shooter", "the model that shoots", required=True),
    arg.model("target", "the model shot at", required=True),
    arg.weapon("weapon", "which of the shooter's weapons (needed when it has several)"),
    arg.flag("aimed", "aimed fire (§11.1)"),
    arg.flag("grenade", "a grenade, not a weapon (§7.8)"),
    arg.taped(
        arg.integer(
            "distance",
            "steps to the target, by the referee's tape when the camera has not placed both",
            0,
            200,
            distance=True,
        )
    ),
    arg.taped(arg.number("hidden", "the share of the target hidden, 0-1, when the camera has not placed both", 0, 1)),
)
def virtual_shot(rules: Rules, state: GameState, seq: int, args: Args) -> tuple[GameState, list[Ruling]]:
    roller = rules.roller
    rid = f"{seq}:virtual"
    try:
        shooter, target, weapon, aimed, grenade = _declared(state, args)
        state, rulings = _turn(state, seq, shooter)
        shooter = state.elements[shooter.id]
        _check_can_fire(state, shooter, weapon, grenade)
        aim = None if grenade else _aim(state, shooter, target, args)
    except Refused as no:
        return state, [
            Ruling(
                rid,
                seq,
                RulingKind.SHOT,
                say("Virtual shot refused: {no}.", no=no.text),
                no.section,
                needs_referee=True,
                refused=True,
                element=args.get("shooter") if isinstance(args.get("shooter"), str) else None,
            )
        ]
    override = state.overrides.get(rid)
    void = voided(
        state.overrides,
        seq,
        rid,
        say(
            "{shooter}'s virtual shot at {target}: voided by the referee.",
            shooter=name(state, shooter.id),
            target=name(state, target.id),
        ),
        RulingKind.SHOT,
        "§7.4",
        shooter.id,
    )
    if void:
        return state, rulings + [void]
    state = _spend(state, shooter, weapon, grenade, aimed)
    key = f"{override[0] if override else seq}/virtual"
    if aim is None:  # a grenade: no aim to take (_aim gives one for every other weapon)
        state, shot = _grenade(state, seq, shooter, target, roller, key)
    else:
        state, shot = _aimed_shot(state, seq, shooter, target, weapon, aimed, aim, roller, key)
    state, out = _check_players_out(state, seq)
    return state, rulings + [shot] + out


def _declared(state: GameState, args: Mapping[str, Any]) -> tuple[Element, Element, Weapon, bool, bool]:
    if state.options.shooting != "virtual":
        raise Refused(
            say("this game is played with real shooting; virtual shots need the option shooting=virtual"), "§1.2"
        )
    shooter, target = state.elements.get(str(args.get("shooter"))), state.elements.get(str(args.get("target")))
    if shooter is None or target is None:
        raise Refused(
            say(
                "give a shooter and a target among the armies' models (got {get}, {get2})",
                get=repr(args.get("shooter")),
                get2=repr(args.get("target")),
            ),
            "§7.2",
        )
    grenade, aimed = bool(args.get("grenade")), bool(args.get("aimed"))
    if grenade:
        if shooter.kind != "infantry" or not state.options.grenades:
            raise Refused(say("only infantry throw grenades, and only when the grenade rule is on"), "§7.8")
        if aimed:
            raise Refused(say("aimed fire does not apply to grenades"), "§11.1")
        return shooter, target, GRENADE, False, True
    weapons = state.setup.weapons.get(shooter.id, ())
    wanted = args.get("weapon")
    weapon = (
        next((w for w in weapons if w.id == wanted), None) if wanted else (weapons[0] if len(weapons) == 1 else None)
    )
    if weapon is None:
        have = ", ".join(w.id for w in weapons) or "none"
        raise Refused(
            say(
                "{shooter} has no weapon {wanted} (its weapons: {have})",
                shooter=name(state, shooter.id),
                wanted=repr(wanted),
                have=have,
            )
            if wanted
            else say(
                "say which weapon {shooter} fires (its weapons: {have})", shooter=name(state, shooter.id), have=have
            ),
            "§7.1",
        )
    if aimed and (shooter.kind != "infantry" or not state.options.aimed_fire):
        raise Refused(say("only infantry aim, with their own weapon, when the aimed-fire rule is on"), "§11.1")
    if aimed and (
        len(state.paths.get(shooter.id, ())) > 1 or MELEE_MARK in shooter.fired or JUMP_MARK in shooter.fired
    ):
        raise Refused(
            say(
                "{shooter} has moved or fought this round; aimed fire is for one who only shoots",
                shooter=name(state, shooter.id),
            ),
            "§11.1",
        )
    return shooter, target, weapon, aimed, False


def _turn(state: GameState, seq: int, shooter: Element) -> tuple[GameState, list[Ruling]]:
    if state.round == 0:
        raise Refused(say("no round has begun"), "§3")
    if shooter.destroyed:
        raise Refused(say("{shooter} is destroyed", shooter=name(state, shooter.id)), "§5.1")
    if shooter.kind == "vehicle" and shooter.pilot is None:
        raise Refused(say("{shooter} has no pilot", shooter=name(state, shooter.id)), "§1.6")
    if shooter.kind == "infantry" and shooter.aboard:
        raise Refused(say("{shooter} is piloting a vehicle", shooter=name(state, shooter.id)), "§2.3")
    state, rulings, problem = _whose_turn(state, seq, shooter)
    if problem:
        raise Refused(say("{problem}", problem=problem) if not isinstance(problem, Text) else problem, "§3.2")
    return state, rulings


def _check_can_fire(state: GameState, shooter: Element, weapon: Weapon, grenade: bool) -> None:
    if shooter.posture == "fallen" or shooter.needs_repair:
        raise Refused(say("{shooter} is lying on its side", shooter=name(state, shooter.id)), "§6.7")
    if PANIC_MARK in shooter.fired:
        raise Refused(
            say("{shooter} is fleeing in panic until the next round", shooter=name(state, shooter.id)), "§11.2"
        )
    if REPAIR_MARK in shooter.fired:  # §9.3: a repair takes all the repairer's actions this round
        whose = say("its pilot is repairing it") if shooter.kind == "vehicle" else say("he is repairing")
        raise Refused(
            say("{shooter} may not shoot: {whose} this round", shooter=name(state, shooter.id), whose=whose), "§9.3"
        )
    used = {f for f in shooter.fired if f.startswith("virtual:")}
    if shooter.kind == "infantry":
        if used:  # §7.6: one shot from his weapon, or one grenade, a round
            raise Refused(say("{shooter} has already fired this round", shooter=name(state, shooter.id)), "§7.6")
    else:
        # §7.6: each weapon once is a боевая машина's rule; a gun fires up to its rate of fire
        if shooter.kind == "vehicle" and f"virtual:{weapon.id}" in used:
            raise Refused(
                say(
                    "{name} of {shooter} has already fired this round",
                    name=weapon.name,
                    shooter=name(state, shooter.id),
                ),
                "§7.6",
            )
        rate = state.setup.rate_of_fire[shooter.id]
        if len(used) >= rate:
            why = (
                say("rate of fire 0: it cannot fire this round")
                if rate == 0
                else say("rate of fire {rate} is used up this round", rate=rate)
            )
            raise Refused(say("{shooter}: {why}", shooter=name(state, shooter.id), why=why), "§7.6")
        if state.options.ammo == "limited":  # §7.7: infantry ammunition is never tracked
            cost = DiceExpression.parse(weapon.power).count
            if shooter.ammo == 0:  # (machines always count their ammunition: army.py)
                raise Refused(
                    say(
                        "{shooter}'s ammunition is exhausted for the rest of the game", shooter=name(state, shooter.id)
                    ),
                    "§7.7",
                )
            if shooter.ammo is not None and shooter.ammo < cost and state.options.ammo_shortfall == "refuse":
                raise Refused(
                    say("{ammo} ammunition left, {name} costs {cost}", ammo=shooter.ammo, name=weapon.name, cost=cost),
                    "§7.7 §Z.9",
                )
    if shooter.kind == "gun":
        crewman_for(state, shooter)
    touching = contact.touching_enemies(state, shooter)
    if touching:
        raise Refused(
            say(
                "{shooter} touches {names}: no shooting in close combat",
                shooter=name(state, shooter.id),
                names=", ".join(name(state, t) for t in touching),
            ),
            "§7.3",
        )


def crewman_for(state: GameState, gun: Element) -> str:
    """§7.5-7.6: the crewman touching the gun who fires it: one who has not fired his own weapon
    (or repaired) this round, «либо из орудия, либо из своего личного оружия»; he may fire the
    gun as often as its rate of fire."""
    crew = contact.crew_touching(state, gun)
    if not crew:
        raise Refused(
            say("no infantryman of rank {rank}+ was seen touching {gun}", rank=gun.rank, gun=name(state, gun.id)),
            "§7.5",
        )
    serving = f"virtual:gun:{gun.id}"
    free = [c for c in crew if all(f == serving or not (f.startswith("virtual:") or f == REPAIR_MARK)
                                   for f in state.elements[c].fired)]  # fmt: skip
    if not free:
        names = ", ".join(name(state, c) for c in crew)
        raise Refused(
            say(
                "{names} fired his own weapon or repaired this round; a crewman fires either the gun or his own weapon",
                names=names,
            ),
            "§7.6",
        )
    return next((c for c in free if serving in state.elements[c].fired), free[0])


def _spend(state: GameState, shooter: Element, weapon: Weapon, grenade: bool, aimed: bool) -> GameState:
    """§7.6 the weapon has fired this round (and a gun's crewman has used his shot on it, §7.5);
    §7.7 the slider moves down before the shot."""
    ammo = shooter.ammo
    if shooter.kind != "infantry" and state.options.ammo == "limited":
        ammo = max(0, (shooter.ammo or 0) - DiceExpression.parse(weapon.power).count)
    if shooter.kind == "gun":
        crewman = state.elements[crewman_for(state, shooter)]
        state = state.with_element(replace(crewman, fired=crewman.fired | {f"virtual:gun:{shooter.id}"}))
    shot = f"virtual:{weapon.id}"
    if shooter.kind == "gun":  # a gun's weapon fires up to its rate of fire: count each shot (§7.6)
        shot += f"#{sum(f.startswith('virtual:') for f in shooter.fired) + 1}"
    marks = {shot} | ({AIMED_MARK} if aimed else set())
    return state.with_element(replace(shooter, ammo=ammo, fired=shooter.fired | marks))


@dataclass(frozen=True)
class Aim:
    """What §7.3 and §7.4 I need measured before a shot: the distance in steps and the cover."""

    steps: int
    cover: dict[str, Any]
    details: dict[str, Any]
    doubts: tuple[Text, ...]
    distance: Measurement | None  # None when the referee measured by hand
    target: Placed | None


def _aim(state: GameState, shooter: Element, target: Element, args: Mapping[str, Any]) -> Aim:
    """§7.3: in the field of view, a line of fire, and Table 5 cover, measured on the camera's
    positions and the terrain; or, for models the camera has not placed, the referee's own
    ``distance`` (steps) and ``hidden`` (share of the target hidden, 0-1)."""
    me, them = contact.placed(state, shooter.id), contact.placed(state, target.id)
    details: dict[str, Any] = {"shooter": shooter.id, "target": target.id}
    if me is None or them is None:
        distance, hidden = args.get("distance"), args.get("hidden", 0.0)
        if (
            not isinstance(distance, int)
            or isinstance(distance, bool)
            or distance < 0
            or not isinstance(hidden, (int, float))
            or not 0 <= hidden <= 1
        ):
            missing = name(state, (shooter if me is None else target).id)
            raise Refused(
                say(
                    "the camera has not placed {missing}: measure by hand and give distance (whole steps, rounded up) and hidden (the share of the target hidden, 0 to 1)",
                    missing=missing,
                ),
                "§7.4",
            )
        shade = cover(_counted_hidden(state, float(hidden)))
        if shade["armour"] is None:
            raise Refused(say("the referee sees no line of fire"), "§7.3")
        details.update(by_hand=True, hidden_fraction=float(hidden), cover=shade)
        return Aim(distance, shade, details, (), None, None)
    viewer, doubts = me, []
    if shooter.kind == "gun":  # §7.5: a gun's sector is the field of view of the man firing it
        crewman = contact.placed(state, crewman_for(state, shooter))
        if crewman is not None:  # (the crew touching a gun are those the camera placed there)
            viewer = Placed(me.id, replace(me.base, facing_deg=crewman.base.facing_deg), me.sigma_mm)
            details["crew"] = crewman.id
    offset = abs(bearing_deg(viewer, them))
    if offset > 90.0:  # §7.3 1: only the front half
        raise Refused(
            say(
                "{target} is behind {shooter}'s field of view ({offset}° from its front)",
                target=name(state, target.id),
                shooter=name(state, shooter.id),
                offset=f"{offset:.0f}",
            ),
            "§7.3",
        )
    if 90.0 - offset < bearing_sigma_deg(me, them) * 2:
        doubts.append(say("the target is at the edge of the field of view"))
    sight = line_of_sight(
        me, state.setup.heights[shooter.id] * EYE, them, state.setup.heights[target.id], list(state.terrain)
    )
    shade = cover(_counted_hidden(state, sight.hidden_fraction))
    details.update(hidden_fraction=round(sight.hidden_fraction, 3), cover=shade, blockers=list(sight.blockers))
    if shade["armour"] is None:  # §7.3 2 and Table 5
        raise Refused(
            say(
                "no line of fire: {target} is hidden by {blockers}",
                target=name(state, target.id),
                blockers=", ".join(sight.blockers),
            ),
            "§7.3 Table 5",
        )
    distance = _distance(state, me, them)
    details["measured"] = {**distance.as_dict(), "table_seq": state.table_seq}
    return Aim(int(distance.value), shade, details, tuple(doubts), distance, them)


def _aimed_shot(
    state: GameState,
    seq: int,
    shooter: Element,
    target: Element,
    weapon: Weapon,
    aimed: bool,
    aim: Aim,
    roller: Roller,
    key: str,
) -> tuple[GameState, Ruling]:
    """§7.4 I-IV, once §7.3 and the dice's costs are settled."""
    head = say(
        "{shooter} fires {name} ({range}/{power}) at {target}",
        shooter=name(state, shooter.id),
        name=weapon.name,
        range=weapon.range,
        power=weapon.power,
        target=name(state, target.id),
    )
    details = {**aim.details, "weapon": weapon.id, "aimed": aimed}
    doubts = list(aim.doubts)
    dice = DiceExpression.parse(weapon.range)
    rolls = [roller.roll(dice.sides, f"{key}/range/{k}") for k in range(dice.count)]
    aimed_range = (sum(rolls) + dice.modifier) * (2 if aimed else 1)  # §11.1: the modifier is doubled too
    hit = aimed_range >= aim.steps
    if aim.distance is not None and aim.distance.too_close_to_call(aimed_range):  # another step changes it?
        doubts.append(
            say("the distance is within the camera's uncertainty of {aimed_range} steps", aimed_range=aimed_range)
        )
    details.update(range_rolls=rolls, aimed_range=aimed_range, distance_steps=aim.steps, hit=hit)
    measured = (
        say("{exact} steps counted {steps}", exact=f"{aim.distance.exact:.2f}", steps=aim.steps)
        if aim.distance is not None
        else say("{steps} steps measured by hand", steps=aim.steps)
    )
    words = [
        say("{head}: {measured}; range {range}", head=head, measured=measured, range=weapon.range)
        + (say(" aimed ×2") if aimed else "")
        + say(" rolled {map} → {aimed_range}: ", map="+".join(map(str, rolls)), aimed_range=aimed_range)
        + ("hit" if hit else "miss")
        + " (§7.4 I)"
    ]
    if aim.cover["armour"]:
        words.append(say("cover: {label} (Table 5)", label=aim.cover["label"]))
    if hit:
        explodes = "explodes" in weapon.properties and state.options.weapon_properties
        caught = _near_target(state, aim.target, EXPLOSION_STEPS) if explodes and aim.target is not None else []
        twice = target.id in caught  # its power, then its own blast: one pilot test after both (§7.4 III)
        state, result = attack(
            state, target, weapon.power, aim.cover["armour"], roller, f"{key}/{target.id}", test_pilot=not twice
        )
        words.append(result["text"])
        details["attack"] = result
        if explodes and aim.target is None:
            doubts.append(
                say("the weapon explodes, but the camera has not placed the target: resolve the blast by hand")
            )
        elif explodes:
            state, blasts = _explosion(state, caught, roller, key, tested_later=target.id if twice else None)
            words += blasts
            details["explosion"] = blasts
        if twice:
            state, pilot_words = _one_pilot_test(state, target, result, roller, key)
            words += pilot_words
    text = joined(words, "; ") + "."
    if doubts:
        text += say(" Too close to call: ") + joined(doubts, "; ") + "."
    return state, Ruling(
        f"{seq}:virtual",
        seq,
        RulingKind.SHOT,
        text,
        "§7.3 §7.4" + (" §11.1" if aimed else ""),
        needs_referee=bool(doubts),
        element=shooter.id,
        details=details,
    )


def _counted_hidden(state: GameState, hidden: float) -> float:
    """§Z.11: exactly half visible counts as less than half (the default) or as more."""
    if abs(hidden - 0.5) < 1e-9 and state.options.half_visible == "more":
        return 0.49
    return hidden


def _distance(state: GameState, me: Placed, them: Placed) -> Measurement:
    """§7.4 I, §Z.10: in steps, rounded up, between the base edges (or centres, by option)."""
    return measure(me, them, BRONEPEKHOTA, "edge" if state.options.measure_from == "edge" else "centre")


def attack(
    state: GameState, target: Element, power: str, cover_bonus: int, roller: Roller, key: str, test_pilot: bool = True
) -> tuple[GameState, dict[str, Any]]:
    """§7.4 II and III: each Power die against the armour as it stood before the shot (§Z) plus
    cover; then the damage (§5.1, §5.3), its pilot tested unless the shot tests him later."""
    dice = DiceExpression.parse(power)
    armour = target.armour + cover_bonus
    rolls = [roller.roll(dice.sides, f"{key}/power/{k}") for k in range(dice.count)]
    damage = sum(1 for r in rolls if r + dice.modifier > armour)
    said = say(
        "power {power} rolled {map} against armour {armour}: {damage} damage",
        power=power,
        map=", ".join(map(str, rolls)),
        armour=armour,
        damage=damage,
    )
    result: dict[str, Any] = {"target": target.id, "power_rolls": rolls, "armour": armour, "damage": damage}
    if damage == 0:
        result["text"] = said + say(" (§7.4 II)")
        return state, result
    state, effect = take_damage(state, target, damage, roller, key, test_pilot)
    result.update(effect, text=say("{power}: {effect}", power=said, effect=effect["text"]))
    return state, result


def _explosion(
    state: GameState, caught: list[str], roller: Roller, key: str, tested_later: str | None = None
) -> tuple[GameState, list[Text]]:
    """Everything the blast reaches, friend or foe, attacked with 1D20 by steps II and III
    (§7.4 IV, §7.8); cover does not apply to blasts here (§Z.11).  The shot's own target
    (``tested_later``) has its pilot tested once the whole shot is done."""
    words = []
    for element_id in caught:
        state, result = attack(
            state,
            state.elements[element_id],
            BLAST_POWER,
            0,
            roller,
            f"{key}/blast/{element_id}",
            test_pilot=element_id != tested_later,
        )
        words.append(say("blast on {element_id}: {text}", element_id=name(state, element_id), text=result["text"]))
    return state, words or [say("the blast reaches no one else")]


def _one_pilot_test(
    state: GameState, target: Element, result: dict[str, Any], roller: Roller, key: str
) -> tuple[GameState, list[Text]]:
    """§7.4 III: «для каждого выстрела тест выживания пилота проводится только один раз»: after
    the power and the blast, whichever of them hurt the vehicle, under the key of the power's
    damage (as a shot with no blast on its target has always journaled it)."""
    if target.kind == "infantry" or state.elements[target.id].armour == target.armour:
        return state, []  # no pilot, or neither hurt it
    first = f"{key}/{target.id}" if result.get("damage") else f"{key}/blast/{target.id}"
    state, words, test = pilot_after_damage(state, target.id, roller, first)
    if test is not None:
        result["pilot_test"] = test
    result["destroyed"] = state.elements[target.id].destroyed
    return state, words


def _standing(state: GameState) -> list[Placed]:
    return [
        p
        for p in (contact.placed(state, e.id) for e in state.elements.values() if not e.destroyed and not e.aboard)
        if p is not None
    ]


def _near_target(state: GameState, target: Placed, steps: int) -> list[str]:
    """Every model within ``steps`` of the target, base edge to base edge (§7.4 IV, §Z.10)."""
    others = [p for p in _standing(state) if p.id != target.id]
    if not others:
        return [target.id] if state.options.blast_hits_target else []
    row = edge_distances([target.base] + [p.base for p in others])[0, 1:]
    near = [p.id for p, mm in zip(others, row) if mm <= steps * STEP_MM]
    return ([target.id] if state.options.blast_hits_target else []) + near


def _grenade(
    state: GameState, seq: int, thrower: Element, target: Element, roller: Roller, key: str
) -> tuple[GameState, Ruling]:
    """§7.8: D6 steps from the thrower towards the target, it always explodes: everything within 1
    step of that point is attacked with 1D20 (the thrower too, on a 1: Рис. 46)."""
    rid = f"{seq}:virtual"
    me, them = contact.placed(state, thrower.id), contact.placed(state, target.id)
    if me is None or them is None:
        return state, Ruling(
            rid,
            seq,
            RulingKind.SHOT,
            say(
                "{thrower} throws a grenade, but the camera has not placed both models; resolve it by hand.",
                thrower=name(state, thrower.id),
            ),
            "§7.8",
            needs_referee=True,
            element=thrower.id,
        )
    roll = roller.roll(6, f"{key}/grenade-range")
    dx, dy = them.base.x - me.base.x, them.base.y - me.base.y
    length = math.hypot(dx, dy) or 1.0
    reach = roll * STEP_MM + (me.base.width / 2 if state.options.measure_from == "edge" else 0.0)
    point = (me.base.x + dx / length * reach, me.base.y + dy / length * reach)
    state, words = _explosion(state, blast(point, GRENADE_BLAST_STEPS * STEP_MM, _standing(state)), roller, key)
    text = (
        say(
            "{thrower} throws a grenade at {target}: D6 rolled {roll}, it bursts {roll} steps away (§7.8); ",
            thrower=name(state, thrower.id),
            target=name(state, target.id),
            roll=roll,
        )
        + joined(words, "; ")
        + "."
    )
    return state, Ruling(
        rid,
        seq,
        RulingKind.SHOT,
        text,
        "§7.8",
        element=thrower.id,
        details={
            "thrower": thrower.id,
            "target": target.id,
            "roll": roll,
            "blast_point": [round(point[0], 1), round(point[1], 1)],
            "blasts": words,
        },
    )
