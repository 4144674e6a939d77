"""The words every army format's JSON Schema is written in.

Each game's army module declares its file format as a JSON Schema next to the loader that
reads it (``SCHEMA`` in ``<game>/army.py``), so the lobby can check an upload and an editor can
complete a field before the loader ever runs.  The loader stays the authority: it also checks
what a schema cannot say (ids used once across armies, durability sectors that cover every
cell); tests/test_army_schemas.py checks that the two agree on every bundled army and on
hundreds of broken copies of them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..measure.bases import BASE_NAME

Schema = dict[str, Any]

# model_fields.ID_CHECK: 1-32 letters, digits, '-' or '_' (Python's \w is Unicode, as str.isalnum is)
ID: Schema = {"type": "string", "pattern": r"^[\w-]{1,32}$"}
NODE: Schema = {"type": "string", "pattern": r"^[\w-]{1,32}(@[0-9A-F]{4,8})?$"}  # "T1", or "T1@3F2A" on that hub
TEXT: Schema = {"type": "string"}
FLAG: Schema = {"type": "boolean"}
BASE: Schema = {
    "type": "string",
    "pattern": BASE_NAME.pattern,
    "description": "round<diameter>, oval<a>x<b> or rect<a>x<b> in mm, e.g. round25 or rect50x100",
}
DICE: Schema = {"type": "string", "pattern": r"^[1-9]?[DdДд](4|6|8|10|12|20)([+-]\d{1,2})?$"}


def whole(low: int, high: int) -> Schema:
    return {"type": "integer", "minimum": low, "maximum": high}


def number(low: float, high: float) -> Schema:
    return {"type": "number", "minimum": low, "maximum": high}


def one_of(words: Sequence[str]) -> Schema:
    return {"enum": list(words)}


def list_of(item: Schema, min_items: int = 0, max_items: int | None = None) -> Schema:
    schema: Schema = {"type": "array", "items": item, "minItems": min_items}
    if max_items is not None:
        schema["maxItems"] = max_items
    return schema


def record(required: Mapping[str, Schema], optional: Mapping[str, Schema] | None = None, **more: Any) -> Schema:
    """An object with these fields and no others (the loaders refuse unknown fields as typos)."""
    return {
        "type": "object",
        "required": list(required),
        "properties": {**required, **(optional or {})},
        "additionalProperties": False,
        **more,
    }


def when(field: str, values: Sequence[str], then: Schema) -> Schema:
    """``then`` applies to an object whose ``field`` is one of ``values``."""
    return {"if": {"required": [field], "properties": {field: one_of(values)}}, "then": then}


# model_fields.marker: the overhead camera's marker on a model
MARKER: Schema = record(
    {"id": whole(16, 249), "height_mm": number(0, 300)},
    {
        "size_mm": number(10, 100),
        "offset_mm": {"type": "array", "items": number(-200, 200), "minItems": 2, "maxItems": 2},
    },
    description="The camera's marker: its id, height above the table, printed size and base offset (mm)",
)


def army_file(format_name: str, title: str, required: Mapping[str, Schema], optional: Mapping[str, Schema]) -> Schema:
    """A whole army file: its format tag, the player, and the game's own fields."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": title,
        **record(
            {"format": {"const": format_name}, "player": ID, **required},
            {"name": TEXT, "sample_data": TEXT, **optional},
        ),
    }
