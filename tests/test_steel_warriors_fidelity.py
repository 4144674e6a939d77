"""Steel Warriors close combat and reorganisation against the fragment's own words (issue 24):
who fights (§8), a cavalry charge «в клинки» (§8.1 step 6), a melee weapon's step (§8.1 step 9),
androids and a medical vehicle at reorganisation (§9)."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from station.rules.steel_warriors import SteelWarriors
from station.rules.steel_warriors.army import load_army

from .conftest import FoldDriver, assert_bad_file
from .test_steel_warriors import DATA, INCH, STEEL, gap_y, line_up

STEEL_ARMY, KENO_ARMY = load_army(DATA / "steel.json"), load_army(DATA / "keno.json")


def game(steel=None, keno=None, inches=8):
    g = FoldDriver(SteelWarriors, [steel or STEEL_ARMY, keno or KENO_ARMY])
    g.table_mm = (1200, 900)
    g.snapshot(line_up(100, gap_y(inches)))
    g.do("begin_turn")
    return g


def test_8_robots_and_bronescafs_never_assault():
    """«Роботы и бронескафы к ближнему бою были не способны»: a bronescaf squad's assault is
    refused before any test is rolled."""
    steel = copy.deepcopy(STEEL_ARMY)
    steel["squads"][0]["movement"] = "bronescaf"
    g = game(steel)
    g.do("activate", squad="recruits")
    refused = g.do("assault", squad="recruits", target="partisans")[0]
    assert "never fight in close combat" in refused.text and refused.section == "§8"
    assert g.state.activation.actions == 2


def test_8_1_cavalry_charging_with_blades_count_double_and_are_terrifying():
    """Three riders «в клинки» against four defenders count as six: threat +1, doubled for
    terrifying attackers: +2 (without blades, three against four: no threat)."""
    steel, keno = copy.deepcopy(STEEL_ARMY), copy.deepcopy(KENO_ARMY)
    steel["squads"][0].update(movement="cavalry", blades=True, figures=steel["squads"][0]["figures"][:3])
    keno["squads"][0]["figures"] = keno["squads"][0]["figures"][:4]
    for blades, threat in ((True, 2), (False, 0)):
        steel["squads"][0]["blades"] = blades
        g = game(steel, keno, inches=1.5)
        g.do("activate", squad="recruits")
        assert g.do("charge", squad="recruits", target="partisans")[0].details["threat"] == threat


def test_8_1_only_cavalry_charge_with_blades_and_only_vehicles_are_medical(tmp_path):
    assert_bad_file(load_army, DATA / "steel.json", tmp_path,
                    {"squads": [{"id": "a", "quality": 6, "blades": True, "figures": [{"id": "b"}]}]},
                    "squads[0].blades", "only cavalry")  # fmt: skip
    assert_bad_file(load_army, DATA / "steel.json", tmp_path,
                    {"squads": [{"id": "a", "quality": 6, "medical_vehicle": True, "figures": [{"id": "b"}]}]},
                    "squads[0].medical_vehicle", "only a vehicle")  # fmt: skip


def test_8_1_a_fixed_bayonet_is_one_more_step():
    """«Melee weapon (fixed bayonet, sword, axe, …) +1»: s1's SMG d8 becomes a d10."""
    steel = copy.deepcopy(STEEL_ARMY)
    next(f for f in steel["squads"][0]["figures"] if f["id"] == "s1")["melee_weapon"] = True
    g = game(steel)
    g.do("activate", squad="recruits")
    where = line_up(100, gap_y(8))
    g.snapshot({"s1": (where["k1"][0], where["k1"][1] - 25, 90)})
    ruling = g.do("close_combat", 2, 5, 1, squad="recruits", target="partisans")[0]
    assert "s1 d10 5" in ruling.text


def test_9_androids_get_no_medic_bonus_and_a_medical_vehicle_within_6_inches_gives_1():
    keno = copy.deepcopy(KENO_ARMY)
    figures = keno["squads"][0]["figures"]
    figures[1]["android"] = True
    keno["squads"].append({**copy.deepcopy(keno["squads"][0]), "id": "ambulance", "movement": "vehicle",
                           "medical_vehicle": True, "figures": [{**figures[2], "id": "amb", "role": "fighter"}]})  # fmt: skip
    g = game(keno=keno, inches=13)
    where = line_up(100, gap_y(13))
    g.snapshot({"amb": (where["k1"][0], where["k1"][1] + 25 + 5 * INCH, 270)})  # 5" behind the partisans
    g.do("activate", squad="partisans")
    for fid in ("k2", "k3"):
        g.state = g.state.with_figure(replace(g.state.figures[fid], status="unverified"))
    ruling = g.do("reorganise", 2, 2, squad="partisans")[0]
    # k2, an android: d6 2 and no bonus: dies; k3: d6 2 +1 for the medical vehicle: stabilised
    assert [g.state.figures[f].status for f in ("k2", "k3")] == ["killed", "stabilised"]
    assert "an android: no medic bonus" in ruling.text


def test_the_dashboard_tells_a_stabilised_wounded_from_an_unverified_one():
    g = game()
    for fid, status in (("k2", "unverified"), ("k3", "stabilised")):
        g.state = g.state.with_figure(replace(g.state.figures[fid], status=status))
    labels = {e["id"]: e["label"] for u in g.rules.state_view(g.state)["units"] for e in u["elements"]}
    assert labels["k2"].endswith("wounded, unverified") and labels["k3"].endswith("wounded, stabilised (carried)")


def test_8_1_the_recharge_takes_its_casualties_from_the_free_fire_not_a_typed_count():
    from types import SimpleNamespace

    from station.rules.steel_warriors.shooting import shoot

    from .test_steel_warriors import ready

    class Dice:  # the target's die at 1, so the free fire beats with every die; victims picked in turn
        picks = 0

        def roll(self, sides, key):
            if key.endswith("/shot/range"):
                return 1
            if "/victim" in key:
                Dice.picks += 1
                return (Dice.picks - 1) % sides + 1
            return sides

    g = ready(8)
    g.do("assault", 4, 3, 4, squad="recruits", target="partisans")
    assert "caused no casualties" in g.do("recharge", squad="recruits", casualties=5)[0].text
    before = len(g.state.fighting("recruits"))
    data = g.rules.data
    args = {"squad": "partisans", "target": "recruits", "reaction": True}
    g.state, _ = shoot(SimpleNamespace(roller=Dice(), data=data), g.state, 99, args)
    lost = before - len(g.state.fighting("recruits"))
    assert lost >= 1 and g.state.activation.free_fire_losses == lost
    rolls = (6, 2, 6) if 2 + lost < 6 else (1,)  # Quality d6 against Leadership 2 + 1 a casualty
    ruling = g.do("recharge", *rolls, squad="recruits")[0]
    assert f"({lost} casualties)" in ruling.text


def test_8_1_a_charge_within_the_cameras_uncertainty_of_2_inches_arrives_for_the_referee():
    from .test_steel_warriors import ready

    g = ready(8)
    g.do("assault", 4, 3, 4, squad="recruits", target="partisans")
    g.snapshot({f: (x, y + 5.95 * INCH, h) for f, (x, y, h) in line_up(100, gap_y(8)).items() if f in STEEL})
    g.state = g.state.evolve(sigmas={f: 1.5 for f in g.state.positions})  # 2σ of the gap: about 0.17"
    ruling = g.do("charge", squad="recruits", target="partisans")[0]  # 2.05" apart
    assert "arrives (2.0" in ruling.text and "the referee decides" in ruling.text and ruling.needs_referee


def _tank_turns_then_drives(options=None):
    """The recruits as one vehicle: it turns in place, then drives 10", then the squad shoots."""
    steel = copy.deepcopy(STEEL_ARMY)
    first = steel["squads"][0]["figures"][0]
    steel["squads"][0].update(movement="vehicle", figures=[first])
    g = FoldDriver(SteelWarriors, [steel, KENO_ARMY], options)
    g.table_mm = (1200, 900)
    g.snapshot(line_up(100, gap_y(20)))
    g.do("begin_turn")
    g.do("activate", squad="recruits")
    x, y, _ = line_up(100, gap_y(20))[first["id"]]
    g.snapshot({first["id"]: (x, y, 0)})  # a quarter turn on the spot
    g.snapshot({first["id"]: (x + 10 * INCH, y, 0)})  # then 10" ahead
    return g, g.do("move", squad="recruits")[0]


def test_5_1_a_vehicle_that_turns_in_place_and_drives_spends_two_actions():
    """«Любой поворот техники на месте … тоже считается движением, и требует 1 действие»."""
    g, moved = _tank_turns_then_drives()
    assert "turned in place: one more action" in moved.text and g.state.activation.actions == 0
    refused = g.do("shoot", squad="recruits", target="partisans")[0]
    assert refused.needs_referee and "used both its actions" in refused.text
    g, moved = _tank_turns_then_drives({"vehicle_pivot": "alone"})  # the digest's other reading
    assert "turned in place" not in moved.text and g.state.activation.actions == 1


# Issue #35, family F: rules the referee could not enter.


def _one_figure(movement=None, weapon=None, keno_evasion=None, options=None, inches=20):
    """The recruits as their first figure alone, with a movement class or weapon of its own."""
    steel, keno = copy.deepcopy(STEEL_ARMY), copy.deepcopy(KENO_ARMY)
    first = steel["squads"][0]["figures"][0]
    if weapon:
        first["weapon"] = weapon
    steel["squads"][0].update(figures=[first], **({"movement": movement} if movement else {}))
    if keno_evasion:
        keno["squads"][0]["evasion_die"] = keno_evasion
    g = FoldDriver(SteelWarriors, [steel, keno], options)
    g.table_mm = (1200, 900)
    g.snapshot(line_up(100, gap_y(inches)))
    g.do("begin_turn")
    g.do("activate", squad="recruits")
    return g, first["id"], line_up(100, gap_y(inches))[first["id"]]


def test_5_1_rail_transport_moves_at_most_24_inches_and_only_along_its_rails():
    for inches, over in ((20, False), (26, True)):
        g, fid, (x, y, f) = _one_figure("rail")
        g.snapshot({fid: (x + inches * INCH, y, f)})
        moved = g.do("move", squad="recruits")[0]
        assert "along intact rails only" in moved.text and moved.needs_referee is over


def test_5_1_aircraft_near_the_ground_move_at_least_24_inches_and_have_no_combat_move():
    for inches, short in ((10, True), (30, False)):
        g, fid, (x, y, f) = _one_figure("aircraft", inches=30)
        g.snapshot({fid: (x + inches * INCH, y, f)})
        moved = g.do("move", squad="recruits")[0]
        assert moved.needs_referee is short and ("moves at least 24" in moved.text) is short
    g, _, _ = _one_figure("aircraft")
    assert "there is no d24" in g.do("dash", squad="recruits")[0].text


def test_6_2_a_guided_missile_is_quality_plus_guidance_against_the_targets_evasion_die():
    """«Управляемые ракеты: куб Качества + куб системы наведения против куба уклонения»."""
    g, fid, _ = _one_figure(weapon="guided_missile", keno_evasion=8)
    ruling = g.do("shoot", 5, 9, 8, squad="recruits", target="partisans")[0]  # one die beats: suppressed
    assert "d6 5 + d10 9 against the evasion d8 8" in ruling.text
    g, _, _ = _one_figure(weapon="guided_missile")
    refused = g.do("shoot", squad="recruits", target="partisans")[0]
    assert "no evasion die in its army file" in refused.text


def test_6_2_a_heavy_weapon_fires_alone_with_its_guidance_die_against_the_range_die():
    steel = copy.deepcopy(STEEL_ARMY)
    steel["squads"][0]["figures"][0]["weapon"] = "heavy_gun"  # u1, beside seven SMGs and a sniper
    g = FoldDriver(SteelWarriors, [steel, KENO_ARMY])
    g.table_mm = (1200, 900)
    g.snapshot(line_up(100, gap_y(4)))
    g.do("begin_turn")
    g.do("activate", squad="recruits")
    mixed = g.do("shoot", squad="recruits", target="partisans", figures=["u1", "s1"])[0]
    assert "fires on its own" in mixed.text
    alone = g.do("shoot", 2, 7, 4, squad="recruits", target="partisans", figures=["u1"])[0]
    assert "d6 2 + d8 7 against d" in alone.text and "evasion" not in alone.text


def test_10_a_failed_morale_test_lowers_morale_by_one_or_two_levels_and_a_pass_keeps_it():
    g = game()
    passed = g.do("morale_test", squad="partisans", passed=True, cause="losses")[0]
    assert "passes a morale test (losses): it stays steady" in passed.text
    failed = g.do("morale_test", squad="partisans", passed=False, levels=2, cause="the commander fell")[0]
    assert "steady → broken" in failed.text and g.state.squads["partisans"].morale == "broken"
    bad = g.do("morale_test", squad="partisans", passed=False, levels=3)[0]
    assert "levels a failure costs: 1 or 2" in bad.text and g.state.squads["partisans"].morale == "broken"


def test_10_the_commander_inspires_his_squad_one_level_up_by_the_referees_test_or_the_command_test():
    """«Успешный тест на воодушевление повышает мораль на один уровень»."""
    g = game()
    g.do("morale_test", squad="recruits", passed=False, levels=2)  # steady → broken
    assert "fails to inspire" in g.do("inspire", squad="recruits", passed=False)[0].text
    inspired = g.do("inspire", squad="recruits", passed=True)[0]
    assert "s1 inspires recruits (the referee's test): broken → shaken" in inspired.text
    g = FoldDriver(SteelWarriors, [STEEL_ARMY, KENO_ARMY], {"inspiration_test": "command"})
    g.table_mm = (1200, 900)
    g.snapshot(line_up(100, gap_y(8)))
    g.do("begin_turn")
    g.do("morale_test", squad="recruits", passed=False)  # steady → shaken
    rolled = g.do("inspire", 5, squad="recruits")[0]  # d6 5 > Leadership 2
    assert "d6 5 against Leadership 2" in rolled.text and g.state.squads["recruits"].morale == "steady"
    g.do("inspire", 6, squad="recruits")
    assert "already confident" in g.do("inspire", squad="recruits")[0].text


@pytest.mark.parametrize("off_mm, bonus, doubt", [(-0.5, True, True), (0.5, False, True), (-10, True, False)])
def test_9_a_medical_vehicle_within_the_cameras_uncertainty_of_6_inches_goes_to_the_referee(off_mm, bonus, doubt):
    keno = copy.deepcopy(KENO_ARMY)
    figures = keno["squads"][0]["figures"]
    keno["squads"].append({**copy.deepcopy(keno["squads"][0]), "id": "ambulance", "movement": "vehicle",
                           "medical_vehicle": True, "figures": [{**figures[2], "id": "amb", "role": "fighter"}]})  # fmt: skip
    g = game(keno=keno, inches=13)
    where = line_up(100, gap_y(13))
    g.snapshot({"amb": (where["k1"][0], where["k1"][1] + 25 + 6 * INCH + off_mm, 270)})
    g.do("activate", squad="partisans")
    g.state = g.state.with_figure(replace(g.state.figures["k3"], status="unverified"))
    ruling = g.do("reorganise", 5, squad="partisans")[0]  # d6 5, +1 from the vehicle: back in the ranks
    assert ("d6 5+1" in ruling.text) is bonus and ruling.needs_referee is doubt
    assert ("medical vehicle is within the camera's uncertainty of 6" in ruling.text) is doubt


@pytest.mark.parametrize("movement, shots", [("infantry", 2), ("vehicle", 1)])
def test_6_3_a_heavy_weapon_on_the_ground_fires_twice_an_activation_on_a_vehicle_once(movement, shots):
    """§6.3: «установленное на земле (но не на технике!) тяжёлое оружие пехоты (противотанковые
    пушки, станковые пулемёты, артиллерийские орудия, миномёты) два раза за активацию стрелять
    может».  Only the tripod MG did; a heavy gun on the ground fired once (issue 51)."""
    steel = copy.deepcopy(STEEL_ARMY)
    steel["squads"][0]["movement"] = movement
    steel["squads"][0]["figures"][0]["weapon"] = "heavy_gun"
    g = game(steel)
    g.do("activate", squad="recruits")
    first = g.do("shoot", 1, 1, 1, squad="recruits", target="partisans", figures=["u1"])[0]
    assert "has fired" not in first.text and first.details["pool"] == [6, 8]  # Quality + guidance die
    again = g.do("shoot", *([1, 1, 1] if shots == 2 else []), squad="recruits", target="partisans", figures=["u1"])[0]
    assert ("has fired this activation" in again.text) is (shots == 1)
    assert g.state.activation.fired.get("u1") == shots


@pytest.mark.parametrize("action, said", [("observe", "observes"), ("communicate", "makes contact by radio")])
def test_6_7_observation_and_communication_are_actions_a_suppressed_squad_may_take(action, said):
    """§6.7: «наблюдение» and «выход на связь» are among the five actions a suppressed squad may
    take; the referee could not enter either (issue 51).  Each is an action, its effect his."""
    g = game()
    g.state = g.state.with_squad(replace(g.state.squads["recruits"], suppression=2))
    g.do("activate", squad="recruits")
    assert action in g.rules.inputs_now(g.state)[:2]  # offered first to a suppressed squad
    ruling = g.do(action, squad="recruits", note="the ridge to the north")[0]
    assert ruling.kind == "status" and said in ruling.text and "the ridge to the north" in ruling.text
    assert ruling.section == "§6.7" and g.state.activation.actions == 1
    g.do(action, squad="recruits")
    assert "has used both its actions" in g.do(action, squad="recruits")[0].text
    assert "is not the squad acting now" in g.do(action, squad="partisans")[0].text
