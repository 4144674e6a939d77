"""Бронепехота §11.2 panic (optional): a Survival Test rolled exactly at the soldier's Бр."""

import pytest

from station.rules.base import Input

from .conftest import Table, hb, impact


def _seen(*units):
    return Input(
        "snapshot",
        {
            "table_mm": [1200, 900],
            "units": [{"element": e, "x_mm": x, "y_mm": y, "facing_deg": f, "status": "up"} for e, x, y, f in units],
        },
    )


@pytest.mark.parametrize("x, deserts", [(600.0, False), (60.0, True)])
def test_a_soldier_who_rolls_his_br_panics_and_flees_towards_the_nearest_edge(armies, x, deserts):
    """Real shooting, Table 4 'stood': the Survival Test D6 equals Бр, so he survives but panics.
    In the middle of the table he flees his Ск and recovers next round; near an edge he runs off."""
    table = Table(armies, {"panic": True})
    table.begin_round()
    clone = table.el("clone-3")
    table.send(_seen(("clone-3", x, 450.0, 0.0)))
    table.send(table.shot("L1", t=1000))
    table.send(impact("T33", t=1200))
    ruling = table.send(hb(3000), clone.armour)[-1]  # the impact settles: 'stood', and the D6 shows his Бр
    assert "panics (§11.2)" in ruling.text
    if deserts:
        assert "deserter" in ruling.text and "west edge" in ruling.text and table.el("clone-3").destroyed
    else:
        assert "regains control next round" in ruling.text and "panic" in table.el("clone-3").fired
        table.send(Input("end_activation"))
        table.begin_round()
        assert "panic" not in table.el("clone-3").fired


def test_without_the_option_the_same_roll_is_a_plain_pass(table):
    table.begin_round()
    table.send(_seen(("clone-3", 600.0, 450.0, 0.0)))
    table.send(table.shot("L1", t=1000))
    table.send(impact("T33", t=1200))
    ruling = table.send(hb(3000), table.el("clone-3").armour)[-1]
    assert "panic" not in ruling.text and "survives" in ruling.text


def test_a_panicking_pilot_leaves_his_vehicle_to_be_captured(armies):
    """Virtual hit on a vehicle: its pilot's Survival Test D6 equals his Бр."""
    table = Table(armies, {"panic": True, "shooting": "virtual"})
    table.begin_round()
    table.send(_seen(("gryphon", 300.0, 300.0, 0.0), ("salamander", 700.0, 300.0, 180.0)))
    pilot = table.state.elements[table.el("salamander").pilot]
    rulings = table.send(
        Input("virtual_shot", {"shooter": "gryphon", "target": "salamander", "weapon": "cannon"}),
        12,
        12,
        12,
        pilot.armour,
    )
    text = next(r for r in rulings if r.id.endswith(":virtual")).text
    assert "jumps out" in text and table.el("salamander").pilot is None
    assert table.el(pilot.id).aboard is None and not table.el(pilot.id).destroyed
