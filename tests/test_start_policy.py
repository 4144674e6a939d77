"""One policy starts every new game (station/lobby/starting.py): `station run` refuses a failed
pre-game check as the lobby's page does, starts past it only with --force and a note, and
journals the check either way (issue #34)."""

import json
import subprocess
import sys

import pytest

from station.devices.hubsim import SimulatedHub
from station.dice import DiceBook
from station.game import InputError
from station.lobby.lobby import Lobby
from station.lobby.starting import MAX_ARMIES
from station.rules.bronepekhota import Bronepekhota
from station.rules.bronepekhota.army import load_army
from tests.faults.crash import ARMY_FILES, ROOT, Daemon


@pytest.fixture
def hub_without_t1(tmp_path):
    nodes = Bronepekhota(DiceBook()).sensor_nodes([load_army(p) for p in ARMY_FILES])
    hub = SimulatedHub(tmp_path / "hub", nodes=[n for n in nodes if n.id != "T1"], heartbeat=0.2).start()
    yield hub
    hub.stop()


def _run(tmp_path, hub, *extra):
    return [
        "run", "--serial", hub.path, "--journal", str(tmp_path / "game.jsonl"), "--port", "0",
        "--game", "bronepekhota", "--army", str(ARMY_FILES[0]), "--army", str(ARMY_FILES[1]), *extra,
    ]  # fmt: skip


def test_station_run_refuses_a_failed_check_and_names_the_missing_node(tmp_path, hub_without_t1):
    done = subprocess.run(
        [sys.executable, "-m", "station", *_run(tmp_path, hub_without_t1)],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 2
    assert "the pre-game check failed: hub: not on the hub: T1 " in done.stderr, done.stderr
    assert "--force --note" in done.stderr and "Dashboard" not in done.stdout
    assert not (tmp_path / "game.jsonl").exists()  # nothing journaled for a game that never started


def test_station_run_starts_past_a_failed_check_with_force_and_a_note_and_journals_both(tmp_path, hub_without_t1):
    daemon = Daemon(
        _run(tmp_path, hub_without_t1, "--force", "--note", "T1's node is at the repair bench"), tmp_path / "log"
    )
    try:
        assert daemon.get(daemon.url(), "/api/health")["state"] == "connected"
    finally:
        assert daemon.terminate() == 0, (tmp_path / "log").read_text()[-2000:]
    records = [json.loads(line) for line in (tmp_path / "game.jsonl").read_text().splitlines()]
    precheck = next(r for r in records if r["kind"] == "precheck")
    assert precheck["forced"] and precheck["note"] == "T1's node is at the repair bench"
    assert precheck["by"] == "station run" and any(c["level"] == "fail" for c in precheck["checks"])


def test_a_forced_start_still_needs_a_note(tmp_path, hub_without_t1):
    done = subprocess.run(
        [sys.executable, "-m", "station", *_run(tmp_path, hub_without_t1, "--force")],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 2 and "needs a note saying why" in done.stderr, done.stderr


def test_two_to_eight_armies_whoever_starts_the_game(tmp_path):
    lobby = Lobby(tmp_path / "journals", tmp_path / "armies")
    army = load_army(ARMY_FILES[0])
    for count in (1, MAX_ARMIES + 1):
        with pytest.raises(InputError, match=f"choose from 2 to {MAX_ARMIES} armies"):
            lobby.start("bronepekhota", [army] * count)
    assert lobby.station is None and not (tmp_path / "journals").exists()
