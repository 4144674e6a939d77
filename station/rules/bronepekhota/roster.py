"""Who a model is and where its pilot goes: shared by every kind of damage and by panic."""

from __future__ import annotations

from dataclasses import replace

from ..text import Text, say
from .state import Element, GameState, Unit


def name(state: GameState, element_id: str) -> str:
    return state.setup.names.get(element_id, element_id)


def dismount(state: GameState, vehicle: Element) -> tuple[GameState, Text]:
    """§5.1: the surviving pilot of a destroyed vehicle stands where it stood, as infantry."""
    if vehicle.pilot is None:
        raise ValueError(f"{vehicle.id} has no pilot to dismount")
    pilot = state.elements[vehicle.pilot]
    unit_id = f"{vehicle.id}-pilot"
    acted = state.units[vehicle.unit].acted if vehicle.unit is not None and vehicle.unit in state.units else False
    state = state.with_element(replace(pilot, aboard=None, unit=unit_id))
    state = state.with_element(replace(state.elements[vehicle.id], pilot=None))
    state = state.with_unit(Unit(unit_id, pilot.player, "pilot", (pilot.id,), acted=acted))
    if state.active_unit == vehicle.unit:
        state = state.evolve(active_unit=None, last_player=vehicle.player)
    return state, say("pilot {pilot} climbs out and fights on as infantry (§5.1)", pilot=name(state, pilot.id))
