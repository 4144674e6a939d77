"""Бронепехота §7 virtual shooting, section by section, with the digest's own worked examples
(seed 000: Рис. 40 range, Рис. 41 damage, Рис. 43 ammunition, Рис. 45-46 grenades, §11.1 aimed
fire) on camera positions and terrain."""

from dataclasses import replace

import pytest

from station.measure.terrain import parse_terrain
from station.rules.base import Input, Override

from .conftest import Table

STEP = 50.0


@pytest.fixture
def virtual(armies):
    return Table(armies, {"shooting": "virtual"})


def _seen(*units):
    return Input(
        "snapshot",
        {"units": [{"element": e, "x_mm": x, "y_mm": y, "facing_deg": f, "status": "up"} for e, x, y, f in units]},
    )


def _fire(table, *rolls, **args):
    rulings = table.send(Input("virtual_shot", args), *rolls)
    return next(r for r in rulings if r.id.endswith(":virtual"))


def _blue_turn(table):
    table.begin_round()  # blue wins the initiative


def _red_turn(table):
    table.begin_round(3, 10)


def test_real_mode_has_no_virtual_shots(table):
    """§1.2: the shooting mode is agreed before the battle."""
    table.begin_round()
    ruling = _fire(table, shooter="cyber-2", target="clone-3")
    assert "Virtual shot refused" in ruling.text and ruling.section == "§1.2"


def test_7_4_range_example_fig_40(virtual):
    """Рис. 40: a little over 4 steps counts 5; D6+2 rolling 2 gives 4 < 5, a miss; 3 would hit."""
    _blue_turn(virtual)
    gap = 4.1 * STEP
    virtual.send(_seen(("cyber-2", 300.0, 300.0, 0.0), ("clone-3", 300.0 + 12.5 + gap + 12.5, 300.0, 180.0)))
    miss = _fire(virtual, 2, shooter="cyber-2", target="clone-3")
    assert miss.details["distance_steps"] == 5 and miss.details["aimed_range"] == 4 and not miss.details["hit"]
    assert "miss (§7.4 I)" in miss.text and miss.details["measured"]["value"] == 5
    assert virtual.el("clone-3").alive
    virtual.send(Input("end_activation"))


def test_7_4_a_hit_rolls_power_against_armour_and_kills_infantry(virtual):
    """§7.4 II: each Power die above the target's Бр is a damage; any damage destroys a soldier (§5.1)."""
    _blue_turn(virtual)
    virtual.send(_seen(("cyber-2", 300.0, 300.0, 0.0), ("clone-3", 450.0, 300.0, 180.0)))
    hit = _fire(virtual, 3, 2, 4, shooter="cyber-2", target="clone-3")  # D6+2 → 5 ≥ 3 steps; 2D6: 2, 4 vs Бр
    armour = virtual.el("clone-3").armour
    assert hit.details["hit"] and hit.details["attack"]["damage"] == sum(1 for r in (2, 4) if r > armour)
    assert virtual.el("clone-3").destroyed is (hit.details["attack"]["damage"] > 0)


def test_7_4_damage_example_fig_41_salamander(virtual, armies):
    """Рис. 41: SALAMANDER at Armour 7 hit by a 4D12 aircraft rocket rolling 3, 7, 8, 11: only 8 and
    11 beat 7, so 2 damage, and its pilot takes one Survival Test D6 (no Armour Test in virtual)."""
    armies[0]["units"][1]["weapons"] = [
        {"id": "aircraft-rocket", "name": "aircraft rocket", "range": "D20", "power": "4D12", "properties": []}
    ]
    table = Table(armies, {"shooting": "virtual"})
    table.state = table.state.with_element(replace(table.el("salamander"), armour=7))
    _blue_turn(table)
    table.send(_seen(("gryphon", 300.0, 300.0, 0.0), ("salamander", 700.0, 300.0, 180.0)))
    ruling = _fire(table, 20, 3, 7, 8, 11, 6, shooter="gryphon", target="salamander")
    attack = ruling.details["attack"]
    assert attack["power_rolls"] == [3, 7, 8, 11] and attack["armour"] == 7 and attack["damage"] == 2
    assert table.el("salamander").armour == 5
    assert attack["pilot_test"]["die"] == "D6" and not attack["pilot_test"]["passed"]  # 6 > the pilot's Бр
    assert table.el("salamander").pilot is None and "pilot" in ruling.text
    assert [sides for sides, _ in table.roller.asked[-6:]] == [20, 12, 12, 12, 12, 6]  # after the initiative D12s


@pytest.mark.parametrize("pilot_roll, dies", [(1, False), (6, True)])
def test_7_4_III_one_pilot_test_a_shot_however_many_damages(armies, pilot_roll, dies):
    """§7.4 III: «Для каждого выстрела тест выживания пилота проводится только один раз, вне
    зависимости от того, одно или несколько повреждений получила машина в результате этого
    выстрела».  A heavy rocket's power and its own blast (blast_hits_target) both hurt VARAN: one
    D6 for its pilot, after both; two tests had given the pilot two chances to die."""
    table = Table(armies, {"shooting": "virtual", "blast_hits_target": True})
    _blue_turn(table)
    table.send(_seen(("t-rex", 300.0, 300.0, 0.0), ("varan", 600.0, 300.0, 180.0)))
    ruling = _fire(table, 20, 20, 20, pilot_roll, shooter="t-rex", target="varan", weapon="heavy-rocket")
    assert [sides for sides, _ in table.roller.asked[-4:]] == [20, 20, 20, 6]  # range, power, blast, one test
    assert ruling.text.count("survival test") == 1
    assert ruling.text.index("blast on Varan") < ruling.text.index("survival test")  # after all its damage
    assert table.el("varan").armour == 12 - 2 and (table.el("varan").pilot is None) is dies
    assert ruling.details["attack"]["pilot_test"]["roll"] == pilot_roll
    assert table.roller.asked[-1][1].endswith("/varan/pilot-survival")  # the power's key, as journals have it


def test_7_4_III_the_blast_alone_on_its_target_still_tests_once(armies):
    """The power did no damage, the blast did: the one test is the blast's."""
    table = Table(armies, {"shooting": "virtual", "blast_hits_target": True})
    _blue_turn(table)
    table.send(_seen(("t-rex", 300.0, 300.0, 0.0), ("varan", 600.0, 300.0, 180.0)))
    ruling = _fire(table, 20, 1, 20, 1, shooter="t-rex", target="varan", weapon="heavy-rocket")
    assert ruling.text.count("survival test") == 1 and table.el("varan").armour == 11
    assert table.roller.asked[-1][1].endswith("/blast/varan/pilot-survival")


def test_7_3_field_of_view_line_of_fire_and_close_combat(virtual):
    _blue_turn(virtual)
    virtual.send(_seen(("cyber-2", 300.0, 300.0, 0.0), ("clone-3", 100.0, 300.0, 0.0), ("clone-5", 600.0, 300.0, 0.0)))
    behind = _fire(virtual, shooter="cyber-2", target="clone-3")
    assert "field of view" in behind.text and behind.section == "§7.3"
    assert not virtual.el("cyber-2").fired  # a refused shot is not spent
    virtual.state = virtual.state.evolve(
        terrain=tuple(
            parse_terrain(
                {
                    "format": "station-terrain/1",
                    "pieces": [
                        {
                            "id": "wall",
                            "type": "building",
                            "height_mm": 120,
                            "polygon": [[440, 200], [460, 200], [460, 400], [440, 400]],
                        }
                    ],
                },
                "test",
            )
        )
    )
    hidden = _fire(virtual, shooter="cyber-2", target="clone-5")
    assert "no line of fire" in hidden.text and "wall" in hidden.text
    virtual.send(_seen(("clone-3", 325.5, 300.0, 0.0)))  # now touching: close combat
    busy = _fire(virtual, shooter="cyber-2", target="clone-5")
    assert "close combat" in busy.text and busy.section == "§7.3"


@pytest.mark.parametrize("wall_top, bonus", [(4.0, 0), (22.0, 1), (32.0, 3)])
def test_table_5_cover_raises_the_armour(virtual, wall_top, bonus):
    """Table 5: a low wall before the target hides part of it: +1 if more than half is seen, +3 if less."""
    _blue_turn(virtual)
    virtual.state = virtual.state.evolve(
        terrain=tuple(
            parse_terrain(
                {
                    "format": "station-terrain/1",
                    "pieces": [
                        {
                            "id": "wall",
                            "type": "obstacle",
                            "height_mm": wall_top,
                            "polygon": [[560, 200], [570, 200], [570, 400], [560, 400]],
                        }
                    ],
                },
                "test",
            )
        )
    )
    virtual.send(_seen(("cyber-2", 300.0, 300.0, 0.0), ("clone-3", 600.0, 300.0, 180.0)))
    ruling = _fire(virtual, 6, 1, 1, shooter="cyber-2", target="clone-3")
    assert ruling.details["cover"]["armour"] == bonus
    assert ruling.details["attack"]["armour"] == virtual.el("clone-3").armour + bonus


def test_7_6_rate_of_fire_each_weapon_once(virtual):
    """§7.6: a vehicle fires up to its rate of fire, each weapon at most once; a soldier once a round."""
    _red_turn(virtual)
    virtual.send(_seen(("salamander", 300.0, 300.0, 0.0), ("gryphon", 700.0, 300.0, 180.0)))
    first = _fire(virtual, 1, shooter="salamander", target="gryphon", weapon="gatling")
    assert not first.details["hit"]
    again = _fire(virtual, shooter="salamander", target="gryphon", weapon="gatling")
    assert "already fired this round" in again.text and again.section == "§7.6"
    unknown = _fire(virtual, shooter="salamander", target="gryphon", weapon="laser")
    assert "no weapon 'laser'" in unknown.text and "gatling" in unknown.text
    unsaid = _fire(virtual, shooter="salamander", target="gryphon")
    assert "say which weapon" in unsaid.text


def test_7_7_ammunition_example_fig_43(virtual):
    """Рис. 43: the Gatling gun (3D20) costs 3 cells, then the twin-barrel machine gun (2D12) 2 more."""
    _red_turn(virtual)
    virtual.send(_seen(("salamander", 300.0, 300.0, 0.0), ("gryphon", 900.0, 300.0, 180.0)))
    start = virtual.el("salamander").ammo
    _fire(virtual, 1, shooter="salamander", target="gryphon", weapon="gatling")
    assert virtual.el("salamander").ammo == start - 3
    _fire(virtual, 1, shooter="salamander", target="gryphon", weapon="twin-mg")
    assert virtual.el("salamander").ammo == start - 5


def test_7_7_exhausted_ammunition_stops_a_vehicle_for_good(virtual):
    _red_turn(virtual)
    virtual.state = virtual.state.with_element(replace(virtual.el("salamander"), ammo=0))
    virtual.send(_seen(("salamander", 300.0, 300.0, 0.0), ("gryphon", 700.0, 300.0, 180.0)))
    ruling = _fire(virtual, shooter="salamander", target="gryphon", weapon="gatling")
    assert "exhausted" in ruling.text and ruling.section == "§7.7"


def test_11_1_aimed_fire_doubles_the_range_and_its_modifier(virtual):
    """§11.1: D6+1 rolling 5 aims (5 + 1) × 2 = 12 steps; clone-3 has D6+1 (sample data)."""
    _red_turn(virtual)
    virtual.send(_seen(("clone-3", 100.0, 300.0, 0.0), ("cyber-2", 100.0 + 25 + 11.5 * STEP, 300.0, 180.0)))
    ruling = _fire(virtual, 5, 1, 1, shooter="clone-3", target="cyber-2", aimed=True)
    assert ruling.details["aimed_range"] == 12 and ruling.details["distance_steps"] == 12 and ruling.details["hit"]
    assert "§11.1" in ruling.section


def test_7_4_iv_the_heavy_rocket_explodes_on_everything_within_2_steps(virtual):
    """§7.4 IV: every model within 2 steps of the target, friend or foe, is attacked with 1D20."""
    _blue_turn(virtual)
    virtual.send(
        _seen(
            ("t-rex", 200.0, 300.0, 0.0),
            ("varan", 800.0, 300.0, 180.0),
            ("clone-3", 800.0, 390.0, 0.0),
            ("clone-5", 800.0, 600.0, 0.0),
        )
    )
    ruling = _fire(virtual, 20, 1, 20, shooter="t-rex", target="varan", weapon="heavy-rocket")
    assert ruling.details["hit"] and len(ruling.details["explosion"]) == 1  # clone-3 at 27.5 mm; clone-5 too far
    assert "blast on Clone 3" in ruling.text and virtual.el("clone-3").destroyed
    assert virtual.el("clone-5").alive


@pytest.mark.parametrize("roll, thrower_hit", [(4, False), (1, True)])
def test_7_8_grenade_bursts_d6_steps_towards_the_target(virtual, roll, thrower_hit):
    """Рис. 45: a roll of 4 bursts 4 steps away, attacking what is within 1 step.  Рис. 46: a roll
    of 1 bursts 1 step away, and the thrower is within 1 step of it himself."""
    _blue_turn(virtual)
    virtual.send(_seen(("cyber-2", 300.0, 300.0, 0.0), ("clone-3", 300.0 + 12.5 + 4 * STEP + 20.0, 300.0, 180.0)))
    ruling = _fire(virtual, roll, 20, shooter="cyber-2", target="clone-3", grenade=True)  # one model in reach
    assert ruling.section == "§7.8" and ruling.details["roll"] == roll
    assert virtual.el("cyber-2").destroyed is thrower_hit
    assert virtual.el("clone-3").destroyed is (not thrower_hit)


def test_7_5_a_gun_needs_its_crew_and_uses_the_crewmans_shot(virtual):
    """§7.5: a crewman of sufficient rank touching the gun fires it, instead of his own weapon."""
    _blue_turn(virtual)
    virtual.send(Input("activate", {"unit": "cyber"}))
    virtual.send(_seen(("twin-cannon", 600.0, 600.0, 0.0), ("clone-5", 1000.0, 600.0, 180.0)))
    alone = _fire(virtual, shooter="twin-cannon", target="clone-5")
    assert "no infantryman" in alone.text and alone.section == "§7.5"
    virtual.send(
        _seen(("cyber-2", 600.0 - 25.0 - 12.5 - 1.0, 600.0, 0.0))
    )  # touching the gun's back, facing the target
    fired = _fire(virtual, 1, shooter="twin-cannon", target="clone-5")
    assert fired.details["crew"] == "cyber-2" and not fired.details["hit"]
    again = _fire(virtual, shooter="cyber-2", target="clone-5")
    assert "already fired this round" in again.text


def test_the_referee_voids_a_virtual_shot(armies):
    table = Table(armies, {"shooting": "virtual"})
    _blue_turn(table)
    table.send(_seen(("cyber-2", 300.0, 300.0, 0.0), ("clone-3", 450.0, 300.0, 180.0)))
    seq = next(table.seq)  # the next virtual shot gets this seq + 1
    table.state = table.state.evolve(
        overrides={f"{seq + 1}:virtual": (seq + 2, Override(f"{seq + 1}:virtual", "void"))}
    )
    ruling = _fire(table, shooter="cyber-2", target="clone-3")
    assert ruling.overridden == "void" and table.el("clone-3").alive and not table.el("cyber-2").fired


def test_models_the_camera_has_not_placed_are_measured_by_hand(virtual):
    """Without the camera the referee measures: distance in whole steps and the share hidden."""
    _blue_turn(virtual)
    asked = _fire(virtual, shooter="cyber-2", target="clone-3")
    assert "measure by hand" in asked.text and not virtual.el("cyber-2").fired
    ruling = _fire(virtual, 1, 6, 6, shooter="cyber-2", target="clone-3", distance=3, hidden=0.3)
    assert ruling.details["by_hand"] and ruling.details["distance_steps"] == 3 and ruling.details["hit"]
    assert ruling.details["cover"]["armour"] == 1 and "measured by hand" in ruling.text


def test_a_recorded_virtual_game_replays_to_blues_victory():
    """tests/data/sessions/virtual.jsonl (make sessions): a whole §7 game with every die entered
    from the table, from the initiative to the last pilot; its replay ends where the game did."""
    import json
    from pathlib import Path

    from station.fold import fold
    from station.journal import read_records

    records = read_records(Path(__file__).parent / "data" / "sessions" / "virtual.jsonl")
    state = json.loads(fold(records).state_json())
    assert state["winner"] == "blue" and state["out"] == ["red"]
    dice = [r for r in records if r["kind"] == "dice"]
    assert dice and all(r.get("physical") for r in dice)  # every roll came from the table


def test_3_2_the_actions_left_shrink_as_they_are_used(virtual):
    _blue_turn(virtual)
    virtual.send(_seen(("gryphon", 300.0, 300.0, 0.0), ("salamander", 700.0, 300.0, 180.0)))
    virtual.send(Input("activate", {"unit": "gryphon"}))

    def left():
        view = virtual.rules.state_view(virtual.state)
        return next(e for u in view["units"] for e in u["elements"] if e["id"] == "gryphon")["actions_left"]

    rate = virtual.state.setup.rate_of_fire["gryphon"]
    assert left() == [f"shoot ×{rate}", "close combat"]
    _fire(virtual, 1, shooter="gryphon", target="salamander")
    assert left() == ([f"shoot ×{rate - 1}"] if rate > 1 else []) + ["close combat"]
