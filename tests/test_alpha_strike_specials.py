"""Alpha Strike specials (seed 004 digest §10) and lance formations (§11) through the fold, with
the BattleMaster's REAR worked example, and the §13 options that change a ruling."""

import json

import pytest

from station.rules.alpha_strike.army import load_army
from station.rules.base import ArmyError

from .test_alpha_strike_game import INCH, RADIUS, Alpha

TORCH = {
    "name": "Torch (test card)",
    "size": 2,
    "tmm": 2,
    "move_in": 10,
    "damage": {"S": "2", "M": "2", "L": "0"},
    "overheat": 1,
    "armour": 4,
    "structure": 3,
    "specials": ["HT 1/1/-"],
}


def force(tmp_path, player, units, formation=None):
    data = {
        "format": "alpha-strike-force/1",
        "player": player,
        "units": [{"id": i, "card": c, "skill": 4} for i, c in units],
    }
    if formation:
        data["formation"] = formation
    path = tmp_path / f"{player}.json"
    path.write_text(json.dumps(data))
    return load_army(path)


def start(game, rolls=(1, 1, 6, 6), **where):
    """Place the units, roll initiative (red loses by default), and enter the Combat Phase."""
    game.seen(**where)
    game.do("roll_initiative", *rolls)


def combat(game):
    game.do("end_movement")
    return game


@pytest.fixture
def battlemaster(tmp_path):
    """§10.3's example: a Shadow Hawk in front at medium range, a Commando behind at short."""
    g = Alpha(
        forces=[
            force(tmp_path, "red", [("blr", "BattleMaster BLR-1G")]),
            force(tmp_path, "blue", [("hawk", "Shadow Hawk SHD-2H"), ("commando", "Commando COM-3A")]),
        ]
    )
    start(
        g,
        blr=(600, 450, 0),
        hawk=(600 + 2 * RADIUS + 10 * INCH, 450, 180),
        commando=(600 - 2 * RADIUS - 3 * INCH, 450, 0),
    )
    return combat(g)


def test_10_3_worked_example_battlemaster_rear_then_forward(battlemaster):
    g = battlemaster
    rear = g.do("attack", 3, 3, attacker="blr", target="commando", rear=True)[0]
    # skill 4, still -1, short +0, REAR +1 = 4; REAR 1 at short
    assert rear.details["tn"] == 4 and rear.details["rear"] and g.unit("commando").armour == 3 - 1
    assert "deals 1 less" in rear.text and rear.section.startswith("§10.3")
    forward = g.do("attack", 4, 4, attacker="blr", target="hawk")[0]  # TN 4 - 1 + 2 = 5; 3 - 1 = 2
    assert forward.details["tn"] == 5 and g.unit("hawk").armour == 5 - 2


def test_10_3_overheat_is_added_after_the_rear_reduction(battlemaster):
    battlemaster.do("attack", 1, 1, attacker="blr", target="commando", rear=True)  # a miss still costs the 1 (A21)
    battlemaster.do("attack", 4, 4, attacker="blr", target="hawk", overheat=1)
    assert battlemaster.unit("hawk").armour == 5 - 3


def test_a21_option_a_missed_rear_attack_costs_nothing(tmp_path):
    g = Alpha(
        {"rear_reduction_on_miss": False},
        forces=[
            force(tmp_path, "red", [("blr", "BattleMaster BLR-1G")]),
            force(tmp_path, "blue", [("hawk", "Shadow Hawk SHD-2H"), ("commando", "Commando COM-3A")]),
        ],
    )
    start(
        g,
        blr=(600, 450, 0),
        hawk=(600 + 2 * RADIUS + 10 * INCH, 450, 180),
        commando=(600 - 2 * RADIUS - 3 * INCH, 450, 0),
    )
    combat(g)
    g.do("attack", 1, 1, attacker="blr", target="commando", rear=True)
    g.do("attack", 4, 4, attacker="blr", target="hawk")
    assert g.unit("hawk").armour == 5 - 3


def test_10_3_rear_limits(battlemaster):
    g = battlemaster
    assert "REAR weapons fire at targets outside" in g.do("attack", attacker="blr", target="hawk", rear=True)[0].text
    assert (
        "only a forward weapon attack"
        in g.do("attack", attacker="blr", target="commando", rear=True, overheat=1)[0].text
    )
    g.do("attack", 1, 1, attacker="blr", target="hawk")
    assert "has made its attack" in g.do("attack", attacker="blr", target="commando", rear=True)[0].text
    assert "no REAR weapons" in g.do("attack", attacker="hawk", target="blr", rear=True)[0].text


def test_10_1_ht_heats_the_target_at_most_2_a_turn_and_cannot_be_overheated(tmp_path):
    g = Alpha(
        forces=[
            force(tmp_path, "red", [("torch", TORCH), ("torch2", TORCH), ("torch3", TORCH)]),
            force(tmp_path, "blue", [("blr", "BattleMaster BLR-1G")]),
        ]
    )
    x = 300 + 2 * RADIUS + 3 * INCH
    start(g, torch=(300, 300, 0), torch2=(300, 450, 0), torch3=(300, 600, 0), blr=(x, 450, 180))
    combat(g)
    assert "cannot be overheated" in g.do("attack", attacker="torch", target="blr", overheat=1)[0].text
    for unit in ("torch", "torch2", "torch3"):
        ruling = g.do("attack", 5, 5, attacker=unit, target="blr")[0]
        assert "HT: +1 heat" in ruling.text
    assert g.state.heat_turn["blr"].ht_received == 3
    g.do("end_turn")
    assert g.unit("blr").heat == 2  # §10.1: at most 2 a turn


def test_10_4_indirect_fire_needs_a_spotter_that_sees_the_target(tmp_path):
    g = Alpha(
        forces=[
            force(tmp_path, "red", [("stalker", "Stalker STK-3F"), ("locust", "Locust LCT-1E")]),
            force(tmp_path, "blue", [("hawk", "Shadow Hawk SHD-2H")]),
        ]
    )
    g.do(
        "terrain",
        format="station-terrain/1",
        pieces=[
            {
                "id": "hill",
                "type": "hill",
                "height_mm": 300,
                "polygon": [[450, 250], [520, 250], [520, 650], [450, 650]],
            }
        ],
    )
    start(g, stalker=(300, 450, 0), locust=(700, 200, 90), hawk=(700, 450, 180))
    combat(g)
    assert "no line of sight" in g.do("attack", attacker="stalker", target="hawk")[0].text
    assert "needs a spotter" in g.do("attack", attacker="stalker", target="hawk", kind="indirect")[0].text
    ruling = g.do("attack", 4, 4, attacker="stalker", target="hawk", kind="indirect", spotter="locust")[0]
    # skill 4, still -1, medium +2 (14" from the Stalker), indirect +1 = 6: hit for IF 1
    assert ruling.details["tn"] == 6 and g.unit("hawk").armour == 5 - 1 and ruling.section.startswith("§10.4")


def test_10_4_a_spotter_that_attacked_adds_one_and_the_option_drops_the_modifiers(tmp_path):
    forces = [
        force(tmp_path, "red", [("stalker", "Stalker STK-3F"), ("locust", "Locust LCT-1E")]),
        force(tmp_path, "blue", [("hawk", "Shadow Hawk SHD-2H")]),
    ]
    for options, tn in (({}, 7), ({"indirect_modifiers": "none"}, 5)):
        g = Alpha(options, forces=forces)
        start(g, stalker=(300, 450, 0), locust=(700, 200, 90), hawk=(700, 450, 180))
        combat(g)
        g.do("attack", 1, 1, attacker="locust", target="hawk")
        assert (
            g.do("attack", 1, 1, attacker="stalker", target="hawk", kind="indirect", spotter="locust")[0].details["tn"]
            == tn
        )


def _lance(tmp_path, kind, **extra):
    red = force(
        tmp_path,
        "red",
        [("a", "Commando COM-3A"), ("b", "Commando COM-3A"), ("c", "Commando COM-3A")],
        {"type": kind, **extra},
    )
    return Alpha(forces=[red, force(tmp_path, "blue", [("hawk", "Shadow Hawk SHD-2H")])])


LANCE_AT = {
    "a": (300, 300, 0),
    "b": (300, 450, 0),
    "c": (300, 600, 0),
    "hawk": (300 + 2 * RADIUS + 10 * INCH, 450, 180),
}


def test_11_1_battle_lance_lucky_rerolls_a_miss_six_times(tmp_path):
    g = _lance(tmp_path, "battle")
    start(g, **LANCE_AT)
    combat(g)
    miss = g.do("attack", 1, 1, attacker="a", target="hawk")[0]
    assert "Lucky re-roll may be spent (6 left" in miss.text
    assert g.rules.state_view(g.state)["lucky"] == "a"  # the dashboard offers the re-roll
    again = g.do("lucky", 5, 5, unit="a")[0]
    assert again.details["hit"] and "5 Lucky re-rolls left" in again.text and g.unit("hawk").armour == 5 - 2
    assert "has none to re-roll" in g.do("lucky", unit="a")[0].text  # no re-rolling a re-roll
    g.state = g.state.evolve(lucky_used={"red": 6})
    assert "Lucky" not in g.do("attack", 1, 1, attacker="b", target="hawk")[0].text


def test_11_2_fire_support_snipers_and_11_formation_lost_under_three(tmp_path):
    g = _lance(tmp_path, "fire_support")
    g.seen(**LANCE_AT)
    assert g.do("sniper", units=["a", "b"])[0].kind == "status"
    assert "one or 2 units" in g.do("sniper", units=["a", "b", "c"])[0].text
    g.do("roll_initiative", 1, 1, 6, 6)
    combat(g)
    sniper = g.do("attack", 1, 1, attacker="a", target="hawk")[0]
    assert sniper.details["tn"] == 4 - 1 + 1 and "medium range (Sniper) +1" in sniper.text
    assert g.do("attack", 1, 1, attacker="c", target="hawk")[0].details["tn"] == 4 - 1 + 2
    g.hurt("c", destroyed=True)  # two active units left: no formation benefits
    assert g.do("attack", 1, 1, attacker="b", target="hawk")[0].details["tn"] == 4 - 1 + 2


def test_11_3_striker_speed_demons_move_two_inches_more(tmp_path):
    g = _lance(tmp_path, "striker", speed_demon=["a", "b", "c"])
    start(g, **LANCE_AT)
    g.do("move", unit="hawk", mode="still")
    g.seen(a=(300 + 14 * INCH, 300, 0))  # MV 12" + 2"
    assert g.do("move", unit="a", mode="ground")[0].kind == "move"
    g.seen(b=(300 + 15 * INCH, 450, 0))
    assert 'more than its 14"' in g.do("move", unit="b", mode="ground")[0].text


@pytest.mark.parametrize(
    "formation, problem",
    [
        ({"type": "striker", "speed_demon": ["a"]}, "names 3 different units"),
        ({"type": "striker", "speed_demon": ["a", "b", "zz"]}, "'zz' is not a unit"),
        ({"type": "battle", "speed_demon": ["a"]}, "only a striker lance"),
        ({"type": "recon"}, "formation.type"),
    ],
)
def test_bad_formations_are_named(tmp_path, formation, problem):
    with pytest.raises(ArmyError, match=problem):
        force(
            tmp_path, "red", [("a", "Commando COM-3A"), ("b", "Commando COM-3A"), ("c", "Commando COM-3A")], formation
        )


def test_a4_a_shut_down_target_in_melee_is_immobile_or_by_option_plus_nothing(tmp_path):
    for options, tn in (({}, 4 - 1 - 4), ({"shutdown_in_melee": "no_tmm"}, 4 - 1)):
        g = Alpha(
            options,
            forces=[
                force(tmp_path, "red", [("a", "Commando COM-3A")]),
                force(tmp_path, "blue", [("hawk", "Shadow Hawk SHD-2H")]),
            ],
        )
        start(g, a=(300, 450, 0), hawk=(300 + 2 * RADIUS + 0.5 * INCH, 450, 180))
        combat(g)
        g.hurt("hawk", shutdown=True)
        g.state = g.state.evolve(combat_start=dict(g.state.units))
        assert g.do("attack", 1, 1, attacker="a", target="hawk", kind="standard")[0].details["tn"] == tn


def test_a10_minimal_damage_with_overheat_deals_the_overheat_or_by_option_is_refused(tmp_path):
    spark = {**TORCH, "damage": {"S": "0*", "M": "0*", "L": "0"}, "specials": []}
    for options, allowed in (({}, True), ({"minimal_overheat": "forbid"}, False)):
        g = Alpha(
            options,
            forces=[
                force(tmp_path, "red", [("spark", spark)]),
                force(tmp_path, "blue", [("hawk", "Shadow Hawk SHD-2H")]),
            ],
        )
        start(g, spark=(300, 450, 0), hawk=(300 + 2 * RADIUS + 3 * INCH, 450, 180))
        combat(g)
        ruling = g.do("attack", *((3, 3) if allowed else ()), attacker="spark", target="hawk", overheat=1)[0]
        if allowed:
            assert "minimal damage with 1 overheat" in ruling.text and g.unit("hawk").armour == 5 - 1
        else:
            assert "cannot be overheated (option minimal_overheat)" in ruling.text


def test_unknown_options_are_refused():
    with pytest.raises(ValueError, match="options"):
        Alpha({"victory": "conquest"})
    with pytest.raises(ValueError, match="options"):
        Alpha({"lucky": True})


def test_11_lucky_refused_for_a_lance_under_three_says_so_not_that_nothing_missed(tmp_path):
    """Issue #35: a Battle Lance of two units has no Lucky (§11); its refusal says that, rather
    than "has none to re-roll" after the very miss."""
    red = force(tmp_path, "red", [("a", "Commando COM-3A"), ("b", "Commando COM-3A")], {"type": "battle"})
    g = Alpha(forces=[red, force(tmp_path, "blue", [("hawk", "Shadow Hawk SHD-2H")])])
    start(g, **{k: v for k, v in LANCE_AT.items() if k != "c"})
    combat(g)
    g.do("attack", 1, 1, attacker="a", target="hawk")
    refused = g.do("lucky", unit="a")[0]
    assert "no Battle Lance of three units or more" in refused.text and "none to re-roll" not in refused.text
