"""What the dashboard draws around a selected model: how far it may still move (§4), its
weapon's reach in virtual shooting (§7.4: sure within the lowest roll of its Range dice,
possible within the highest, and the chance at each distance), and its arcs: the field of view,
which is also a vehicle weapon's traverse (§6.3, §7.3), and the rear from which a close-combat
attack is a surprise (§8)."""

from __future__ import annotations

from typing import Any

from ...dice import DiceExpression
from ..text import say
from .moving import STEP_MM, moves_sp, priced_movement
from .state import GameState

FIELD_OF_VIEW = {"label": say("field of view (§7.3)"), "centre_deg": 0.0, "half_width_deg": 90.0}
TRAVERSE = {"label": say("weapon traverse ±90° (§6.3)"), "centre_deg": 0.0, "half_width_deg": 90.0}
REAR = {"label": say("rear: a surprise attack (§8)"), "centre_deg": 180.0, "half_width_deg": 90.0}


def reach(state: GameState, element_id: str) -> dict[str, Any]:
    element = state.elements[element_id]
    rings = []
    speed = moves_sp(state, element_id)
    if speed > 0:
        acting = state.active_unit is not None and element.unit == state.active_unit
        left = max(speed - priced_movement(state, element_id).sp, 0.0) if acting else float(speed)
        rings.append(
            {
                "label": say(
                    "may move {left} steps{what} on flat ground (§4)",
                    left=f"{left:.1f}",
                    what=say(" more") if acting else "",
                ),
                "mm": round(left * STEP_MM, 1),
            }
        )
    arcs = [TRAVERSE if element.kind == "vehicle" else FIELD_OF_VIEW, REAR]
    weapons = state.setup.weapons.get(element_id, ())
    if not weapons:
        return {"rings": rings, "arcs": arcs}
    chances: dict[int, float] = {}  # steps -> the best chance of any weapon
    for weapon in weapons:  # §7.4 I: a hit when the aimed range >= the distance in steps
        dice = DiceExpression.parse(weapon.range)
        if dice.lowest >= 1:
            rings.append(
                {
                    "label": say(
                        "{name} {dice}: every shot hits within {lowest} steps (§7.4)",
                        name=weapon.name,
                        dice=dice,
                        lowest=dice.lowest,
                    ),
                    "mm": dice.lowest * STEP_MM,
                }
            )
        rings.append(
            {
                "label": say(
                    "{name} {dice}: may hit within {highest} steps (§7.4)",
                    name=weapon.name,
                    dice=dice,
                    highest=dice.highest,
                ),
                "mm": dice.highest * STEP_MM,
            }
        )
        chance = dice.at_least()
        for steps in range(1, dice.highest + 1):
            chances[steps] = max(chances.get(steps, 0.0), round(chance.get(steps, 1.0), 3))
    return {
        "rings": rings,
        "arcs": arcs,
        "weapon": ", ".join(f"{w.name} {w.range}/{w.power}" for w in weapons),
        "hit_chance": chances,
    }
