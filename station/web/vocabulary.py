"""What every page draws with, declared once and sent to the pages as JSON (``#vocabulary``):
the terrain types and their colours, the base-name pattern, and the statuses that take a model
out of play.  The live map (table.js), the replay's and the report's pictures (picture.py) read
these, so a type added in measure/terrain.py or a status added in rules/view.py reaches all of
them, and none draws a trench grey or keeps a fled model on the table."""

from __future__ import annotations

from typing import Any

from ..measure.bases import BASE_NAME
from ..measure.terrain import TYPES
from ..rules.view import OUT_OF_PLAY

# Each terrain type's fill, translucent so the bases under it still show (#rrggbbaa).
TERRAIN_COLOURS = {
    "woods": "#3fb95059",
    "building": "#aaaaaa99",
    "hill": "#be8c5073",
    "water": "#4a90e273",
    "obstacle": "#d2992299",
    "trench": "#6e50328c",  # The Price of a Mile
    "wire": "#c8c8c840",
}
if set(TERRAIN_COLOURS) != set(TYPES):  # a new type without a colour would be drawn grey everywhere
    raise ImportError(f"terrain colours {sorted(TERRAIN_COLOURS)} do not match the terrain types {sorted(TYPES)}")


def vocabulary() -> dict[str, Any]:
    return {
        "terrain": [[kind, TERRAIN_COLOURS[kind]] for kind in TYPES],  # in the editor's order
        "base_name": BASE_NAME.pattern,
        "out_of_play": list(OUT_OF_PLAY),
    }
