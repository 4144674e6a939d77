"""Updates from the settings page (issue 53, item 5; station/updates.py): an update file is checked
whole before anything changes, installed beside the running version and started at the next
start; the image's launcher rolls back a version that does not come up; the API is the referee's,
between games, and only where the station runs from the image."""

import functools
import io
import json
import os
import subprocess
import sys
import tarfile
import time

import pytest

from station.lobby.lobby import Lobby
from station.updates import MANIFEST, UpdateError, came_up, go_back, install, versions, write_update
from station.web.app import create_app
from tests.conftest import ROOT

LAUNCHER = ROOT / "image" / "rootfs" / "usr" / "local" / "bin" / "station-launch"
TOKEN = "updates-token"
REFEREE = {"X-Referee-Token": TOKEN}
VERSION = "0.1.0"


@pytest.fixture(scope="module")
def update_file(tmp_path_factory):
    """The update file of this very station: its own wheel, built here."""
    folder = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(folder), str(ROOT)], check=True
    )
    out = io.BytesIO()
    write_update(out, sorted(folder.glob("station-*.whl")), VERSION)
    return out.getvalue()


def test_an_update_is_installed_beside_the_running_version_and_runs_at_the_next_start(update_file, tmp_path):
    folder = tmp_path / "versions"
    assert install(io.BytesIO(update_file), folder) == VERSION
    now = versions(folder)
    assert (now.current, now.previous, now.trial) == (VERSION, None, True)  # on trial until it answers
    said = subprocess.run([folder / "current" / "bin" / "station", "--version"], capture_output=True, text=True)
    assert VERSION in said.stdout  # its own environment, the image's packages seen behind it
    came_up(folder)
    assert not versions(folder).trial
    with pytest.raises(UpdateError, match="installed already"):
        install(io.BytesIO(update_file), folder)
    assert go_back(folder) is None and versions(folder).current is None  # the image's own again


def _rewritten(update, change):
    out = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(update), mode="r:gz") as old, tarfile.open(fileobj=out, mode="w:gz") as new:
        for member in old.getmembers():
            changed = change(member.name, old.extractfile(member).read())
            if changed is not None:
                info = tarfile.TarInfo(changed[0])
                info.size = len(changed[1])
                new.addfile(info, io.BytesIO(changed[1]))
    return out.getvalue()


def _manifest(change):
    def rewrite(name, data):
        return (name, json.dumps(change(json.loads(data))).encode()) if name == MANIFEST else (name, data)

    return rewrite


@pytest.mark.parametrize(
    "change, said",
    [
        (lambda n, d: (n, d[:-10] + b"0" * 10) if n.endswith(".whl") else (n, d), "checksum is wrong"),
        (lambda n, d: None if n == MANIFEST else (n, d), "missing or unreadable"),
        (lambda n, d: ("wheels/notes.txt", d) if n.endswith(".whl") else (n, d), "not what its manifest lists"),
        (_manifest(lambda m: {**m, "format": "station-backup/1"}), "not a station-update/1 file"),
        (_manifest(lambda m: {**m, "version": "0.2.0"}), "no wheel of the station 0.2.0"),
        (lambda n, d: (n, d[: len(d) // 2]) if n.endswith(".whl") else (n, d), "checksum is wrong"),
        (_manifest(lambda m: m["files"]), "missing or unreadable"),  # a JSON list: once a 500
    ],
    ids=["damaged", "no-manifest", "renamed", "a-backup", "other-version", "cut", "manifest-a-list"],
)
def test_a_wrong_update_file_is_refused_by_name_and_nothing_changes(update_file, tmp_path, change, said):
    folder = tmp_path / "versions"
    with pytest.raises(UpdateError, match=said):
        install(io.BytesIO(_rewritten(update_file, change)), folder)
    assert versions(folder).current is None and not versions(folder).trial
    assert [p.name for p in folder.iterdir()] == []  # not even a half-made version
    with pytest.raises(UpdateError, match="cut short or damaged"):
        install(io.BytesIO(update_file[: len(update_file) // 2]), folder)


def _quick(command, version_said=VERSION, failing=""):
    """The commands an install runs, as they answer on the station, without making a whole
    environment (the real one is made once, above): the folder is made, and ``--version`` says."""
    if command[-1] == "--version":
        return subprocess.CompletedProcess(command, 1 if failing else 0, version_said, failing)
    if "venv" in command:
        os.makedirs(command[-1])
    return subprocess.CompletedProcess(command, 0, "", "")


def test_a_version_that_does_not_start_here_is_refused_and_removed(update_file, tmp_path):
    folder = tmp_path / "versions"
    broken = functools.partial(_quick, failing="ImportError: libfoo.so.1: cannot open shared object file")
    with pytest.raises(UpdateError, match="does not start here: ImportError"):
        install(io.BytesIO(update_file), folder, run=broken)
    assert versions(folder).current is None and not (folder / VERSION).exists()
    with pytest.raises(UpdateError, match="does not start here"):  # another version answers
        install(io.BytesIO(update_file), folder, run=functools.partial(_quick, version_said="station, version 0.0.9"))
    assert versions(folder).current is None and not (folder / VERSION).exists()


def _version(folder, name, works):
    (folder / name / "bin").mkdir(parents=True)
    script = folder / name / "bin" / "station"
    script.write_text(f'#!/bin/sh\necho {name} "$@"\nexit {0 if works else 1}\n')
    script.chmod(0o755)


def _launch(folder, image):
    env = {**os.environ, "STATION_VERSIONS": str(folder), "STATION_IMAGE": str(image)}
    return subprocess.run(["sh", LAUNCHER, "serve", "--port", "80"], capture_output=True, text=True, env=env)


def test_the_launcher_rolls_back_a_version_that_does_not_come_up_in_three_starts(tmp_path):
    folder, image = tmp_path / "versions", tmp_path / "image"
    folder.mkdir()
    _version(folder, "0.1.0", works=True)
    _version(folder, "0.2.0", works=False)
    _version(tmp_path, "image", works=True)
    (folder / "previous").symlink_to("0.1.0")
    (folder / "current").symlink_to("0.2.0")
    (folder / "trial").write_text("0\n")
    for start in (1, 2, 3):  # systemd starts it again each time it stops
        ran = _launch(folder, image)
        assert ran.stdout.startswith("0.2.0 serve --port 80") and (folder / "trial").read_text().strip() == str(start)
    ran = _launch(folder, image)
    assert ran.stdout.startswith("0.1.0 serve") and "did not come up in 3 starts" in ran.stderr
    now = versions(folder)
    assert (now.current, now.trial, now.rolled_back) == ("0.1.0", False, "0.2.0")
    (folder / "current").unlink()
    assert _launch(folder, image).stdout.startswith("image serve")  # no update: the image's own


@pytest.fixture
def station_app(tmp_path):
    lobby = Lobby(tmp_path / "data" / "journals", tmp_path / "data" / "armies")
    app = create_app(lobby, TOKEN)
    restarts = []
    app.config.update(UPDATES=tmp_path / "versions", RESTART=lambda: restarts.append(time.monotonic()))
    yield app, lobby, restarts
    lobby.close()


def test_the_api_installs_for_the_referee_between_games_and_restarts(update_file, station_app, monkeypatch):
    app, lobby, restarts = station_app
    monkeypatch.setattr("station.web.updates.RESTART_AFTER_S", 0.05)
    monkeypatch.setattr(
        "station.web.updates.install", functools.partial(install, run=_quick)
    )  # checked whole, made quick
    client = app.test_client()
    assert client.get("/api/update").get_json()["available"] is True
    assert client.post("/api/update", data=update_file).status_code == 401  # a spectator
    bad = client.post("/api/update", data=b"not an update", headers=REFEREE)
    assert bad.status_code == 400 and bad.get_json()["field"] == "update"
    answer = client.post("/api/update", data=update_file, headers=REFEREE)
    assert answer.status_code == 200 and answer.get_json() == {"version": VERSION, "restarting": True}
    deadline = time.monotonic() + 5
    while not restarts and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(restarts) == 1  # after the answer: the service starts the new version
    state = client.get("/api/update").get_json()
    assert (state["current"], state["trial"]) == (VERSION, True)
    assert client.post("/api/update/back", json={}, headers=REFEREE).get_json()["version"] is None
    game = {"game": "bronepekhota", "armies": ["sample:blue-protectorate.json", "sample:red-polaris.json"]}
    started = client.post("/api/games", json={**game, "force": True, "note": "t"}, headers=REFEREE)
    assert started.status_code == 201, started.get_json()
    during = client.post("/api/update", data=update_file, headers=REFEREE)
    assert during.status_code == 409 and "end the game first" in during.get_json()["error"]


def test_updates_are_only_offered_where_the_station_runs_from_the_image(tmp_path):
    lobby = Lobby(tmp_path / "journals", tmp_path / "armies")
    client = create_app(lobby, TOKEN).test_client()
    try:
        assert client.get("/api/update").get_json() == {"available": False, "running": VERSION}
        refused = client.post("/api/update", data=b"x", headers=REFEREE)
        assert refused.status_code == 409 and "only on the station image" in refused.get_json()["error"]
    finally:
        lobby.close()
