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
from ...measure.templates import scatter
from ...measure.terrain import line_of_sight
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..inputs import Args
from ..text import Text, joined, say
from . import turns, vehicles
from .blasts import blast_area, hit_under
from .shooting import COVER_TYPES, HIT, visible
from .state import INCH, INPUTS, MileState, Rules
from .turns import morale_test
from .where import placed, placed_many

MORTAR_MINIMUM_IN = 12.0  # §9.2
SPOTTER_IN = 8.0  # §9.2
AIMED_SCATTER = 2  # §9.2: an aimed mortar takes 2 + the crew's Shooting off its d10
UNAIMED_GUN = -2  # §9.3
EYE_MM = 25.0
DIRECT_HIT_POWER = 8  # §7.3


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
    arg.point("at", "the target point on the table, [x, y] in mm", required=True),
    arg.flag("aimed", "aimed: both actions"),
    arg.model("spotter", "a base of its side that sees the point"),
)
def mortar(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, Ruling]:
    roller = rules.roller
    gunner = state.fighters.get(str(args.get("gunner")))
    point, aimed, spotter = args.get("at"), bool(args.get("aimed", False)), args.get("spotter")
    if gunner is None or not gunner.standing or gunner.weapon != "mortar":
        raise Refused(say("give a standing mortar crewman"), "§9.2")
    if not (isinstance(point, list) and len(point) == 2 and all(isinstance(c, (int, float)) for c in point)):
        raise Refused(say('give the target point as "at": [x_mm, y_mm]'), "§9.2")
    me = placed(state, gunner.id)
    if me is None:
        raise Refused(say("the camera has not placed {gunner}", gunner=gunner.id), "§9.2")
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
        apart = math.hypot(spot.base.x - me.base.x, spot.base.y - me.base.y) if spot is not None else math.inf
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


@INPUTS.register(
    "field_gun",
    "§9.3",
    arg.model("gunner", "the field gun's crewman who fires", required=True),
    arg.model("target", "the base shot at", required=True),
    arg.flag("aimed", "aimed: both actions"),
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
    if me is None or them is None:
        raise Refused(say("the camera has not placed both bases"), "§9.3")
    if not _sees_point(state, gunner.id, (them.base.x, them.base.y)):
        raise Refused(say("the gun cannot see {target}", target=target.id), "§9.3")
    state = _crew_actions(state, gunner.id, 3 if aimed else 2)
    weapon = weapons["field_gun"]
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
    centre = (them.base.x, them.base.y)
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
    if total < need:
        drift = roller.roll(6, f"{seq}/gun/drift")
        direction = roller.roll(state.options.scatter_sides, f"{seq}/gun/direction")
        centre = scatter(centre, direction, state.options.scatter_sides, drift * INCH)
        words.append(say('the shell lands {drift}" off towards {direction}', drift=drift, direction=direction))
    state, hurt, squads = _shell(state, seq, centre, roller, f"{seq}/gun")
    words += hurt or [say('nobody within 2"')]
    text = (
        say(
            "{gunner} fires the field gun{what} at {target}: ",
            gunner=gunner.id,
            what=say(" (aimed)") if aimed else say(" (unaimed, -2)"),
            target=target.id,
        )
        + joined(words, "; ")
        + "."
    )
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


SUPPORT_MARKERS = 3  # §16.4
SUPPORT_POWER = 2
SUPPORT_DIRECT_POWER = 7
MARKER_SHIFT_IN = 3.0


@INPUTS.register(
    "artillery_markers",
    "§16.4 step 1",
    arg.points("markers", "three points in the enemy's zone, each [x, y] in mm", required=True),
)
def place_support(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    """§16.4 step 1: before deployment, three markers in the enemy's zone, each drifting 2d6"."""
    roller = rules.roller
    side = state.options.artillery_support
    points = args.get("markers")
    if side is None or state.turn or state.support_markers:
        raise Refused(
            say("the option artillery_support names the side; its markers go down once, before the first turn"), "§16.4"
        )
    if not (
        isinstance(points, list)
        and len(points) == SUPPORT_MARKERS
        and all(isinstance(p, list) and len(p) == 2 and all(isinstance(c, (int, float)) for c in p) for p in points)
    ):
        raise Refused(say('give "markers": three [x_mm, y_mm] points in the enemy deployment zone'), "§16.4")
    placed_at, words = [], []
    for k, (x, y) in enumerate(points):
        drift = roller.roll(6, f"{seq}/support/{k}/a") + roller.roll(6, f"{seq}/support/{k}/b")
        direction = roller.roll(state.options.scatter_sides, f"{seq}/support/{k}/direction")
        at = scatter((float(x), float(y)), direction, state.options.scatter_sides, drift * INCH)
        placed_at.append((round(at[0], 1), round(at[1], 1)))
        words.append(say('marker {n} drifts {drift}" towards {direction}', n=k + 1, drift=drift, direction=direction))
    state = state.evolve(support_markers=tuple(placed_at))
    return state, [
        Ruling(
            f"{seq}:support",
            seq,
            RulingKind.STATUS,
            say("Artillery support for {side}: ", side=side) + joined(words, "; ") + " (§16.4).",
            "§16.4",
            details={"markers": [list(p) for p in placed_at]},
        )
    ]


@INPUTS.register(
    "roll_initiative",
    "§4.2, §16.4 step 2",
    arg.player("first_two", "who the winner by 4 or more gives the first two activations (the winner when left out)"),
)
def roll_initiative(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    """§4.2's initiative, then §16.4 step 2: the guns open each turn once its initiative is rolled."""
    state, rulings = turns.initiative(state, seq, args, rules.roller)
    if state.turn and rulings and rulings[0].kind == RulingKind.INITIATIVE:
        state, shells = bombard(state, seq, rules.roller)
        rulings += shells
    return state, rulings


def bombard(state: MileState, seq: int, roller: Roller) -> tuple[MileState, list[Ruling]]:
    """§16.4 step 2: at the start of every turn a shell lands within d10" of each marker and hits
    everyone within 2" at Power 2 (a vehicle hit squarely at Power 7); the squads hit test Morale."""
    if not state.support_markers:
        return state, []
    rulings: list[Ruling] = []
    shaken: set[str] = set()
    for k, marker in enumerate(state.support_markers):
        distance = roller.roll(10, f"{seq}/shell/{k}/distance")
        direction = roller.roll(state.options.scatter_sides, f"{seq}/shell/{k}/direction")
        centre = scatter(marker, direction, state.options.scatter_sides, distance * INCH)
        everyone = placed_many(state, [f.id for f in state.fighters.values() if f.standing])
        under, extra, where = blast_area(state, centre, everyone)
        words: list[Text] = []
        direct = next((p.id for p in everyone if state.fighters[p.id].vehicle and p.base.contains(centre)), None)
        if direct:
            state, said = vehicles.damage(
                state,
                state.fighters[direct],
                SUPPORT_DIRECT_POWER,
                False,
                roller,
                f"{seq}/shell/{k}/direct",
                direct_hit=True,
            )
            words.append(say("direct hit: ") + said)
            under = [f for f in under if f != direct]
        shaken |= {s for f in under if (s := state.fighters[f].squad)}
        state, more, _ = hit_under(
            state, under, roller, f"{seq}/shell/{k}", SUPPORT_POWER + extra, centre, True, bool(extra)
        )
        words += more
        rulings.append(
            Ruling(
                f"{seq}:shell:{k}",
                seq,
                RulingKind.SHOT,
                say(
                    'Artillery support shell {n}: {distance}" off towards {direction}',
                    n=k + 1,
                    distance=distance,
                    direction=direction,
                )
                + (": " + joined(words, "; ") if words else say(': nobody within 2"'))
                + " (§16.4).",
                "§16.4",
                details={"template": {"circle": [round(centre[0], 1), round(centre[1], 1), round(2.0 * INCH, 1)]}},
            )
        )
    for squad in sorted(s for s in shaken if state.standing(s)):
        state, test = morale_test(state, seq, squad, roller, say("under artillery fire"))
        rulings.append(test)
    return state, rulings


@INPUTS.register(
    "move_marker",
    "§16.4 step 3",
    arg.integer("marker", "which marker, 0-2", 0, 2, required=True),
    arg.point("to", "where it goes, [x, y] in mm, at most 3 inches away", required=True),
)
def shift_marker(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    """§16.4 step 3: after the bombardment one marker may move 3" in any direction."""
    k, to = args.get("marker"), args.get("to")
    if not isinstance(k, int) or not 0 <= k < len(state.support_markers) or not (isinstance(to, list) and len(to) == 2):
        raise Refused(say('give "marker" (0-2) and "to": [x_mm, y_mm]'), "§16.4")
    old = state.support_markers[k]
    if ((to[0] - old[0]) ** 2 + (to[1] - old[1]) ** 2) ** 0.5 > MARKER_SHIFT_IN * INCH + 1.0:
        raise Refused(say('a marker moves at most 3"'), "§16.4")
    markers = list(state.support_markers)
    markers[k] = (float(to[0]), float(to[1]))
    return state.evolve(support_markers=tuple(markers)), [
        Ruling(f"{seq}:marker", seq, RulingKind.STATUS, say("Artillery marker {n} moves (§16.4).", n=k + 1), "§16.4")
    ]
