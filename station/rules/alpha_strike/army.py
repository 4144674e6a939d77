"""Alpha Strike force files (``alpha-strike-force/1``, JSON): a player's units, each a card (from
the bundled library by name, inline in the project format, or a Master Unit List record) with
its pilot's Skill and the camera marker and base of its model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from ...datafile import Fields, load_json_file
from ..army_schema import BASE, FLAG, ID, MARKER, TEXT, Schema, army_file, list_of, one_of, record, when, whole
from ..base import ArmyError
from ..model_fields import ID_CHECK, base, ids_once, marker, one_army_each, open_army
from .cards import DAMAGE, Card, parse_card
from .formations import TYPES, parse_formation
from .library import CardLibrary
from .mul import parse_mul
from .specials import SPECIAL
from .where import DEFAULT_HEIGHT_MM

FORMAT = "alpha-strike-force/1"
LIBRARY = "alpha-strike-cards/1"
DEFAULT_BASE = "round40"  # a 'Mech's hex base, as the circle it sits in (sample)


def card_library() -> dict[str, Card]:
    """The bundled cards (station/data/alpha_strike/cards.json; sample data, see its note)."""
    with resources.as_file(resources.files("station") / "data" / "alpha_strike" / "cards.json") as path:
        f = Fields(str(path), load_json_file(path, ArmyError), error=ArmyError)
        return {c.name: c for c in (parse_card(item) for item in f.items("cards", min_len=1))}


def _card(f: Fields, library: Mapping[str, Card]) -> Card:
    """The unit's card: named from the bundled library or the club's imported one, given inline,
    a MUL record, or an imported record's MUL id."""
    given = [k for k in ("card", "mul", "mul_id") if k in f.data]
    if len(given) != 1:
        f.fail('give the unit one of "card" (a card\'s name, or a card), "mul" (a MUL record) or "mul_id"')
    if "mul" in f.data:
        return parse_mul(f.child("mul"))
    if "mul_id" in f.data:
        mul_id = f.integer("mul_id", 1, 10**7)
        card = CardLibrary().by_id(mul_id)
        if card is None:
            f.fail(
                f"no card with MUL id {mul_id} in {CardLibrary().path}; import it with `station import-mul`", "mul_id"
            )
        return card
    if isinstance(f.data["card"], str):
        name = f.data["card"]
        card = library.get(name) or CardLibrary().by_name(name)
        if card is None:
            f.fail(
                f"no card {name!r} in the bundled or the imported library; bundled: {', '.join(sorted(library))}",
                "card",
            )
        return card
    return parse_card(f.child("card"))


_DAMAGE: Schema = {"type": ["string", "integer"], "pattern": DAMAGE.pattern, "minimum": 0, "maximum": 99}
CARD: Schema = record(
    {"name": TEXT, "size": whole(1, 4), "tmm": whole(-4, 6), "move_in": whole(0, 40), "armour": whole(0, 40),
     "structure": whole(1, 40), "damage": record({"S": _DAMAGE, "M": _DAMAGE, "L": _DAMAGE}, {"E": _DAMAGE})},
    {"format": TEXT, "type": TEXT, "jump_in": whole(0, 40), "role": TEXT, "overheat": whole(0, 4),
     "threshold": whole(0, 40), "specials": list_of({"type": "string", "pattern": SPECIAL.pattern}), "pv": whole(0, 500),
     "sample_data": FLAG, "from_seed": {}},
    description="A card in the project's format (docs/alpha-strike.md)",
)  # fmt: skip
_FORMATION = {
    **record({"type": one_of(TYPES)}, {"speed_demon": list_of(ID)}),
    **when("type", ("battle", "fire_support"), {"properties": {"speed_demon": {"maxItems": 0}}}),
}


def schema() -> Schema:
    """The force format; a card is named (from the bundled or the imported library), given
    inline, a MUL record, or an imported record's MUL id."""
    imported = CardLibrary().cards()
    names = sorted({*card_library(), *(card.name for card in imported.values())})
    name = {
        "type": "string",
        "minLength": 1,
        "title": "a card from the library",
        "examples": names,
        "description": f"bundled: {', '.join(sorted(card_library()))}",
    }
    mul_id = {
        **whole(1, 10**7),
        "examples": sorted(imported),
        "x-example-labels": [imported[i].name for i in sorted(imported)],
    }
    unit = {
        **record(
            {"id": ID},
            {"card": {"anyOf": [name, {**CARD, "title": "a card written out here"}]}, "skill": {**whole(0, 8), "default": 4},
             "tilt_node": ID, "mul_id": mul_id,
             "mul": {"type": "object", "description": "A Master Unit List record"}, "marker": MARKER, "base": BASE},
        ),
        "oneOf": [{"required": ["card"]}, {"required": ["mul"]}, {"required": ["mul_id"]}],
    }  # fmt: skip
    return army_file(FORMAT, "Alpha Strike force", {"units": list_of(unit, 1)}, {"formation": _FORMATION})


def load_army(path: str | Path) -> dict[str, Any]:
    f, header = open_army(path, FORMAT, ["units", "formation"])
    library = card_library()
    units = []
    for u in f.items("units", min_len=1):
        u.reject_unknown(["id", "card", "mul", "mul_id", "skill", "tilt_node", "marker", "base"])
        card = _card(u, library)
        units.append(
            {
                "id": u.get("id", str, check=ID_CHECK),
                "skill": u.integer("skill", 0, 8, 4),
                "card": card.__dict__ | {"damage": list(card.damage), "specials": list(card.specials)},
                "tilt_node": u.get("tilt_node", str, None, ID_CHECK),
                "marker": marker(u),
                "base": base(u, DEFAULT_BASE),
            }
        )
    return {**header, "units": units, "formation": parse_formation(f, [u["id"] for u in units])}


def card_of(unit: Mapping[str, Any]) -> Card:
    data = dict(unit["card"])
    return Card(**{**data, "damage": tuple(data["damage"]), "specials": tuple(data["specials"])})


def check_forces(forces: Sequence[Mapping[str, Any]]) -> None:
    players = one_army_each(forces)
    ids_once(forces, lambda force: ((f"units[{k}].id", unit["id"]) for k, unit in enumerate(force["units"])))
    if len(players) < 2:
        raise ArmyError(forces[0]["source"] if forces else "forces", "player", "a game needs two sides")


def model_specs(forces: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "element": u["id"],
            "unit": u["id"],
            "player": f["player"],
            "kind": "mech",
            "base": u["base"],
            "height_mm": float((u["marker"] or {}).get("height_mm") or DEFAULT_HEIGHT_MM),
            "marker": u["marker"],
        }
        for f in forces
        for u in f["units"]
    ]
