"""Army files for the Бронепехота quick rules (``bronepekhota-quick-army/1``, JSON; seed 002).

Every model is its own unit (digest §1).  The unit cards were lost with the start of the text,
so Shooting, Close combat, Armour, Durability and Manoeuvre come from these files; docs/bronepekhota-quick.md
documents the format.  A weapon is ``virtual`` (dice, §7) or ``real`` (a spring launcher wired to
the hub, §11); ``powerful_melee`` lets infantry hurt vehicles in close combat (§10).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...datafile import Fields, problem
from ..army_schema import BASE, FLAG, ID, MARKER, NODE, TEXT, Schema, army_file, list_of, one_of, record, when, whole
from ..base import ArmyError
from ..model_fields import ID_CHECK, NODE_CHECK, base, marker, one_army_each, open_army

FORMAT = "bronepekhota-quick-army/1"
KINDS = ("infantry", "cyborg", "vehicle", "gun")
DEFAULT_BASES = {"infantry": "round25", "cyborg": "round32", "vehicle": "rect50x100", "gun": "rect25x50"}
DEFAULT_HEIGHTS_MM = {"infantry": 40.0, "cyborg": 45.0, "vehicle": 70.0, "gun": 30.0}  # sample values


def _weapon(f: Fields, default_id: str) -> dict[str, Any]:
    f.reject_unknown(["id", "name", "kind", "launcher", "barrels", "powerful_melee"])
    kind = f.choice("kind", ("virtual", "real"), "virtual")
    weapon = {
        "id": f.get("id", str, default_id, ID_CHECK),
        "name": f.get("name", str, ""),
        "kind": kind,
        "powerful_melee": f.get("powerful_melee", bool, False),
        "launcher": None,
        "barrels": 0,
    }
    if kind == "real":  # §11: a spring launcher the hub reports by node id
        weapon["launcher"] = f.get("launcher", str, check=NODE_CHECK)
        weapon["barrels"] = f.integer("barrels", 1, 9, 1)
    return weapon


def _unit(f: Fields) -> dict[str, Any]:
    f.reject_unknown(
        [
            "id",
            "name",
            "kind",
            "armour",
            "shooting",
            "melee",
            "durability",
            "maneuver",
            "weapons",
            "tilt_node",
            "base",
            "marker",
        ]
    )
    kind = f.choice("kind", KINDS)
    unit = {
        "id": f.get("id", str, check=ID_CHECK),
        "name": f.get("name", str, ""),
        "kind": kind,
        "armour": f.integer("armour", 0, 30),
        "shooting": f.integer("shooting", 0, 20, 0),
        "melee": f.integer("melee", 0, 20, 0),
        "tilt_node": f.get("tilt_node", str, None, NODE_CHECK),
        "base": base(f, DEFAULT_BASES[kind]),
        "marker": marker(f),
        "weapons": [_weapon(w, f"weapon-{k + 1}") for k, w in enumerate(f.items("weapons", 0, 9))]
        if "weapons" in f.data
        else [],
    }
    if kind in ("vehicle", "gun"):  # §13: destroyed once the damage exceeds it
        unit["durability"] = f.integer("durability", 0, 99)
    elif "durability" in f.data:
        f.fail("only vehicles and guns have a durability; infantry die at the first damage (§7)", "durability")
    # §5: infantry take their Manoeuvre from the Armour table (an option); others must say it
    unit["maneuver"] = f.integer("maneuver", 0, 50) if kind in ("vehicle", "cyborg") or "maneuver" in f.data else None
    ids = [w["id"] for w in unit["weapons"]]
    if len(set(ids)) != len(ids):
        f.fail("two weapons share an id", "weapons")
    return unit


_WEAPON = {
    **record({}, {"id": ID, "name": TEXT, "kind": one_of(("virtual", "real")), "launcher": NODE,
                  "barrels": whole(1, 9), "powerful_melee": FLAG}),
    **when("kind", ("real",), {"required": ["launcher"]}),  # §11: a spring launcher the hub reports
}  # fmt: skip
_UNIT = {
    **record(
        {"id": ID, "kind": one_of(KINDS), "armour": whole(0, 30)},
        {"name": TEXT, "shooting": whole(0, 20), "melee": whole(0, 20), "durability": whole(0, 99),
         "maneuver": whole(0, 50), "weapons": list_of(_WEAPON, 0, 9), "tilt_node": NODE, "base": BASE, "marker": MARKER},
    ),
    "allOf": [
        when("kind", ("vehicle", "gun"), {"required": ["durability"]}),  # §13
        when("kind", ("infantry", "cyborg"), {"not": {"required": ["durability"]}}),  # §7: die at the first damage
        when("kind", ("vehicle", "cyborg"), {"required": ["maneuver"]}),  # §5: only infantry read the table
    ],
}  # fmt: skip
SCHEMA = army_file(FORMAT, "Бронепехота quick-rules army", {"units": list_of(_UNIT, 1)}, {})


def schema() -> Schema:
    return copy.deepcopy(SCHEMA)


def load_army(path: str | Path) -> dict[str, Any]:
    f, header = open_army(path, FORMAT, ["units"])
    return {**header, "units": [_unit(u) for u in f.items("units", min_len=1)]}


def check_armies(armies: Sequence[Mapping[str, Any]]) -> None:
    """Across armies: distinct players, and unit ids, launchers and tilt nodes used once."""
    seen: dict[str, str] = {}
    players = one_army_each(armies)
    for army in armies:
        for k, unit in enumerate(army["units"]):
            names = (
                [unit["id"]]
                + [w["launcher"] for w in unit["weapons"] if w["launcher"]]
                + ([unit["tilt_node"]] if unit["tilt_node"] else [])
            )
            for name in names:
                if name in seen:
                    raise ArmyError(
                        army["source"],
                        f"units[{k}]",
                        problem("'{id}' is also used by {other}", id=name, other=seen[name]),
                    )
                seen[name] = f"{army['source']} {unit['id']}"
    if len(players) < 2:
        raise ArmyError(armies[0]["source"] if armies else "armies", "player", "a game needs two players")


def model_height(unit: Mapping[str, Any]) -> float:
    """For line of sight: the marker's height above the table, else the sample default for its kind."""
    return float((unit["marker"] or {}).get("height_mm") or DEFAULT_HEIGHTS_MM[unit["kind"]])


def model_specs(armies: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "element": u["id"],
            "unit": u["id"],
            "player": a["player"],
            "kind": u["kind"],
            "base": u["base"],
            "height_mm": model_height(u),
            "marker": u["marker"],
        }
        for a in armies
        for u in a["units"]
    ]
