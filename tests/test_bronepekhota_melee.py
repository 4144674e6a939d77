"""Бронепехота §8 close combat, with the digest's worked examples (Рис. 49, Рис. 50, Рис. 51-52)."""

from dataclasses import replace

import pytest

from station.rules.base import Input


def _seen(*units):
    return Input(
        "snapshot",
        {"units": [{"element": e, "x_mm": x, "y_mm": y, "facing_deg": f, "status": "up"} for e, x, y, f in units]},
    )


def _fight(table, *rolls, **args):
    return next(r for r in table.send(Input("close_combat", args), *rolls) if r.id.endswith(":melee"))


@pytest.fixture
def blue_first(table):
    table.begin_round()
    return table


def test_8_1_fig_49_a_vehicle_with_saw_and_claw_attacks_a_gun(blue_first):
    """Рис. 49: Armour 9 + vibro-saw ББ/2 + claw ББ/1 attacks with D6 + 12; a die of 4 makes 16.
    The gun defends with its Armour alone and loses the difference (Table 7)."""
    table = blue_first
    table.state = table.state.with_element(replace(table.el("t-rex"), armour=9))
    gun = table.el("mortar")
    table.send(
        _seen(("t-rex", 500.0, 500.0, 0.0), ("mortar", 500.0 + 50 + 25.0 + 1.0, 500.0, 180.0))
    )  # touching, facing it
    ruling = _fight(table, 4, attacker="t-rex", defender="mortar")
    assert ruling.details["attack"] == 16 and ruling.details["defence"] == gun.armour
    assert "D6 4 + armour 9 + ББ 3" in ruling.text and "no die" in ruling.text
    assert table.el("mortar").armour == max(0, gun.armour - (16 - gun.armour))


def test_8_2_fig_50_an_infantryman_wins_and_the_loser_dies(table):
    """Рис. 50: ББ 2 attacking Бр 3 and winning: the enemy is destroyed."""
    table.begin_round(3, 10)  # red acts first
    table.state = table.state.with_element(replace(table.el("cyber-2"), armour=3))
    table.send(_seen(("clone-3", 300.0, 300.0, 0.0), ("cyber-2", 325.5, 300.0, 180.0)))  # face to face
    skill = table.state.setup.melee["clone-3"]
    ruling = _fight(table, 6, 1, attacker="clone-3", defender="cyber-2")
    assert ruling.details["attack"] == 6 + skill and ruling.details["defence"] == 1 + 3
    assert ruling.details["won"] is (6 + skill > 4) and table.el("cyber-2").destroyed is ruling.details["won"]


def test_8_2_a_tie_is_repelled_and_nobody_is_hurt(blue_first):
    table = blue_first
    table.send(_seen(("cyber-2", 300.0, 300.0, 0.0), ("clone-3", 325.5, 300.0, 180.0)))
    skill, armour = table.state.setup.melee["cyber-2"], table.el("clone-3").armour
    ruling = _fight(table, 3, 3 + skill - armour, attacker="cyber-2", defender="clone-3")
    assert ruling.details["attack"] == ruling.details["defence"] and not ruling.details["won"]
    assert "repelled" in ruling.text and table.el("clone-3").alive
    again = _fight(table, attacker="cyber-2", defender="clone-3")
    assert "already fought" in again.text  # once per activation (§3.2)


def test_8_3_from_behind_two_dice_keep_the_higher_and_a_vehicle_loses_its_melee_weapons(table):
    """Рис. 51-52: the attacker is in the defender's rear half."""
    table.begin_round(3, 10)  # red acts first
    armour_before = table.el("t-rex").armour
    table.send(
        _seen(("clone-3", 500.0, 500.0, 0.0), ("t-rex", 500.0 + 12.5 + 50 + 1.0, 500.0, 0.0))
    )  # t-rex faces away
    ruling = _fight(table, 2, 5, 1, attacker="clone-3", defender="t-rex")
    assert ruling.details["surprise"] and "§8.3" in ruling.section
    skill = table.state.setup.melee["clone-3"]
    assert ruling.details["attack"] == 5 + skill  # the better of 2 and 5
    assert "its ББ does not count" in ruling.text
    assert ruling.details["defence"] == 1 + armour_before  # D6 + Armour, without the saw and the claw


@pytest.mark.parametrize(
    "attacker, defender, problem",
    [
        ("mortar", "cyber-2", "does not attack"),
        ("cyber-2", "cyber-3", "same side"),
        ("cyber-2", "clone-3", "not touching"),
    ],
)
def test_close_combat_refusals(blue_first, attacker, defender, problem):
    table = blue_first
    table.send(_seen(("cyber-2", 300.0, 300.0, 0.0), ("clone-3", 500.0, 300.0, 180.0), ("cyber-3", 330.0, 300.0, 0.0)))
    assert problem in _fight(table, attacker=attacker, defender=defender).text
