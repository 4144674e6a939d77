"""The Price of a Mile's mortar and field gun (seed 003 digest §9.2-9.3): the crew's Load, Lay
and Fire actions, the mortar's 12" minimum and its spotter within 8", scatter along the arrow
die, the 2" blast at Power 1, and the Morale test for every squad the shell falls on."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from ...dice import Roller
from ...measure.bases import Base
from ...measure.measurement import Placed, pair_sigma, too_close_to_call
from ...measure.relations import gap_mm
from ...measure.templates import scatter
from ...measure.terrain import line_of_sight
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..input_args import BY_THE_REFEREE
from ..inputs import Args
from ..text import NOTHING, Text, joined, say
from . import vehicles
from .blasts import DIRECT_HIT_POWER, blast_area, hit_under
from .shooting import COVER_TYPES, HIT, visible
from .state import INCH, INPUTS, Fighter, Landing, MileState, Rules
from .where import placed, placed_many

MORTAR_MINIMUM_IN = 12.0  # §9.2
SPOTTER_IN = 8.0  # §9.2
AIMED_SCATTER = 2  # §9.2: an aimed mortar takes 2 + the crew's Shooting off its d10
UNAIMED_GUN = -2  # §9.3
TURN_DEGREES = 90  # §9.3: a field gun turns up to 90° an action
EYE_MM = 25.0


def _crew_actions(state: MileState, gunner_id: str, needed: int) -> MileState:
    """§4.4, §9.2: Load, Lay and Fire are one action each, spread over the crew's bases."""
    act = state.activation
    gunner = state.fighters[gunner_id]
    crew = [gunner_id] + [f.id for f in (state.standing(gunner.squad) if gunner.squad else []) if f.id != gunner_id]
    if act is None or gunner_id not in act.actions:
        raise Refused(say("{gunner_id} is not acting in this activation", gunner_id=gunner_id), "§4.3")
    have = sum(act.actions.get(c, 0) for c in crew)
    if have < needed:
        raise Refused(
            say("the crew has {have} action(s) left; Load, Lay and Fire need {needed}", have=have, needed=needed),
            "§9.2 §9.3",
        )
    left = dict(act.actions)
    for c in crew:
        take = min(left.get(c, 0), needed)
        left[c] = left.get(c, 0) - take
        needed -= take
    return state.evolve(activation=replace(act, actions=left))


def _sees_point(state: MileState, who: str, point: tuple[float, float]) -> bool:
    me = placed(state, who)
    if me is None:
        return False
    mark = Placed(say("aim point"), Base("round", 25.0, 25.0, point[0], point[1]), 0.5)
    return line_of_sight(me, EYE_MM, mark, EYE_MM, list(state.terrain)).hidden_fraction <= 2 / 3


def _circle(state: MileState, centre: tuple[float, float]) -> dict[str, Any]:
    """The blast as the map draws it: 3" in a trench, 2" elsewhere (§8.2)."""
    in_trench = any(p.type == "trench" and p.contains(centre) for p in state.terrain)
    return {"circle": [round(centre[0], 1), round(centre[1], 1), round((3.0 if in_trench else 2.0) * INCH, 1)]}


def _shell(
    state: MileState, seq: int, centre: tuple[float, float], roller: Roller, key: str
) -> tuple[MileState, list[Text], list[str]]:
    """A 2" blast at Power 1; every squad under it tests Morale, losses or not (§9.2, §13.1)."""
    everyone = placed_many(state, [f.id for f in state.fighters.values() if f.standing])
    under, extra, where = blast_area(state, centre, everyone)
    squads = sorted({s for f in under if (s := state.fighters[f].squad)})
    words = [where] if where else []
    direct = next((p.id for p in everyone if state.fighters[p.id].vehicle and p.base.contains(centre)), None)
    if direct:  # §9.2-9.3, §15.4: Power 8 and at least one point
        state, said = vehicles.damage(
            state, state.fighters[direct], DIRECT_HIT_POWER, False, roller, f"{key}/direct", direct_hit=True
        )
        words.append(say("direct hit: ") + said)
        under = [f for f in under if f != direct]
    state, more, _ = hit_under(state, under, roller, key, 1 + extra, centre, True, bool(extra))
    words += more
    act = state.acting()
    return state.evolve(activation=replace(act, shaken=act.shaken | set(squads))), words, squads


@INPUTS.register(
    "mortar",
    "§9.2",
    arg.model("gunner", "the mortar crewman who fires", required=True),
    arg.point("at", "the target point on the table, [x, y] in mm (with the camera)"),
    arg.flag("aimed", "aimed: both actions"),
    arg.model("spotter", "a base of its side that sees the point"),
    arg.taped(arg.number("distance", "to the point, by the referee's tape, with no camera: 12 or more", 0, 400, True)),
)
def mortar(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, Ruling]:
    roller = rules.roller
    gunner = state.fighters.get(str(args.get("gunner")))
    point, aimed, spotter = args.get("at"), bool(args.get("aimed", False)), args.get("spotter")
    if gunner is None or not gunner.standing or gunner.weapon != "mortar":
        raise Refused(say("give a standing mortar crewman"), "§9.2")
    me = placed(state, gunner.id)
    if me is None or point is None:
        return _mortar_by_hand(rules, state, seq, gunner, args)
    if not (isinstance(point, list) and len(point) == 2 and all(isinstance(c, (int, float)) for c in point)):
        raise Refused(say('give the target point as "at": [x_mm, y_mm]'), "§9.2")
    target = (float(point[0]), float(point[1]))
    reach = ((target[0] - me.base.x) ** 2 + (target[1] - me.base.y) ** 2) ** 0.5 / INCH
    doubts = []  # limits the camera cannot place the bases on one side of: ruled as measured, for the referee
    if too_close_to_call(reach * INCH, MORTAR_MINIMUM_IN * INCH, me.sigma_mm):
        doubts.append(say('the point is {reach}" away, within the camera\'s uncertainty of 12"', reach=f"{reach:.2f}"))
    elif reach < MORTAR_MINIMUM_IN:
        raise Refused(say('the point is {reach}" away; a mortar fires at 12" or more', reach=f"{reach:.1f}"), "§9.2")
    if not _sees_point(state, gunner.id, target):
        friend = state.fighters.get(str(spotter)) if spotter else None
        spot = placed(state, friend.id) if friend and friend.player == gunner.player and friend.standing else None
        # «дружественная база в пределах 8" от миномёта»: between two bases, edge to edge, as every
        # distance between bases in this game (command distance, contact); it was centre to centre
        apart = gap_mm(me, spot) if spot is not None else math.inf
        borderline = spot is not None and too_close_to_call(apart, SPOTTER_IN * INCH, pair_sigma(me, spot))
        if borderline:
            doubts.append(say("the spotter is within the camera's uncertainty of 8\" of the mortar"))
        near = apart <= SPOTTER_IN * INCH or borderline
        if not (near and friend is not None and _sees_point(state, friend.id, target)):
            raise Refused(say('the mortar cannot see the point: name a spotter within 8" of it that can'), "§9.2")
    state = _crew_actions(state, gunner.id, 3 if aimed else 2)
    roll = roller.roll(10, f"{seq}/mortar/distance")
    direction = roller.roll(state.options.scatter_sides, f"{seq}/mortar/direction")
    doubted = (
        " " + say("Too close to call: {doubts}; the referee decides.", doubts=joined(doubts, "; ")) if doubts else ""
    )
    if roll == 10:
        return state, Ruling(
            f"{seq}:mortar",
            seq,
            RulingKind.SHOT,
            say("{gunner}'s mortar bomb: d10 10, a misfire or a dud (§9.2).", gunner=gunner.id) + doubted,
            "§9.2",
            needs_referee=bool(doubts),
            element=gunner.id,
        )
    distance = max(0, roll - (AIMED_SCATTER + state.stat(gunner, "shooting") if aimed else 0))
    centre = scatter(target, direction, state.options.scatter_sides, distance * INCH)
    state, words, squads = _shell(state, seq, centre, roller, f"{seq}/mortar")
    text = (
        say(
            '{gunner} fires the mortar{what}: d10 {roll}, scatter {distance}" towards {direction}',
            gunner=gunner.id,
            what=say(" (aimed)") if aimed else "",
            roll=roll,
            distance=distance,
            direction=direction,
        )
        + (": " + joined(words, "; ") if words else say(': nobody within 2"'))
        + "."
        + (say(" Squads {squads} test Morale (§9.2).", squads=", ".join(squads)) if squads else "")
        + doubted
    )
    return state, Ruling(
        f"{seq}:mortar",
        seq,
        RulingKind.SHOT,
        text,
        "§9.2",
        needs_referee=bool(doubts),
        element=gunner.id,
        details={"centre": [round(c, 1) for c in centre], "template": _circle(state, centre)},
    )


def _mortar_by_hand(rules: Rules, state: MileState, seq: int, gunner: Fighter, args: Args) -> tuple[MileState, Ruling]:
    """§9.2 with no camera on the mortar: the referee's tape gives the range (12" or more) and
    their word that the mortar, or the spotter named, sees the point; the dice scatter the bomb,
    and the referee lays the template (``blast``)."""
    reach, aimed, spotter = arg.given_number(args, "distance"), bool(args.get("aimed", False)), args.get("spotter")
    if reach is None:
        raise Refused(
            say(
                "the camera has not placed {gunner}: give the distance to the point in inches, from the tape",
                gunner=gunner.id,
            ),
            "§9.2",
        )
    if reach < MORTAR_MINIMUM_IN:
        raise Refused(say('the point is {reach}" away; a mortar fires at 12" or more', reach=f"{reach:g}"), "§9.2")
    friend = state.fighters.get(str(spotter)) if spotter is not None else None
    if spotter is not None and (friend is None or friend.player != gunner.player or not friend.standing):
        raise Refused(say("the spotter must be a standing base of the mortar's side"), "§9.2")
    state = _crew_actions(state, gunner.id, 3 if aimed else 2)
    roll = rules.roller.roll(10, f"{seq}/mortar/distance")
    direction = rules.roller.roll(state.options.scatter_sides, f"{seq}/mortar/direction")
    seen = (
        say(" (the referee's word: {spotter} sees the point within 8\")", spotter=friend.id)
        if friend is not None
        else say(" (the referee's word: it sees the point)")
    )
    if roll == 10:
        text = say("{gunner}'s mortar bomb: d10 10, a misfire or a dud (§9.2).", gunner=gunner.id)
        return state, Ruling(
            f"{seq}:mortar", seq, RulingKind.SHOT, text, "§9.2", element=gunner.id, details=BY_THE_REFEREE
        )
    distance = max(0, roll - (AIMED_SCATTER + state.stat(gunner, "shooting") if aimed else 0))
    state, ask = state.await_template(Landing(seq, "mortar", gunner.id, 1, True))
    text = (
        say(
            '{gunner} fires the mortar{what} {reach}" by the tape{seen}: d10 {roll}, scatter {distance}" towards {direction}. ',
            gunner=gunner.id,
            what=say(" (aimed)") if aimed else "",
            reach=f"{reach:g}",
            seen=seen,
            roll=roll,
            distance=distance,
            direction=direction,
        )
        + ask
    )
    return state, Ruling(
        f"{seq}:mortar",
        seq,
        RulingKind.SHOT,
        text,
        "§9.2",
        element=gunner.id,
        details={"scatter": [distance, direction], "asks": "blast"} | BY_THE_REFEREE,
    )


@INPUTS.register(
    "field_gun",
    "§9.3",
    arg.model("gunner", "the field gun's crewman who fires", required=True),
    arg.model("target", "the base shot at", required=True),
    arg.flag("aimed", "aimed: both actions"),
    arg.taped(
        arg.number("distance", "edge to edge, by the referee's tape, when the camera has not placed both", 0, 400, True)
    ),
    arg.taped(arg.flag("cover", "the target is in cover (the referee's word, likewise)")),
)
def field_gun(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, Ruling]:
    """§9.3: fired like a small arm (-2 unaimed); a natural 1 misfires; a miss lands d6" off."""
    roller = rules.roller
    weapons = rules.data["weapons"]
    gunner, target = state.fighters.get(str(args.get("gunner"))), state.fighters.get(str(args.get("target")))
    aimed = bool(args.get("aimed", False))
    if gunner is None or not gunner.standing or gunner.weapon != "field_gun":
        raise Refused(say("give a standing field-gun crewman"), "§9.3")
    if target is None or not target.standing or target.player == gunner.player:
        raise Refused(say("give a standing enemy target"), "§9.3")
    me, them = placed(state, gunner.id), placed(state, target.id)
    taped = arg.given_number(args, "distance")
    if (me is None or them is None) and taped is None:
        raise Refused(
            say(
                "the camera has not placed both bases: give the distance in inches, edge to edge, from the tape (and cover)"
            ),
            "§9.3",
        )
    if me is not None and them is not None and not _sees_point(state, gunner.id, (them.base.x, them.base.y)):
        raise Refused(say("the gun cannot see {target}", target=target.id), "§9.3")
    state = _crew_actions(state, gunner.id, 3 if aimed else 2)
    weapon = weapons["field_gun"]
    if me is None or them is None:  # the referee's tape and word: the gun sees it, at this range, in cover or not
        edge_in, cover = float(taped or 0.0), bool(args.get("cover"))
    else:
        edge_in = ((them.base.x - me.base.x) ** 2 + (them.base.y - me.base.y) ** 2) ** 0.5 / INCH
        # «Стрельба ведется как из обычного стрелкового оружия»: the target's cover counts (§6.3), and
        # «Стрельба по технике и танкам получает бонус +1» (§15.4)
        cover = state.stands_in(target.id, COVER_TYPES) or bool(visible(state, gunner, target)[2])
    need = HIT[(edge_in > weapon["range_in"], cover)]
    parts = [("Shooting", state.stat(gunner, "shooting")), ("accuracy", weapon["accuracy"])]
    parts += [("unaimed", UNAIMED_GUN)] if not aimed else []
    parts += [("vehicle", 1)] if target.vehicle else []
    roll = roller.roll(10, f"{seq}/gun/hit")
    total = roll + sum(v for _, v in parts)
    if roll == 1:
        return state, Ruling(
            f"{seq}:gun",
            seq,
            RulingKind.SHOT,
            say("{gunner}'s field gun: a natural 1, a misfire or a dud (§9.3).", gunner=gunner.id),
            "§9.3",
            element=gunner.id,
        )
    shown = ", ".join(f"{n} {v:+d}" for n, v in parts)
    words = [
        say(
            "d10 {roll} ({shown}) → {total} against {need}+{what}: ",
            roll=roll,
            shown=shown,
            total=total,
            need=need,
            what=say(" (in cover)") if cover else "",
        )
        + (say("a hit") if total >= need else say("a miss"))
    ]
    drift = (
        (roller.roll(6, f"{seq}/gun/drift"), roller.roll(state.options.scatter_sides, f"{seq}/gun/direction"))
        if total < need
        else None
    )
    if drift is not None:
        words.append(say('the shell lands {drift}" off towards {direction}', drift=drift[0], direction=drift[1]))
    fired = say(
        "{gunner} fires the field gun{what} at {target}: ",
        gunner=gunner.id,
        what=say(" (aimed)") if aimed else say(" (unaimed, -2)"),
        target=target.id,
    )
    if me is None or them is None:
        state, ask = state.await_template(Landing(seq, "field_gun", gunner.id, 1, True))
        on = say(" {target} is under its centre.", target=target.id) if drift is None else NOTHING
        return state, Ruling(
            f"{seq}:gun",
            seq,
            RulingKind.SHOT,
            fired + joined(words, "; ") + say(' ({edge_in}" by the tape).', edge_in=f"{edge_in:g}") + on + " " + ask,
            "§9.3",
            element=gunner.id,
            details={"hit": total >= need, "asks": "blast"} | BY_THE_REFEREE,
        )
    centre = (them.base.x, them.base.y)
    if drift is not None:
        centre = scatter(centre, drift[1], state.options.scatter_sides, drift[0] * INCH)
    state, hurt, squads = _shell(state, seq, centre, roller, f"{seq}/gun")
    words += hurt or [say('nobody within 2"')]
    text = fired + joined(words, "; ") + "."
    if squads:
        text += say(" Squads {squads} test Morale (§9.3).", squads=", ".join(squads))
    return state, Ruling(
        f"{seq}:gun",
        seq,
        RulingKind.SHOT,
        text,
        "§9.3",
        element=gunner.id,
        details={"centre": [round(c, 1) for c in centre], "hit": total >= need, "template": _circle(state, centre)},
    )


@INPUTS.register(
    "turn_gun",
    "§9.3",
    arg.model("gunner", "the field gun's crewman who turns it", required=True),
    arg.integer("degrees", "how far it turns, in degrees", 1, 360, required=True),
)
def turn_gun(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, Ruling]:
    """§9.3: «может разворачиваться на 90° за 1 действие»: a field gun does not move, but turns up
    to 90° an action; the camera sees where it then faces."""
    gunner = state.fighters.get(str(args.get("gunner")))
    if gunner is None or not gunner.standing or gunner.weapon != "field_gun":
        raise Refused(say("give a standing field-gun crewman"), "§9.3")
    degrees = int(args["degrees"])
    actions = math.ceil(degrees / TURN_DEGREES)
    state = _crew_actions(state, gunner.id, actions)
    text = say(
        "{gunner} turns the field gun {degrees}°: {actions} action(s), 90° each (§9.3).",
        gunner=gunner.id,
        degrees=degrees,
        actions=actions,
    )
    return state, Ruling(
        f"{seq}:turn_gun", seq, RulingKind.STATUS, text, "§9.3", element=gunner.id, details={"actions": actions}
    )
