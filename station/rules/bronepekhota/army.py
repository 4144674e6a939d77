"""Бронепехота army files (``bronepekhota-army/1``, JSON): units, Armlists and sensor wiring.

The rulebook's Armlist images are lost (seed 000 digest §Z.21), so durability scales, speed
sectors and ammunition maxima come from these files and are never hard-coded.  docs/bronepekhota.md
documents the format field by field.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ...datafile import Fields, problem
from ..army_schema import BASE, DICE, ID, MARKER, NODE, TEXT, Schema, army_file, list_of, number, one_of, record, whole
from ..base import ArmyError
from ..model_fields import ID_CHECK, NODE_CHECK, base, ids_once, marker, one_army_each, open_army

FORMAT = "bronepekhota-army/1"
SQUAD_SIZE = 6  # §2.1: each squad has exactly 6 infantrymen
LAUNCHER_KINDS = ("cannon", "mortar", "rocket")
# §6: mortars fire shells or bombs; rocket launchers fire shells or rockets.
CHARGES_BY_LAUNCHER = {"cannon": ("shell",), "mortar": ("shell", "bomb"), "rocket": ("shell", "rocket")}


PROPERTIES = ("explodes",)  # §7.4 IV: the heavy rocket's blast; more come with their Armlists
MACHINE_PROPERTIES = ("repair_platform",)  # §10.1: HELIX's repair-and-transport platform
# A model's height for line of sight when its marker does not give one (the marker sits on top):
# sample values for 1:35-ish models.
DEFAULT_HEIGHTS_MM = {"infantry": 40.0, "vehicle": 70.0, "gun": 30.0}
DEFAULT_BASES = {"infantry": "round25", "vehicle": "rect50x100", "gun": "rect25x50"}  # sample defaults


def _dice(f: Fields, name: str) -> str:
    from ...dice import DiceExpression

    def check(text: str) -> str | None:
        try:
            DiceExpression.parse(text)
        except ValueError:
            return problem("'{value}' is not a dice expression: write e.g. D6, D6+2, 2D12 or D20-1", value=text)
        return None

    return str(DiceExpression.parse(f.get(name, str, check=check)))


def _weapon(f: Fields, default_id: str) -> dict[str, Any]:
    """§7.1: Range (the accuracy roll) and Power (the damage dice), with special properties
    (§7.4 IV), e.g. ``explodes`` for the heavy rocket."""
    f.reject_unknown(["id", "name", "range", "power", "properties"])
    return {
        "id": f.get("id", str, default_id, ID_CHECK),
        "name": f.get("name", str, ""),
        "range": _dice(f, "range"),
        "power": _dice(f, "power"),
        "properties": f.get(
            "properties",
            list,
            [],
            lambda v: None if all(p in PROPERTIES for p in v) else f"properties are {', '.join(PROPERTIES)}",
        ),
    }


def _melee(f: Fields) -> dict[str, Any]:
    """§8.1: a vehicle's melee weapon, ББ in its Range slot and a number in Power (claw ББ/1)."""
    f.reject_unknown(["name", "power"])
    return {"name": f.get("name", str), "power": f.integer("power", 0, 20)}


def _personal_weapon(f: Fields) -> dict[str, Any] | None:
    """An infantryman's Дальн. and Мощн. (§2.1): both, or neither (dashes: no ranged weapon)."""
    if "range" not in f.data and "power" not in f.data:
        return None
    if "range" not in f.data or "power" not in f.data:
        f.fail(
            "an infantryman's weapon needs both range and power (or neither)",
            "range" if "range" not in f.data else "power",
        )
    return {
        "id": "personal",
        "name": "personal weapon",
        "range": _dice(f, "range"),
        "power": _dice(f, "power"),
        "properties": [],
    }


def _durability(f: Fields) -> dict[str, Any]:
    """§2.2, §5.2: cells numbered max..1, the current cell is the armour; coloured sectors give speed."""
    f.reject_unknown(["max", "sectors"])
    top = f.integer("max", 1, 99)
    sectors = []
    covered: list[int] = []
    for s in f.items("sectors", min_len=1):
        s.reject_unknown(["from", "to", "speed", "colour"])
        high, low = s.integer("from", 1, top), s.integer("to", 1, top)
        if low > high:
            s.fail(f"'to' ({low}) must not exceed 'from' ({high})")
        sectors.append(
            {"from": high, "to": low, "speed": s.integer("speed", 0, 99), "colour": s.get("colour", str, "")}
        )
        covered.extend(range(low, high + 1))
    if sorted(covered) != list(range(1, top + 1)):
        f.fail(f"sectors must cover cells 1..{top} exactly once", "sectors")
    sectors.sort(key=lambda s: -s["from"])
    return {"max": top, "sectors": sectors}


def _launchers(f: Fields) -> list[dict[str, Any]]:
    launchers = []
    for item in f.items("launchers"):
        item.reject_unknown(["node", "barrels", "kind"])
        launchers.append(
            {
                "node": item.get("node", str, check=NODE_CHECK),
                "barrels": item.integer("barrels", 1, 9),
                "kind": item.choice("kind", LAUNCHER_KINDS),
            }
        )
    return launchers


def _member(f: Fields) -> dict[str, Any]:
    f.reject_unknown(
        [
            "id",
            "name",
            "rank",
            "speed",
            "armour",
            "close_combat",
            "properties",
            "tilt_node",
            "marker",
            "base",
            "range",
            "power",
        ]
    )
    return {
        "id": f.get("id", str, check=ID_CHECK),
        "name": f.get("name", str, ""),
        "marker": marker(f),
        "base": base(f, DEFAULT_BASES["infantry"]),
        "weapon": _personal_weapon(f),
        "rank": f.integer("rank", 0, 9),
        "speed": f.integer("speed", 0, 20),
        "armour": f.integer("armour", 0, 20),
        "close_combat": f.integer("close_combat", 0, 20, 0),
        "properties": f.get("properties", list, []),
        "tilt_node": f.get("tilt_node", str, None, NODE_CHECK),
    }


# the fields a vehicle and a gun share; each adds its own (Table 2's clearance, a gun's mobility)
MACHINE_FIELDS = (
    "id", "type", "name", "cost", "rank", "rate_of_fire", "ammo_max", "durability", "launchers", "tilt_node",
    "marker", "base", "weapons", "melee", "properties",
)  # fmt: skip


def _unit(f: Fields) -> dict[str, Any]:
    kind = f.choice("type", ("squad", "vehicle", "gun"))
    common = {
        "id": f.get("id", str, check=ID_CHECK),
        "type": kind,
        "name": f.get("name", str, ""),
        "cost": f.integer("cost", 0, 10000, 0),
    }
    if kind == "squad":
        f.reject_unknown(["id", "type", "name", "cost", "members"])
        return {**common, "members": [_member(m) for m in f.items("members", SQUAD_SIZE, SQUAD_SIZE)]}
    machine = {
        **common,
        "rank": f.integer("rank", 0, 9),
        # an armlist's 0: a machine that cannot fire this round (its shots are refused, §7.6)
        "rate_of_fire": f.integer("rate_of_fire", 0, 9),
        "ammo_max": f.integer("ammo_max", 0, 99),
        "durability": _durability(f.child("durability")),
        "launchers": _launchers(f),
        "tilt_node": f.get("tilt_node", str, None, NODE_CHECK),
        "marker": marker(f),
        "base": base(f, DEFAULT_BASES[kind]),
        "weapons": [_weapon(w, f"weapon-{k + 1}") for k, w in enumerate(f.items("weapons", 0, 9))]
        if "weapons" in f.data
        else [],
        "melee": [_melee(m) for m in f.items("melee", 0, 9)] if "melee" in f.data else [],
        "properties": f.get(
            "properties",
            list,
            [],
            lambda v: (
                None
                if all(p in MACHINE_PROPERTIES for p in v)
                else f"a vehicle's or gun's properties are {', '.join(MACHINE_PROPERTIES)}"
            ),
        ),
    }
    ids = [w["id"] for w in machine["weapons"]]
    if len(set(ids)) != len(ids):
        f.fail("two weapons share an id", "weapons")
    if kind == "vehicle":
        f.reject_unknown(MACHINE_FIELDS + ("class", "locomotion", "pilot", "clearance_mm"))
        machine.update(
            {
                "class": f.choice("class", ("light", "heavy")),
                "locomotion": f.choice("locomotion", ("wheeled", "tracked", "walking", "flying")),
                "pilot": f.get("pilot", str, None),
                # Table 2: half the wheel height, the track height, the cockpit support height,
                # or a flyer's stand height: the tallest vertical obstacle it may cross
                "clearance_mm": f.get(
                    "clearance_mm", (int, float), None, lambda v: None if 0 <= v <= 500 else "must be 0 to 500 mm"
                ),
            }
        )
    else:
        f.reject_unknown(MACHINE_FIELDS + ("mobility",))
        machine["mobility"] = f.choice("mobility", ("mobile", "stationary"))
    return machine


_WEAPON = record({"range": DICE, "power": DICE}, {"id": ID, "name": TEXT, "properties": list_of(one_of(PROPERTIES))})
_MEMBER = record(
    {"id": ID, "rank": whole(0, 9), "speed": whole(0, 20), "armour": whole(0, 20)},
    {"name": TEXT, "close_combat": whole(0, 20), "properties": {"type": "array"}, "tilt_node": NODE,
     "marker": MARKER, "base": BASE, "range": DICE, "power": DICE},
    dependentRequired={"range": ["power"], "power": ["range"]},  # §2.1: both, or a dash in each
)  # fmt: skip
_SECTOR = record({"from": whole(1, 99), "to": whole(1, 99), "speed": whole(0, 99)}, {"colour": TEXT})
_MACHINE_REQUIRED = {
    "id": ID, "rank": whole(0, 9), "rate_of_fire": whole(0, 9), "ammo_max": whole(0, 99),
    "durability": record({"max": whole(1, 99), "sectors": list_of(_SECTOR, 1)}),
    "launchers": list_of(record({"node": NODE, "barrels": whole(1, 9), "kind": one_of(LAUNCHER_KINDS)})),
}  # fmt: skip
_MACHINE_OPTIONAL = {
    "name": TEXT, "cost": whole(0, 10000), "tilt_node": NODE, "marker": MARKER, "base": BASE,
    "weapons": list_of(_WEAPON, 0, 9), "melee": list_of(record({"name": TEXT, "power": whole(0, 20)}), 0, 9),
    "properties": list_of(one_of(MACHINE_PROPERTIES)),
}  # fmt: skip
SCHEMA = army_file(
    FORMAT,
    "Бронепехота army",
    {
        "units": list_of(
            {
                "oneOf": [
                    record({"type": {"const": "squad"}, "id": ID, "members": list_of(_MEMBER, SQUAD_SIZE, SQUAD_SIZE)},
                           {"name": TEXT, "cost": whole(0, 10000)}),
                    record({"type": {"const": "vehicle"}, **_MACHINE_REQUIRED,
                            "class": one_of(("light", "heavy")),
                            "locomotion": one_of(("wheeled", "tracked", "walking", "flying"))},
                           {**_MACHINE_OPTIONAL, "pilot": ID, "clearance_mm": number(0, 500)}),
                    record({"type": {"const": "gun"}, **_MACHINE_REQUIRED,
                            "mobility": one_of(("mobile", "stationary"))}, _MACHINE_OPTIONAL),
                ]
            },
            1,
        )
    },
    {"faction": TEXT},
)  # fmt: skip


def schema() -> Schema:
    return copy.deepcopy(SCHEMA)


def load_army(path: str | Path) -> dict[str, Any]:
    """Read, validate and normalise one army file."""
    f, header = open_army(path, FORMAT, ["faction", "units"])
    army = {**header, "faction": f.get("faction", str, ""), "units": [_unit(u) for u in f.items("units", min_len=1)]}
    _check_pilots(f, army)
    return army


def _check_pilots(f: Fields, army: dict[str, Any]) -> None:
    """§2.3: a pilot is an infantryman of the same army whose rank is at least the vehicle's."""
    members = {m["id"]: m for u in army["units"] if u["type"] == "squad" for m in u["members"]}
    used: dict[str, str] = {}
    for index, unit in enumerate(army["units"]):
        pilot = unit.get("pilot")
        if pilot is None:
            continue
        where = f"units[{index}].pilot"
        if pilot not in members:
            raise ArmyError(f.path, where, f"{pilot!r} is not an infantryman of this army")
        if members[pilot]["rank"] < unit["rank"]:
            raise ArmyError(
                f.path,
                where,
                f"{pilot} has rank {members[pilot]['rank']}, below the vehicle's rank {unit['rank']} (§2.3)",
            )
        if pilot in used:
            raise ArmyError(f.path, where, f"{pilot} already pilots {used[pilot]}")
        used[pilot] = unit["id"]


def model_height(element: Mapping[str, Any], kind: str) -> float:
    """For line of sight: the marker's height above the table, else the default for its kind."""
    return float((element.get("marker") or {}).get("height_mm") or DEFAULT_HEIGHTS_MM[kind])


def model_specs(armies: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every model on the table: its unit, player, kind, base, height and camera marker (or None)."""
    out = []
    for army in armies:
        for unit in army["units"]:
            kind = "infantry" if unit["type"] == "squad" else unit["type"]
            out += [
                {
                    "element": element["id"],
                    "unit": unit["id"],
                    "player": army["player"],
                    "kind": kind,
                    "base": element["base"],
                    "height_mm": model_height(element, kind),
                    "marker": element.get("marker"),
                }
                for element in (unit["members"] if unit["type"] == "squad" else [unit])
            ]
    return out


def _ids(army: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """A Бронепехота army's ids with their fields: each unit's, and a squad's fighters'."""
    for k, unit in enumerate(army["units"]):
        yield f"units[{k}].id", unit["id"]
        for j, member in enumerate(unit["members"] if unit["type"] == "squad" else []):
            yield f"units[{k}].members[{j}].id", member["id"]


def check_armies(armies: Sequence[Mapping[str, Any]]) -> None:
    """Checks across armies: distinct players, and ids and sensor nodes used once on the table."""
    one_army_each(armies)
    ids_once(armies, _ids)
    nodes: dict[str, str] = {}
    markers: dict[int, str] = {}
    for army in armies:
        src = army["source"]
        for k, unit in enumerate(army["units"]):
            elements = unit["members"] if unit["type"] == "squad" else [unit]
            for element in elements:
                marker = element.get("marker")
                if marker and marker["id"] in markers:
                    raise ArmyError(
                        src,
                        f"units[{k}]",
                        problem(
                            "marker {marker} is already on {other}", marker=marker["id"], other=markers[marker["id"]]
                        ),
                    )
                if marker:
                    markers[marker["id"]] = element["id"]
            wired = [e.get("tilt_node") for e in elements] + [
                launcher["node"] for launcher in unit.get("launchers", [])
            ]
            for node in filter(None, wired):
                if node in nodes:
                    raise ArmyError(
                        src,
                        f"units[{k}]",
                        problem("sensor node '{node}' is already wired to {other}", node=node, other=nodes[node]),
                    )
                nodes[node] = unit["id"]
