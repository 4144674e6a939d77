"""Бронепехота §9.4 jump packs (Table 8), §3.2 flyers' two moves, §11.1 aimed fire's limits."""

import pytest

from station.measure.terrain import parse_terrain
from station.rules.base import Input

from .conftest import Table

STEP = 50.0


def _seen(*units):
    return Input(
        "snapshot",
        {"units": [{"element": e, "x_mm": x, "y_mm": y, "facing_deg": f, "status": "up"} for e, x, y, f in units]},
    )


@pytest.fixture
def jumper(armies):
    armies[0]["units"][0]["members"][2]["properties"] = ["Пр5"]  # cyber-3 with a 5-step jump pack
    table = Table(armies)
    table.begin_round()
    table.state = table.state.evolve(
        terrain=tuple(
            parse_terrain(
                {
                    "format": "station-terrain/1",
                    "pieces": [
                        {
                            "id": "platform",
                            "type": "building",
                            "height_mm": 100,
                            "polygon": [[600, 0], [900, 0], [900, 900], [600, 900]],
                        }
                    ],
                },
                "test",
            )
        )
    )
    table.send(_seen(("cyber-3", 400.0, 300.0, 0.0)))
    table.send(Input("activate", {"unit": "cyber"}))
    return table


@pytest.mark.parametrize("steps, too_far", [(4.0, False), (5.0, False), (6.0, True)])
def test_9_4_a_jump_along_the_ground_costs_its_length(armies, steps, too_far):
    armies[0]["units"][0]["members"][2]["properties"] = ["Пр5"]
    table = Table(armies)
    table.begin_round()
    table.send(_seen(("cyber-3", 100.0, 300.0, 0.0)))
    table.send(Input("activate", {"unit": "cyber"}))
    assert table.send(Input("jump", {"element": "cyber-3"}))[0].kind == "status"
    table.send(_seen(("cyber-3", 100.0 + steps * STEP, 300.0, 0.0)))
    view = table.rules.state_view(table.state)["moved"]["cyber-3"]
    assert view["spent_sp"] == 0 and f"jumped {steps:.1f} steps" in view["charged"][0]  # the jump replaces the move
    assert bool(view["problems"]) is too_far


def test_9_4_fig_57_onto_a_platform(jumper):
    table = jumper
    table.state = table.state.evolve(
        terrain=tuple(
            parse_terrain(
                {
                    "format": "station-terrain/1",
                    "pieces": [
                        {
                            "id": "platform",
                            "type": "building",
                            "height_mm": 100,
                            "polygon": [[480, 0], [900, 0], [900, 900], [480, 900]],
                        }
                    ],
                },
                "test",
            )
        )
    )  # 2 steps up, starting 1.6 steps away
    table.send(Input("jump", {"element": "cyber-3"}))
    table.send(_seen(("cyber-3", 500.0, 300.0, 0.0)))  # Рис. 57a: 2 away, 2 up: 4 <= 5
    assert not table.rules.state_view(table.state)["moved"]["cyber-3"]["problems"]
    table.send(_seen(("cyber-3", 600.0, 300.0, 0.0)))  # Рис. 57b: 4 away, 2 up: 6 > 5
    assert "beyond his Пр5" in table.rules.state_view(table.state)["moved"]["cyber-3"]["problems"][0]


def test_9_4_jump_refusals(jumper):
    table = jumper
    assert "no jump pack" in table.send(Input("jump", {"element": "cyber-2"}))[0].text
    table.send(_seen(("cyber-3", 420.0, 300.0, 0.0)))  # he walked first
    assert "already moved" in table.send(Input("jump", {"element": "cyber-3"}))[0].text


def test_3_2_a_flyer_moves_twice(armies):
    armies[1]["units"][1]["locomotion"] = "flying"  # salamander as a flyer
    table = Table(armies)
    table.begin_round(3, 10)
    speed = table.state.speed_of(table.el("salamander"))
    table.send(_seen(("salamander", 100.0, 300.0, 0.0)))
    table.send(Input("activate", {"unit": "salamander"}))
    table.send(_seen(("salamander", 100.0 + (speed + 1) * STEP, 300.0, 0.0)))
    view = table.rules.state_view(table.state)["moved"]["salamander"]
    assert view["allowed_sp"] == 2 * speed and not view["over"]


def test_11_1_aimed_fire_is_for_one_who_only_shoots(armies):
    table = Table(armies, {"shooting": "virtual"})
    table.begin_round()
    table.send(_seen(("cyber-2", 300.0, 300.0, 0.0), ("clone-3", 800.0, 300.0, 180.0), ("cyber-3", 300.0, 400.0, 0.0)))
    table.send(Input("activate", {"unit": "cyber"}))
    table.send(_seen(("cyber-2", 320.0, 300.0, 0.0)))  # he moved
    moved = next(
        r
        for r in table.send(Input("virtual_shot", {"shooter": "cyber-2", "target": "clone-3", "aimed": True}))
        if r.id.endswith(":virtual")
    )
    assert "aimed fire is for one who only shoots" in moved.text
    shot = table.send(Input("virtual_shot", {"shooter": "cyber-3", "target": "clone-3", "aimed": True}), 1)
    assert shot[-1].details["aimed"]
    table.send(_seen(("cyber-3", 340.0, 400.0, 0.0)))  # and then he walks
    view = table.rules.state_view(table.state)["moved"]["cyber-3"]
    assert any("aimed fire" in p for p in view["problems"])
