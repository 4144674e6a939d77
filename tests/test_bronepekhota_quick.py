"""Бронепехота quick rules (seed 002), section by section of the digest."""

import itertools
import json
from dataclasses import replace
from pathlib import Path

import pytest

from station.devices import protocol as p
from station.rules.base import ArmyError, Event, Input
from station.rules.bronepekhota_quick import BronepekhotaQuick
from station.rules.bronepekhota_quick.army import load_army
from station.rules.bronepekhota_quick.state import OPTIONS

from .conftest import ScriptedRoller

QUICK = Path(__file__).resolve().parent.parent / "station" / "data" / "quick"
STEP = 50.0


class Quick:
    def __init__(self, options=None):
        self.roller = ScriptedRoller()
        self.rules = BronepekhotaQuick(self.roller)
        self.armies = [load_army(QUICK / "blue-patrol.json"), load_army(QUICK / "red-raiders.json")]
        self.state = self.rules.initial_state(self.armies, options or {})
        self.seq = itertools.count(1)

    def send(self, body, *rolls):
        self.roller.values.extend(rolls)
        self.state, rulings = self.rules.apply(self.state, Event(next(self.seq), body))
        assert not self.roller.values, f"rolls left unused: {self.roller.values}"
        return rulings

    def do(self, kind, *rolls, **args):
        return self.send(Input(kind, args), *rolls)

    def seen(self, *units):
        return self.send(
            Input(
                "snapshot",
                {
                    "table_mm": [1200, 900],
                    "units": [
                        {"element": e, "x_mm": x, "y_mm": y, "facing_deg": 0.0, "status": "up"} for e, x, y in units
                    ],
                },
            )
        )

    def f(self, fighter):
        return self.state.fighters[fighter]


@pytest.fixture
def game():
    g = Quick()
    g.do("roll_off", 5, 2)  # blue 5, red 2: blue goes first
    return g


def test_4_2_the_higher_roll_goes_first_and_ties_roll_again():
    g = Quick()
    ruling = g.do("roll_off", 3, 3, 2, 6)[0]
    assert g.state.active_player == "red" and ruling.details["rolls"] == {"blue": [3, 2], "red": [3, 6]}


def test_5_infantry_manoeuvre_comes_from_armour_and_the_table_is_an_option():
    g = Quick()
    assert g.f("trooper-1").maneuver == 4 and g.f("heavy-1").maneuver == 3 and g.f("walker").maneuver == 5
    assert OPTIONS.build({"maneuver_by_armour": {"5": 6, "7": 5, "9": 3}}).maneuver_for(8) == 5


@pytest.mark.parametrize(
    "rolls, outcome, dead, wounded",
    [
        ((1,), "no effect", False, False),  # 1 + 3 = 4 < 5
        ((2,), "wounded", False, True),  # 2 + 3 = 5 = Armour 5
        ((3,), "killed", True, False),  # 6 > 5
    ],
)
def test_7_virtual_shot_against_armour(game, rolls, outcome, dead, wounded):
    game.seen(("trooper-1", 100, 100), ("raider-1", 100, 600))  # 10 steps apart: no close-target bonus
    game.seen(("trooper-1", 110, 100))  # he moved: no aimed bonus either
    ruling = game.do("virtual_shot", *rolls, shooter="trooper-1", target="raider-1")[0]
    assert outcome in ruling.text and not ruling.details["aimed"] and not ruling.details["close"]
    assert game.f("raider-1").dead is dead and game.f("raider-1").wounded is wounded


def test_7_aimed_and_close_target_bonuses_are_for_infantry_only():
    """Seed 002 §7: «Прицельная стрельба пехотинцев», «Близкая цель (только для пехотинцев …)»:
    the walker's virtual machine gun, standing still and 1.8 steps away, gets neither +2."""
    g = Quick()
    walker = next(u for u in g.armies[0]["units"] if u["id"] == "walker")
    walker["weapons"].append({"id": "mg", "name": "MG", "kind": "virtual", "powerful_melee": False,
                              "launcher": None, "barrels": 0})  # fmt: skip
    g.state = g.rules.initial_state(g.armies, {})
    g.do("roll_off", 5, 2)
    g.seen(("walker", 100, 100), ("raider-1", 100, 100 + 25 + 90 + 12.5))
    ruling = g.do("virtual_shot", 1, shooter="walker", target="raider-1", weapon="mg")[0]
    assert not ruling.details["aimed"] and not ruling.details["close"] and "+2" not in ruling.text
    assert ruling.details["attack"] == 1 + g.f("walker").shooting and not g.f("raider-1").dead


def test_7_aimed_and_close_target_stack_and_cover_and_wounds_change_the_armour(game):
    game.seen(("trooper-1", 100, 100), ("raider-1", 100, 100 + 12.5 + 90 + 12.5))  # 1.8 steps: close
    ruling = game.do("virtual_shot", 1, shooter="trooper-1", target="raider-1")[0]  # 1 + 3 + 2 + 2 = 8 > 5
    assert ruling.details["aimed"] and ruling.details["close"] and ruling.details["attack"] == 8
    assert game.f("raider-1").dead
    again = game.do("virtual_shot", shooter="trooper-1", target="raider-2")[0]
    assert "already fired" in again.text


@pytest.mark.parametrize(
    "words, attack, aimed, close",
    [
        ({}, 1 + 3 + 2, True, False),  # he stood still, as the referee leaves it
        ({"moved": True}, 1 + 3, False, False),  # the referee says he moved: unaimed (it was always aimed)
        ({"distance": 2}, 1 + 3 + 2 + 2, True, True),  # the tape says 2 steps: the close target
        ({"moved": True, "distance": 5}, 1 + 3, False, False),
    ],
)
def test_7_with_no_camera_the_referee_says_moved_distance_and_cover(game, words, attack, aimed, close):
    """Issue 48: with no camera every virtual shot counted as aimed, and nothing could say
    otherwise; now the referee's word does, and the ruling says whose word it was."""
    ruling = game.do("virtual_shot", 1, shooter="trooper-1", target="raider-1", **words)[0]
    assert ruling.details["attack"] == attack and ruling.details["aimed"] is aimed and ruling.details["close"] is close
    assert ruling.details["measured_by"] == "referee" and "referee's word" in ruling.text


def test_7_with_no_camera_cover_is_the_referees_word(game):
    ruling = game.do("virtual_shot", 2, shooter="trooper-1", target="raider-1", moved=True, cover=True)[0]
    assert ruling.details["armour"] == 7 and "no effect" in ruling.text  # 2 + 3 = 5 < Armour 5 + 2
    assert "(cover +2)" in ruling.text


def test_9_exploding_sixes_add_up(game):
    game.seen(("trooper-1", 100, 100), ("raider-1", 100, 600))
    ruling = game.do("virtual_shot", 6, 6, 2, shooter="trooper-1", target="raider-1")[0]
    assert ruling.details["rolls"] == [6, 6, 2] and ruling.details["attack"] == 6 + 6 + 2 + 3 + 2  # aimed: he stood


def test_8_grenade_reach_blast_and_the_thrower_too(game):
    game.seen(("trooper-1", 100, 100), ("raider-1", 100, 100 + 25 + 80), ("raider-2", 150, 100 + 25 + 80))
    game.seen(("trooper-2", 700, 100))
    far = game.do("grenade", thrower="trooper-2", target="raider-1")[0]
    assert "a grenade reaches 3" in far.text
    rulings = game.do("grenade", 1, 1, 1, thrower="trooper-1", target="raider-1")
    text = rulings[0].text
    assert "d6 1 + 5 = 6 against Armour 5: Raider 1 is killed" in text
    assert "blast on Raider 2" in text and "blast on Trooper 1" in text  # he threw from under 2 steps
    assert "grenade" in game.do("grenade", thrower="trooper-2", target="raider-2")[0].text  # once a turn per side


def test_8_with_no_camera_the_referee_gives_the_grenades_reach_cover_and_blast(game):
    """Issue 48: with no camera a grenade reached anyone and its blast caught nobody."""
    far = game.do("grenade", thrower="trooper-2", target="raider-1", distance=5)[0]
    assert "a grenade reaches 3" in far.text
    ruling = game.do(
        "grenade", 1, 1, 1, thrower="trooper-1", target="raider-1", distance=2, caught=["raider-2", "trooper-1"]
    )[0]
    assert "d6 1 + 5 = 6 against Armour 5: Raider 1 is killed" in ruling.text
    assert "blast on Raider 2" in ruling.text and "blast on Trooper 1" in ruling.text
    assert ruling.details["measured_by"] == "referee" and "referee's word" in ruling.text


def test_10_close_combat_with_the_return_strike_worked_out_together(game):
    game.seen(("trooper-1", 100, 100), ("raider-1", 100, 100 + 25 + 30))  # 0.6 steps apart
    ruling = game.do("close_combat", 4, 3, attacker="trooper-1", target="raider-1")[0]  # 4+2=6>5; 3+3=6=6
    assert "Raider 1 is killed" in ruling.text and "Trooper 1 is wounded" in ruling.text
    assert game.f("trooper-1").wounded and game.f("raider-1").dead


def test_10_infantry_need_a_powerful_weapon_against_vehicles_which_never_strike_back(game):
    game.seen(("trooper-1", 100, 100), ("heavy-1", 300, 100), ("crawler", 100, 100 + 12.5 + 50 + 20))
    refused = game.do("close_combat", attacker="trooper-1", target="crawler")[0]
    assert "powerful close-combat weapon" in refused.text
    ruling = game.do("close_combat", attacker="heavy-1", target="crawler")[0]  # he is 2.7 steps away
    assert "close combat is within 1" in ruling.text
    game.seen(("heavy-1", 100 + 12.5 + 25 + 1, 100 + 12.5 + 50 + 20))  # beside it now
    ruling = game.do("close_combat", 6, 5, attacker="heavy-1", target="crawler")[0]  # 6+5+3 = 14 > 8: 6 damage
    assert "6 damage to Crawler" in ruling.text and "destroyed" in ruling.text and "strikes back" not in ruling.text


def test_11_real_hits_by_how_the_model_ends_up(game):
    game.seen(("field-gun", 600, 100), ("trooper-2", 600 - 25 - 12.5 - 1, 100))
    game.send(p.Shot(1, "L4", 1, "shell", 1, 1000))
    fell = game.send(p.Tilt(2, "T31", "fallen", 85, 1300))[0]
    assert "killed" in fell.text and fell.needs_referee and game.f("raider-1").dead
    assert game.f("trooper-2").fired_gun  # the operator may not shoot his own weapon now
    assert "fired a gun" in game.do("virtual_shot", shooter="trooper-2", target="raider-2")[0].text
    game.send(p.Shot(3, "L1", 1, "shell", 1, 2000))
    game.send(p.Tilt(4, "T32", "leaning", 30, 2300))
    assert game.f("raider-2").wounded
    game.send(p.Shot(5, "L1", 2, "shell", 1, 5000))
    game.send(p.Impact(6, "T21", 6.0, 5200))
    stood = game.send(p.Heartbeat(7, 7000, 0), 6, 3)  # the crawler stood: an exploding d6 of damage
    assert "d6 6+3 = 9 damage" in stood[0].text and game.f("crawler").dead  # 9 > durability 5


def test_11_a_node_that_started_again_lying_is_no_hit_but_the_referee_looks(game):
    """bronehub/1.3: a tilt node's first posture after it started (first=1) is a report; in a
    shot's window it is still not that shot's hit, and a model found down is the referee's."""
    game.seen(("field-gun", 600, 100), ("trooper-2", 600 - 25 - 12.5 - 1, 100))
    game.send(p.Shot(1, "L4", 1, "shell", 1, 1000))
    (found,) = game.send(p.Tilt(2, "T31", "fallen", 85, 1300, first=1))
    assert found.kind == "warning" and found.needs_referee and "started again" in found.text
    assert not game.f("raider-1").dead
    assert game.send(p.Tilt(3, "T32", "upright", 2, 1400, first=1)) == []
    assert game.send(p.Heartbeat(4, 5000, 0)) == []


def test_11_a_gun_with_nobody_beside_it_does_not_count_and_launchers_fire_once(game):
    game.seen(("field-gun", 600, 100))
    assert "no friendly fighter" in game.send(p.Shot(1, "L4", 1, "shell", 1, 1000))[0].text
    game.send(p.Shot(2, "L1", 1, "shell", 1, 2000))
    assert "already fired" in game.send(p.Shot(3, "L1", 1, "shell", 2, 2100))[0].text


@pytest.mark.parametrize("roll, dead, wounded", [(1, True, False), (3, False, True), (5, False, False)])
def test_12_treating_the_wounded_at_the_end_of_the_turn(game, roll, dead, wounded):
    game.state = game.state.with_fighter(replace(game.f("trooper-1"), wounded=True))
    rulings = game.do("end_turn", roll)
    assert game.f("trooper-1").dead is dead and game.f("trooper-1").wounded is wounded
    assert any("Treating Trooper 1" in r.text for r in rulings) and game.state.active_player == "red"


def test_14_rams_are_answered_and_infantry_dodge(game):
    game.seen(("walker", 100, 100), ("crawler", 300, 100))
    assert "infantry always dodge" in game.do("ram", rammer="walker", target="raider-1")[0].text
    game.seen(("walker", 200, 100))  # it drives up to the crawler: both 100 mm long
    ruling = game.do("ram", 2, 1, rammer="walker", target="crawler")[0]  # 2+9=11>8: 3 damage; 1+8=9=9: 1 damage
    assert "3 damage to Crawler" in ruling.text and "1 damage to Walker" in ruling.text


def test_4_1_victory_when_the_enemy_infantry_are_gone(game):
    for raider in ("raider-1", "raider-2"):
        game.state = game.state.with_fighter(replace(game.f(raider), dead=True))
    rulings = game.do("end_turn")
    assert any("blue wins" in r.text for r in rulings) and game.state.winner == "blue"


def test_4_3_more_than_three_actions_goes_to_the_referee(game):
    game.seen(("trooper-1", 100, 100), ("raider-1", 100, 800))
    game.seen(("trooper-1", 100, 400))  # 6 steps: two manoeuvres of 4
    game.do("virtual_shot", 1, shooter="trooper-1", target="raider-1")
    game.seen(("trooper-1", 400, 400))  # 6 more: four manoeuvres in all
    flagged = [r for r in game.do("end_turn") if ":actions:" in r.id]
    assert flagged and "more than the 3 actions" in flagged[0].text


def test_bad_quick_army_files_name_the_field(tmp_path):
    data = json.loads((QUICK / "blue-patrol.json").read_text())
    data["units"][0]["durability"] = 3
    (tmp_path / "a.json").write_text(json.dumps(data))
    with pytest.raises(ArmyError, match=r"units\[0\].durability"):
        load_army(tmp_path / "a.json")
    data = json.loads((QUICK / "blue-patrol.json").read_text())
    data["units"][3]["weapons"][0].pop("launcher")
    (tmp_path / "b.json").write_text(json.dumps(data))
    with pytest.raises(ArmyError, match=r"units\[3\].weapons\[0\].launcher"):
        load_army(tmp_path / "b.json")


def test_the_recorded_quick_game_replays_to_blues_victory():
    """tests/data/sessions/quick.jsonl: station/data/quick/session.json played on the simulated hub
    (make sessions): real hits judged by the tilt nodes, a wound, a virtual kill, and victory."""
    from station.fold import fold
    from station.journal import read_records

    records = read_records(Path(__file__).parent / "data" / "sessions" / "quick.jsonl")
    state = json.loads(fold(records).state_json())
    assert state["game"] == "bronepekhota_quick" and state["winner"] == "blue"
    fighters = {e["id"]: e for u in state["units"] for e in u["elements"]}
    assert fighters["raider-1"]["status"] == fighters["raider-2"]["status"] == "destroyed"
    assert fighters["trooper-1"]["status"] == "wounded"


# Issue #35, family A: what the rulebook forbids after, or without, something else.


def test_14_a_ram_is_made_while_moving_into_contact(game):
    """«Техника при передвижении может протаранить другую технику»: 500 mm apart, or standing
    still, is no ram; a walker that drove up to the crawler's side rams it."""
    game.seen(("walker", 100, 100), ("crawler", 600, 100))
    game.seen(("walker", 110, 100))  # it moved, but stopped 440 mm short
    assert "a ram ends in contact" in game.do("ram", rammer="walker", target="crawler")[0].text
    still = Quick()
    still.do("roll_off", 5, 2)
    still.seen(("walker", 100, 100), ("crawler", 200, 100))  # touching, never moved
    assert "has not moved this turn" in still.do("ram", rammer="walker", target="crawler")[0].text
    game.seen(("walker", 500, 100))  # drove on into contact: both 100 mm long
    ruling = game.do("ram", 2, 1, rammer="walker", target="crawler")[0]
    assert ruling.kind == "melee" and "rams Crawler" in ruling.text


def test_6_1_a_gun_fires_only_with_a_fighter_beside_it_even_a_virtual_one(game):
    """«Артиллерийское орудие стреляет, только если рядом стоит боец», whatever it fires."""
    from station.rules.bronepekhota_quick.state import Weapon

    gun = game.f("field-gun")
    game.state = game.state.with_fighter(replace(gun, weapons=(Weapon("howitzer", "Howitzer", "virtual"),)))
    game.seen(("field-gun", 600, 100), ("trooper-2", 900, 100), ("raider-1", 600, 700))
    refused = game.do("virtual_shot", shooter="field-gun", target="raider-1")[0]
    assert "no friendly fighter was seen next to the gun" in refused.text
    game.seen(("trooper-2", 600 - 25 - 12.5 - 1, 100))  # now he stands beside it
    ruling = game.do("virtual_shot", 1, shooter="field-gun", target="raider-1")[0]
    assert ruling.kind == "shot" and game.f("trooper-2").fired_gun


def test_6_1_the_gun_operator_throws_a_grenade_but_does_not_fire_his_own_weapon():
    """«Если боец-оператор стрелял из орудия, то в этом ходе он не может стрелять из своего
    личного оружия, но может атаковать гранатой», whether the gun fired a real shell or dice."""
    from station.rules.bronepekhota_quick.state import Weapon

    for real in (True, False):
        g = Quick()
        g.do("roll_off", 5, 2)
        gun = g.f("field-gun")
        g.state = g.state.with_fighter(replace(gun, weapons=(*gun.weapons, Weapon("howitzer", "Howitzer", "virtual"))))
        g.seen(("field-gun", 600, 100), ("trooper-2", 600 - 25 - 12.5 - 1, 100), ("raider-2", 450, 200))
        if real:
            g.send(p.Shot(1, "L4", 1, "shell", 1, 1000))
        else:
            g.do("virtual_shot", 1, shooter="field-gun", target="raider-2", weapon="howitzer")
        assert "fired a gun" in g.do("virtual_shot", shooter="trooper-2", target="raider-2")[0].text
        assert "throws a grenade" in g.do("grenade", 1, thrower="trooper-2", target="raider-2")[0].text


def test_12_a_man_wounded_before_the_fight_does_not_strike_back(game):
    """«Раненые … не атакуют в рукопашном бою», under the default simultaneous return too."""
    game.seen(("trooper-1", 100, 100), ("raider-1", 100, 100 + 25 + 30))
    game.state = game.state.with_fighter(replace(game.f("raider-1"), wounded=True))
    ruling = game.do("close_combat", 1, attacker="trooper-1", target="raider-1")[0]  # 1+2 = 3 < 6-2: no effect
    assert "does not strike back" in ruling.text and "strikes back:" not in ruling.text
    assert not game.f("trooper-1").wounded and not game.f("trooper-1").dead


def _with_crate(game, height_mm=100.0):
    from station.measure.terrain import parse_terrain

    crate = {
        "id": "crate",
        "type": "obstacle",
        "height_mm": height_mm,
        "polygon": [[300, 0], [400, 0], [400, 900], [300, 900]],
    }
    game.state = game.state.evolve(
        terrain=tuple(parse_terrain({"format": "station-terrain/1", "pieces": [crate]}, "t"))
    )


def test_5_climbing_a_step_of_height_costs_a_step_of_manoeuvre(game):
    """§5: «1 шаг в высоту = 1 шагу»: trooper-1 (Manoeuvre 4) walks 3.6 steps onto a crate two
    steps high: 5.6 steps, two manoeuvres where the table alone would count one."""
    _with_crate(game)
    game.seen(("trooper-1", 170, 100), ("raider-1", 1100, 800))
    game.seen(("trooper-1", 350, 100))
    moved = game.rules.state_view(game.state)["moved"]["trooper-1"]
    assert moved["moves"] == 2


@pytest.mark.parametrize("who, refused", [("trooper-1", False), ("walker", True)])
def test_5_cyborgs_and_combat_vehicles_cannot_climb_onto_obstacles(game, who, refused):
    """§5: «Киборги и боевые машины на препятствия залезать не могут»."""
    _with_crate(game, 40.0)
    game.seen((who, 250, 100), ("raider-1", 1100, 800))
    game.seen((who, 350, 100))
    climbs = [r for r in game.do("end_turn") if ":climb:" in r.id]
    assert bool(climbs) is refused
    if refused:
        assert climbs[0].needs_referee and "cannot climb onto obstacles" in climbs[0].text


# Issue #35, family E: every reach within the camera's doubt goes to the referee.


@pytest.mark.parametrize("offset, doubt", [(0.5, True), (-0.5, True), (6.0, False), (-6.0, False)])
def test_7_a_close_target_within_the_cameras_uncertainty_of_2_steps_is_ruled_as_measured_for_the_referee(
    game, offset, doubt
):
    game.seen(("trooper-1", 100, 100), ("raider-1", 100, 100 + 25 + 2 * STEP + offset))
    ruling = game.do("virtual_shot", 1, shooter="trooper-1", target="raider-1")[0]
    assert ruling.needs_referee is doubt and ("Too close to call" in ruling.text) is doubt
    assert ruling.details["close"] is (offset < 0)


@pytest.mark.parametrize("offset, allowed, doubt", [(0.5, True, True), (6.0, False, False), (-6.0, True, False)])
def test_8_a_grenade_at_3_steps_within_the_cameras_uncertainty_is_thrown_for_the_referee(game, offset, allowed, doubt):
    game.seen(("trooper-1", 100, 100), ("raider-1", 100, 100 + 25 + 3 * STEP + offset))
    ruling = game.do("grenade", *((1,) if allowed else ()), thrower="trooper-1", target="raider-1")[0]
    assert ("throws a grenade" in ruling.text) is allowed and ("Too close to call" in ruling.text) is doubt
    assert ruling.needs_referee is (doubt or not allowed)  # a refusal is always the referee's to see


@pytest.mark.parametrize("offset, allowed, doubt", [(0.5, True, True), (6.0, False, False)])
def test_10_close_combat_at_1_step_within_the_cameras_uncertainty_is_fought_for_the_referee(
    game, offset, allowed, doubt
):
    game.seen(("trooper-1", 100, 100), ("raider-1", 100, 100 + 25 + STEP + offset))
    ruling = game.do("close_combat", *((4, 3) if allowed else ()), attacker="trooper-1", target="raider-1")[0]
    assert ("attacks Raider 1" in ruling.text) is allowed and ("Too close to call" in ruling.text) is doubt


@pytest.mark.parametrize("offset, refused", [(-0.5, True), (0.5, False)])
def test_10_an_enemy_at_1_step_within_the_cameras_uncertainty_is_said_when_shooting(game, offset, refused):
    game.seen(("trooper-1", 100, 100), ("raider-1", 100, 600), ("raider-2", 100 + 25 + STEP + offset, 100))
    ruling = game.do("virtual_shot", *(() if refused else (1,)), shooter="trooper-1", target="raider-1")[0]
    assert ("no shooting" in ruling.text) is refused and "within the camera's uncertainty of 1 step" in ruling.text
    assert refused or ruling.needs_referee


def test_8_a_model_at_the_blasts_2_steps_within_the_cameras_uncertainty_goes_to_the_referee(game):
    game.seen(("trooper-1", 100, 100), ("raider-1", 100, 100 + 25 + 80), ("raider-2", 100 + 25 + 2 * STEP + 0.5, 205))
    ruling = game.do("grenade", 1, 1, thrower="trooper-1", target="raider-1")[0]
    assert ruling.needs_referee and "Raider 2 within the camera's uncertainty of the blast's 2 steps" in ruling.text
