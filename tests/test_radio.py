"""The radio option in simulation (issue 37): the real radio hub firmware and the real node
firmware on every board, in simavr, on one simulated air (firmware/sim/radio_sim.c) that loses
packets, collides them and takes a node out of range; the station reads the hub's serial link as
it reads a wired hub's.  Nothing may be lost or doubled, and the referee is told what the radio
cannot do: a silent node, a low cell, a node that restarted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from station.devices.board import RADIO_NODES, SimulatedRadioTable, firmware_images
from station.journal import read_records
from station.lobby.precheck import pregame_checks
from station.runtime import Station
from tests.sim.radioplay import (
    Expected,
    check_delivery,
    play_script,
    shot_lines,
    tilt_line,
)

from .conftest import ROOT, wait_for

BUILD = ROOT / "firmware" / "build"


def _table(tmp_path: Path, lines: list[str], end: float, nodes=RADIO_NODES, loss: float = 0.0, seed: int = 1):
    script = tmp_path / "table.txt"
    script.write_text("\n".join([*lines, f"t={end:.3f} end"]) + "\n")
    hub, images = firmware_images(BUILD, nodes)
    table = SimulatedRadioTable(hub, images, script, tmp_path / "radio-hub", loss, seed, tmp_path / "stats.json")
    table.start()
    station = Station(tmp_path / "game.jsonl", "bronepekhota", [], {}, table.path, seed=1).start()
    return table, station


def _finish(table, station, end: float):
    table.wait(timeout=end + 60)
    station.stop()
    return read_records(station.journal.path)


def _radio(station):
    return station.health().get("radio", {})


@pytest.mark.parametrize("loss", [0.0, 0.3])
def test_every_event_once_and_in_order_through_the_air(tmp_path, loss):
    lines, expected = play_script(RADIO_NODES, start=1.5, seconds=9, per_node_s=0.9, seed=7)
    table, station = _table(tmp_path, lines, end=14.5, loss=loss, seed=11)
    try:
        records = _finish(table, station, 14.5)
    finally:
        station.stop(), table.stop()
    delivery = check_delivery(records, expected)
    assert expected.total >= 40
    assert delivery.delivered == expected.events  # every event, once, in order per node
    assert delivery.exactly_once and delivery.overflows == 0
    assert sorted(delivery.joins) == sorted(RADIO_NODES)
    tilt_nodes = sorted(n for n, barrels in RADIO_NODES.items() if not barrels)
    assert sorted(delivery.reports) == tilt_nodes  # each tilt node said how it lay, once, after it started
    air = table.stats()["air"]
    assert air["frames"] > expected.total
    if loss:
        assert air["lost"] > 0  # the air did lose packets: delivery held anyway


def test_a_node_out_of_range_for_ten_seconds(tmp_path):
    nodes = {"RL1": 2, "RT1": 0}
    lines = shot_lines("RL1", 2.0) + ["t=3.000 RL1 away 10"]
    lines += shot_lines("RL1", 4.0) + shot_lines("RL1", 6.0, barrel=2) + shot_lines("RL1", 9.0)
    lines += [tilt_line("RT1", 5.0, True)]
    table, station = _table(tmp_path, lines, end=17.0, nodes=nodes)
    try:
        wait_for(lambda: _radio(station).get("RL1", {}).get("silent"), timeout=12, what="RL1 shown silent")
        assert not _radio(station)["RT1"]["silent"]  # only the one out of range
        wait_for(lambda: _radio(station).get("RL1", {}).get("silent") is False, timeout=15, what="RL1 heard again")
        records = _finish(table, station, 17.0)
    finally:
        station.stop(), table.stop()
    expected = Expected(
        {
            "RL1": [("SHOT", 1, "1"), ("SHOT", 1, "2"), ("SHOT", 2, "1"), ("SHOT", 1, "3")],
            "RT1": [("TILT", 0, "fallen")],
        }
    )
    delivery = check_delivery(records, expected)
    assert delivery.delivered == expected.events and delivery.exactly_once
    changes = [(r["node"], r["change"]) for r in records if r["kind"] == "radio"]
    assert ("RL1", "silent") in changes and ("RL1", "heard again") in changes
    # the shots made while away reached the journal after the station had called the node silent
    silent_at = next(i for i, r in enumerate(records) if r["kind"] == "radio" and r["change"] == "silent")
    shots = [i for i, r in enumerate(records) if r.get("verdict") == "event" and r["line"].startswith("SHOT")]
    assert len(shots) == 4 and min(shots[1:]) > silent_at


def test_a_node_that_restarts_is_a_new_boot_not_a_duplicate(tmp_path):
    nodes = {"RL2": 1}
    lines = shot_lines("RL2", 2.0) + shot_lines("RL2", 3.0) + ["t=4.500 RL2 reset"]
    lines += shot_lines("RL2", 6.5) + shot_lines("RL2", 7.5)
    table, station = _table(tmp_path, lines, end=10.0, nodes=nodes)
    try:
        wait_for(lambda: _radio(station).get("RL2", {}).get("restarts") == 1, timeout=12, what="the restart seen")
        records = _finish(table, station, 10.0)
    finally:
        station.stop(), table.stop()
    # the shot counters live in the node's EEPROM: after the restart they go on from 2
    expected = Expected({"RL2": [("SHOT", 1, "1"), ("SHOT", 1, "2"), ("SHOT", 1, "3"), ("SHOT", 1, "4")]})
    delivery = check_delivery(records, expected)
    assert delivery.delivered == expected.events and delivery.exactly_once
    assert delivery.joins == ["RL2", "RL2"]  # two boots, each said once, in order before its events
    duplicates = [r for r in records if r["kind"] == "rx" and r.get("verdict") == "duplicate"]
    assert not any("SHOT" in r["line"] for r in duplicates)


def test_two_nodes_that_collide_are_both_delivered(tmp_path):
    nodes = {"RL2": 1, "RL3": 1}
    lines = []
    for t in (2.0, 3.0, 4.0, 5.0, 6.0):  # both triggers at the same instant, five times
        lines += shot_lines("RL2", t) + shot_lines("RL3", t)
    table, station = _table(tmp_path, lines, end=9.0, nodes=nodes)
    try:
        records = _finish(table, station, 9.0)
    finally:
        station.stop(), table.stop()
    expected = Expected({name: [("SHOT", 1, str(n)) for n in range(1, 6)] for name in nodes})
    delivery = check_delivery(records, expected)
    assert delivery.delivered == expected.events and delivery.exactly_once
    stats = table.stats()
    assert stats["air"]["collided"] >= 2  # they did collide
    assert sum(b["radio"]["retransmits"] for b in stats["boards"]) > 0


def test_a_low_battery_and_a_silent_node_are_named_before_the_game(tmp_path):
    nodes = {"RL1": 2, "RT1": 0, "RT2": 0}
    lines = ["t=0.050 RT1 battery 3.30", "t=4.000 RT2 away 30"]
    table, station = _table(tmp_path, lines, end=20.0, nodes=nodes)
    try:
        wait_for(lambda: _radio(station).get("RT1", {}).get("low_battery"), timeout=8, what="RT1 low")
        assert _radio(station)["RT1"]["battery_v"] == pytest.approx(3.3, abs=0.03)
        assert not _radio(station)["RL1"]["low_battery"]
        wait_for(lambda: _radio(station).get("RT2", {}).get("silent"), timeout=10, what="RT2 silent")
        checks = pregame_checks("bronepekhota", [], {}, (table.path,), station.health(), None, tmp_path, tmp_path)
        radio = next(c for c in checks if c.check == "radio")
        assert radio.level == "warn"
        assert "RT2 silent since" in radio.said
        assert re.search(r"RT1 at 3\.(29|3|31) V", radio.said)  # 3.30 V read by a 10-bit ADC
    finally:
        station.stop(), table.stop()


def test_simulate_radio_names_the_images_it_has_when_asked_for_another():
    from click.testing import CliRunner

    from station.cli import main

    result = CliRunner().invoke(main, ["simulate-radio", "--node", "RL9"])
    assert result.exit_code != 0
    assert "no radio node RL9: the images are RL1, RL2, RL3, RT1, RT2, RT3" in result.output


def test_radio_nodes_pair_as_wired_ones_do(tmp_path):
    """Between games the lobby watches the hubs; pulling a radio launcher's trigger or tilting a
    radio tilt node's model is seen as it is on a wired board, named with the hub's id."""
    from station.lobby.hubwatch import HubWatch

    lines = [*shot_lines("RL1", 2.0, barrel=2), tilt_line("RT1", 2.5, True), "t=8.000 end"]
    script = tmp_path / "pairing.txt"
    script.write_text("\n".join(lines) + "\n")
    hub, images = firmware_images(BUILD, ("RL1", "RT1"))
    table = SimulatedRadioTable(hub, images, script, tmp_path / "radio-hub").start()
    watch = HubWatch((table.path,), tmp_path / "setup")
    watch.start()
    try:
        wait_for(lambda: len([e for e in watch.events_since(0) if e["kind"]]) == 2, timeout=10, what="both seen")
        hub_id = watch.health()["hub_id"]
        seen = [(e["type"], e["node"], e["kind"]) for e in watch.events_since(0) if e["kind"]]
        assert seen == [("SHOT", f"RL1@{hub_id}", "launcher"), ("TILT", f"RT1@{hub_id}", "tilt")]
        assert sorted(watch.health()["radio"]) == ["RL1", "RT1"]  # the lobby shows their cells too
    finally:
        watch.stop()
        table.stop()
