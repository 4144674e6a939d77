"""A hub reset mid-game on the real firmware in simavr (issue 9): the MCU restarts (brown-out,
watchdog) while the USB cable stays in, so the station sees no port close, only SEQ starting
again.  The firmware's power-up HELLO tells it so; every event is applied once.  (Tilt nodes, not
launchers: simavr's reset forgets what drives the launcher pins, which then misread.)"""

from station.devices import protocol as p
from station.devices.board import SimulatedBoard
from station.journal import read_records
from station.rules.bronepekhota.army import load_army
from station.runtime import Station

from ..test_hil import ELF, HIL
from ..test_link import wait_for

SCRIPT = """# a model falls and is set up again, the board resetting in between
t=1.000 adc A0 x=0.95 y=0 z=0.3
t=2.000 adc A0 x=0 y=0 z=1
t=3.000 reset
t=4.000 adc A3 x=0.95 y=0 z=0.3
t=5.000 adc A3 x=0 y=0 z=1
t=6.500 end
"""


def test_the_firmware_resetting_mid_game_loses_nothing(tmp_path):
    script = tmp_path / "reset.txt"
    script.write_text(SCRIPT)
    armies = [load_army(HIL / "blue.json"), load_army(HIL / "red.json")]
    board = SimulatedBoard(ELF, script, tmp_path / "hub").start()
    station = Station(tmp_path / "game.jsonl", "bronepekhota", armies, {}, board.path, seed=4).start()
    try:
        assert board.wait(timeout=20) == 0 and board.resets == 1
        wait_for(lambda: len(_events(station)) == 8, timeout=5, what="four tilts and each boot's two reports")
    finally:
        station.stop()
        board.stop()
    records = read_records(tmp_path / "game.jsonl")
    hellos = [
        p.decode(r["line"]).boot
        for r in records
        if r["kind"] == "rx" and r["line"].startswith("HELLO") and r["verdict"] == "control"
    ]
    assert len(set(hellos)) == 2, hellos  # the power-up HELLO of the second boot was heard
    events = _events(station)
    assert [(e.seq, e.node, e.state) for e in events if not e.first] == [
        (3, "T1", "fallen"),
        (4, "T1", "upright"),
        (3, "T2", "fallen"),
        (4, "T2", "upright"),
    ]
    reports = [e for e in events if e.first]  # bronehub/1.3: each node says how it lies, at each boot, first
    assert sorted(e.seq for e in reports) == [1, 1, 2, 2] and sorted(e.node for e in reports) == [
        "T1",
        "T1",
        "T2",
        "T2",
    ]
    assert all(e.state == "upright" for e in reports)
    health = station.health()
    assert health["duplicates"] == 0 and health["resets_detected"] == 0  # the power-up HELLO came first


def _events(station):
    return [
        p.decode(r["line"])
        for r in read_records(station.journal.path)
        if r["kind"] == "rx" and r["verdict"] == "event" and r["line"].startswith("TILT")
    ]
