"""Steel Warriors activations and their non-shooting actions (seed 001 digest §5-§6.7, §9, §10):
two actions an activation; moves checked against the camera's path (6/8/12", the 2-dice combat
move); going to ground and getting up; the command test to unsuppress; reorganisation with the
wounded's d6; and what suppression and the morale states forbid."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...dice import Roller
from ...measure.measurement import too_close_to_call
from ...measure.movement import movement
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind, voided
from ..inputs import Args
from ..text import NOTHING, Text, joined, say
from .state import INPUTS, Activation, Rules, WarState, named_become
from .where import nearest_enemy_gap, nearest_enemy_mm, nearest_gap

MAX_UNSUPPRESS = 2  # §6.7
SLACK_IN = 0.2
SURRENDER_IN = 12.0  # §10: a fleeing squad with an enemy this close surrenders
NO_DASH = ("rail", "aircraft")  # §5.3: their move is 24", and there is no d24
MEDICAL_VEHICLE_IN = 6.0  # §9: a medical vehicle this close gives +1, as a medic does


def command_test(state: WarState, squad_id: str, roller: Roller, key: str, extra: int = 0) -> tuple[bool, int, int]:
    """§3: the Quality die beats the commander's Leadership (plus ``extra``)."""
    squad = state.squads[squad_id]
    roll = roller.roll(squad.quality, key)
    need = squad.leadership + extra
    return roll > need, roll, need


@INPUTS.register("begin_turn", "§12")
def begin_turn(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """The turn order is lost from the fragment (§12); the station's default: every squad
    activates once a turn with two actions, the players alternating as they agree."""
    if state.activation:
        raise Refused(say("end the current activation first"), "§5.0")
    state = state.evolve(turn=state.turn + 1, activated=frozenset(), fired_on={})
    return state, [
        Ruling(
            f"{seq}:turn",
            seq,
            RulingKind.STATUS,
            say("Turn {turn}: every squad may activate once (§5.0).", turn=state.turn),
            "§5.0",
        )
    ]


@INPUTS.register(
    "activate",
    "§5.0",
    arg.unit("squad", "the squad that acts"),
    arg.unit("unit", "the squad, as the dashboard's Activate names it"),
)
def activate(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    squad = state.squads.get(str(args.get("squad", args.get("unit"))))  # the dashboard's Activate names a unit
    if state.activation or not state.turn:
        raise Refused(say("begin a turn, and end the current activation first"), "§5.0")
    if squad is None or squad.id in state.activated or not state.fighting(squad.id):
        raise Refused(say("give a squad with fighters that has not acted this turn"), "§5.0")
    state = state.evolve(activation=Activation(squad.id), paths={})
    notes = []
    if squad.suppression:
        notes.append(
            say(
                "suppressed ({suppression}): only observation, communication, reorganising in cover, unsuppressing, and moving away from the enemy (§6.7)",
                suppression=squad.suppression,
            )
        )
    if squad.morale in ("shaken", "broken", "fleeing"):
        notes.append(
            {
                "shaken": say("Shaken: nothing that brings it closer to the enemy (§10)"),
                "broken": say("Broken: only towards its own edge or cover, firing only at who fired on it (§10)"),
                "fleeing": say(
                    'Fleeing: it must move towards its own edge, and surrenders with an enemy within 12" (§10)'
                ),
            }[squad.morale]
        )
    text = (
        say("{player} activates {squad}: 2 actions", player=squad.player, squad=squad.id)
        + ("; " + joined(notes, "; ") if notes else "")
        + "."
    )
    rulings = [Ruling(f"{seq}:activate", seq, RulingKind.STATUS, text, "§5.0")]
    if squad.morale == "fleeing":
        state, surrender = _fleeing(state, seq, squad.id)
        rulings += surrender
    return state, rulings


def _fleeing(state: WarState, seq: int, squad_id: str) -> tuple[WarState, list[Ruling]]:
    """§10 «Бегущий … Если в пределах 12 дюймов есть противник, отделение сдаётся»: measured at
    its activation.  Within 12", its fighters are taken prisoner and the activation ends (the
    referee may void that); within the camera's 2σ of 12", the referee decides; beyond, it flees on."""
    gap = nearest_enemy_gap(state, squad_id)
    if gap is None or voided(state.overrides, seq, f"{seq}:surrender", NOTHING):
        return state, []
    inches, sigma = gap
    if too_close_to_call(inches, SURRENDER_IN, sigma):
        text = say(
            '{squad} is fleeing with an enemy {inches}" away, within the camera\'s uncertainty of 12": the referee decides whether it surrenders (§10).',
            squad=squad_id,
            inches=f"{inches:.2f}",
        )
        return state, [Ruling(f"{seq}:surrender", seq, RulingKind.WARNING, text, "§10", needs_referee=True)]
    if inches > SURRENDER_IN:
        return state, []
    for figure in state.fighting(squad_id):
        state = state.with_figure(replace(figure, status="prisoner"))
    state = state.evolve(activation=None, activated=state.activated | {squad_id})
    text = say(
        '{squad} is fleeing with an enemy {inches}" away, within 12": it surrenders, its fighters taken prisoner (§10).',
        squad=squad_id,
        inches=f"{inches:.1f}",
    )
    return state, [Ruling(f"{seq}:surrender", seq, RulingKind.STATUS, text, "§10", needs_referee=True)]


def spend(state: WarState, squad_id: str, section: str) -> WarState:
    act = state.activation
    if act is None or act.squad != squad_id:
        raise Refused(say("{squad_id} is not the squad acting now", squad_id=squad_id), "§5.0")
    if act.actions < 1:
        raise Refused(say("{squad_id} has used both its actions", squad_id=squad_id), "§5.0")
    return state.evolve(activation=replace(act, actions=act.actions - 1))


@INPUTS.register("end_activation", "§5.0")
def end_activation(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    act = state.activation
    if act is None:
        raise Refused(say("no activation is running"), "§5.0")
    state = state.evolve(activation=None, activated=state.activated | {act.squad})
    return state, [
        Ruling(f"{seq}:end", seq, RulingKind.STATUS, say("Squad {squad} ends its activation.", squad=act.squad), "§5.0")
    ]


def _rate_in(state: WarState, squad_id: str, data: Mapping[str, Any]) -> int:
    """§5.1-5.2: the class's move, or the encumbered one while carrying wounded; a squad with
    more burdens than carriers cannot move at all."""
    squad = state.squads[squad_id]
    burdens = sum(1 for f in squad.figures if state.figures[f].status == "stabilised")
    carriers = len(state.fighting(squad_id))
    if burdens > carriers:
        raise Refused(
            say(
                "{squad_id} has {burdens} wounded to carry and {carriers} to carry them: leave some in a safe place first",
                squad_id=squad_id,
                burdens=burdens,
                carriers=carriers,
            ),
            "§5.2",
        )
    if squad.towing:  # §5.2: towing speeds
        return int(data["towing"][squad.towing])
    if burdens and squad.movement in data["encumbered"]:
        return int(data["encumbered"][squad.movement])
    return int(data["movement"][squad.movement])


@INPUTS.register(
    "leave_wounded", "§9", arg.models("figures", "the stabilised wounded left to await evacuation", required=True)
)
def leave_wounded(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§9: stabilised wounded may be left in a safe place to await evacuation."""
    state, left = named_become(
        state,
        args.get("figures"),
        ("stabilised",),
        "left",
        lambda fid: say("{fid} is not a stabilised casualty", fid=fid),
        say("name the stabilised wounded to leave"),
        "§9",
    )
    return state, [
        Ruling(
            f"{seq}:leave",
            seq,
            RulingKind.STATUS,
            say("{left} left in a safe place to await evacuation (§9).", left=", ".join(left)),
            "§9",
        )
    ]


@INPUTS.register("dash", "§5.3", arg.unit("squad", "the squad acting", required=True))
def dash(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§5.3: a combat move is two dice with as many faces as the squad's move in inches."""
    roller = rules.roller
    data = rules.data
    squad_id = str(args.get("squad"))
    squad = state.squads.get(squad_id)
    if squad is not None and squad.movement in NO_DASH:
        raise Refused(
            say(
                "a combat move is two dice of the squad's move, and there is no d24 for {movement}",
                movement=squad.movement,
            ),
            "§5.3",
        )
    state = spend(state, squad_id, "§5.3")
    faces = _rate_in(state, squad_id, data)
    rolls = [roller.roll(faces, f"{seq}/dash/{k}") for k in range(2)]
    state = state.evolve(activation=replace(state.acting(), dash_in=float(sum(rolls))))
    return state, [
        Ruling(
            f"{seq}:dash",
            seq,
            RulingKind.MOVE,
            say(
                '{squad_id} dashes: 2d{faces} {rolls}+{rolls2} = {sum}". Move the figures now, then declare the move (§5.3).',
                squad_id=squad_id,
                faces=faces,
                rolls=rolls[0],
                rolls2=rolls[1],
                sum=sum(rolls),
            ),
            "§5.3",
        )
    ]


@INPUTS.register(
    "move",
    "§5.1-5.3",
    arg.unit("squad", "the squad acting", required=True),
    arg.taped(
        arg.number(
            "inches", "the furthest any figure moved, by the referee's tape, when the camera saw no path", 0, 200, True
        )
    ),
    arg.taped(arg.flag("closer", "it came closer to the enemy (the referee's word, no camera)")),
)
def move(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§5.1-5.3: each figure's path since the last move against the allowance; a prone squad
    cannot move (§6.5); suppression and morale allow only some directions (§6.7, §10)."""
    data = rules.data
    squad_id = str(args.get("squad"))
    act = state.activation
    squad = state.squads.get(squad_id)
    if squad is None or act is None or act.squad != squad_id:
        raise Refused(say("{squad_id} is not the squad acting now", squad_id=squad_id), "§5.0")
    if squad.prone:
        raise Refused(say("{squad_id} is prone: get up first", squad_id=squad_id), "§6.5")
    dashed = act.dash_in
    rate = float(_rate_in(state, squad_id, data))  # refuses a squad with more wounded than carriers
    if dashed is None:
        state = spend(state, squad_id, "§5.1")
        allowed = rate
    else:
        allowed = dashed
        state = state.evolve(activation=replace(state.acting(), dash_in=None))
    problems, longest = [], 0.0
    closer = False
    least = squad.movement in data.get("movement_minimum", ()) and dashed is None  # §5.1: aircraft
    seen = any(len(state.paths.get(f.id, ())) >= 2 for f in state.fighting(squad_id))
    taped = not seen and isinstance(args.get("inches"), (int, float))  # no camera: the referee's tape
    for figure in () if taped else state.fighting(squad_id):
        path = state.paths.get(figure.id, ())
        if figure.immobile and movement(path).path_mm / state.unit_mm >= 0.5:
            problems.append(say("{figure} is an immobilised robot and cannot move", figure=figure.id))
        inches = movement(path).path_mm / state.unit_mm
        longest = max(longest, inches)
        if inches > allowed + SLACK_IN and not least:
            problems.append(say('{figure} moved {inches}"', figure=figure.id, inches=f"{inches:.1f}"))
        elif least and inches < allowed - SLACK_IN:
            problems.append(
                say(
                    '{figure} moved {inches}": an aircraft near the ground moves at least {allowed}"',
                    figure=figure.id,
                    inches=f"{inches:.1f}",
                    allowed=f"{allowed:g}",
                )
            )
        if (
            len(path) >= 2
            and nearest_enemy_mm(state, figure.id, path[-1]) < nearest_enemy_mm(state, figure.id, path[0]) - 2
        ):
            closer = True
    if taped:
        longest, closer = float(args["inches"]), bool(args.get("closer"))
        if longest > allowed + SLACK_IN and not least:
            problems.append(say("it moved {inches}\" by the referee's tape", inches=f"{longest:.1f}"))
        elif least and longest < allowed - SLACK_IN:
            problems.append(
                say(
                    '{figure} moved {inches}": an aircraft near the ground moves at least {allowed}"',
                    figure=squad_id,
                    inches=f"{longest:.1f}",
                    allowed=f"{allowed:g}",
                )
            )
    if closer and (squad.suppression or squad.morale in ("shaken", "broken", "fleeing")):
        problems.append(
            say("it came closer to the enemy, which a suppressed, Shaken, Broken or Fleeing squad may not (§6.7, §10)")
        )
    state, pivot = _pivot(state, squad_id, longest, problems)
    state = state.evolve(paths={f: p[-1:] for f, p in state.paths.items()})
    moved = dict(squad_id=squad_id, longest=f"{longest:.1f}", allowed=f"{allowed:g}")
    text = (
        (
            say('{squad_id} moves {longest}", at least {allowed}"', **moved)
            if least
            else say('{squad_id} moves up to {longest}" of {allowed}"', **moved)
        )
        + (say(" (combat move)") if dashed is not None else "")
        + (say(", along intact rails only (§5.1)") if squad.movement == "rail" else "")
        + pivot
        + (say(" (by the referee's tape)") if taped else "")
    )
    if problems:
        text += ": " + joined(problems, "; ")
    return state, [
        Ruling(
            f"{seq}:move",
            seq,
            RulingKind.WARNING if problems else RulingKind.MOVE,
            text + ".",
            "§5",
            needs_referee=bool(problems),
        )
    ]


def _pivot(state: WarState, squad_id: str, moved_in: float, problems: list[Text]) -> tuple[WarState, Text | str]:
    """§5.1 «Любой поворот техники на месте … тоже считается движением, и требует 1 действие»: a
    vehicle that turned in place and also drove spends one more action (option ``vehicle_pivot``
    "alone": a turn in place costs only when it is the whole move).  Said in the move's ruling."""
    squad = state.squads[squad_id]
    if squad.movement != "vehicle" or state.options.vehicle_pivot != "action" or moved_in <= SLACK_IN:
        return state, ""
    if not any(movement(state.paths.get(f.id, ())).pivots for f in state.fighting(squad_id)):
        return state, ""
    try:
        return spend(state, squad_id, "§5.1"), say(", and turned in place: one more action (§5.1)")
    except Refused:
        problems.append(say("it also turned in place, which needs an action of its own, and none is left (§5.1)"))
        return state, ""


@INPUTS.register("prone", "§6.5", arg.unit("squad", "the squad acting", required=True))
def go_prone(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§6.5: an action; +1 step to the Range die; never in water."""
    squad_id = str(args.get("squad"))
    state = spend(state, squad_id, "§6.5")
    if any(state.stands_in(f.id, ("water",)) for f in state.fighting(squad_id)):
        raise Refused(say("a squad in water cannot go to ground"), "§6.5")
    state = state.with_squad(replace(state.squads[squad_id], prone=True))
    return state, [
        Ruling(
            f"{seq}:prone",
            seq,
            RulingKind.STATUS,
            say("Squad {squad_id} goes to ground: +1 step to its Range die (§6.5).", squad_id=squad_id),
            "§6.5",
        )
    ]


@INPUTS.register(
    "get_up",
    "§6.5",
    arg.unit("squad", "the squad acting", required=True),
    arg.flag("test", "under fire: a test to get up"),
)
def get_up(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§6.5: an action; or, with ``test``, a command test whose success lets that action be the move."""
    roller = rules.roller
    squad_id = str(args.get("squad"))
    state = spend(state, squad_id, "§6.5")
    if not state.squads[squad_id].prone:
        raise Refused(say("{squad_id} is not prone", squad_id=squad_id), "§6.5")
    state = state.with_squad(replace(state.squads[squad_id], prone=False))
    if not args.get("test"):
        return state, [
            Ruling(f"{seq}:up", seq, RulingKind.STATUS, say("{squad_id} gets up (§6.5).", squad_id=squad_id), "§6.5")
        ]
    passed, roll, need = command_test(state, squad_id, roller, f"{seq}/up")
    if passed:  # §13.14: the test is part of the move: refund the action for the move that follows
        state = state.evolve(activation=replace(state.acting(), actions=state.acting().actions + 1))
    else:
        state = state.with_squad(replace(state.squads[squad_id], prone=True))
    return state, [
        Ruling(
            f"{seq}:up",
            seq,
            RulingKind.STATUS,
            say(
                "{squad_id} tries to get up and go: d{quality} {roll} against more than {need}: ",
                squad_id=squad_id,
                quality=state.squads[squad_id].quality,
                roll=roll,
                need=need,
            )
            + (say("it moves at once (§6.5).") if passed else say("it stays down and the action is lost (§6.5).")),
            "§6.5",
        )
    ]


@INPUTS.register("unsuppress", "§6.7", arg.unit("squad", "the squad acting", required=True))
def unsuppress(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§6.7: an action, twice an activation at most: a command test removes one marker."""
    roller = rules.roller
    squad_id = str(args.get("squad"))
    act = state.activation
    if act is None or act.squad != squad_id or not state.squads[squad_id].suppression:
        raise Refused(say("{squad_id} is not a suppressed squad acting now", squad_id=squad_id), "§6.7")
    if act.unsuppressed >= MAX_UNSUPPRESS:
        raise Refused(say("a squad tries to unsuppress at most twice an activation"), "§6.7")
    state = spend(state, squad_id, "§6.7")
    state = state.evolve(activation=replace(state.acting(), unsuppressed=act.unsuppressed + 1))
    passed, roll, need = command_test(state, squad_id, roller, f"{seq}/unsuppress")
    if passed:
        s = state.squads[squad_id]
        state = state.with_squad(replace(s, suppression=s.suppression - 1))
    left = state.squads[squad_id].suppression
    return state, [
        Ruling(
            f"{seq}:unsuppress",
            seq,
            RulingKind.STATUS,
            say(
                "{squad_id} unsuppresses: d{quality} {roll} against more than {need}: ",
                squad_id=squad_id,
                quality=state.squads[squad_id].quality,
                roll=roll,
                need=need,
            )
            + (say("a marker comes off ({left} left)", left=left) if passed else "no")
            + " (§6.7).",
            "§6.7",
        )
    ]


def _medical_vehicle_near(state: WarState, squad_id: str) -> tuple[bool, bool]:
    """§9: a friendly medical vehicle within 6" of the squad (where the camera placed them), and
    whether the nearest lies within the camera's uncertainty of those 6"."""
    vehicles = [
        f.id
        for s in state.squads.values()
        if s.medical_vehicle and s.player == state.squads[squad_id].player and s.id != squad_id
        for f in state.fighting(s.id)
    ]
    found = nearest_gap(state, [f.id for f in state.fighting(squad_id)], vehicles)
    if found is None:
        return False, False
    gap, sigma = found
    return gap <= MEDICAL_VEHICLE_IN, too_close_to_call(gap, MEDICAL_VEHICLE_IN, sigma)


@INPUTS.register("reorganise", "§9", arg.unit("squad", "the squad acting", required=True))
def reorganise(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§9: once an activation (suppressed: only in cover), the fighters gather round the commander
    and each unverified casualty rolls a d6, +1 with a medic, +2 with a surgeon: 1-2 dies, 3-5 is
    stabilised (carried), 6 returns."""
    roller = rules.roller
    squad_id = str(args.get("squad"))
    act = state.activation
    if act is None or act.squad != squad_id or act.reorganised:
        raise Refused(say("a squad reorganises once in its activation"), "§9")
    if state.squads[squad_id].suppression and not all(
        state.stands_in(f.id, ("woods", "building", "trench")) for f in state.fighting(squad_id)
    ):
        raise Refused(say("a suppressed squad reorganises only in cover"), "§6.7")
    state = spend(state, squad_id, "§9")
    state = state.evolve(activation=replace(state.acting(), reorganised=True))
    roles = {f.role for f in state.fighting(squad_id)}
    vehicle, vehicle_doubt = _medical_vehicle_near(state, squad_id)
    vehicle_doubt = vehicle_doubt and not roles & {"surgeon", "medic"}  # only the vehicle's +1 hangs on it
    bonus = 2 if "surgeon" in roles else 1 if "medic" in roles or vehicle else 0
    words = []
    for fid in state.squads[squad_id].figures:
        figure = state.figures[fid]
        if figure.status != "unverified":
            continue
        android = figure.armour == "robot"
        if android:  # §9: robots are not healed
            words.append(say("{fid}: a robot, not healed", fid=fid))
            continue
        roll = roller.roll(6, f"{seq}/reorganise/{fid}")
        total = roll + (0 if figure.android else bonus)  # §9: no point treating androids with medics
        status = "killed" if total <= 2 else "stabilised" if total <= 5 else "ok"
        state = state.with_figure(replace(figure, status=status))
        words.append(
            f"{fid} d6 {roll}{f'+{bonus}' if bonus and not figure.android else ''}"
            + (say(" (an android: no medic bonus)") if bonus and figure.android else "")
            + ": "
            + {
                "killed": say("did not survive"),
                "stabilised": say("stabilised, to be carried"),
                "ok": say("back in the ranks"),
            }[status]
        )
    return state, [
        Ruling(
            f"{seq}:reorganise",
            seq,
            RulingKind.STATUS,
            say("{squad_id} reorganises round its commander", squad_id=squad_id)
            + (": " + joined(words, "; ") if words else "")
            + " (§9)."
            + (
                " "
                + say(
                    "Too close to call: the medical vehicle is within the camera's uncertainty of 6\"; the referee decides its +1."
                )
                if vehicle_doubt
                else ""
            ),
            "§9",
            needs_referee=vehicle_doubt,
        )
    ]


@INPUTS.register(
    "march_order",
    "§5.4",
    arg.unit("squad", "the squad acting", required=True),
    arg.flag("on", "into march order (true when left out) or out of it"),
)
def march_order(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§5.4: weapons slung, columns, no cover and no shooting; entering or leaving it takes an
    action (the fragment is silent on the cost; the station's setting)."""
    squad_id, on = str(args.get("squad")), bool(args.get("on", True))
    state = spend(state, squad_id, "§5.4")
    state = state.with_squad(replace(state.squads[squad_id], march=on))
    text = (
        say(
            "Squad {squad_id} forms march order: in column on a road or easy ground, no shooting (§5.4).",
            squad_id=squad_id,
        )
        if on
        else say("Squad {squad_id} leaves march order (§5.4).", squad_id=squad_id)
    )
    return state, [Ruling(f"{seq}:march", seq, RulingKind.STATUS, text, "§5.4")]


@INPUTS.register(
    "tow",
    "§5.2",
    arg.unit("squad", "the squad acting", required=True),
    arg.text("load", "what it tows, from the rules data's towing table (none: lets go)"),
)
def tow(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§5.2: hitching up a load (or, with none, letting it go) sets the squad's speed: a trailer
    8", slightly overloaded 6", heavily overloaded 4", a gun manhandled by its crew 4" (never in
    march order)."""
    data = rules.data
    squad = state.squads.get(str(args.get("squad")))
    load = args.get("load")
    if squad is None or (load is not None and load not in data["towing"]):
        raise Refused(say("give a squad and a load: {towing}, or none", towing=", ".join(data["towing"])), "§5.2")
    if load == "manhandled" and squad.march:
        raise Refused(say("crews may not manhandle guns in march order"), "§5.4")
    state = state.with_squad(replace(squad, towing=load))
    text = say("Squad {squad} ", squad=squad.id) + (
        say('tows ({replace}): {towing}" a move (§5.2).', replace=load.replace("_", " "), towing=data["towing"][load])
        if load
        else say("lets its load go (§5.2).")
    )
    return state, [Ruling(f"{seq}:tow", seq, RulingKind.STATUS, text, "§5.2")]
