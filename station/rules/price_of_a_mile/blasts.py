"""The Price of a Mile grenades and the flamethrower (seed 003 digest §8.1, §9.1), laid on the
table with the measurement layer's templates: a grenade scatters d6 - Shooting inches along the
arrow die and hits everything within 2" (in cover only on a d10 of 6+); the flame is an 8" x 1"
strip that hits everything on it at Power 2, then the fuel may run out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ...dice import Roller
from ...measure.bases import Base, closest_points
from ...measure.measurement import CALL_SIGMAS, Placed
from ...measure.templates import blast, scatter, strip
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..input_args import BY_THE_REFEREE
from ..inputs import Args
from ..text import NOTHING, Text, joined, say
from .shooting import COVER_TYPES, panic, spend, take_hits
from .state import COMMAND_IN, INCH, INPUTS, Fighter, Landing, MileState, Rules
from .where import placed, placed_many

GRENADE_RANGE_IN = 6.0  # §8.1
BLAST_IN = 2.0  # §8.1, §9.2, §9.3
TRENCH_BLAST_IN = 3.0  # §8.2
TRENCH_SAVE = 8  # §8.2
GRENADE_POWER = 1
COVER_SAVE = 6  # §8.1: a target in cover is hit only on a d10 of 6+
# where a thrower (or else its target) must be (§8.1); a trench is entered in difficult-terrain mode (§5.6)
DIFFICULT = ("woods", "water", "obstacle", "building", "trench")
DIRECT_HIT_POWER = 8  # §7.3, §15.4: a shell's centre on a vehicle
FLAME_LENGTH_IN, FLAME_WIDTH_IN, FLAME_POWER = 8.0, 1.0, 2  # §9.1
FUEL_OUT = 2  # §9.1: 1-2 on a d10 after each shot


def blast_area(state: MileState, centre: tuple[float, float], bases: list[Placed]) -> tuple[list[str], int, Text]:
    """§8.2: the bases a blast reaches and its Power bonus.  In a trench it spreads 3" along it,
    +1 Power, and spares everyone outside; elsewhere it is 2"."""
    trench = next((p for p in state.terrain if p.type == "trench" and p.contains(centre)), None)
    if trench is None:
        return blast(centre, BLAST_IN * INCH, bases), 0, NOTHING
    inside = [b for b in bases if trench.contains((b.base.x, b.base.y))]
    return blast(centre, TRENCH_BLAST_IN * INCH, inside), 1, say(' in {trench} (3", +1 Power, §8.2)', trench=trench.id)


def hit_under(
    state: MileState,
    ids: list[str],
    roller: Roller,
    key: str,
    power: int,
    source: tuple[float, float] | None,
    cover_save: bool,
    trench_epicentre: bool = False,
    said_cover: Mapping[str, str] | None = None,
) -> tuple[MileState, list[Text], list[str]]:
    """Hit every base listed (each its own target, §8.1); returns the state, what happened, and
    the squads hit (they test Morale if it was flame or artillery).  A blast from outside reaches
    a base in a trench only on a d10 of 8+ (§8.2), one in other cover on 6+ (§8.1).  Where each
    base stands is the camera's, or ``said_cover`` (base -> "trench" or "cover"), the referee's."""
    words: list[Text] = []
    squads: list[str] = []
    wavered: dict[str | None, int] = {}

    def shelter(fid: str) -> str | None:
        if said_cover is not None:
            return said_cover.get(fid)
        return "trench" if state.stands_in(fid, ("trench",)) else "cover" if state.stands_in(fid, COVER_TYPES) else None

    for fid in ids:
        victim = state.fighters[fid]
        if cover_save and not trench_epicentre and shelter(fid) == "trench":
            roll = roller.roll(10, f"{key}/{fid}/trench")
            if roll < TRENCH_SAVE:
                words.append(say("{fid} in its trench escapes (d10 {roll})", fid=fid, roll=roll))
                continue
        elif cover_save and shelter(fid) is not None:
            roll = roller.roll(10, f"{key}/{fid}/cover")
            if roll < COVER_SAVE:
                words.append(say("{fid} in cover escapes (d10 {roll})", fid=fid, roll=roll))
                continue
        state, said, w = take_hits(state, 0, 1, power, None, victim, source, roller, f"{key}/{fid}", hand_held=False)
        words += said
        wavered[victim.squad] = wavered.get(victim.squad, 0) + w
        if victim.squad:
            squads.append(victim.squad)
    for squad, count in wavered.items():
        state, fled = panic(state, squad, count, source)
        if fled:
            words.append(fled)
    return state, words, sorted(set(squads))


@INPUTS.register(
    "grenade",
    "§8.1",
    arg.model("thrower", "the base that throws", required=True),
    arg.point("at", "the aim point, [x, y] in mm, within 6 inches (with the camera)"),
    arg.taped(
        arg.number("distance", "to the aim point, by the referee's tape, with no camera: 6 or less", 0, 200, True)
    ),
    arg.taped(
        arg.flag(
            "difficult",
            "the thrower, or the aim point, is in difficult terrain or behind an obstacle (the referee's word)",
        )
    ),
)
def grenade(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, Ruling]:
    """§8.1: 1 action; the point within 6"; scatter d6 - Shooting along the arrow die."""
    roller = rules.roller
    thrower = state.fighters.get(str(args.get("thrower")))
    if thrower is None or not thrower.standing or not thrower.grenades:
        raise Refused(say("give a standing base that carries grenades"), "§8.1")
    point = args.get("at")
    me = placed(state, thrower.id)
    if me is None or point is None:
        return _grenade_by_hand(rules, state, seq, thrower, args)
    if not (isinstance(point, list) and len(point) == 2 and all(isinstance(c, (int, float)) for c in point)):
        raise Refused(say('give the aim point as "at": [x_mm, y_mm]'), "§8.1")
    reach = _from_edge(me, point)
    doubt = CALL_SIGMAS * me.sigma_mm  # no float noise refuses a throw at 6.0": within it, the referee decides
    if reach > GRENADE_RANGE_IN * INCH + doubt:
        raise Refused(say('the point is {n}" away; a grenade reaches 6"', n=f"{reach / INCH:.1f}"), "§8.1")
    borderline = reach > GRENADE_RANGE_IN * INCH
    covered = any(p.type in DIFFICULT and p.contains(point) for p in state.terrain)
    if not state.stands_in(thrower.id, DIFFICULT) and not covered:
        raise Refused(
            say("a thrower in the open may only throw at a target in difficult terrain or behind an obstacle"), "§8.1"
        )
    state = spend(state, thrower, 1, "§8.1")
    act = state.acting()
    state = state.evolve(activation=replace(act, threw=act.threw | {thrower.id}))
    direction = roller.roll(state.options.scatter_sides, f"{seq}/grenade/direction")
    distance = max(0, roller.roll(6, f"{seq}/grenade/distance") - state.stat(thrower, "shooting"))
    centre = scatter((float(point[0]), float(point[1])), direction, state.options.scatter_sides, distance * INCH)
    everyone = placed_many(state, [f.id for f in state.fighters.values() if f.standing])
    hit, extra, where = blast_area(state, centre, everyone)
    state, words, _ = hit_under(state, hit, roller, f"{seq}/grenade", GRENADE_POWER + extra, centre, True, bool(extra))
    text = (
        say(
            '{thrower} throws a grenade: scatter {distance}" towards {direction} on the arrow die{where}; {hit_count} base(s) under it',
            thrower=thrower.id,
            distance=distance,
            direction=direction,
            where=where,
            hit_count=len(hit),
        )
        + (": " + joined(words, "; ") if words else "")
        + say(". It may shoot only pistols for the rest of its activation (§8.1).")
        + (
            say(
                ' The point is {n}" away, within the camera\'s uncertainty of 6": the referee decides.',
                n=f"{reach / INCH:.2f}",
            )
            if borderline
            else ""
        )
    )
    return state, Ruling(
        f"{seq}:grenade",
        seq,
        RulingKind.SHOT,
        text,
        "§8.1",
        needs_referee=borderline,
        element=thrower.id,
        details={
            "centre": [round(c, 1) for c in centre],
            "hit": hit,
            "template": {
                "circle": [round(centre[0], 1), round(centre[1], 1), round((3.0 if extra else BLAST_IN) * INCH, 1)]
            },
        },
    )


def _grenade_by_hand(
    rules: Rules, state: MileState, seq: int, thrower: Fighter, args: Args
) -> tuple[MileState, Ruling]:
    """§8.1 with no camera on the thrower: the referee's tape gives the reach, their word whether
    the throw is allowed from where it stands; the dice scatter it, and the referee lays the
    template and names who is under it (``blast``)."""
    reach = arg.given_number(args, "distance")
    if reach is None:
        raise Refused(
            say(
                "the camera has not placed {thrower}: give the distance to the aim point in inches, from the tape",
                thrower=thrower.id,
            ),
            "§8.1",
        )
    if reach > GRENADE_RANGE_IN:
        raise Refused(say('the point is {n}" away; a grenade reaches 6"', n=f"{reach:.1f}"), "§8.1")
    if not args.get("difficult"):
        raise Refused(
            say(
                "a thrower in the open may only throw at a target in difficult terrain or behind an obstacle: "
                "say difficult when one of them is"
            ),
            "§8.1",
        )
    state = spend(state, thrower, 1, "§8.1")
    act = state.acting()
    state = state.evolve(activation=replace(act, threw=act.threw | {thrower.id}))
    direction = rules.roller.roll(state.options.scatter_sides, f"{seq}/grenade/direction")
    distance = max(0, rules.roller.roll(6, f"{seq}/grenade/distance") - state.stat(thrower, "shooting"))
    state, ask = state.await_template(Landing(seq, "grenade", thrower.id, GRENADE_POWER, False))
    text = (
        say(
            '{thrower} throws a grenade {reach}" (the referee\'s tape): scatter {distance}" towards {direction} on the arrow die. ',
            thrower=thrower.id,
            reach=f"{reach:g}",
            distance=distance,
            direction=direction,
        )
        + ask
        + say(" It may shoot only pistols for the rest of its activation (§8.1).")
    )
    return state, Ruling(
        f"{seq}:grenade",
        seq,
        RulingKind.SHOT,
        text,
        "§8.1",
        element=thrower.id,
        details={"scatter": [distance, direction], "asks": "blast"} | BY_THE_REFEREE,
    )


def _from_edge(me: Placed, point: Sequence[float]) -> float:
    """From the thrower's base edge to a point on the table."""
    return closest_points(me.base, Base("round", 0.2, 0.2, float(point[0]), float(point[1])))[0]


@INPUTS.register(
    "flame",
    "§9.1",
    arg.model("operator", "the flamethrower operator", required=True),
    arg.number("bearing_deg", "the jet's bearing in degrees (with the camera)", -360, 360),
    arg.taped(arg.models("under", 'with no camera: the bases on the 8" x 1" jet the referee laid')),
    arg.taped(arg.flag("crew_near", "with no camera: the second crewman stands within command distance")),
)
def flame(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, Ruling]:
    """§9.1: an 8" x 1" jet along ``bearing_deg`` from the operator's base; everything on it is hit
    at Power 2 and its squad tests Morale; then d10 1-2 (1-3 without a second crewman) ends the fuel."""
    roller = rules.roller
    operator = state.fighters.get(str(args.get("operator")))
    if operator is None or not operator.standing or operator.weapon != "flamethrower" or operator.fuel_spent:
        raise Refused(say("give a standing flamethrower operator with fuel left"), "§9.1")
    me, bearing = placed(state, operator.id), arg.given_number(args, "bearing_deg")
    if (me is None or bearing is None) and "under" not in args:
        raise Refused(
            say('give the jet\'s bearing_deg, or lay the 8" x 1" jet and name the bases under it')
            if me is not None
            else say(
                'the camera has not placed {operator}: lay the 8" x 1" jet and name the bases under it',
                operator=operator.id,
            ),
            "§9.1",
        )
    state = spend(state, operator, 1, "§9.1")
    if me is None or bearing is None:  # the referee laid the jet
        hit = [str(f) for f in args.get("under") or [] if f in state.fighters and state.fighters[str(f)].standing]
    else:
        others = placed_many(state, [f.id for f in state.fighters.values() if f.standing and f.id != operator.id])
        hit = strip(
            (me.base.x, me.base.y),
            bearing,
            FLAME_LENGTH_IN * INCH + me.base.length / 2,
            FLAME_WIDTH_IN * INCH,
            others,
        )
    source = (me.base.x, me.base.y) if me is not None else None
    state, words, squads = hit_under(state, hit, roller, f"{seq}/flame", FLAME_POWER, source, False)
    act = state.acting()
    state = state.evolve(activation=replace(act, shaken=act.shaken | set(squads)))
    # «Если в расчете только 1 номер или второй номер разорвал командную дистанцию, топливо
    # заканчивается на 1-3»: the second crewman must stand within command distance (§3.2)
    seconds = [f.id for f in state.standing(operator.squad) if f.id != operator.id] if operator.squad else []
    if me is None or bearing is None:
        close = seconds if args.get("crew_near") else []
    else:
        close = [p.id for p in placed_many(state, seconds) if closest_points(me.base, p.base)[0] / INCH <= COMMAND_IN]
    fuel_roll = roller.roll(10, f"{seq}/flame/fuel")
    out = fuel_roll <= (FUEL_OUT if close else FUEL_OUT + 1)
    if out:
        state = state.with_fighter(replace(state.fighters[operator.id], fuel_spent=True))
    text = (
        say(
            '{operator} fires the flamethrower: {hit_count} base(s) on the 8" x 1" jet',
            operator=operator.id,
            hit_count=len(hit),
        )
        + (": " + joined(words, "; ") if words else "")
        + say(". Fuel d10 {fuel_roll}: ", fuel_roll=fuel_roll)
        + (say("spent (§9.1).") if out else say("left."))
    )
    if squads:
        text += say(
            " Squads {squads} test Morale at the end of the activation (§9.1, §13.1).", squads=", ".join(squads)
        )
    if me is None or bearing is None:  # the referee laid the jet: no strip to draw
        laid: dict[str, Any] = BY_THE_REFEREE
    else:
        length = FLAME_LENGTH_IN * INCH + me.base.length / 2
        strip_mm = [
            round(me.base.x, 1),
            round(me.base.y, 1),
            bearing,
            round(length, 1),
            round(FLAME_WIDTH_IN * INCH, 1),
        ]
        laid = {"template": {"strip": strip_mm}}
    return state, Ruling(
        f"{seq}:flame", seq, RulingKind.SHOT, text, "§9.1", element=operator.id, details={"hit": hit} | laid
    )
