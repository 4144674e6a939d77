"""Бронепехота as the dashboard shows it: each unit with its models, what each may still do in
this activation (§3.2), the round and whose turn it is."""

from __future__ import annotations

from typing import Any

from ..table_snapshot import table_view
from ..text import say
from ..view import ElementView, StateView, UnitView, status_of
from . import missions
from .moving import jump_range, movement_view
from .state import OPTIONS, Element, GameState


def actions_left(state: GameState, e: Element) -> list[str]:
    """§3.2: what the model may still do in this activation: shots (by rate of fire), a close
    combat (never for flyers), a jump or a repair; moving is shown against its SP instead."""
    if e.destroyed or e.aboard or e.kind == "gun" and state.options.shooting == "real":
        return []
    left: list[str] = []  # texts (say): the page says each in its language
    if e.kind == "infantry":
        if state.options.shooting == "virtual" and not any(f.startswith("virtual:") for f in e.fired):
            left.append(say("shoot"))
    else:
        used = len([f for f in e.fired if f.startswith("virtual:") or "/" in f])
        shots = state.setup.rate_of_fire.get(e.id, 0) - used
        if shots > 0:
            left.append(say("shoot ×{shots}", shots=shots))
    flyer = state.setup.locomotion.get(e.id) == "flying"
    if e.kind != "gun" and not flyer and "melee" not in e.fired:
        left.append(say("close combat"))
    if jump_range(state, e.id) and "jump" not in e.fired:
        left.append(say("jump"))
    return left


class ModelView(ElementView):
    """A soldier, vehicle or gun: its rank, Бр or durability cell, speed, ammunition and crew."""

    rank: int
    speed: int
    ammo: int | None
    pilot: str | None
    aboard: str | None
    needs_repair: bool


class BronepekhotaView(StateView):
    missions: dict[str, dict[str, Any]]  # player -> the declared mission (§1.1)
    pending_hits: int  # hits seen by the sensors and not yet attributed to a shot (§6.7)
    hub_time_ms: int


def state_view(state: GameState) -> BronepekhotaView:
    """The dashboard's and API's view: units with their elements, round, turn, options."""

    def element_view(e_id: str) -> ModelView:
        e = state.elements[e_id]
        scale = state.setup.scales.get(e_id)
        status = status_of("destroyed" if e.destroyed else ("aboard" if e.aboard else e.posture))
        return {
            "id": e.id,
            "name": state.setup.names.get(e.id, e.id),
            "kind": e.kind,
            "status": status,
            "rank": e.rank,
            "armour": e.armour,
            "speed": state.speed_of(e) if not e.destroyed else 0,
            "durability_max": scale["max"] if scale else None,
            "ammo": e.ammo,
            "ammo_max": state.setup.ammo_max.get(e_id),
            "pilot": e.pilot,
            "aboard": e.aboard,
            "needs_repair": e.needs_repair,
            "fired": sorted(e.fired),
            "weapons": [
                {"id": w.id, "name": w.name, "range": w.range, "power": w.power}
                for w in state.setup.weapons.get(e_id, ())
            ],
            "actions_left": actions_left(state, e),
        }

    units: list[UnitView] = []
    for unit in state.units.values():
        elements = [element_view(m) for m in unit.members]
        pilot = state.elements[unit.id].pilot if unit.kind == "vehicle" else None
        if pilot:
            elements.append(element_view(pilot))
        machine = state.elements[unit.members[0]]
        if unit.kind == "vehicle":
            status = status_of("destroyed" if machine.destroyed else machine.posture)
        else:
            status = (
                "destroyed"
                if all(state.elements[m].destroyed or state.elements[m].aboard for m in unit.members)
                else "in play"
            )
        units.append(
            {
                "id": unit.id,
                "name": state.setup.names.get(unit.id, unit.id),
                "player": unit.player,
                "kind": unit.kind,
                "acted": unit.acted,
                "can_act": state.can_act(unit),
                "status": status,
                "elements": elements,
            }
        )
    guns: list[UnitView] = [
        {
            "id": e.id,
            "name": state.setup.names.get(e.id, e.id),
            "player": e.player,
            "kind": "gun",
            "acted": False,
            "can_act": not e.destroyed,
            "status": status_of("destroyed" if e.destroyed else e.posture),
            "elements": [element_view(e.id)],
        }
        for e in state.elements.values()
        if e.kind == "gun"
    ]
    winner, won_by = missions.winner(state)
    return {
        "game": "bronepekhota",
        "round": state.round,
        "initiative": dict(state.initiative),
        "order": list(state.order),
        "active_player": state.active_player(),
        "active_unit": state.active_unit,
        "players": list(state.setup.players),
        "out": list(state.out),
        "winner": winner,
        "won_by": won_by,
        "missions": {
            player: {"objective": m.objective, "target": m.target, "said": missions.objective_words(m)}
            for player, m in sorted(state.missions.items())
        },
        "units": units + guns,
        "options": OPTIONS.dump(state.options),
        "pending_hits": len(state.hits.waiting),
        "hub_time_ms": state.now.t,
        **table_view(state),
        "moved": movement_view(state),
    }
