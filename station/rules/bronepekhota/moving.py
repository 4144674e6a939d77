"""§4 movement, measured: the acting unit's path from the camera against its allowance.

The allowance here is flat ground, 1 SP per step (§4.1, Table 2 forward moves), with the speed
from the unit's Armlist or its durability sector (§2.2).  Terrain costs, climbing and turning
costs are not charged yet (the terrain layer does not price them); the turning is reported so
the referee can.
"""
from __future__ import annotations

from typing import Any

from ...measure.movement import movement
from ...measure.units import BRONEPEKHOTA
from ..base import Ruling
from .state import GameState

TOLERANCE_MM = 5.0  # within a camera's error of the allowance is not "too far"


STEP_MM = BRONEPEKHOTA.unit.mm  # §4.1: 1 SP moves 1 step (5 cm) on flat ground


def allowance_mm(state: GameState, element_id: str) -> float:
    return state.speed_of(state.elements[element_id]) * STEP_MM


def movement_view(state: GameState) -> dict[str, Any]:
    """For the dashboard: how far each of the acting unit's models has moved, against its allowance."""
    return {element: {"moved_steps": round(movement(path).path_mm / STEP_MM, 2),
                      "allowed_steps": round(allowance_mm(state, element) / STEP_MM, 2),
                      "turned_deg": round(movement(path).turned_deg)}
            for element, path in sorted(state.paths.items())}


def movement_rulings(state: GameState, seq: int) -> list[Ruling]:
    """At the end of an activation: a model that went further than allowed goes to the referee."""
    rulings = []
    for element, path in sorted(state.paths.items()):
        moved = movement(path)
        allowed = allowance_mm(state, element)
        if moved.path_mm > allowed + TOLERANCE_MM:
            name = state.setup.names.get(element, element)
            rulings.append(Ruling(f"{seq}:moved:{element}", seq, "warning",
                                  f"{name} moved {moved.path_mm / STEP_MM:.1f} steps this activation (and turned "
                                  f"{moved.turned_deg:.0f}°); its allowance on flat ground is {allowed / STEP_MM:g}.",
                                  "§4.1 §4.2", needs_referee=True, element=element,
                                  details={"moved_mm": round(moved.path_mm, 1), "allowed_mm": allowed,
                                           "turned_deg": round(moved.turned_deg, 1)}))
    return rulings
