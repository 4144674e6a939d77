"""§9.3 repair by infantry, §10.1 the HELIX's repair platform, §9.1-9.2 capture.

Repair moves a machine's durability slider up: 1 cell for an infantryman with Рм, which costs
his whole activation (so he must start it touching the machine, with no enemy touching either of
them); 2 cells for a vehicle with a repair platform, in place of its shooting; a pilot with Рм
may mend his own vehicle instead of its activation.  Without ``by`` it is the referee's own
entry (e.g. a repair agreed at the table).  At most the scale's top; never a destroyed machine;
a fallen vehicle may stand again after it (§6.7).

Capture: the first infantryman to touch a vehicle with no pilot, of its rank or higher, becomes
its pilot, and it joins his army from the next round (§9.1); a gun no infantryman touches goes
to the first to touch it (§9.2).  The sliders stay where they are.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...measure.bases import closest_points
from ...measure.relations import in_contact
from .. import input_args as arg
from ..base import Ruling, RulingKind
from ..inputs import Args
from ..text import say
from . import contact
from .roster import name
from .state import INPUTS, REPAIR_MARK, Element, GameState, Problem, Rules, Unit

EDGE_MM = 2.0  # a contact this close to the end of the HELIX's length is on that edge


@INPUTS.register(
    "repair",
    "§9.3, §10.1",
    arg.model("element", "the machine repaired", required=True),
    arg.model("by", "the infantryman with Рм who repairs it (none: its own crew)"),
    arg.integer("cells", "structure cells repaired", 1, 99),
)
def repair(rules: Rules, state: GameState, seq: int, args: Args) -> tuple[GameState, list[Ruling]]:
    target = state.elements.get(str(args.get("element")))
    by = state.elements.get(str(args.get("by"))) if args.get("by") is not None else None
    cells = args.get("cells", 1)
    problem, section = _repair_problem(state, target, by, args.get("by"), cells)
    if problem or target is None:  # (a missing target is one of the problems)
        return state, [
            Ruling(
                f"{seq}:repair",
                seq,
                RulingKind.WARNING,
                say("Repair refused: {problem}.", problem=problem),
                section,
                needs_referee=True,
                refused=True,
                element=target.id if target else None,
            )
        ]
    if by is not None:
        cells = 2 if "repair_platform" in state.setup.properties.get(by.id, ()) else 1
        state = state.with_element(replace(by, fired=by.fired | {REPAIR_MARK}))
        if by.aboard:  # §9.3: while the pilot repairs, the machine (with him) skips its turn
            vehicle = state.elements[by.aboard]
            state = state.with_element(replace(vehicle, fired=vehicle.fired | {REPAIR_MARK}))
        target = state.elements[target.id]
    top = state.setup.scales[target.id]["max"]
    armour = min(top, target.armour + cells)
    fixed = replace(target, armour=armour, needs_repair=False)
    fixed = replace(fixed, speed=state.speed_of(fixed))
    who = say(" by {by}", by=name(state, by.id)) if by else ""
    text = say(
        "{target} repaired{who}: armour {armour}→{armour2}",
        target=name(state, target.id),
        who=who,
        armour=target.armour,
        armour2=armour,
    )
    text += say(" (the top of its scale).") if armour == top else "."
    if target.needs_repair:
        text += say(" It may be set upright and act again (§6.7).")
    section = "§10.1" if by and cells == 2 else "§9.3"
    return state.with_element(fixed), [
        Ruling(
            f"{seq}:repair",
            seq,
            RulingKind.STATUS,
            text,
            section,
            element=target.id,
            details={"by": by.id if by else "referee", "armour_before": target.armour, "armour_after": armour},
        )
    ]


def _repair_problem(state: GameState, target: Element | None, by: Element | None, by_id: Any, cells: Any) -> Problem:
    if target is None or target.kind == "infantry":
        return say("give a vehicle or gun to repair"), "§9.3"
    if target.destroyed:
        return say("{target} is destroyed; destroyed machines are removed", target=name(state, target.id)), "§9.3"
    if by_id is None:  # the referee's own entry
        return (
            (None, "")
            if isinstance(cells, int) and not isinstance(cells, bool) and cells >= 1
            else (say("cells must be a whole number of at least 1"), "§9.3")
        )
    if by is None or by.destroyed:
        return say("no model {by_id} to repair with", by_id=repr(by_id)), "§9.3"
    return (
        _repairer_problem(state, target, by)
        or _activation_problem(state, target, by)
        or _reach_problem(state, target, by)
        or (None, "")
    )


def _repairer_problem(state: GameState, target: Element, by: Element) -> Problem | None:
    """§9.3, §10.1: who may repair at all: a soldier with Рм, a machine with a crewed platform."""
    platform = "repair_platform" in state.setup.properties.get(by.id, ())
    if by.kind == "infantry" and "Rm" not in state.setup.properties.get(by.id, ()):
        return say("{by} has no Рм (Rm) in his Св column", by=name(state, by.id)), "§9.3"
    if by.kind != "infantry" and not platform:
        return say("{by} has no repair platform", by=name(state, by.id)), "§10.1"
    if platform and by.pilot is None:
        return say("{by} has no pilot in its cabin", by=name(state, by.id)), "§10.1"
    if by.aboard and by.aboard != target.id:
        return say("a pilot repairs only his own vehicle, without leaving it"), "§9.3"
    return None


def _activation_problem(state: GameState, target: Element, by: Element) -> Problem | None:
    """§3.2, §9.3, §10.1: a repair is the acting unit's, once an activation, and costs its turn."""
    platform = "repair_platform" in state.setup.properties.get(by.id, ())
    acting = state.elements[by.aboard] if by.aboard else by  # a pilot mends his vehicle in its activation
    if state.round == 0 or state.active_unit is None or acting.unit != state.active_unit:
        return say("{acting} is not the unit acting", acting=name(state, acting.id)), "§3.2"
    if REPAIR_MARK in acting.fired or REPAIR_MARK in by.fired:
        return say("only one repair per activation"), "§9.3 §10.1"
    if by.aboard and (acting.fired or _moved(state, acting.id)):
        return (
            say(
                "{acting} has already acted this activation; its pilot's repair replaces the machine's whole turn",
                acting=name(state, acting.id),
            )
        ), "§9.3"
    if platform and any(f.startswith("virtual:") or "/" in f for f in by.fired):
        return say(
            "{by} has already shot this activation; a repair replaces its shooting", by=name(state, by.id)
        ), "§10.1"
    if not platform and (by.fired or _moved(state, by.id)):
        return (
            say(
                "{by} has already acted this activation; repairing takes his whole activation, so he must start it in contact",
                by=name(state, by.id),
            )
        ), "§9.3"
    return None


def _reach_problem(state: GameState, target: Element, by: Element) -> Problem | None:
    """§9.3, §10.1: the repairer touches the machine (a platform with its rear edge), and no enemy
    touches either."""
    platform = "repair_platform" in state.setup.properties.get(by.id, ())
    if platform and by.id != target.id:
        edge = _platform_edge(state, by, target)
        if edge is not None and edge != "rear":
            return (
                say(
                    "{by} touches {target} with its {edge}, not with the rear edge of its platform",
                    by=name(state, by.id),
                    target=name(state, target.id),
                    edge=edge,
                )
            ), "§10.1"
    elif by.id != target.id and not by.aboard:
        touching = _touching(state, by, target)
        if touching is False:
            return say("{by} is not touching {target}", by=name(state, by.id), target=name(state, target.id)), "§9.3"
    for model in {by.id, target.id}:
        enemies = contact.touching_enemies(state, state.elements[model])
        if enemies:
            return (
                say(
                    "an enemy ({names}) touches {model}; no repair in close combat",
                    names=", ".join(name(state, e) for e in enemies),
                    model=name(state, model),
                )
            ), "§9.3 §10.1"
    return None


def _moved(state: GameState, element_id: str) -> bool:
    return len(state.paths.get(element_id, ())) > 1


def _platform_edge(state: GameState, helix: Element, target: Element) -> str | None:
    """§10.1: «коснуться его задней кромкой ремонтной платформы»: which of the HELIX's edges
    touches the object ("rear", "front", "side", "nothing"), or None when the camera has not
    placed both (the referee's word stands)."""
    ph, pt = contact.placed(state, helix.id), contact.placed(state, target.id)
    if ph is None or pt is None:
        return None
    gap, nearest, _ = closest_points(ph.base, pt.base)
    if gap > contact.CONTACT_MM:
        return "nothing"
    forward, _ = ph.base.axes
    along = float((nearest - ph.base.centre) @ forward)
    if along <= -ph.base.length / 2 + EDGE_MM:
        return "rear"
    return "front" if along >= ph.base.length / 2 - EDGE_MM else "side"


def _touching(state: GameState, a: Element, b: Element) -> bool | None:
    """None when the camera has not placed both: the referee's word stands."""
    pa, pb = contact.placed(state, a.id), contact.placed(state, b.id)
    if pa is None or pb is None:
        return None
    return in_contact(pa, pb, contact.CONTACT_MM)


@INPUTS.register(
    "capture",
    "§9.1-9.2",
    arg.model("element", "the enemy machine captured", required=True),
    arg.model("by", "the infantryman who captures it", required=True),
)
def capture(rules: Rules, state: GameState, seq: int, args: Args) -> tuple[GameState, list[Ruling]]:
    soldier, machine = state.elements.get(str(args.get("by"))), state.elements.get(str(args.get("element")))
    problem, section = _capture_problem(state, soldier, machine)
    if problem or soldier is None or machine is None:  # (missing models are among the problems)
        return state, [
            Ruling(
                f"{seq}:capture",
                seq,
                RulingKind.WARNING,
                say("Capture refused: {problem}.", problem=problem),
                section,
                needs_referee=True,
                refused=True,
                element=machine.id if machine else None,
            )
        ]
    player = soldier.player
    if machine.kind == "vehicle":  # §9.1: he becomes its pilot; it fights for his side from the next round
        state = state.with_element(replace(soldier, aboard=machine.id))
        state = state.with_element(replace(state.elements[machine.id], player=player, pilot=soldier.id))
        if machine.unit is None:
            raise ValueError(f"vehicle {machine.id} belongs to no unit")  # army.py gives every vehicle one
        old = state.units[machine.unit]
        state = state.with_unit(Unit(old.id, player, old.kind, old.members, acted=True))
        verb = say("boards his side's") if machine.player == player else "captures"  # §Z.15: the owner may re-board
        text = say(
            "{soldier} {verb} {machine} and becomes its pilot; it fights for {player} from the next round (§9.1).",
            soldier=name(state, soldier.id),
            verb=verb,
            machine=name(state, machine.id),
            player=player,
        )
    else:  # §9.2
        state = state.with_element(replace(machine, player=player))
        ready = not machine.fired and not soldier.fired
        text = say(
            "{soldier} captures {machine} for {player}",
            soldier=name(state, soldier.id),
            machine=name(state, machine.id),
            player=player,
        ) + (say(" and may fire it at once (§9.2).") if ready and soldier.rank >= machine.rank else " (§9.2).")
    return state, [
        Ruling(
            f"{seq}:capture",
            seq,
            RulingKind.STATUS,
            text,
            "§9.1" if machine.kind == "vehicle" else "§9.2",
            element=machine.id,
            details={"by": soldier.id, "player": player},
        )
    ]


def _capture_problem(state: GameState, soldier: Element | None, machine: Element | None) -> tuple[str | None, str]:
    if soldier is None or soldier.kind != "infantry" or soldier.aboard or soldier.destroyed:
        return say("give an infantryman on the table to capture with"), "§9.1 §9.2"
    if machine is None or machine.kind == "infantry" or machine.destroyed:
        return say("give a vehicle or gun to capture"), "§9.1 §9.2"
    if machine.player == soldier.player and machine.kind == "gun":
        return say("{machine} is already {player}'s", machine=name(state, machine.id), player=soldier.player), "§9.2"
    if machine.kind == "vehicle":
        if machine.pilot is not None:
            return say("{machine} has a pilot", machine=name(state, machine.id)), "§9.1"
        if soldier.rank < machine.rank:
            return say(
                "{soldier}'s rank {rank} is below the vehicle's {rank2}",
                soldier=name(state, soldier.id),
                rank=soldier.rank,
                rank2=machine.rank,
            ), "§9.1"
    else:
        crew = [e for e in contact.crew_touching_any(state, machine) if state.elements[e].player == machine.player]
        if crew:
            return say(
                "{names} still touches {machine}",
                names=", ".join(name(state, c) for c in crew),
                machine=name(state, machine.id),
            ), "§9.2"
    if _touching(state, soldier, machine) is False:
        return say(
            "{soldier} is not touching {machine}", soldier=name(state, soldier.id), machine=name(state, machine.id)
        ), "§9.1 §9.2"
    return None, ""
