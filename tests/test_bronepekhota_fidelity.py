"""Бронепехота rulings checked against the rulebook's own words, second round (issue 24): what a
repair replaces (§9.3), who a gun's crewman may fire (§7.6), a gun's rate of fire (§7.6) and the
HELIX's repair edge (§10.1)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from station.rules.base import Input, Override

from .conftest import Table

GUN = (600.0, 600.0, 0.0)  # the twin cannon, rect25x50 facing +x
BEHIND_GUN = (600.0 - 25.0 - 12.5 - 1.0, 600.0, 0.0)  # a soldier touching its back


def _seen(**units):
    rows = [{"element": e, "x_mm": x, "y_mm": y, "facing_deg": f, "status": "up"} for e, (x, y, f) in units.items()]
    return Input("snapshot", {"units": rows})


def _said(table, kind, *rolls, **args):
    suffix = {"virtual_shot": "virtual"}.get(kind, kind)
    return next(r for r in table.send(Input(kind, args), *rolls) if r.id.endswith(f":{suffix}"))


@pytest.fixture
def virtual(armies):
    table = Table(armies, {"shooting": "virtual"})
    table.begin_round()  # blue acts first
    table.state = table.state.with_element(replace(table.el("twin-cannon"), armour=3))
    table.send(Input("activate", {"unit": "cyber"}))
    return table


def test_9_3_a_soldier_who_repairs_skips_his_shooting(virtual):
    """«пехотинец должен пропустить все свои действия в текущем игровом туре (передвижение,
    стрельбу и ближний бой)»: after his repair, cyber-2's rifle shot is refused."""
    virtual.send(_seen(**{"twin-cannon": GUN, "cyber-2": BEHIND_GUN, "clone-5": (1000.0, 600.0, 180.0)}))
    assert _said(virtual, "repair", element="twin-cannon", by="cyber-2").kind == "status"
    shot = _said(virtual, "virtual_shot", shooter="cyber-2", target="clone-5")
    assert "repairing" in shot.text and shot.section == "§9.3" and "Cyber-infantry 2" in shot.text


def test_9_3_a_soldier_who_has_shot_cannot_repair(virtual):
    virtual.send(_seen(**{"twin-cannon": GUN, "cyber-2": BEHIND_GUN, "clone-5": (1000.0, 600.0, 180.0)}))
    _said(virtual, "virtual_shot", 1, shooter="cyber-2", target="clone-5")
    refused = _said(virtual, "repair", element="twin-cannon", by="cyber-2")
    assert "already acted" in refused.text and virtual.el("twin-cannon").armour == 3


@pytest.mark.parametrize("first", ["repair", "shot"])
def test_9_3_a_pilot_repairing_from_inside_makes_the_machine_skip_its_turn(armies, first):
    """«пока пилот занят ремонтом, машина (вместе с пилотом) пропускает свой ход»"""
    table = Table(armies, {"shooting": "virtual"})
    table.begin_round(3, 10)  # red acts first
    table.state = table.state.with_element(replace(table.el("salamander"), armour=5))
    table.send(Input("activate", {"unit": "salamander"}))
    table.send(_seen(salamander=(300.0, 300.0, 0.0), gryphon=(700.0, 300.0, 180.0)))
    if first == "repair":
        assert _said(table, "repair", element="salamander", by="clone-1").kind == "status"
        shot = _said(table, "virtual_shot", shooter="salamander", target="gryphon", weapon="gatling")
        assert "its pilot is repairing it" in shot.text and shot.section == "§9.3"
    else:
        _said(table, "virtual_shot", 1, shooter="salamander", target="gryphon", weapon="gatling")
        refused = _said(table, "repair", element="salamander", by="clone-1")
        assert "already acted" in refused.text and refused.section == "§9.3"
        assert table.el("salamander").armour == 5


def test_7_6_a_crewman_fires_the_gun_or_his_own_weapon_not_both(virtual):
    """«пехотинец может стрелять либо из орудия, либо из своего личного оружия»: cyber-2 fired his
    rifle, so he cannot serve the gun this round."""
    virtual.send(_seen(**{"twin-cannon": GUN, "cyber-2": BEHIND_GUN, "clone-5": (1000.0, 600.0, 180.0)}))
    _said(virtual, "virtual_shot", 1, shooter="cyber-2", target="clone-5")
    gun = _said(virtual, "virtual_shot", shooter="twin-cannon", target="clone-5")
    assert "either the gun or his own weapon" in gun.text and gun.section == "§7.6" and "Cyber-infantry 2" in gun.text


def test_7_6_a_gun_fires_as_many_shots_as_its_rate_of_fire(virtual):
    """The «каждое оружие … только 1 раз» clause is written for a боевая машина: the twin cannon,
    rate of fire 2 with one weapon, fires twice with the same crewman; the third is refused."""
    virtual.send(_seen(**{"twin-cannon": GUN, "cyber-2": BEHIND_GUN, "clone-5": (1000.0, 600.0, 180.0)}))
    first = _said(virtual, "virtual_shot", 1, shooter="twin-cannon", target="clone-5")
    second = _said(virtual, "virtual_shot", 1, shooter="twin-cannon", target="clone-5")
    assert first.details["crew"] == second.details["crew"] == "cyber-2"
    third = _said(virtual, "virtual_shot", shooter="twin-cannon", target="clone-5")
    assert "rate of fire 2 is used up" in third.text


def test_rate_of_fire_0_is_a_machine_that_cannot_fire_this_round(armies, tmp_path):
    """An armlist's rate of fire 0 (a weapon that cannot fire in a turn) loads, and its shots are refused."""
    import json
    from pathlib import Path

    from station.rules.bronepekhota.army import load_army

    raw = json.loads((Path(__file__).parent.parent / "examples" / "blue-protectorate.json").read_text())
    raw["units"][3]["rate_of_fire"] = 0
    path = tmp_path / "blue.json"
    path.write_text(json.dumps(raw))
    assert load_army(path)["units"][3]["rate_of_fire"] == 0
    table = Table([load_army(path), armies[1]], {"shooting": "virtual"})
    table.begin_round()
    table.send(Input("activate", {"unit": "cyber"}))
    table.send(_seen(**{"twin-cannon": GUN, "cyber-2": BEHIND_GUN, "clone-5": (1000.0, 600.0, 180.0)}))
    assert "rate of fire 0" in _said(table, "virtual_shot", shooter="twin-cannon", target="clone-5").text


@pytest.mark.parametrize("edge, repaired", [("rear", True), ("front", False)])
def test_10_1_the_helix_repairs_with_the_rear_edge_of_its_platform(armies, edge, repaired):
    """«коснуться его задней кромкой ремонтной платформы»: the gryphon as a HELIX (rect50x100,
    facing +x) touching the T-Rex with its rear edge repairs it; with its front edge it does not."""
    armies[0]["units"][1]["properties"] = ["repair_platform"]
    table = Table(armies)
    table.begin_round()
    table.state = table.state.with_element(replace(table.el("t-rex"), armour=5))
    table.send(Input("activate", {"unit": "gryphon"}))
    x = 300.0 - 100.0 - 1.0 if edge == "rear" else 300.0 + 100.0 + 1.0
    table.send(_seen(gryphon=(300.0, 300.0, 0.0), **{"t-rex": (x, 300.0, 0.0)}))
    ruling = _said(table, "repair", element="t-rex", by="gryphon")
    assert (table.el("t-rex").armour == 7) is repaired
    if not repaired:
        assert "rear edge of its platform" in ruling.text and ruling.section == "§10.1"


def test_a_refusal_names_who_was_refused():
    """A rule's words "only infantry throw grenades" say what, not who: the ruling adds the unit."""
    from .test_bronepekhota_quick import Quick

    g = Quick()
    g.do("roll_off", 5, 2)
    refused = g.do("grenade", thrower="walker", target="raider-1")[0]
    assert refused.text == "Refused (walker): only infantry throw grenades." and refused.section == "§8"


def test_3_2_a_new_round_with_units_not_acted_says_which(armies):
    """§3.2: «Когда все юниты на поле закончат свои действия, игровой тур заканчивается».  Round 2
    asked for while red has acted with nothing: the referee is told which units have not acted;
    confirmed, they pass and the round begins (issue 51)."""
    table = Table(armies, {"shooting": "virtual"})
    table.begin_round()  # blue acts first
    table.send(Input("activate", {"unit": "cyber"}))
    table.send(Input("end_activation"))
    rulings = table.begin_round()
    told = next(r for r in rulings if r.id.endswith(":round-not-over"))
    assert told.needs_referee and told.section == "§3.2" and "Round 1 ends with" in told.text
    red = {u.id for u in table.state.units.values() if u.player == "red"}
    assert red <= set(told.details["not_acted"]) and "cyber" not in told.details["not_acted"]
    assert "Salamander" in told.text and table.state.round == 2


def test_3_2_the_referee_voids_it_and_the_round_goes_on(armies):
    table = Table(armies, {"shooting": "virtual"})
    table.begin_round()
    seq = next(table.seq)  # the next begin_round gets this seq + 1
    rid = f"{seq + 1}:round-not-over"
    table.state = table.state.evolve(overrides={rid: (seq + 2, Override(rid, "void"))})
    rulings = table.send(Input("begin_round"))
    assert [r.id for r in rulings] == [rid] and rulings[0].overridden == "void"
    assert table.state.round == 1 and "Round 1 goes on" in rulings[0].text


def test_3_2_no_word_when_every_unit_has_acted(armies):
    table = Table(armies, {"shooting": "virtual"})
    table.begin_round()
    table.state = table.state.evolve(units={k: replace(u, acted=True) for k, u in table.state.units.items()})
    assert not [r for r in table.begin_round() if r.id.endswith(":round-not-over")]


def test_6_5_7_7_a_machine_refills_its_ammunition_as_often_as_agreed(armies):
    """§6.5, §7.7: «пополнять боекомплект, например, один раз за игру»: the referee had no way to
    enter it (issue 51).  Once by default; the option says how often."""
    table = Table(armies, {"shooting": "virtual"})
    table.begin_round()
    full = table.state.setup.ammo_max["gryphon"]
    table.state = table.state.with_element(replace(table.el("gryphon"), ammo=1))
    refilled = _said(table, "refill_ammo", element="gryphon")
    assert refilled.kind == "status" and table.el("gryphon").ammo == full and f"1→{full}" in refilled.text
    again = _said(table, "refill_ammo", element="gryphon")
    assert again.refused and "refilled 1 of the 1 times agreed" in again.text and again.section == "§6.5"
    assert _said(table, "refill_ammo", element="cyber-2").refused  # infantry ammunition is never counted
    twice = Table(armies, {"shooting": "virtual", "ammo_refills": 2})
    for _ in range(2):
        assert not _said(twice, "refill_ammo", element="gryphon").refused
    unlimited = Table(armies, {"shooting": "virtual", "ammo": "unlimited"})
    assert "nothing to refill" in _said(unlimited, "refill_ammo", element="gryphon").text
