"""Бронепехота §9.1-9.3 capture and repair by infantry, §10.1 the repair platform (HELIX)."""

from dataclasses import replace

import pytest

from station.rules.base import Input

from .conftest import Table


def _seen(*units):
    return Input(
        "snapshot",
        {"units": [{"element": e, "x_mm": x, "y_mm": y, "facing_deg": f, "status": "up"} for e, x, y, f in units]},
    )


def _ruling(table, kind, *rolls, **args):
    return next(r for r in table.send(Input(kind, args), *rolls) if r.id.endswith(f":{kind}"))


@pytest.fixture
def damaged(table):
    table.begin_round()
    table.state = table.state.with_element(replace(table.el("twin-cannon"), armour=3))
    table.send(Input("activate", {"unit": "cyber"}))
    return table


def test_9_3_a_soldier_with_rm_touching_repairs_one_cell_for_his_whole_activation(damaged):
    table = damaged
    table.send(_seen(("twin-cannon", 600.0, 600.0, 0.0), ("cyber-2", 600.0 - 25.0 - 12.5 - 1.0, 600.0, 0.0)))
    ruling = _ruling(table, "repair", element="twin-cannon", by="cyber-2")
    assert table.el("twin-cannon").armour == 4 and ruling.section == "§9.3" and "by Cyber-infantry 2" in ruling.text
    again = _ruling(table, "repair", element="twin-cannon", by="cyber-2")
    assert "already acted" in again.text or "one repair" in again.text
    assert table.el("twin-cannon").armour == 4


@pytest.mark.parametrize("where, problem", [((400.0, 600.0), "not touching"), (None, "enemy")])
def test_9_3_repair_needs_contact_and_no_enemy_touching(damaged, where, problem):
    table = damaged
    man = where or (600.0 - 25.0 - 12.5 - 1.0, 600.0)
    units = [("twin-cannon", 600.0, 600.0, 0.0), ("cyber-2", *man, 0.0)]
    if where is None:
        units.append(("clone-3", 600.0 + 25.0 + 12.5 + 1.0, 600.0, 180.0))  # an enemy at the gun's other end
    table.send(_seen(*units))
    ruling = _ruling(table, "repair", element="twin-cannon", by="cyber-2")
    assert problem in ruling.text and table.el("twin-cannon").armour == 3


def test_9_3_only_soldiers_with_rm_repair(armies):
    armies[0]["units"][0]["members"][1]["properties"] = []
    table = Table(armies)
    table.begin_round()
    table.send(Input("activate", {"unit": "cyber"}))
    assert "no Рм" in _ruling(table, "repair", element="twin-cannon", by="cyber-2").text


def test_10_1_a_repair_platform_mends_two_cells_instead_of_shooting(armies):
    armies[0]["units"][1]["properties"] = ["repair_platform"]  # gryphon as a repair HELIX
    table = Table(armies)
    table.begin_round()
    table.state = table.state.with_element(replace(table.el("t-rex"), armour=5))
    table.send(Input("activate", {"unit": "gryphon"}))
    table.send(_seen(("gryphon", 300.0, 300.0, 0.0), ("t-rex", 300.0 - 100.0 - 1.0, 300.0, 0.0)))
    ruling = _ruling(table, "repair", element="t-rex", by="gryphon")
    assert ruling.section == "§10.1" and table.el("t-rex").armour == 7
    assert "only one repair" in _ruling(table, "repair", element="gryphon", by="gryphon").text


def test_the_referee_may_enter_a_repair_and_it_stops_at_the_top(table):
    table.begin_round()
    top = table.state.setup.scales["varan"]["max"]
    table.state = table.state.with_element(replace(table.el("varan"), armour=top - 1, needs_repair=True))
    ruling = _ruling(table, "repair", element="varan", cells=3)
    assert table.el("varan").armour == top and "top of its scale" in ruling.text and not table.el("varan").needs_repair


def test_9_1_capturing_a_vehicle_without_a_pilot(table):
    table.begin_round()
    table.state = table.state.with_element(replace(table.el("salamander"), pilot=None))
    table.send(_seen(("salamander", 500.0, 500.0, 0.0), ("cyber-2", 500.0 - 50.0 - 12.5 - 1.0, 500.0, 0.0)))
    ruling = _ruling(table, "capture", element="salamander", by="cyber-2")
    assert ruling.section == "§9.1" and table.el("salamander").player == "blue"
    assert table.el("salamander").pilot == "cyber-2" and table.el("cyber-2").aboard == "salamander"
    assert table.state.units["salamander"].acted  # into battle from the next round
    assert "has a pilot" in _ruling(table, "capture", element="varan", by="cyber-3").text


def test_9_1_rank_and_9_2_guns_with_their_crew_touching(table):
    table.begin_round()
    table.state = table.state.with_element(replace(table.el("salamander"), pilot=None))
    table.state = table.state.with_element(replace(table.el("cyber-3"), rank=1))
    assert "below the vehicle's" in _ruling(table, "capture", element="salamander", by="cyber-3").text
    table.send(
        _seen(
            ("mortar", 800.0, 800.0, 0.0),
            ("clone-4", 800.0 + 25.0 + 12.5 + 1.0, 800.0, 0.0),
            ("cyber-2", 800.0 - 25.0 - 12.5 - 1.0, 800.0, 0.0),
        )
    )
    assert "still touches" in _ruling(table, "capture", element="mortar", by="cyber-2").text
    table.send(_seen(("clone-4", 1000.0, 800.0, 0.0)))  # the crew walks off
    ruling = _ruling(table, "capture", element="mortar", by="cyber-2")
    assert ruling.section == "§9.2" and table.el("mortar").player == "blue" and "may fire it at once" in ruling.text


def test_z15_a_side_may_reboard_its_own_pilotless_vehicle(table):
    table.begin_round()
    table.state = table.state.with_element(replace(table.el("gryphon"), pilot=None))
    ruling = _ruling(table, "capture", element="gryphon", by="cyber-2")
    assert "boards his side's Gryphon" in ruling.text and table.el("gryphon").pilot == "cyber-2"
    assert table.el("gryphon").player == "blue"


@pytest.mark.parametrize("rode", [False, True])
def test_4_3_a_pilot_leaves_his_vehicle_and_moves_once_a_round(table, rode):
    table.begin_round()
    table.send(_seen(("gryphon", 300.0, 300.0, 0.0)))
    table.send(Input("activate", {"unit": "gryphon"}))
    if rode:
        table.send(_seen(("gryphon", 400.0, 300.0, 0.0)))
    ruling = table.send(Input("leave_vehicle", {"vehicle": "gryphon"}))[0]
    pilot = "cyber-6"
    assert table.el("gryphon").pilot is None and table.el(pilot).aboard is None and "freezes" in ruling.text
    assert table.state.units["gryphon-pilot"].acted is rode and table.state.units["gryphon"].acted
    assert "activation ends with this" in ruling.text and table.state.active_unit is None  # issue #35: said, not silent


def test_4_3_a_flyer_whose_pilot_dies_comes_down_and_takes_d6(armies):
    armies[1]["units"][1]["locomotion"] = "flying"  # salamander flies
    armies[0]["units"][1]["weapons"] = [
        {"id": "rocket", "name": "rocket", "range": "D20", "power": "1D20", "properties": []}
    ]
    table = Table(armies, {"shooting": "virtual"})
    table.begin_round()
    table.send(_seen(("gryphon", 300.0, 300.0, 0.0), ("salamander", 700.0, 300.0, 180.0)))
    before = table.el("salamander").armour
    rulings = table.send(Input("virtual_shot", {"shooter": "gryphon", "target": "salamander"}), 20, 20, 6, 3)
    text = next(r for r in rulings if r.id.endswith(":virtual")).text
    assert "emergency landing: D6 3 damage" in text and table.el("salamander").armour == before - 1 - 3
