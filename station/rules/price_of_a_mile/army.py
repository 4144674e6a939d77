"""The Price of a Mile army files (``price-of-a-mile-army/1``, JSON) and the bundled rules data.

An army is squads of up to 10 bases (seed 003 digest §3.1) and characters.  A base's stats come
from its troop type in ``station/data/price_of_a_mile/rules-data.json`` (sample data: the source
lost its numbers), changed by body armour (§12.3), a horse (§12.2) and any ``stats`` given.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ...datafile import Fields, load_bundled
from ..army_schema import BASE, FLAG, ID, MARKER, TEXT, Schema, army_file, list_of, one_of, record, whole
from ..base import ArmyError
from ..model_fields import ID_CHECK, base, ids_once, marker, one_army_each, open_army

FORMAT = "price-of-a-mile-army/1"
DATA_FORMAT = "price-of-a-mile-data/1"
STATS = ("speed", "melee", "shooting", "toughness", "resourcefulness", "morale")
SQUAD_RULES = (
    "sluggish",
    "unreliable",
    "enthusiasm",
    "hold_the_line",
    "defend_homeland",  # §16
    "short_of_ammo",
)  # §6.10: misfires
MAX_SQUAD = 10  # §3.1
DEFAULT_BASE = "rect25x50"  # a WWI infantry base (sample)
DEFAULT_HEIGHT_MM = 30.0
VEHICLE_BASE = "rect50x100"  # a vehicle's footprint (sample; give the model's own as "base")


def rules_data() -> dict[str, Any]:
    """The bundled weapons, melee weapons and troop types (sample data; see the file's note)."""
    return load_bundled("price_of_a_mile/rules-data.json", DATA_FORMAT, ArmyError)


def _stats(f: Fields, kind: Mapping[str, Any], armour: bool, mounted: bool) -> dict[str, int]:
    stats = {s: kind[s] for s in STATS}
    if "stats" in f.data:
        given = f.child("stats")
        given.reject_unknown(STATS)
        stats.update({s: given.integer(s, -5, 20) for s in STATS if s in given.data})
    if armour:  # §12.3
        stats["toughness"] += 1
        stats["speed"] -= 1
    if mounted:  # §12.2
        stats["speed"] += 3
    return stats


def _model(f: Fields, data: Mapping[str, Any], squad_type: str | None) -> dict[str, Any]:
    f.reject_unknown(
        [
            "id",
            "type",
            "vehicle",
            "weapon",
            "melee_weapon",
            "grenades",
            "wire_cutters",
            "armour",
            "mounted",
            "hero",
            "commander",
            "stats",
            "marker",
            "base",
            "name",
        ]
    )
    if squad_type is None and "vehicle" in f.data:  # §15: vehicles and tanks are characters
        return _vehicle(f, data)
    kinds = sorted(data["troop_types"])
    kind_name = f.choice("type", kinds) if squad_type is None else f.choice("type", kinds, squad_type)
    kind = data["troop_types"][kind_name]
    armour, mounted = f.get("armour", bool, False), f.get("mounted", bool, False)
    return {
        "id": f.get("id", str, check=ID_CHECK),
        "name": f.get("name", str, ""),
        "type": kind_name,
        "weapon": f.choice("weapon", sorted(data["weapons"]), "rifle"),
        "melee_weapon": f.choice("melee_weapon", sorted(data["melee_weapons"]), "basic"),
        "grenades": f.get("grenades", bool, False),
        "wire_cutters": f.get("wire_cutters", bool, False),
        "armour": armour,
        "mounted": mounted,
        "hero": f.get("hero", bool, False),
        "commander": f.get("commander", bool, False),
        "stats": _stats(f, kind, armour, mounted),
        "cost": kind["cost_base"],
        "marker": marker(f),
        "base": base(f, DEFAULT_BASE),
        "vehicle": None,
    }


def _vehicle(f: Fields, data: Mapping[str, Any]) -> dict[str, Any]:
    name = f.choice("vehicle", sorted(data["vehicles"]))
    kind = data["vehicles"][name]
    return {
        "id": f.get("id", str, check=ID_CHECK),
        "name": f.get("name", str, ""),
        "type": name,
        "weapon": f.choice("weapon", sorted(data["weapons"]), kind["weapon"]),
        "melee_weapon": "basic",
        "grenades": False,
        "wire_cutters": False,
        "armour": False,
        "mounted": False,
        "hero": False,
        "commander": f.get("commander", bool, False),
        "stats": _stats(f, kind, False, False),
        "cost": kind["cost"],
        "marker": marker(f),
        "base": base(f, VEHICLE_BASE),
        "vehicle": kind["kind"],
        "mounts": kind.get("mounts", 1),
    }


def schema() -> Schema:
    """The army format; troop types, vehicles and weapons are the bundled rules data's."""
    data = rules_data()
    base_fields = {
        "id": ID, "name": TEXT, "type": one_of(sorted(data["troop_types"])), "vehicle": one_of(sorted(data["vehicles"])),
        "weapon": one_of(sorted(data["weapons"])), "melee_weapon": one_of(sorted(data["melee_weapons"])),
        "grenades": FLAG, "wire_cutters": FLAG, "armour": FLAG, "mounted": FLAG, "hero": FLAG, "commander": FLAG,
        "stats": record({}, {stat: whole(-5, 20) for stat in STATS}), "marker": MARKER, "base": BASE,
    }  # fmt: skip
    squad_base = record({"id": ID}, base_fields)
    character = {**record({"id": ID}, base_fields), "anyOf": [{"required": ["type"]}, {"required": ["vehicle"]}]}
    squad = record(
        {"id": ID, "type": base_fields["type"], "bases": list_of(squad_base, 1, MAX_SQUAD)},
        {"rules": list_of(one_of(SQUAD_RULES))},
    )
    return army_file(
        FORMAT, "The Price of a Mile army", {"squads": list_of(squad, 1)}, {"characters": list_of(character)}
    )


def load_army(path: str | Path) -> dict[str, Any]:
    data = rules_data()
    f, header = open_army(path, FORMAT, ["squads", "characters"])
    squads = []
    for s in f.items("squads", min_len=1):
        s.reject_unknown(["id", "type", "rules", "bases"])
        kind = s.choice("type", sorted(data["troop_types"]))
        rules = s.get("rules", list, [])
        for k, rule in enumerate(rules):
            if rule not in SQUAD_RULES:
                s.fail(f"unknown rule {rule!r}; known: {', '.join(SQUAD_RULES)}", f"rules[{k}]")
        bases = [_model(b, data, kind) for b in s.items("bases", min_len=1)]
        if len(bases) > MAX_SQUAD:
            s.fail(f"has {len(bases)} bases; a squad has at most {MAX_SQUAD} (§3.1)", "bases")
        kind_rules = [r for r in data["troop_types"][kind]["rules"] if r not in rules]  # e.g. §17.2's rally
        squads.append(
            {"id": s.get("id", str, check=ID_CHECK), "type": kind, "rules": list(rules) + kind_rules, "bases": bases}
        )
    characters = [_model(c, data, None) for c in f.items("characters")] if "characters" in f.data else []
    return {**header, "squads": squads, "characters": characters}


def _ids(army: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """The ids of an army's squads, their bases and its characters, with their fields."""
    for k, squad in enumerate(army["squads"]):
        yield f"squads[{k}].id", squad["id"]
        yield from ((f"squads[{k}].bases[{j}].id", b["id"]) for j, b in enumerate(squad["bases"]))
    yield from ((f"characters[{k}].id", c["id"]) for k, c in enumerate(army["characters"]))


def check_armies(armies: Sequence[Mapping[str, Any]]) -> None:
    """Two sides, ids used once, and at most one Hero a side (§12.1: 'usually')."""
    players = one_army_each(armies)
    ids_once(armies, _ids)
    if len(players) < 2:
        raise ArmyError(armies[0]["source"] if armies else "armies", "player", "a game needs two sides")


def model_specs(armies: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every base and character, for the camera and the measurement layer."""
    out = []
    for army in armies:
        for squad in army["squads"]:
            out += [_spec(b, squad["id"], army["player"], "infantry") for b in squad["bases"]]
        out += [_spec(c, c["id"], army["player"], c["vehicle"] or "character") for c in army["characters"]]
    return out


def _spec(model: Mapping[str, Any], unit: str, player: str, kind: str) -> dict[str, Any]:
    return {
        "element": model["id"],
        "unit": unit,
        "player": player,
        "kind": kind,
        "base": model["base"],
        "height_mm": float((model["marker"] or {}).get("height_mm") or DEFAULT_HEIGHT_MM),
        "marker": model["marker"],
    }
