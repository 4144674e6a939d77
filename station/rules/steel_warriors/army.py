"""Steel Warriors army files (``steel-warriors-army/1``, JSON) and the bundled rules data.

A squad has a Quality die (d4 untrained to d12 elite), its commander's Leadership (1 best to 3
worst), a morale state and a movement class; each figure has a weapon, an armour type and a
role (seed 001 digest §4).  Weapon rates and powers come from
``station/data/steel_warriors/rules-data.json`` (partly sample data: see its note).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ...datafile import Fields, load_bundled
from ..army_schema import BASE, FLAG, ID, MARKER, Schema, army_file, list_of, one_of, record, whole
from ..base import ArmyError
from ..model_fields import ID_CHECK, base, ids_once, marker, one_army_each, open_army
from ..text import say
from .ladder import LADDER

FORMAT = "steel-warriors-army/1"
DATA_FORMAT = "steel-warriors-data/1"
MORALE = ("confident", "steady", "shaken", "broken", "fleeing")  # §10: Ув Ст По Ра Бе
MORALE_WORDS = {  # as the rulings say them
    "confident": say("confident"),
    "steady": say("steady"),
    "shaken": say("shaken"),
    "broken": say("broken"),
    "fleeing": say("fleeing"),
}
ROLES = ("fighter", "commander", "specialist", "sniper", "medic", "surgeon", "weapon")
DEFAULT_BASE = "round25"
DEFAULT_HEIGHT_MM = 30.0


def rules_data() -> dict[str, Any]:
    """The bundled weapons, armour and movement tables (partly sample data; see the file's note)."""
    return load_bundled("steel_warriors/rules-data.json", DATA_FORMAT, ArmyError)


def _figure(f: Fields, data: Mapping[str, Any]) -> dict[str, Any]:
    f.reject_unknown(["id", "weapon", "armour", "role", "flak_vest", "melee_weapon", "android", "marker", "base"])
    weapon = f.choice("weapon", sorted(data["weapons"]), "rifle")
    return {
        "id": f.get("id", str, check=ID_CHECK),
        "weapon": weapon,
        "armour": f.choice("armour", sorted(data["armour"]), "human"),
        "role": f.choice("role", ROLES, "fighter"),
        "flak_vest": f.get("flak_vest", bool, False),
        "melee_weapon": f.get("melee_weapon", bool, False),  # §8.1 step 9: fixed bayonet, sword, axe: +1 step
        "android": f.get("android", bool, False),  # §9: medics and surgeons do not help androids
        "ammo": data["weapons"][weapon].get("ammo"),
        "marker": marker(f),
        "base": base(f, DEFAULT_BASE),
    }


def schema() -> Schema:
    """The army format; weapons, armour and movement classes are the bundled rules data's."""
    data = rules_data()
    figure = record(
        {"id": ID},
        {"weapon": one_of(sorted(data["weapons"])), "armour": one_of(sorted(data["armour"])), "role": one_of(ROLES),
         "flak_vest": FLAG, "melee_weapon": FLAG, "android": FLAG, "marker": MARKER, "base": BASE},
    )  # fmt: skip
    squad = record(
        {"id": ID, "quality": {"enum": sorted(LADDER)}, "figures": list_of(figure, 1)},
        {"leadership": whole(1, 3), "morale": one_of(MORALE), "movement": one_of(sorted(data["movement"])),
         "terrifying": FLAG, "blades": FLAG, "medical_vehicle": FLAG, "evasion_die": {"enum": sorted(LADDER)}},
    )  # fmt: skip
    return army_file(FORMAT, "Steel Warriors army", {"squads": list_of(squad, 1)}, {})


def load_army(path: str | Path) -> dict[str, Any]:
    data = rules_data()
    f, header = open_army(path, FORMAT, ["squads"])
    squads = []
    for s in f.items("squads", min_len=1):
        s.reject_unknown(
            [
                "id",
                "quality",
                "leadership",
                "morale",
                "movement",
                "terrifying",
                "blades",
                "medical_vehicle",
                "evasion_die",
                "figures",
            ]  # fmt: skip
        )
        figures = [_figure(x, data) for x in s.items("figures", min_len=1)]
        commanders = [x for x in figures if x["role"] == "commander"]
        if len(commanders) > 1:
            s.fail("has more than one commander", "figures")
        movement = s.choice("movement", sorted(data["movement"]), "regular")
        # §8.1 step 6: cavalry charging «в клинки»: each rider counts twice, and they are terrifying
        blades = s.get("blades", bool, False)
        if blades and movement != "cavalry":
            s.fail("only cavalry charge with blades (§8.1)", "blades")
        medical = s.get("medical_vehicle", bool, False)  # §9: +1 at reorganisation within 6"
        if medical and movement != "vehicle":
            s.fail("only a vehicle squad is a medical vehicle (§9)", "medical_vehicle")
        squads.append(
            {
                "id": s.get("id", str, check=ID_CHECK),
                "quality": s.get("quality", int, check=lambda v: None if v in LADDER else "must be 4, 6, 8, 10 or 12"),
                "leadership": s.integer("leadership", 1, 3, 2),
                "morale": s.choice("morale", MORALE, "steady"),
                "movement": movement,
                "terrifying": s.get("terrifying", bool, False),
                "blades": blades,
                "medical_vehicle": medical,
                # §6.2: the die rolled against guided missiles; the fragment names it and gives no value
                "evasion_die": s.get(
                    "evasion_die", int, None, check=lambda v: None if v in LADDER else "must be 4, 6, 8, 10 or 12"
                ),
                "figures": figures,
            }
        )
    return {**header, "squads": squads}


def _ids(army: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """The ids of an army's squads and their figures, with their fields."""
    for k, squad in enumerate(army["squads"]):
        yield f"squads[{k}].id", squad["id"]
        yield from ((f"squads[{k}].figures[{j}].id", x["id"]) for j, x in enumerate(squad["figures"]))


def check_armies(armies: Sequence[Mapping[str, Any]]) -> None:
    players = one_army_each(armies)
    ids_once(armies, _ids)
    if len(players) < 2:
        raise ArmyError(armies[0]["source"] if armies else "armies", "player", "a game needs two sides")


def model_specs(armies: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "element": x["id"],
            "unit": s["id"],
            "player": a["player"],
            "kind": "infantry",
            "base": x["base"],
            "height_mm": float((x["marker"] or {}).get("height_mm") or DEFAULT_HEIGHT_MM),
            "marker": x["marker"],
        }
        for a in armies
        for s in a["squads"]
        for x in s["figures"]
    ]
