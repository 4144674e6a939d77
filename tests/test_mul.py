"""Alpha Strike cards from real Master Unit List records (tests/data/mul, SOURCE.md names where
each came from): every record loads, and every card value is the record's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from station.datafile import Fields
from station.rules.alpha_strike.army import load_army
from station.rules.alpha_strike.cards import Card
from station.rules.alpha_strike.library import CardLibrary, records_of
from station.rules.alpha_strike.mul import parse_movement, tmm_for_move
from station.rules.alpha_strike.specials import is_known, split_abilities
from station.rules.base import ArmyError

MUL = Path(__file__).parent / "data" / "mul"
RECORDS = records_of(json.loads((MUL / "quicklist.json").read_text()), "quicklist.json") + json.loads(
    (MUL / "live.json").read_text()
)
CARDED = [r for r in RECORDS if r["BFSize"] > 0]
# Every move the records print, read by hand: (ground inches, jump inches, mode)
MOVES = {
    '0"': (0, 0, "ground"), '2"': (2, 0, "ground"), '6"': (6, 0, "ground"), '8"': (8, 0, "ground"),
    '10"': (10, 0, "ground"), '12"': (12, 0, "ground"), '14"': (14, 0, "ground"), '16"': (16, 0, "ground"),
    '4"j': (4, 4, "ground"), '6"j': (6, 6, "ground"), '8"j': (8, 8, "ground"), '10"j': (10, 10, "ground"),
    '12"j': (12, 12, "ground"), '10"/8"j': (10, 8, "ground"), '16"/10"j': (16, 10, "ground"),
    '6"t': (6, 0, "tracked"), '10"t': (10, 0, "tracked"), '16"t': (16, 0, "tracked"),
    '6"w': (6, 0, "wheeled"), '8"w': (8, 0, "wheeled"), '14"w': (14, 0, "wheeled"),
    '10"v': (10, 0, "VTOL"), '18"v': (18, 0, "VTOL"), '22"v': (22, 0, "VTOL"),
    '4"f': (4, 0, "foot"), '6"f': (6, 0, "foot"),
    "5a": (5, 0, "aerospace thrust"), "9a": (9, 0, "aerospace thrust"), "3p": (3, 0, "aerospace thrust"),
    '22"': (22, 0, "ground"), "6a": (6, 0, "aerospace thrust"), '12"t': (12, 0, "tracked"), '18"h': (18, 0, "hover"),
    '8"/6"j': (8, 6, "ground"), '6"/10"j': (6, 10, "ground"), '10"/14"j': (10, 14, "ground"),
}  # fmt: skip


def card(record) -> Card:
    from station.rules.alpha_strike.mul import parse_mul

    return parse_mul(Fields("mul.json", record, error=ArmyError))


def band(record, name, minimal_key):
    value = str(record[f"BFDamage{name}"])
    return "0*" if value == "0" and record.get(minimal_key) else value


def test_the_sample_covers_every_unit_type_the_issue_names():
    types = {r["BFType"] for r in CARDED}
    assert {"BM", "CV", "BA", "CI", "AF", "SV", "IM", "PM"} <= types and len(CARDED) >= 80


@pytest.mark.parametrize("record", CARDED, ids=lambda r: f"{r['Id']}")
def test_every_real_record_loads_with_every_value_from_its_source(record):
    c = card(record)
    variant = (record.get("Variant") or "").strip()
    name = record["Name"].strip()
    assert c.name == (name if not variant or name == variant or name.endswith(" " + variant) else f"{name} {variant}")
    assert "None" not in c.name.split() and not c.name.endswith(f"{variant} {variant}")  # no "AS7-D AS7-D"
    assert (c.type, c.size, c.armour, c.structure) == (
        record["BFType"], record["BFSize"], record["BFArmor"], record["BFStructure"]
    )  # fmt: skip
    assert (c.pv, c.overheat, c.mul_id, c.sample_data) == (
        record["BFPointValue"],
        record["BFOverheat"],
        record["Id"],
        False,
    )
    assert c.damage == tuple(band(record, b, f"BFDamage{b}Min") for b in ("Short", "Medium", "Long"))
    assert c.extreme == ("-" if record["BFDamageExtreme"] == 0 else str(record["BFDamageExtreme"]))
    assert c.specials == tuple(split_abilities(record["BFAbilities"] or ""))  # a null is none
    assert all(is_known(s) for s in c.specials)
    assert c.role == record["Role"]["Name"] and c.unit_type == record["Type"]["Name"]
    assert (c.move_in, c.jump_in, c.mode) == MOVES[record["BFMove"]] and c.movement == record["BFMove"]
    if record["BFMove"][-1] in "ap":
        assert c.tmm == 0  # aerospace: no ground TMM
    elif record["BFTMM"]:
        assert c.tmm == record["BFTMM"] == tmm_for_move(c.move_in)  # the table agrees with the MUL's own TMM
    else:
        assert c.tmm == tmm_for_move(c.move_in)  # a 0 is the MUL leaving it out: from the move
    if "BFThreshold" in record:  # the QuickList layout
        assert c.threshold == record["BFThreshold"]
    else:  # the newer layout writes it as an ability, "TH 1"
        assert c.threshold == next((int(s[3:]) for s in c.specials if s.startswith("TH ")), 0)


def test_the_tmm_table_is_checked_on_real_records_that_carry_their_own():
    carrying = [r for r in CARDED if r["BFTMM"] and r["BFMove"][-1] not in "ap"]
    assert len(carrying) >= 35
    assert all(tmm_for_move(parse_movement(r["BFMove"]).move_in) == r["BFTMM"] for r in carrying)
    assert [tmm_for_move(n) for n in (0, 4, 5, 8, 9, 12, 13, 18, 19, 34, 35)] == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5]


def test_an_atlas_whose_quicklist_tmm_is_0_gets_the_tmm_of_its_move():
    atlas = card({**CARDED[0], "Name": "Atlas AS7-D", "Variant": "AS7-D", "BFMove": '6"', "BFTMM": 0})
    assert atlas.tmm == 1 and atlas.name == "Atlas AS7-D"
    assert card({**CARDED[0], "Name": "Atlas", "Variant": "A"}).name == "Atlas A"  # not swallowed by "Atlas"
    assert card({**CARDED[0], "Name": "Prometheus", "Variant": None}).name == "Prometheus"


def test_the_tmm_comes_from_the_ground_move_even_when_the_jump_is_longer():
    """AS:CE: TMM is the ground move's (JMPS/JMPW adjust it for jumping); the MUL agrees: the
    Phoenix Hawk IIC 8, 10"/14"j, has TMM 2."""
    hawk = next(r for r in CARDED if r["Id"] == 100056)
    assert card(hawk).tmm == hawk["BFTMM"] == 2 and card(hawk).jump_in == 14


@pytest.mark.parametrize("record", [r for r in RECORDS if r["BFSize"] == 0], ids=lambda r: f"{r['Id']}")
def test_a_record_with_no_alpha_strike_values_is_refused_by_name(record):
    with pytest.raises(ArmyError) as refused:
        card(record)
    assert refused.value.where == "BFMove" and "no Alpha Strike values" in refused.value.problem


def test_an_unknown_move_or_ability_names_itself():
    with pytest.raises(ArmyError, match=r"BFMove: '6\"x' is not a move"):
        card({**CARDED[0], "BFMove": '6"x'})
    with pytest.raises(ArmyError, match="unknown special 'FOO2'"):
        card({**CARDED[0], "BFAbilities": "CASE,FOO2"})


def test_abilities_keep_their_brackets_and_every_real_code_is_known():
    assert split_abilities("AC3/3/-,SRCH,TUR(3/3/-,AC3/3/-)") == ["AC3/3/-", "SRCH", "TUR(3/3/-,AC3/3/-)"]
    assert all(is_known(a) for a in ("ARTAIS-1", "ARTLT-2", "MAS", "LMAS", "ATMO", "HTC", "TUR1 (1/1/1,AC0*/1/1)"))
    rear = card({**CARDED[0], "BFAbilities": "REAR1/1/-/-"})
    assert rear.special_values("REAR") == ("1", "1", "-")  # the aerospace 4-band form, no longer ignored


def test_a_pasted_mul_response_builds_a_library_and_a_force_uses_it_by_id(tmp_path, monkeypatch):
    monkeypatch.setenv("STATION_DATA", str(tmp_path / "data"))
    pasted = tmp_path / "response.json"
    pasted.write_text(json.dumps({"Units": RECORDS}))
    done = subprocess.run(
        [sys.executable, "-m", "station", "import-mul", str(pasted)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert f"{len(CARDED)} added, 0 updated, {len(RECORDS) - len(CARDED)} skipped" in done.stdout
    assert "Id 100010, Goth): Units[" in done.stdout and "no Alpha Strike values" in done.stdout
    library = CardLibrary()
    assert len(library.records) == len(CARDED) and library.by_id(100019).mode == "VTOL"
    force = tmp_path / "force.json"
    force.write_text(
        json.dumps(
            {
                "format": "alpha-strike-force/1",
                "player": "raiders",
                "units": [
                    {"id": "copter", "mul_id": 100019},
                    {"id": "knight", "card": "Black Knight BL-7-KNT"},
                    {"id": "anvil", "card": "Anvil ANV-5M"},
                ],
            }
        )
    )
    units = load_army(str(force))["units"]
    assert [u["card"]["name"] for u in units] == [
        "Warrior Attack Helicopter H-7C",
        "Black Knight BL-7-KNT",
        "Anvil ANV-5M",
    ]
    assert units[0]["card"]["sample_data"] is False and units[0]["card"]["tmm"] == 3
    force.write_text(json.dumps({"format": "alpha-strike-force/1", "player": "r", "units": [{"id": "x", "mul_id": 7}]}))
    with pytest.raises(ArmyError, match=r"units\[0\].mul_id: no card with MUL id 7 in .*import-mul"):
        load_army(str(force))


def test_importing_again_updates_and_never_loses_a_card(tmp_path):
    library = CardLibrary(tmp_path / "lib.json")
    assert library.add(CARDED[:5], "a.json").summary() == "5 added, 0 updated, 0 skipped"
    again = CardLibrary(tmp_path / "lib.json")
    report = again.add([{**CARDED[0], "BFPointValue": 99}, {"Id": 1, "Name": "broken"}], "b.json")
    assert report.summary() == "0 added, 1 updated, 1 skipped" and "record 2 (Id 1, broken)" in report.skipped[0]
    assert CardLibrary(tmp_path / "lib.json").by_id(CARDED[0]["Id"]).pv == 99
    assert len(CardLibrary(tmp_path / "lib.json").records) == 5


def test_a_vehicle_in_a_game_is_ruled_as_a_mech_and_sent_to_the_referee(tmp_path):
    """The quick-start has rules for BattleMechs only: said once when the game begins, then each
    move and attack of the Warrior helicopter asks the referee instead of being ruled silently."""
    from .test_alpha_strike_game import DATA, LINE_UP, Alpha, in_combat

    defender = load_army(DATA / "training-day-defender.json")
    copter = next(r for r in CARDED if r["Id"] == 100019)
    defender["units"][1]["card"] = card(copter).__dict__ | {"damage": list(card(copter).damage),
                                                           "specials": list(card(copter).specials)}  # fmt: skip
    g = Alpha(forces=[load_army(DATA / "training-day-attacker.json"), defender])
    g.seen(**LINE_UP)
    said = g.do("roll_initiative", 3, 3, 2, 2)
    assert [r.text for r in said if r.id.endswith("unit-types")] == [
        "The quick-start has rules for BattleMechs only: commando (Combat Vehicle) are ruled as 'Mechs, "
        "and each of their moves and attacks goes to the referee."
    ]
    move = g.do("move", unit="commando", mode="still")[0]
    assert move.needs_referee and "quick-start has rules for BattleMechs only" in move.text
    in_combat(g)
    shot = g.do("attack", 3, 3, attacker="commando", target="locust")[0]
    assert shot.needs_referee and "Warrior Attack Helicopter H-7C is a Combat Vehicle (CV)" in shot.text
    assert g.rules.state_view(g.state)["units"][3]["elements"][0]["quick_start"] is False
