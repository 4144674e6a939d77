"""§4 movement, measured: the acting unit's path from the camera, priced in Speed Points.

Infantry (§4.1, Table 1) pay 1 SP a step in any direction, and obstacles by height: up to half a
step is hopped free, up to a step costs 2 SP a crossing, anything higher cannot be crossed
(climbing is by agreement, so the referee is asked).  Vehicles (§4.2, Table 2) pay by direction
and locomotion: forward 1 SP a step, backward 1 SP (walkers 2, flyers may not), sideways only
for walkers at 2 SP a step, and 1 SP for each turn on the spot (flyers 1 SP per 90°).  A vehicle
crossing an obstacle is put to the referee: its wheel, track or cockpit height is not known.
The speed is from the Armlist or the durability sector (§2.2).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ...measure.measurement import CALL_SIGMAS, DEFAULT_SIGMA_MM, pair_sigma, path_sigma, too_close_to_call
from ...measure.movement import Crossing, Movement, level_changes, movement, terrain_crossed
from ...measure.paths import SAMPLE_MM as PATH_SAMPLE_MM
from ...measure.paths import Pose, along, centres_inside, gaps_along
from ...measure.terrain import SOLID_TYPES, Piece
from ...measure.units import BRONEPEKHOTA
from .. import input_args as arg
from ..base import Ruling, RulingKind
from ..inputs import Args
from ..text import Text, capitalised, joined, say
from . import contact
from .roster import name
from .state import INPUTS, Element, GameState, Rules

STEP_MM = BRONEPEKHOTA.unit.mm  # §4.1: 1 SP moves 1 step (5 cm) on flat ground
HOP_MM = STEP_MM / 2  # Table 1: crossed free up to half a step (the prose: "no more than"; digest §Z.5)
CLIMB_MM = STEP_MM  # Table 1: half a step to a step costs 2 SP; higher cannot be crossed
# Table 2, SP per step: forward, backward, sideways (None: not allowed)
VEHICLE_SP = {"wheeled": (1, 1, None), "tracked": (1, 1, None), "walking": (1, 2, 2), "flying": (1, None, None)}


@dataclass(frozen=True)
class Priced:
    sp: float
    parts: tuple[Text, ...]  # what was charged, for the ruling and the unit card
    problems: tuple[Text, ...]  # what the rules forbid or the referee must judge


def moves_sp(state: GameState, element_id: str) -> int:
    """The SP a model may spend moving this activation: its speed, twice for a flyer, which moves
    twice (§3.2, §4.2)."""
    speed = state.speed_of(state.elements[element_id])
    return speed * 2 if state.setup.locomotion.get(element_id) == "flying" else speed


def jump_range(state: GameState, element_id: str) -> int | None:
    """§9.4: ПрN (or PrN) in the Св column: a jump pack of N steps."""
    for prop in state.setup.properties.get(element_id, ()):
        if prop[:2] in ("Пр", "Pr") and prop[2:].isdigit():
            return int(prop[2:])
    return None


def ground_height(state: GameState, at: tuple[float, float]) -> float:
    """The top of the solid terrain under a point (a building's roof, a hill), or the table: 0."""
    tops = [p.height_mm for p in state.terrain if p.type in SOLID_TYPES and p.contains(at)]
    return max(tops, default=0.0)


def priced_movement(state: GameState, element_id: str) -> Priced:
    element = state.elements[element_id]
    path = state.paths.get(element_id, ())
    moved = movement(path)
    if JUMP_MARK in element.fired:
        jumped = _jump(state, element_id, path, moved)
        if _gun_movers(state).get(element_id):  # §9.4, said twice: «С мобильным орудием пехотинец прыгать не может»
            return replace(jumped, problems=jumped.problems + (say("he may not jump while moving a gun (§9.4)"),))
        return jumped
    if element.kind == "gun":
        return _gun(state, element, moved)
    crossed = terrain_crossed(path, state.terrain)
    if element.kind == "vehicle":
        return _vehicle(
            moved, crossed, state.setup.locomotion.get(element_id, "tracked"), state.setup.clearance.get(element_id)
        )
    priced = _infantry(moved, crossed, path, state.terrain)
    if element.kind == "infantry":
        priced = replace(priced, problems=priced.problems + tuple(path_problems(state, element_id, path)))
    with_gun = _gun_movers(state).get(element_id, 0.0) / STEP_MM
    if with_gun:  # Table 1: a step with a mobile gun costs 2 SP, one more than walking it
        priced = replace(
            priced,
            sp=priced.sp + with_gun,
            parts=priced.parts
            + (say("moved a gun {with_gun} steps: +{with_gun} SP (Table 1)", with_gun=f"{with_gun:.1f}"),),
        )
    if AIMED_MARK in element.fired and moved.path_mm > 0:
        priced = replace(
            priced, problems=priced.problems + (say("he took aimed fire, so he may not move this round (§11.1)"),)
        )
    return priced


def path_problems(state: GameState, element_id: str, path: Sequence[Pose]) -> list[Text]:
    """§4.1 along the path the camera saw, not only its ends: a soldier «не может проходить сквозь
    … других пехотинцев», and one who «коснулся пехотинца противника … обязан остановиться».
    The path is checked every PATH_SAMPLE_MM against the other soldiers where they stand now;
    his base touches another within CONTACT_MM plus 2σ of the two positions (a touch the camera
    cannot rule out counts), and he passed through one if his centre crossed its base.  Walking
    on means his last position is more than that tolerance beyond the touch."""
    me = contact.placed(state, element_id)
    if me is None or len(path) < 2:
        return []
    mover = state.elements[element_id]
    others = [
        (e, p)
        for e in state.elements.values()
        if e.id != element_id and e.kind == "infantry" and not e.destroyed and not e.aboard
        and (p := contact.placed(state, e.id)) is not None
    ]  # fmt: skip
    if not others:
        return []
    samples = along(path, PATH_SAMPLE_MM)
    inside = centres_inside(samples, [w.base for _, w in others])
    # every sample's base against every other soldier's, in one vectorised call (state_view runs this)
    gaps = gaps_along(me.base, samples, [w.base for _, w in others])
    through = sorted(other.id for n, (other, _) in enumerate(others) if inside[n].any())
    touched_at: dict[str, int] = {}
    for n, (other, where) in enumerate(others):
        if other.player == mover.player:
            continue
        touching = (gaps[:, n] <= contact.CONTACT_MM + CALL_SIGMAS * pair_sigma(me, where)) & ~inside[n]
        if touching.any():
            touched_at[other.id] = int(touching.argmax())
    problems = [say("he walked through {other} (§4.1)", other=name(state, o)) for o in through]
    end = samples[-1]
    for enemy, k in sorted(touched_at.items(), key=lambda item: item[1]):
        x, y, _ = samples[k]
        if math.hypot(end[0] - x, end[1] - y) > contact.CONTACT_MM + CALL_SIGMAS * path_sigma(me.sigma_mm):
            problems.append(
                say(
                    "he touched {enemy} and walked on; touching an enemy soldier he must stop for close combat (§4.1)",
                    enemy=name(state, enemy),
                )
            )
            break
    return problems


def _gun_crew(state: GameState, gun: Element) -> list[str]:
    return [m for m in contact.crew_touching_any(state, gun) if state.elements[m].player == gun.player]


def _gun_movers(state: GameState) -> dict[str, float]:
    """Who moved which gun how far this activation: the crewman touching it (§4.1)."""
    movers: dict[str, float] = {}
    for gun_id, path in state.paths.items():
        gun = state.elements[gun_id]
        moved = movement(path).path_mm
        crew = _gun_crew(state, gun) if gun.kind == "gun" and moved >= 5.0 else []
        if crew:
            movers[crew[0]] = movers.get(crew[0], 0.0) + moved
    return movers


def _gun(state: GameState, gun: Element, moved: Movement) -> Priced:
    """§4.1, §2.4: a mobile gun moves with an infantryman touching it, and not while enemy infantry
    touch it; a stationary gun does not move.  The crewman pays, not the gun."""
    if moved.path_mm < 5.0:
        return Priced(0.0, (), ())
    problems = []
    if state.setup.mobility.get(gun.id) == "stationary":
        problems.append(say("{gun} is a stationary gun and cannot be moved (§2.4)", gun=name(state, gun.id)))
    crew = _gun_crew(state, gun)
    if not crew:
        problems.append(say("{gun} moved with no crewman of its side touching it (§4.1)", gun=name(state, gun.id)))
    enemies = [m for m in contact.crew_touching_any(state, gun) if state.elements[m].player != gun.player]
    if enemies:
        problems.append(
            say(
                "enemy infantry ({names}) touch it, so it cannot be moved (§4.1)",
                names=", ".join(name(state, m) for m in enemies),
            )
        )
    by = say(" by {crew}", crew=name(state, crew[0])) if crew else ""
    return Priced(0.0, (say("moved {n} steps{by}", n=f"{moved.path_mm / STEP_MM:.1f}", by=by),), tuple(problems))


@INPUTS.register("jump", "§9.4", arg.model("element", "the infantryman who jumps", required=True))
def announce_jump(rules: Rules, state: GameState, seq: int, args: Args) -> tuple[GameState, list[Ruling]]:
    """§9.4: before he moves, the player says the soldier jumps: once a round, instead of walking."""
    element = state.elements.get(str(args.get("element")))
    problem = None
    if element is None or element.kind != "infantry" or element.destroyed or element.aboard:
        problem = say("give an infantryman on the table")
    elif jump_range(state, element.id) is None:
        problem = say("{element} has no jump pack (ПрN in Св)", element=name(state, element.id))
    elif state.active_unit is None or element.unit != state.active_unit:
        problem = say("{element}'s squad is not acting", element=name(state, element.id))
    elif JUMP_MARK in element.fired:
        problem = say("one jump a round")
    elif len(state.paths.get(element.id, ())) > 1:
        problem = say("he has already moved; a jump replaces the move and is announced before it")
    if problem or element is None:
        return state, [
            Ruling(
                f"{seq}:jump",
                seq,
                RulingKind.WARNING,
                say("Jump refused: {problem}.", problem=problem),
                "§9.4",
                needs_referee=True,
                refused=True,
            )
        ]
    state = state.with_element(replace(element, fired=element.fired | {JUMP_MARK}))
    return state, [
        Ruling(
            f"{seq}:jump",
            seq,
            RulingKind.STATUS,
            say(
                "{element} will jump, up to {jump_range} steps of length and height together (§9.4, Table 8).",
                element=name(state, element.id),
                jump_range=jump_range(state, element.id),
            ),
            "§9.4",
            element=element.id,
        )
    ]


JUMP_MARK = "jump"  # in Element.fired: he announced a jump this round (§9.4)
AIMED_MARK = "aimed"  # ... he took aimed fire this round (§11.1)
STRAIGHT = 0.97  # a jump flies straight: the camera's path may be this much longer than the line


def _jump(state: GameState, element_id: str, path: Sequence[Pose], moved: Movement) -> Priced:
    """§9.4, Table 8: the jump replaces the move; straight; length + height gained <= N steps,
    both from the take-off point (downward: the length only, digest §Z.16)."""
    limit = jump_range(state, element_id) or 0
    if len(path) < 2:
        return Priced(0.0, (say("announced a jump, has not jumped"),), ())
    length = moved.straight_mm / STEP_MM
    rise = max(0.0, ground_height(state, path[-1][:2]) - ground_height(state, path[0][:2])) / STEP_MM
    parts = (
        say("jumped {length} steps", length=f"{length:.1f}")
        + (say(" and {rise} up", rise=f"{rise:.1f}") if rise else ""),
    )
    problems = []
    if length + rise > limit + CALL_SIGMAS * _path_sigma_sp(state, element_id):
        problems.append(
            say(
                "a jump of {length} + {rise} steps is beyond his Пр{limit} (Table 8)",
                length=f"{length:.1f}",
                rise=f"{rise:.1f}",
                limit=limit,
            )
        )
    if moved.path_mm > 0 and moved.straight_mm / moved.path_mm < STRAIGHT:
        problems.append(say("a jump goes in a straight line, with no turn in flight (§9.4)"))
    return Priced(0.0, parts, tuple(problems))


def _infantry(moved: Movement, crossed: Sequence[Crossing], path: Sequence[Pose], terrain: Sequence[Piece]) -> Priced:
    sp = moved.path_mm / STEP_MM
    parts, problems = [say("{sp} steps", sp=f"{sp:.1f}")], []
    pieces = {p.id: p for p in terrain}
    for c in crossed:
        if c.type not in ("obstacle", "building"):
            continue
        if c.climbable and c.height_mm > CLIMB_MM:
            sp += _climbing(pieces[c.piece], path, parts)
        elif not c.entered:
            continue
        elif c.type == "obstacle" and c.height_mm <= HOP_MM:
            parts.append(say("hopped {piece} ({height_mm} mm) free", piece=c.piece, height_mm=f"{c.height_mm:g}"))
        elif c.type == "obstacle" and c.height_mm <= CLIMB_MM:
            sp += 2 * c.entered
            parts.append(
                say(
                    "crossed {piece} ({height_mm} mm) {entered}x: {n} SP",
                    piece=c.piece,
                    height_mm=f"{c.height_mm:g}",
                    entered=c.entered,
                    n=2 * c.entered,
                )
            )
        elif c.height_mm > HOP_MM:
            problems.append(
                say(
                    "went over {piece}, {height_mm} mm high: more than a step cannot be crossed unless the players agreed it can be climbed (Table 1; mark it climbable)",
                    piece=c.piece,
                    height_mm=f"{c.height_mm:g}",
                )
            )
    return Priced(sp, tuple(parts), tuple(problems))


def _climbing(piece: Piece, path: Sequence[Pose], parts: list[Text]) -> float:
    """Table 1, Рис. 19: up or down a climbable wall at 2 SP a step of height, each way the path
    went: «подъём на 1,5 шага стоит 3 ОС», so a soldier who climbs onto a roof and stays there
    pays for going up only, and one who climbs over pays both ways."""
    changes = level_changes(path, [piece], (piece.type,), PATH_SAMPLE_MM)
    up = sum(c for c in changes if c > 0) / STEP_MM
    down = -sum(c for c in changes if c < 0) / STEP_MM
    if not up and not down:
        return 0.0
    climb = 2 * (up + down)
    parts.append(
        say(
            "climbed {piece} ({height_mm} mm), {up} steps up and {down} down: {climb} SP",
            piece=piece.id,
            height_mm=f"{piece.height_mm:g}",
            up=f"{up:.1f}",
            down=f"{down:.1f}",
            climb=f"{climb:.1f}",
        )
    )
    return climb


def _vehicle(
    moved: Movement, crossed: Sequence[Crossing], locomotion: str, clearance_mm: float | None = None
) -> Priced:
    forward_sp, backward_sp, sideways_sp = VEHICLE_SP[locomotion]
    steps = {
        "forward": moved.forward_mm / STEP_MM,
        "backward": moved.backward_mm / STEP_MM,
        "sideways": moved.sideways_mm / STEP_MM,
    }
    sp, parts, problems = 0.0, [], []
    for direction, price in (("forward", forward_sp), ("backward", backward_sp), ("sideways", sideways_sp)):
        if steps[direction] < 0.1:  # under 5 mm: the camera's error, not a move
            continue
        if price is None:
            problems.append(
                say(
                    "moved {steps} steps {direction}, which a {locomotion} vehicle cannot (Table 2)",
                    steps=f"{steps[direction]:.1f}",
                    direction=direction,
                    locomotion=locomotion,
                )
            )
            continue
        sp += price * steps[direction]
        parts.append(
            say("{steps} steps {direction}", steps=f"{steps[direction]:.1f}", direction=direction)
            + (say(" at {price} SP", price=price) if price != 1 else "")
        )
    turn_sp = sum(math.ceil(abs(t) / 90) if locomotion == "flying" else 1 for t in moved.turns)
    if moved.turns:
        sp += turn_sp
        parts.append(
            say("1 turn: {turn_sp} SP", turn_sp=turn_sp)
            if len(moved.turns) == 1
            else say("{turns_count} turns: {turn_sp} SP", turns_count=len(moved.turns), turn_sp=turn_sp)
        )
    for c in crossed:
        if c.type not in ("obstacle", "building") or not c.entered:
            continue
        if clearance_mm is None:
            if locomotion != "flying":
                problems.append(
                    say(
                        "crossed {piece} ({height_mm} mm): check its height against the {what} (Table 2)",
                        piece=c.piece,
                        height_mm=f"{c.height_mm:g}",
                        what=say("wheels")
                        if locomotion == "wheeled"
                        else say("tracks")
                        if locomotion == "tracked"
                        else say("cockpit support"),
                    )
                )
        elif c.height_mm > clearance_mm:
            problems.append(
                say(
                    "crossed {piece}, {height_mm} mm high, over its {clearance_mm} mm ",
                    piece=c.piece,
                    height_mm=f"{c.height_mm:g}",
                    clearance_mm=f"{clearance_mm:g}",
                )
                + (
                    say("flight altitude: it must fly around (Table 2)")
                    if locomotion == "flying"
                    else say("limit: impassable, it must go around (Table 2)")
                )
            )
        elif locomotion == "walking" and (moved.backward_mm or moved.sideways_mm):
            problems.append(
                say("crossed {piece}: a walker crosses obstacles only moving forward (Table 2)", piece=c.piece)
            )
    return Priced(sp, tuple(parts), tuple(problems))


def movement_view(state: GameState) -> dict[str, Any]:
    """For the dashboard: each of the acting unit's models, its SP spent against its speed."""
    view = {}
    for element, path in sorted(state.paths.items()):
        priced = priced_movement(state, element)
        speed = moves_sp(state, element)
        view[element] = {
            "moved_steps": round(movement(path).path_mm / STEP_MM, 2),
            "spent_sp": round(priced.sp, 2),
            "allowed_sp": speed,
            "charged": list(priced.parts),
            "problems": list(priced.problems),
            "turned_deg": round(movement(path).turned_deg),
            "text": (joined(priced.parts) or say("not moved"))
            if state.elements[element].kind == "gun"
            else say(
                "{value} of {speed} SP ({parts})", value=round(priced.sp, 2), speed=speed, parts=joined(priced.parts)
            ),
            "over": (_speed_call(state, element, priced.sp, speed) == "over") or bool(priced.problems),
        }
    return view


def _spent(state: GameState, element: str, priced: Priced, speed: float, call: str) -> Text:
    """The movement ruling's first sentence: what the activation cost against the Speed; a gun,
    which has no Speed of its own (§4.1), only named, its problems following."""
    name = state.setup.names.get(element, element)
    if state.elements[element].kind == "gun":
        return say("{name}:", name=name)
    sp = f"{priced.sp:.2f}" if call == "doubt" else f"{priced.sp:.1f}"
    if not priced.parts:
        return say("{name} spent {sp} SP this activation; its speed is {speed}.", name=name, sp=sp, speed=speed)
    return say(
        "{name} spent {sp} SP this activation ({parts}); its speed is {speed}.",
        name=name,
        sp=sp,
        parts=joined(priced.parts),
        speed=speed,
    )


def _path_sigma_sp(state: GameState, element: str) -> float:
    """How far the camera's measure of the model's path may be off, in SP (a step a point)."""
    return path_sigma(state.sigmas.get(element, DEFAULT_SIGMA_MM)) / STEP_MM


def _speed_call(state: GameState, element: str, spent: float, speed: float) -> str:
    """§4.1's Speed, a limit not to exceed, against what the path cost: "within" at or under it;
    over it, "doubt" while the camera cannot tell (docs/measuring.md, "Thresholds"), else "over".
    A gun has no Speed of its own (§4.1)."""
    if state.elements[element].kind == "gun" or spent <= speed:
        return "within"
    return "doubt" if too_close_to_call(spent, speed, _path_sigma_sp(state, element)) else "over"


def movement_rulings(state: GameState, seq: int) -> list[Ruling]:
    """At the end of an activation: a model that spent more than its speed, or moved in a way
    the rules forbid or leave to judgement, goes to the referee."""
    rulings = []
    for element, path in sorted(state.paths.items()):
        priced = priced_movement(state, element)
        speed = moves_sp(state, element)
        call = _speed_call(state, element, priced.sp, speed)
        if call == "within" and not priced.problems:
            continue
        said = [_spent(state, element, priced, speed, call)]
        if call == "doubt":
            said.append(
                say(
                    "Too close to call: within the camera's uncertainty (±{doubt} SP) of its speed; the referee decides.",
                    doubt=f"{CALL_SIGMAS * _path_sigma_sp(state, element):.2f}",
                )
            )
        said += [capitalised(p) + "." for p in priced.problems]
        rulings.append(
            Ruling(
                f"{seq}:moved:{element}",
                seq,
                RulingKind.WARNING,
                joined(said, " "),
                "§4.1 §4.2 Tables 1-2",
                needs_referee=True,
                element=element,
                details={
                    "spent_sp": round(priced.sp, 2),
                    "speed": speed,
                    "charged": list(priced.parts),
                    "problems": list(priced.problems),
                    "moved_mm": round(movement(path).path_mm, 1),
                },
            )
        )
    return rulings
