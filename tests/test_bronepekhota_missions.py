"""Бронепехота §1.1, §12.1: a battle is won by the first to complete the mission, or by
destroying every enemy soldier; the banner and the report say which."""

from __future__ import annotations

import pytest

from station.rules.base import Input

from .conftest import impact, tilt


def test_12_1_destroying_the_enemy_command_vehicle_completes_the_mission_and_wins(table):
    """«уничтожить командную машину противника»: red's mission is gryphon; the rocket that
    destroys it ends the battle with red the winner, by the mission, though blue has soldiers."""
    declared = table.send(Input("mission", {"player": "red", "objective": "command_vehicle", "target": "gryphon"}))
    assert "destroy Gryphon" in declared[0].text or "destroy gryphon" in declared[0].text
    table.begin_round(red=11, blue=2)
    table.send(table.shot("L22", barrel=1, charge="rocket", t=1000))
    table.send(tilt("T1", "fallen", t=1200), 1)
    table.send(table.shot("L22", barrel=2, charge="rocket", t=5000))
    rulings = table.send(impact("T1", t=5100), 15, 1)
    assert table.el("gryphon").destroyed
    victory = [r for r in rulings if r.id.endswith(":victory")]
    assert victory and "red completes the mission" in victory[0].text
    view = table.rules.state_view(table.state)
    assert view["winner"] == "red" and "destroy the enemy command vehicle" in view["won_by"]


@pytest.mark.parametrize("objective", ["capture", "hold_line", "other"])
def test_12_1_the_referee_declares_a_mission_complete_and_the_first_wins(table, objective):
    table.send(Input("mission", {"player": "blue", "objective": objective, "note": "the crossroads, 2 rounds"}))
    table.send(Input("mission", {"player": "red", "objective": "capture", "note": "the bridge"}))
    won = table.send(Input("mission_complete", {"player": "blue"}))
    assert won[0].id.endswith(":victory") and "the crossroads, 2 rounds" in won[0].text
    late = table.send(Input("mission_complete", {"player": "red"}))
    assert "already won" in late[0].text
    view = table.rules.state_view(table.state)
    assert view["winner"] == "blue" and view["won_by"].startswith("completed the mission")


@pytest.mark.parametrize(
    "args, problem",
    [
        ({"player": "green", "objective": "capture"}, "no player"),
        ({"player": "red", "objective": "conquer"}, "objective: one of"),
        ({"player": "red", "objective": "command_vehicle", "target": "salamander"}, "enemy vehicle"),
        ({"player": "red", "objective": "command_vehicle", "target": "cyber-1"}, "enemy vehicle"),
    ],
)
def test_1_1_a_mission_names_a_player_an_objective_and_for_a_command_vehicle_an_enemy_vehicle(table, args, problem):
    refused = table.send(Input("mission", args))
    assert refused[0].kind == "warning" and problem in refused[0].text
    assert table.rules.state_view(table.state)["missions"] == {}


def test_12_1_no_mission_declared_cannot_be_completed_and_elimination_says_so(table):
    refused = table.send(Input("mission_complete", {"player": "blue"}))
    assert "no mission declared" in refused[0].text and table.state.mission_won is None
    assert table.rules.state_view(table.state)["won_by"] is None
