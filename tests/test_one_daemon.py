"""One daemon per journal and per serial port: a second start (a second SSH session, or the
service plus a start by hand) is refused at once and touches nothing of the live game."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from station.devices.hubsim import SimulatedHub
from station.dice import DiceBook
from station.exclusive import FileLock, InUse, holders
from station.journal import Journal, read_records
from station.rules.bronepekhota import Bronepekhota
from station.rules.bronepekhota.army import load_army
from tests.faults.crash import ARMY_FILES, ROOT, TOKEN, Daemon, replay_state

NEW_GAME = ["--game", "bronepekhota", "--army", str(ARMY_FILES[0]), "--army", str(ARMY_FILES[1])]


def _second(args: list[str], timeout: float = 20) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "station", *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )
    return done, time.monotonic() - started


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"referee_token": TOKEN}))
    return path


def test_a_second_daemon_on_a_live_journal_is_refused_and_changes_nothing(tmp_path, config):
    journal = tmp_path / "game.jsonl"
    first = Daemon(
        ["run", "--journal", str(journal), "--port", "0", "--config", str(config), *NEW_GAME], tmp_path / "log"
    )
    try:
        url = first.url()
        first.post(url, "/api/input", {"type": "begin_round", "args": {}})
        before = journal.read_bytes()
        for args in (
            ["run", "--journal", str(journal), "--resume", "--port", "0", "--config", str(config)],
            ["run", "--journal", str(journal), "--port", "0", "--config", str(config), *NEW_GAME],
        ):
            second, took = _second(args)
            assert second.returncode == 2, second.stderr
            message = second.stderr.strip()
            assert len(message.splitlines()) == 1 and str(journal) in message
            assert f"process {first.proc.pid}" in message
            assert "Dashboard" not in second.stdout  # never got as far as the web server
            assert took < 5  # a Python start-up; the refusal itself is immediate
            assert journal.read_bytes() == before  # not one byte touched
        assert first.proc.poll() is None  # the live game goes on
        first.post(url, "/api/input", {"type": "set_order", "args": {"order": ["blue", "red"]}})
        live = first.get(url, "/api/state")["state"]
    finally:
        code = first.terminate()
        assert code == 0, f"the first daemon exited {code}:\n{(tmp_path / 'log').read_text()[-3000:]}"
    records = read_records(journal)
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
    assert replay_state(journal) == live


def test_a_second_daemon_on_a_live_port_is_refused(tmp_path, config):
    armies = [load_army(path) for path in ARMY_FILES]
    hub = SimulatedHub(tmp_path / "hub", nodes=Bronepekhota(DiceBook()).sensor_nodes(armies), heartbeat=0.2).start()
    first = Daemon(
        ["run", "--serial", hub.path, "--journal", str(tmp_path / "a.jsonl"), "--port", "0"]
        + ["--config", str(config), *NEW_GAME],
        tmp_path / "log",
    )
    try:
        url = first.url()
        deadline = time.monotonic() + 10
        while first.get(url, "/api/health")["state"] != "connected":
            assert time.monotonic() < deadline
            time.sleep(0.1)
        second, _ = _second(
            ["run", "--serial", hub.path, "--journal", str(tmp_path / "b.jsonl"), "--port", "0"]
            + ["--config", str(config), *NEW_GAME]
        )
        assert second.returncode == 2, second.stderr
        message = second.stderr.strip()
        assert len(message.splitlines()) == 1 and f"serial port {hub.path} is in use by process" in message
        assert str(first.proc.pid) in message.split("process")[1]  # (the simulated hub has it open too)
        assert first.get(url, "/api/health")["state"] == "connected"
        assert not (tmp_path / "b.jsonl").exists()  # no journal left behind by the refused start
    finally:
        first.terminate()
        hub.stop()


def test_a_second_lobby_on_one_data_folder_is_refused(tmp_path, config):
    data = tmp_path / "data"
    first = Daemon(
        ["serve", "--data", str(data), "--host", "127.0.0.1", "--port", "0", "--config", str(config)], tmp_path / "log"
    )
    try:
        first.url()
        second, _ = _second(
            ["serve", "--data", str(data), "--host", "127.0.0.1", "--port", "0", "--config", str(config)]
        )
        assert second.returncode == 2 and f"data folder {data} is in use by process {first.proc.pid}" in second.stderr
    finally:
        first.terminate()


def test_the_lock_is_the_journal_itself_and_dies_with_its_holder(tmp_path):
    path = tmp_path / "game.jsonl"
    journal = Journal(path)
    journal.append("note", text="first")
    with pytest.raises(InUse, match=f"journal {path} is in use"):
        Journal(path)  # a second owner, even in this process
    assert sorted(p.name for p in tmp_path.iterdir()) == [".game.jsonl.reserve", "game.jsonl"]  # no lock files
    journal.close()
    with Journal(path) as again:  # let go on close
        assert again.recovery.records == 1
    # A holder killed outright (a power cut) leaves nothing behind: the next start takes it.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from station.journal import Journal; "
            "j = Journal(sys.argv[1]); print('held', flush=True); time.sleep(60)",
            str(path),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert holders(path) == [holder.pid]
        with pytest.raises(InUse, match=f"process {holder.pid}"):
            Journal(path)
    finally:
        holder.kill()
        holder.wait()
    with Journal(path) as after:
        assert after.recovery.records == 1


def test_a_folder_lock(tmp_path):
    lock = FileLock(tmp_path, "data folder")
    with pytest.raises(InUse, match="data folder is in use"):
        FileLock(tmp_path, "data folder")
    lock.release()
    FileLock(tmp_path, "data folder").release()
    assert os.listdir(tmp_path) == []
