"""The Price of a Mile movement (seed 003 digest §5), checked against the camera's path: a Move
order goes up to Speed; entering, leaving or crossing difficult terrain or a low obstacle costs
1" (Difficult-Terrain Mode, which a squad in close order cannot enter); a high obstacle takes a
whole Move; coming within 1" of an enemy ends the base's actions and starts a melee."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ...dice import Roller
from ...measure.measurement import pair_sigma, too_close_to_call
from ...measure.movement import Crossing, movement, terrain_crossed
from ...measure.paths import Pose
from ...measure.relations import coherent, gap_mm
from ...measure.terrain import Piece, base_gap_mm
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..input_args import BY_THE_REFEREE
from ..inputs import Args
from ..text import Text, capitalised, joined, say
from . import optional
from .shooting import spend
from .state import CONTACT_IN, INCH, INPUTS, Fighter, MileState, Options, Rules
from .vehicles import DESTROYED_AT
from .where import placed, placed_many

DIFFICULT = ("woods", "water")  # §5.2: difficult terrain (a terrain-piece property agreed before the game)
DTM_IN = 1.0  # §5.2
DTM_TO_MOVE = ("light_mg", "heavy_mg", "flamethrower")  # crews that move only in Difficult-Terrain Mode (§5.2)
SLACK_IN = 0.2  # the camera's path may run a few mm long
WIRE_CROSSING = 6  # §5.7
WIRE_CUTTING = 8  # §5.8, §11
VEHICLE_DTM_IN = {"vehicle": 3.0, "tank": 2.0}  # §5.2
TANK_OBSTACLE_IN = 3.0  # §15.2
TOUCH_MM = 2.0  # a base this close to an obstacle's outline is in contact with it (§5.5)


def _high(piece: Piece, options: Options) -> bool:
    """§5.5: which obstacles are high is agreed before the game: here, by height."""
    return piece.type == "obstacle" and bool(piece.height_mm > options.high_obstacle_mm)


def _trench_moves(state: MileState, path: Sequence[Pose], crossed: Sequence[Crossing]) -> tuple[list[str], list[str]]:
    """§5.6: the trenches the path went into (Difficult-Terrain Mode) and climbed out of (a high
    obstacle) anywhere along it, not only at its ends: a path that starts and ends in the open
    may still have crossed one."""
    entered, left = [], []
    trenches = {p.id: p for p in state.terrain if p.type == "trench"}
    for c in crossed:
        trench = trenches.get(c.piece)
        if trench is None:
            continue
        exits = c.entered + trench.contains(path[0][:2]) - trench.contains(path[-1][:2])
        if c.entered:
            entered.append(c.piece)
        if exits > 0:
            left.append(c.piece)
    return entered, left


@INPUTS.register(
    "move",
    "§5",
    arg.model("base", "the base that moves", required=True),
    arg.taped(
        arg.number("inches", "how far it moved, by the referee's tape, when the camera saw no path", 0, 200, True)
    ),
    arg.taped(arg.model("contact", "the enemy base it ended within 1 inch of (the referee's word, no camera)")),
)
def move(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, Ruling]:
    roller = rules.roller
    fighter = state.fighters.get(str(args.get("base")))
    if fighter is None or not fighter.standing:
        raise Refused(say("give a standing base"), "§5.1")
    if fighter.stuck:
        raise Refused(say("{fighter} is stuck on the wire: free it first (§5.7)", fighter=fighter.id), "§5.7")
    before = state
    state = spend(state, fighter, 1, "§5.1")
    path = state.paths.get(fighter.id, ())
    taped = len(path) < 2 and isinstance(args.get("inches"), (int, float))  # no camera: the referee's tape
    inches = float(args["inches"]) if taped else movement(path).path_mm / INCH
    crossed = terrain_crossed(path, state.terrain)
    allowed, climbing, wire, problems, notes = _crossing(state, before, fighter, path, crossed)
    walls = [c.piece for c in crossed if c.type == "obstacle" and _high(_piece(state, c.piece), state.options)]
    apart, doubts = _from_contact_to_contact(state, fighter, path, walls if fighter.vehicle != "tank" else [])
    problems += apart
    notes += doubts
    if inches > allowed + SLACK_IN:
        problems.append(
            say(
                '{inches}" is more than the crossing: a high obstacle is only climbed over (§5.5)',
                inches=f"{inches:.1f}",
            )
            if climbing
            else say('{inches}" is more than its {max}" (§5.1)', inches=f"{inches:.1f}", max=f"{max(allowed, 0):g}")
        )
    state, risk = optional.treacherous(state, seq, fighter.id, [c.piece for c in crossed], roller)
    if risk:
        notes.append(risk)
    if wire and not problems:  # §5.7: d10 + Resourcefulness, 6+ crosses
        state, crossing = _through_wire(state, seq, fighter, wire, roller)
        notes.append(crossing)
    if fighter.vehicle and not problems and any(c.type in DIFFICULT for c in crossed):
        state, bogged = _bogged_down(state, seq, fighter, roller)
        notes.append(bogged)
    if len(path) >= 2 and _nearest_enemy(state, fighter, path[-1]) < _nearest_enemy(state, fighter, path[0]) - 2.0:
        act = state.acting()
        state = state.evolve(activation=replace(act, advanced=act.advanced | {fighter.id}))
        if act.unreliable == "go_home":
            problems.append(say("«Let's go home!»: the squad moves towards its own table edge, not the enemy (§16.8)"))
    state = state.evolve(paths={**state.paths, fighter.id: path[-1:]})  # the next Move starts here
    if inches > SLACK_IN:
        act = state.acting()
        state = state.evolve(activation=replace(act, moved=act.moved | {fighter.id}))
    enemy, near = contact_with(state, fighter)
    if taped and args.get("contact"):
        enemy = [str(args["contact"])]
    if taped:
        notes.append(say("by the referee's tape: terrain crossed is the referee's to judge"))
    if near:
        notes.append(
            say(
                "too close to call: contact with {near} is within the camera's uncertainty of 1\" (§5.4), ruled as measured",
                near=", ".join(near),
            )
        )
    if enemy:
        act = state.acting()
        state = state.evolve(activation=replace(act, actions={**act.actions, fighter.id: 0}))
        notes.append(
            say(
                "in contact with {enemy}: its actions end and a melee follows the activation (§5.4)",
                enemy=", ".join(enemy),
            )
        )
    text = (
        say('{fighter} moves {inches}"', fighter=fighter.id, inches=f"{inches:.1f}")
        + (": " + joined(notes, "; ") if notes else "")
        + "."
    )
    if problems:
        text += " " + joined((capitalised(p) for p in problems), "; ") + "."
    return state, Ruling(
        f"{seq}:move",
        seq,
        RulingKind.WARNING if problems else RulingKind.MOVE,
        text,
        "§5",
        needs_referee=bool(problems or near or doubts),
        element=fighter.id,
        details={
            "inches": round(inches, 2),
            "allowed": allowed,
            "contact": enemy,
            **(BY_THE_REFEREE if taped else {}),
            **({"contact_in_doubt": near} if near else {}),
            **({"obstacle_contact_in_doubt": walls} if doubts else {}),
        },
    )


def _crossing(
    state: MileState, before: MileState, fighter: Fighter, path: Sequence[Pose], crossed: Sequence[Crossing]
) -> tuple[float, bool, list[str], list[Text], list[Text]]:
    """What the terrain the path crossed allows (§5.2-5.6, §15): the inches allowed, whether a
    high obstacle was climbed, the uncut wire crossed, and the problems and notes so far."""
    problems: list[Text] = []
    notes: list[Text] = []
    entered, left = _trench_moves(state, path, crossed)
    tank = fighter.vehicle == "tank"
    wire = [c.piece for c in crossed if c.type == "wire" and c.piece not in state.cut_wire]
    rough = [
        c.piece
        for c in crossed
        if c.type in DIFFICULT or (c.type == "obstacle" and not _high(_piece(state, c.piece), state.options))
    ]
    rough += [t for t in entered if not (tank and t in left)]  # §15.2: a tank crosses a trench in 1 action
    rough += [c.piece for c in crossed if c.type == "wire" and c.piece in state.cut_wire]
    high = [c.piece for c in crossed if c.type == "obstacle" and _high(_piece(state, c.piece), state.options)] + wire
    allowed = float(state.stat(fighter, "speed"))
    if fighter.immobilised:
        problems.append(say("it is immobilised (§15)"))
    if fighter.vehicle == "vehicle" and any(c.type == "obstacle" for c in crossed):
        problems.append(say("a vehicle cannot cross obstacles (§15.1)"))
    through = [t for t in entered if t in left]
    if through and not tank:
        problems.append(
            say(
                "it went into {through} and out again in one Move: climbing out of a trench takes a whole Move begun in it (§5.6)",
                through=", ".join(through),
            )
        )
    if rough:
        dtm = VEHICLE_DTM_IN.get(fighter.vehicle or "", DTM_IN)
        allowed -= dtm
        notes.append(
            say('Difficult-Terrain Mode through {rough} (-{dtm}", §5.2)', rough=", ".join(rough), dtm=f"{dtm:g}")
        )
        if fighter.squad and _close_order(before, fighter.squad):
            problems.append(say("a squad in close order cannot enter difficult terrain (§5.3)"))
    elif fighter.weapon in DTM_TO_MOVE and not fighter.vehicle and movement(path).path_mm / INCH > SLACK_IN:
        allowed -= DTM_IN  # §5.2, §6.7, §9.1: «расчет должен войти в РСЛ», «Огнеметчик должен перейти в РСЛ»
        notes.append(
            say(
                'a {weapon} moves only in Difficult-Terrain Mode (-{dtm}", §5.2)',
                weapon=fighter.weapon.replace("_", " "),
                dtm=f"{DTM_IN:g}",
            )
        )
    if tank and high:  # §15.2: a tank pays 3" of its Speed for an obstacle
        allowed -= TANK_OBSTACLE_IN
        notes.append(say('crossed {high} for 3" (§15.2)', high=", ".join(high)))
    whole_move = left if tank else high + left
    climbing = bool(whole_move)
    if tank and left:
        allowed = _high_crossing_in(state, left)
        notes.append(say("crossed {trench}: a trench takes the tank 1 action (§15.2)", trench=", ".join(left)))
    elif climbing:
        allowed = _high_crossing_in(state, whole_move)
        notes.append(
            say(
                "crossed {high}: a high obstacle takes the whole Move, begun in contact with it (§5.5)",
                high=", ".join(whole_move),
            )
        )
    return allowed, climbing, wire, problems, notes


def _from_contact_to_contact(
    state: MileState, fighter: Fighter, path: Sequence[Pose], walls: Sequence[str]
) -> tuple[list[Text], list[Text]]:
    """§5.5: «база должна потратить целый приказ Движение, чтобы его пересечь, при этом она
    должна начать выполнять этот приказ в контакте с препятствием.  База ставиться в контакте с
    противоположной стороной препятствия».  Where the Move began and ended, against each high
    obstacle it crossed: apart from it is a problem; within the camera's uncertainty of touching,
    a doubt for the referee."""
    where = placed(state, fighter.id)
    if where is None or len(path) < 2:
        return [], []
    problems: list[Text] = []
    doubts: list[Text] = []
    for wall in walls:
        piece = _piece(state, wall)
        began, ended = (base_gap_mm(where.base.at(*pose), piece) for pose in (path[0], path[-1]))
        for gap, unsure, apart in (
            (
                began,
                say("too close to call: whether it began in contact with {wall} (§5.5)", wall=wall),
                say(
                    "it began {gap}\" from {wall}: a high obstacle's Move begins in contact with it (§5.5)",
                    gap=f"{began / INCH:.1f}",
                    wall=wall,
                ),
            ),
            (
                ended,
                say("too close to call: whether it ended in contact with {wall} (§5.5)", wall=wall),
                say(
                    'it ended {gap}" from {wall}: it is placed in contact with the far side (§5.5)',
                    gap=f"{ended / INCH:.1f}",
                    wall=wall,
                ),
            ),
        ):
            if too_close_to_call(gap, TOUCH_MM, where.sigma_mm):
                doubts.append(unsure)
            elif gap > TOUCH_MM:
                problems.append(apart)
    return problems, doubts


def _bogged_down(state: MileState, seq: int, fighter: Fighter, roller: Roller) -> tuple[MileState, Text]:
    """§15.1, §15.2: a vehicle moving through difficult terrain rolls a d10; on a 1 it is
    immobilised, and a vehicle (not a tank) takes a damage point as well."""
    roll = roller.roll(10, f"{seq}/bogged")
    if roll != 1:
        return state, say("d10 {roll}: through the difficult terrain (§15)", roll=roll)
    victim = state.fighters[fighter.id]
    points = 0 if victim.vehicle == "tank" else 1
    total = victim.damage + points
    state = state.with_fighter(
        replace(victim, damage=total, immobilised=True, status="out" if total >= DESTROYED_AT else victim.status)
    )
    if points:
        return state, say("d10 1: bogged down, immobilised and 1 damage point, {total} in all (§15.1)", total=total)
    return state, say("d10 1: bogged down and immobilised (§15.2)")


def _through_wire(
    state: MileState, seq: int, fighter: Fighter, wire: list[str], roller: Roller
) -> tuple[MileState, Text]:
    """§5.7: d10 + Resourcefulness, 6+ crosses; less leaves the base stuck on the wire."""
    roll = roller.roll(10, f"{seq}/wire")
    total = roll + state.stat(fighter, "resourcefulness")
    if total < WIRE_CROSSING:
        state = state.with_fighter(replace(state.fighters[fighter.id], stuck=True))
        return state, say(
            "d10 {roll} → {total}: stuck on {wire}; put it back on the wire (§5.7)",
            roll=roll,
            total=total,
            wire=", ".join(wire),
        )
    return state, say("d10 {roll} → {total}: through the wire (§5.7)", roll=roll, total=total)


def _piece(state: MileState, piece_id: str) -> Piece:
    piece: Piece = next(p for p in state.terrain if p.id == piece_id)
    return piece


def _high_crossing_in(state: MileState, pieces: list[str]) -> float:
    """A high obstacle's Move puts the base on the far side: its depth plus a base, in inches."""

    def depth(poly: np.ndarray) -> float:
        return min(float(poly[:, k].max() - poly[:, k].min()) for k in (0, 1))

    return sum(depth(_piece(state, p).polygon) for p in pieces) / INCH + 3.0


def _close_order(state: MileState, squad: str) -> bool:
    bases = placed_many(state, [f.id for f in state.standing(squad)])
    return len(bases) > 1 and len(coherent(bases, 1.0)) == 1


def contact_with(state: MileState, fighter: Fighter) -> tuple[list[str], list[str]]:
    """§5.4: the enemy bases within 1" of the base (contact), and those the camera cannot place
    on either side of that inch."""
    me = placed(state, fighter.id)
    if me is None:
        return [], []
    enemies = placed_many(state, [f.id for f in state.fighters.values() if f.player != fighter.player and f.standing])
    reach = CONTACT_IN * INCH
    gaps = [(e, gap_mm(me, e)) for e in enemies]
    return (
        [e.id for e, gap in gaps if gap <= reach],
        [e.id for e, gap in gaps if too_close_to_call(gap, reach, pair_sigma(me, e))],
    )


@INPUTS.register("free", "§5.7", arg.model("base", "the base stuck on the wire", required=True))
def free(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, Ruling]:
    """§5.7: a base stuck on the wire spends an action and tests again: d10 + Resourcefulness, 6+."""
    roller = rules.roller
    fighter = state.fighters.get(str(args.get("base")))
    if fighter is None or not fighter.stuck:
        raise Refused(say("give a base stuck on the wire"), "§5.7")
    state = spend(state, fighter, 1, "§5.7")
    roll = roller.roll(10, f"{seq}/free")
    total = roll + state.stat(fighter, "resourcefulness")
    if total >= WIRE_CROSSING:
        state = state.with_fighter(replace(state.fighters[fighter.id], stuck=False))
    return state, Ruling(
        f"{seq}:free",
        seq,
        RulingKind.STATUS,
        say("{fighter} tries to get off the wire: d10 {roll} → {total}: ", fighter=fighter.id, roll=roll, total=total)
        + (say("free (§5.7).") if total >= WIRE_CROSSING else say("still stuck (§5.7).")),
        "§5.7",
        element=fighter.id,
    )


@INPUTS.register(
    "cut_wire",
    "§5.8",
    arg.model("base", "the base with wire cutters", required=True),
    arg.piece("wire", "the wire piece of the terrain (or the referee's name for it, with no camera)", required=True),
    arg.taped(
        arg.flag("contact", "the referee's word that the base touches the wire, when the camera has not placed it")
    ),
)
def cut_wire(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, Ruling]:
    """§5.8: a base with wire cutters in contact with the wire spends a non-combat action:
    d10 + Resourcefulness, 8+ cuts a gap, which is then crossed like difficult terrain."""
    roller = rules.roller
    fighter = state.fighters.get(str(args.get("base")))
    piece = next((p for p in state.terrain if p.id == args.get("wire") and p.type == "wire"), None)
    if fighter is None or not fighter.standing or not fighter.wire_cutters:
        raise Refused(say("give a standing base with wire cutters"), "§5.8")
    me = placed(state, fighter.id)
    wire = piece.id if piece is not None else str(args.get("wire"))
    if piece is None or me is None:  # no camera on it, or no terrain: the referee's word
        if not args.get("contact"):
            raise Refused(
                say(
                    "the camera cannot tell whether {fighter} touches {wire}: say contact if it does",
                    fighter=fighter.id,
                    wire=wire,
                ),
                "§5.8",
            )
    elif piece.distance_mm((me.base.x, me.base.y)) > max(me.base.length, me.base.width) / 2 + CONTACT_IN * INCH:
        raise Refused(say("{fighter} is not in contact with {piece}", fighter=fighter.id, piece=piece.id), "§5.8")
    state = spend(state, fighter, 1, "§5.8")
    roll = roller.roll(10, f"{seq}/cut")
    total = roll + state.stat(fighter, "resourcefulness")
    if total >= WIRE_CUTTING:
        state = state.evolve(cut_wire=state.cut_wire | {wire})
    return state, Ruling(
        f"{seq}:cut",
        seq,
        RulingKind.STATUS,
        say(
            "{fighter} cuts at {piece}: d10 {roll} → {total}: ",
            fighter=fighter.id,
            piece=wire,
            roll=roll,
            total=total,
        )
        + (say("a gap is made (§5.8).") if total >= WIRE_CUTTING else say("no gap yet (§5.8).")),
        "§5.8",
        element=fighter.id,
    )


def _nearest_enemy(state: MileState, fighter: Fighter, pose: Pose) -> float:
    """Centre distance from a pose to the nearest standing enemy (for 'towards the enemy')."""
    gaps = [
        ((pose[0] - w[0]) ** 2 + (pose[1] - w[1]) ** 2) ** 0.5
        for f, w in state.positions.items()
        if f in state.fighters and state.fighters[f].player != fighter.player and state.fighters[f].standing
    ]
    return min(gaps, default=float("inf"))
