"""Hardware in the loop: the real hub firmware (firmware/build/hub.elf) runs in simavr and plays a
scripted skirmish; the station talks to it through a pty exactly as to /dev/ttyACM0."""

import os
import threading
import tty
from pathlib import Path

import pytest

from station.devices import protocol as p
from station.devices.board import BoardError, SimulatedBoard
from station.journal import read_records
from station.rules.bronepekhota.army import load_army
from station.runtime import Station

from .conftest import ROOT, wait_for

HIL = Path(__file__).parent / "data" / "hil"
ELF = ROOT / "firmware" / "build" / "hub.elf"


def _ruling(station, kind, element):
    return next(
        (
            r
            for r in station.game.snapshot()["rulings"]
            if r["kind"] == kind and r["element"] == element and (kind != "hit" or r["details"].get("applied"))
        ),
        None,
    )


@pytest.fixture
def skirmish(tmp_path):
    armies = [load_army(HIL / "blue.json"), load_army(HIL / "red.json")]
    board = SimulatedBoard(ELF, HIL / "skirmish.txt", tmp_path / "hub").start()
    station = Station(tmp_path / "game.jsonl", "bronepekhota", armies, {}, board.path, seed=4).start()
    yield board, station
    station.stop()
    board.stop()


def test_scripted_skirmish_on_the_real_firmware(skirmish):
    board, station = skirmish
    wait_for(
        lambda: station.health()["hub_fw"] == "bronehub/1.3" and station.health()["hub_baud"] == 1_000_000,
        timeout=5,
        what="HELLO from the firmware",
    )
    game = station.game
    game.operator_input("begin_round")
    game.operator_input("set_order", {"order": ["blue", "red"]})

    # Shell (3 ms in the gate) on the mortar, which is struck and stays up: Table 4 gun, stood.
    wait_for(lambda: _ruling(station, "hit", "mortar"), timeout=8, what="shell hit")
    stood = _ruling(station, "hit", "mortar")
    assert stood["details"]["charge"] == "shell" and stood["details"]["result"] == "stood"
    assert stood["details"]["damage"] == 2

    # Rocket (9 ms) from the second barrel; the mortar falls: 2 x 4 damage.
    wait_for(
        lambda: any(
            r["details"].get("charge") == "rocket" and r["details"].get("result") == "fell"
            for r in game.snapshot()["rulings"]
            if r["kind"] == "hit"
        ),
        timeout=8,
        what="rocket hit",
    )
    assert game.state_view()["units"][-1]["elements"][0]["armour"] == 12 - 2 - 8
    wait_for(
        lambda: any(r["kind"] == "status" and "Dry fire" in r["text"] for r in game.snapshot()["rulings"]),
        timeout=8,
        what="dry fire",
    )
    game.operator_input("end_activation")  # red's turn
    # §6.7: the fallen mortar may be set upright and fire again only after a Repair (§9.3)
    assert game.operator_input("repair", {"element": "mortar", "cells": 1})[0].kind == "status"

    # Cable pulled at 7 s for 2 s: the mortar is righted, fires a bomb (6 ms) and an infantryman
    # leans over, all while unplugged.  After the replug they arrive in order and are ruled.
    wait_for(lambda: _ruling(station, "hit", "cyber-1"), timeout=12, what="bomb hit after the replug")
    bomb = _ruling(station, "hit", "cyber-1")
    assert bomb["details"]["charge"] == "bomb" and "destroyed" in bomb["text"]
    assert board.wait(timeout=10) == 0
    assert board.unplugs == 1 and len(board.ptys) == 2

    health = station.health()
    assert health["reconnects"] >= 1
    records = read_records(station.journal.path)
    events = [p.decode(r["line"]) for r in records if r["kind"] == "rx" and r["verdict"] == "event"]
    assert [e.seq for e in events] == list(range(1, len(events) + 1)), "lost or duplicated across the pull"
    shots = [(e.node, e.barrel, e.charge, e.count) for e in events if isinstance(e, p.Shot)]
    assert shots == [("L1", 1, "shell", 1), ("L1", 2, "rocket", 1), ("L2", 1, "bomb", 1)]
    tilts = [e for e in events if isinstance(e, p.Tilt)]
    reports = [e for e in tilts if e.first]  # bronehub/1.3: each tilt node says how it lies at power-up
    hello = next(p.decode(r["line"]) for r in records if r["kind"] == "rx" and r["line"].startswith("HELLO"))
    assert sorted(e.node for e in reports) == sorted(n.id for n in hello.nodes if n.kind == "tilt"), reports
    assert all(e.state == "upright" for e in reports) and max(e.t for e in reports) < 1_000
    assert [e.state for e in tilts if not e.first] == ["fallen", "upright", "leaning"]
    assert sum(isinstance(e, p.DryFire) for e in events) == 1
    assert sum(isinstance(e, p.Impact) for e in events) >= 1
    legal = [r for r in game.snapshot()["rulings"] if r["kind"] == "shot"]
    assert [r["details"]["legal"] for r in legal] == [True, True, True]


def test_a_missing_harness_is_a_clear_error(tmp_path):
    with pytest.raises(BoardError, match="make firmware"):
        SimulatedBoard(tmp_path / "nope.elf")


def test_a_bad_stimulus_script_names_its_line(tmp_path):
    script = tmp_path / "bad.txt"
    script.write_text("t=0.5 pin D2 low\nt=0.6 pin Q9 sideways\n")
    with pytest.raises(BoardError, match="bad.txt:2: expected 'pin D2 low"):
        SimulatedBoard(ELF, script, tmp_path / "hub").start()


def _read_pty_until(board, enough, timeout=15.0):
    """Read the board's UART straight from its pty (no station) until ``enough(complete_lines)``."""
    fd = os.open(board.path, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(fd)
    received = bytearray()

    def read_until_unplugged():
        while True:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return
            if not chunk:
                return
            received.extend(chunk)

    threading.Thread(target=read_until_unplugged, daemon=True).start()
    try:
        wait_for(lambda: enough(bytes(received).rsplit(b"\n", 1)[0]), timeout=timeout, what="lines from the board")
    finally:
        board.stop()
        os.close(fd)
    return bytes(received)


def test_gate_timing_on_the_real_firmware_classifies_near_the_thresholds(tmp_path):
    """hardware.md "Charge detection": the AVR stamps gate edges in its pin-change interrupt, so
    150 us either side of the 5.0 and 7.5 ms thresholds is judged right."""
    blocks = [(4.85, "shell"), (5.15, "bomb"), (7.35, "bomb"), (7.65, "rocket"), (3.0, "shell"), (11.0, "rocket")]
    script = tmp_path / "gate.txt"
    lines = []
    for i, (ms, _) in enumerate(blocks):
        t = 1.0 + 0.3 * i
        lines += [f"t={t:.3f} pin D2 low 20ms", f"t={t + 0.005:.3f} pin D3 low {ms}ms"]
    script.write_text("\n".join(lines) + "\nt=3.5 end\n")
    board = SimulatedBoard(ELF, script, tmp_path / "hub").start()
    received = _read_pty_until(board, lambda data: data.count(b"SHOT") >= len(blocks))
    shots = [p.decode(line) for line in received.split(b"\n")[:-1] if line.startswith(b"SHOT")]
    assert [s.charge for s in shots] == [charge for _, charge in blocks]
    assert [s.count for s in shots] == list(range(1, len(blocks) + 1))


def test_breech_selector_overrides_gate_timing_on_the_real_firmware(tmp_path):
    """hardware.md "Breech switch": the mortar's selector (D8/D9) names the charge; with the
    selector at neither position, gate timing decides."""
    script = tmp_path / "breech.txt"
    script.write_text(
        "\n".join(
            [
                "t=0.900 pin B1 low",  # selector: bomb
                "t=1.000 pin D6 low 20ms",
                "t=1.005 pin D7 low 3ms",  # 3 ms would be a shell
                "t=1.300 pin B1 high",
                "t=1.300 pin B0 low",  # selector: shell
                "t=1.500 pin D6 low 20ms",
                "t=1.505 pin D7 low 6ms",  # 6 ms would be a bomb
                "t=1.800 pin B0 high",  # selector off: gate decides
                "t=2.000 pin D6 low 20ms",
                "t=2.005 pin D7 low 6ms",
                "t=3.0 end",
            ]
        )
        + "\n"
    )
    board = SimulatedBoard(ELF, script, tmp_path / "hub").start()
    received = _read_pty_until(board, lambda data: data.count(b"SHOT") >= 3)
    shots = [p.decode(line) for line in received.split(b"\n")[:-1] if line.startswith(b"SHOT")]
    assert [(s.node, s.charge) for s in shots] == [("L2", "bomb"), ("L2", "shell"), ("L2", "bomb")]


def test_a_hub_that_restarts_tells_the_station_a_model_was_stood_up_meanwhile(tmp_path):
    """bronehub/1.3 in simavr: the mortar (T2) falls, the hub resets, and the mortar is set upright
    before it is up again.  Its first report says it stands: the station takes it and tells the
    referee (older firmware said nothing, and the mortar stayed lying for good)."""
    script = tmp_path / "restart.txt"
    script.write_text("t=1.500 adc A3 x=0.95 y=0 z=0.3\nt=3.000 reset\nt=3.010 adc A3 x=0 y=0 z=1\nt=6.000 end\n")
    board = SimulatedBoard(ELF, script, tmp_path / "hub").start()
    armies = [load_army(HIL / "blue.json"), load_army(HIL / "red.json")]
    station = Station(tmp_path / "game.jsonl", "bronepekhota", armies, {}, board.path, seed=4).start()
    try:
        wait_for(lambda: _ruling(station, "warning", "mortar"), timeout=15, what="the mortar's first report ruled")
        ruling = _ruling(station, "warning", "mortar")
        assert ruling["details"] == {"posture": "upright", "was": "fallen"} and ruling["needs_referee"], ruling
        assert station.game.state_view()["units"][-1]["elements"][0]["status"] == "upright"
        assert not [r for r in station.game.snapshot()["rulings"] if r["kind"] == "hit"]
        records = read_records(station.journal.path)
        boots = {p.decode(r["line"]).boot for r in records if r["kind"] == "rx" and r["line"].startswith("HELLO")}
        assert len(boots) == 2  # the reset was a new boot
    finally:
        station.stop()
        board.stop()


def test_the_real_firmware_keeps_its_id_and_answers_the_clock_question(tmp_path):
    """bronehub/1.2 in simavr: an id made at first boot, a new one from `station hub-id` (ID),
    kept across a reset; TIME answered with CLK, so the station maps the board's clock."""
    from station.devices.probe import probe_hub, set_hub_id
    from station.events import HUB_ID
    from station.hubclock import ClockMap

    script = tmp_path / "s.txt"
    script.write_text("t=6.0 reset\nt=30 end\n")
    board = SimulatedBoard(ELF, script, tmp_path / "hub").start()
    try:
        first = probe_hub(board.path)
        assert first is not None and HUB_ID.fullmatch(first.hub) and first.fw == "bronehub/1.3"
        hello = set_hub_id(board.path, "5A5A")
        assert hello is not None and hello.hub == "5A5A"
        armies = [load_army(HIL / "blue.json"), load_army(HIL / "red.json")]
        station = Station(tmp_path / "game.jsonl", "bronepekhota", armies, {}, board.path, seed=4).start()
        try:
            wait_for(
                lambda: (station.health()["clock"] or {}).get("rate_err", 1) < 1e-3, timeout=8, what="a mapped clock"
            )
            health = station.health()
            assert health["hub"] == "5A5A" and health["hubs"][0]["hub_fw"] == "bronehub/1.3"
            mapping = ClockMap.from_record(health["clock"])
            # simavr keeps real time only within a few percent on a busy 2-core machine (1.0100 seen in CI,
            # and an error of 5.9 ms from the first two samples at a rate of 0.99)
            assert mapping.err < 10.0 and abs(mapping.rate - 1.0) < 0.05
            boot = health["hub_boot"]
            wait_for(lambda: station.health()["hub_boot"] != boot, timeout=10, what="the reset's new boot")
            assert station.health()["hub"] == "5A5A"  # the id survived the reset (EEPROM)
            wait_for(
                lambda: (station.health()["clock"] or {}).get("boot") == station.health()["hub_boot"],
                timeout=5,
                what="the new boot's mapping",
            )
        finally:
            station.stop()
    finally:
        board.stop()
