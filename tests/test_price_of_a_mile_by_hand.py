"""The Price of a Mile with no camera (issue 48): every order that reads the table asks the
referee by name for what the camera would have measured, and never refuses for want of it.
Templates the dice scatter are laid by the referee, who names the bases under them (``blast``).
Cites the seed 003 digest's sections."""

import json

from station.rules.price_of_a_mile.army import load_army

from .test_price_of_a_mile import DATA, Mile, _with_artillery, with_a_truck


def _no_camera(g):
    """The sample game once the camera is gone: a referee with a tape."""
    g.state = g.state.evolve(positions={}, sigmas={})
    return g


def test_8_1_a_grenade_by_the_tape_scatters_and_the_referee_names_who_is_under_it():
    g = Mile()
    g.do("roll_initiative", 5, 3)
    g.do("activate", squad="grenadiers")
    asked = g.do("grenade", thrower="g1")[0]
    assert asked.refused and "give the distance to the aim point" in asked.text
    assert '6"' in g.do("grenade", thrower="g1", distance=7)[0].text
    assert "say difficult" in g.do("grenade", thrower="g1", distance=4)[0].text
    assert g.state.activation.actions["g1"] == 2  # nothing spent on a refusal
    # direction 3 on the arrow die, d6 5 - Shooting 0: 5" off
    thrown = g.do("grenade", 3, 5, thrower="g1", distance=4, difficult=True)[0]
    assert not thrown.refused and 'scatter 5" towards 3' in thrown.text and "(Blast)" in thrown.text
    assert thrown.details["measured_by"] == "referee" and thrown.details["asks"] == "blast"
    assert g.state.landing.what == "grenade" and g.state.activation.actions["g1"] == 1
    # l1 in the open: d10 10 + Power 1 takes it out; l2 in cover escapes on a d10 of 3 (§8.1: 6+)
    laid = g.do("blast", 10, 3, under=["l1", "l2"], in_cover=["l2"])[0]
    assert g.f("l1").status == "out" and g.f("l2").status == "ok" and "l2 in cover escapes" in laid.text
    assert laid.details["hit"] == ["l1", "l2"] and g.state.landing is None
    assert "no template is waiting" in g.do("blast", under=["l3"])[0].text


def test_9_2_a_mortar_by_the_tape_keeps_its_12_inch_minimum_and_shakes_who_it_falls_on(tmp_path):
    g = _no_camera(_with_artillery(tmp_path))
    g.do("roll_initiative", 1, 9)
    g.do("activate", squad="mortar-crew")
    assert "give the distance to the point" in g.do("mortar", gunner="mo1")[0].text
    assert '12" or more' in g.do("mortar", gunner="mo1", distance=10)[0].text
    fired = g.do("mortar", 6, 2, gunner="mo1", distance=20, spotter="mo2")[0]  # unaimed: 6" off towards 2
    assert 'scatter 6" towards 2' in fired.text and "mo2 sees the point" in fired.text
    assert g.state.activation.actions == {"mo1": 0, "mo2": 2}  # Load and Fire, unaimed
    g.do("blast", 2, under=["p1"])  # d10 2 + 1 < Toughness: p1 wavers
    assert "poilus" in g.state.activation.shaken
    rulings = g.do("end_activation", 9)
    assert any(r.id.endswith(":morale:poilus") for r in rulings)  # §9.2, §13.1: losses or not


def test_9_3_a_field_gun_by_the_tape_hits_and_the_template_is_laid_on_its_target(tmp_path):
    g = _no_camera(_with_artillery(tmp_path))
    g.do("roll_initiative", 9, 1)
    g.do("activate", squad="gun-crew")
    assert "give the distance in inches" in g.do("field_gun", gunner="fg1", target="l6")[0].text
    hit = g.do("field_gun", 9, gunner="fg1", target="l6", distance=10, cover=True, aimed=True)[0]
    assert hit.details["hit"] and "(in cover)" in hit.text and "l6 is under its centre" in hit.text
    assert hit.details["measured_by"] == "referee" and g.state.landing.what == "field_gun"
    g.do("blast", 10, under=["l6"])
    assert g.f("l6").status == "out" and "landser" in g.state.activation.shaken


def test_15_4_a_shell_laid_by_hand_on_a_vehicle_is_a_direct_hit(tmp_path):
    g = _no_camera(_with_artillery(tmp_path))
    g.do("roll_initiative", 9, 1)
    g.do("activate", squad="gun-crew")
    g.do("field_gun", 2, 3, 4, gunner="fg1", target="l6", distance=10)  # a miss: 3" off towards 4
    assert "only a shell's centre on a vehicle" in g.do("blast", direct="l1")[0].text
    assert g.state.landing is not None  # a refused laying keeps the template waiting


def test_9_1_a_flame_laid_by_hand_hits_the_bases_named_and_the_crew_said_near_saves_fuel():
    g = Mile()
    g.do("roll_initiative", 5, 3)
    g.do("activate", squad="poilus")
    g.do("end_activation")
    g.do("activate", squad="sturm")
    assert "name the bases under it" in g.do("flame", operator="s1")[0].text
    jet = g.do("flame", 9, 3, operator="s1", under=["p5"], crew_near=True)[0]  # fuel d10 3: left, s2 is near
    assert jet.details["hit"] == ["p5"] and g.f("p5").status == "out" and not g.f("s1").fuel_spent
    assert jet.details["measured_by"] == "referee" and "template" not in jet.details
    assert "poilus" in g.state.activation.shaken


def test_10_melee_with_no_camera_takes_the_referees_word_for_contact():
    g = Mile()
    g.do("roll_initiative", 5, 3)
    g.do("activate", squad="grenadiers")
    assert "say contact if they touch" in g.do("melee", attacker="g1", defender="s1")[0].text
    ruling = g.do("melee", 8, 3, attacker="g1", defender="s1", contact=True)[0]
    assert not ruling.refused and ruling.details["winner"] == "g1" and g.state.activation.actions["g1"] == 0


def test_5_8_wire_is_cut_on_the_referees_word_with_no_terrain_on_the_camera(tmp_path):
    entente = json.loads((DATA / "entente.json").read_text())
    entente["squads"][0]["bases"][0]["wire_cutters"] = True
    path = tmp_path / "entente.json"
    path.write_text(json.dumps(entente))
    g = Mile(armies=[load_army(path), load_army(DATA / "central.json")])
    g.do("roll_initiative", 5, 3)
    g.do("activate", squad="poilus")
    assert "say contact if it does" in g.do("cut_wire", base="p1", wire="north wire")[0].text
    cut = g.do("cut_wire", 9, base="p1", wire="north wire", contact=True)[0]
    assert "a gap is made" in cut.text and "north wire" in g.state.cut_wire


def test_15_1_a_squad_boards_a_truck_on_the_referees_word(tmp_path):
    g = with_a_truck(tmp_path)
    g.do("roll_initiative", 5, 3)
    g.do("activate", squad="section")
    assert "say contact if it is within 1" in g.do("embark", squad="section", truck="lorry")[0].text
    g.do("embark", squad="section", truck="lorry", contact=True)
    assert g.f("r1").aboard == "lorry" and g.f("r2").aboard == "lorry"
