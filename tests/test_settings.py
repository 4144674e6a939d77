"""Settings from the browser (station/lobby/settings.py, web/settings.py): the rehearsal hub, a
port, a camera and the calibration, applied at once, remembered across a restart, refused with
the field named, and never changed under a running game."""

import json
import os
import time
from types import SimpleNamespace

import pytest

from station.events import Node
from station.lobby.lobby import Lobby
from station.lobby.settings import Settings, SettingsError, load_settings, serial_ports
from station.web.app import create_app
from tests.conftest import EXAMPLES

TOKEN = "settings-token"
REFEREE = {"X-Referee-Token": TOKEN}


@pytest.fixture(autouse=True)
def _data_folder_env(monkeypatch):
    """Moving the data folder sets STATION_DATA for the process (the card library follows it):
    put back after each test, so no other test reads a folder of this one."""
    monkeypatch.setenv("STATION_DATA", os.environ.get("STATION_DATA", "data"))


@pytest.fixture
def lobby(tmp_path):
    lobby = Lobby(tmp_path / "data" / "journals", tmp_path / "data" / "armies")
    yield lobby
    lobby.close()


def _eventually(check, seconds=5.0):
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


SAMPLE_GAMES = {
    "bronepekhota": ["sample:blue-protectorate.json", "sample:red-polaris.json"],
    "bronepekhota_quick": ["sample:blue-patrol.json", "sample:red-raiders.json"],
}


@pytest.mark.parametrize("game", sorted(SAMPLE_GAMES))
def test_the_rehearsal_hub_offers_every_launcher_barrel_and_tilt_node_of_the_game(lobby, game):
    """Every launcher (each barrel) and every tilt node the game's armies wire, named by its
    owner: the quick rules' launchers, named in their weapons, were missing (issue 48)."""
    from station.dice import DiceBook
    from station.rules.registry import make_ruleset

    client = create_app(lobby, TOKEN).test_client()
    assert client.put("/api/settings", json={"rehearsal": True}, headers=REFEREE).status_code == 200
    # at once, as a referee does: the start waits for the hub just switched on to say HELLO (under
    # load, "connected" came before its nodes, and the check said the hub was not answering)
    started = client.post("/api/games", json={"game": game, "armies": SAMPLE_GAMES[game]}, headers=REFEREE)
    assert started.status_code == 201, started.get_json()
    wired = make_ruleset(game, DiceBook()).sensor_nodes(lobby.station.game.header["armies"])
    offered = client.get("/api/rehearsal").get_json()["nodes"]
    assert {(n["id"], n["kind"], n["barrels"]) for n in offered} == {(n.id, n.kind, n.barrels) for n in wired}
    assert any(n.kind == "launcher" for n in wired) and all(n["owners"] for n in offered)
    for node in (n for n in offered if n["kind"] == "launcher"):
        for barrel in range(1, node["barrels"] + 1):
            body = {"node": node["id"], "event": "shot", "barrel": barrel}
            assert client.post("/api/rehearsal", json=body, headers=REFEREE).status_code == 200


def test_the_rehearsal_hub_is_switched_on_remembered_and_fired_from_the_browser(lobby, tmp_path):
    client = create_app(lobby, TOKEN).test_client()
    assert client.put("/api/settings", json={"rehearsal": True}).status_code == 401  # the referee's
    answer = client.put("/api/settings", json={"rehearsal": True}, headers=REFEREE)
    assert answer.status_code == 200 and answer.get_json()["settings"]["rehearsal"] is True
    saved = json.loads((tmp_path / "data" / "settings.json").read_text())
    assert saved == {
        "serial": [],
        "rehearsal": True,
        "camera": None,
        "calibration": "calibration/table.json",
        "data": None,
        "dice": False,
        "dice_pairs": {},
    }
    _eventually(lambda: lobby.hub_health()["state"] == "connected")
    nodes = client.get("/api/rehearsal").get_json()["nodes"]
    assert {n["id"] for n in nodes} >= {"L1", "T1"}  # the sample armies' nodes, every game's
    launcher = next(n["id"] for n in nodes if n["kind"] == "launcher")
    tilt = next(n["id"] for n in nodes if n["kind"] == "tilt")
    for body in (
        {"node": launcher, "event": "shot", "barrel": 1, "charge": "rocket"},
        {"node": tilt, "event": "tilt", "posture": "leaning"},
        {"node": tilt, "event": "impact"},
    ):
        assert client.post("/api/rehearsal", json=body, headers=REFEREE).status_code == 200
    _eventually(lambda: len(lobby.hub.events_since(0)) >= 3)
    seen = [(e["type"], e["node"]) for e in lobby.hub.events_since(0)]
    assert seen[-3:] == [("SHOT", launcher), ("TILT", tilt), ("IMPACT", tilt)]
    bad = client.post("/api/rehearsal", json={"node": "L999", "event": "shot"}, headers=REFEREE)
    assert bad.status_code == 400 and "L999" in bad.get_json()["error"]
    wrong = client.post("/api/rehearsal", json={"node": launcher, "event": "tilt"}, headers=REFEREE)
    assert wrong.status_code == 400 and "only a tilt node" in wrong.get_json()["error"]

    lobby.close()  # a restart: the station comes back with the rehearsal hub, no flag needed
    again = Lobby(tmp_path / "data" / "journals", tmp_path / "data" / "armies")
    try:
        again.apply_settings(load_settings(tmp_path / "data"), save=False)
        assert again.rehearsal is not None
        _eventually(lambda: again.hub_health()["state"] == "connected")
    finally:
        again.close()


def test_a_bad_setting_names_its_field_and_a_running_game_keeps_its_hardware(lobby, tmp_path, armies):
    client = create_app(lobby, TOKEN).test_client()
    for body, field in (({"serial": 7}, "serial"), ({"rehearsal": "yes"}, "rehearsal"), ({"speed": 1}, "speed")):
        answer = client.put("/api/settings", json=body, headers=REFEREE)
        assert answer.status_code == 400 and field in answer.get_json()["error"], answer.get_json()
    assert not (tmp_path / "data" / "settings.json").exists()  # nothing half-applied
    lobby.start("bronepekhota", armies)
    answer = client.put("/api/settings", json={"camera": "0"}, headers=REFEREE)
    assert answer.status_code == 409 and "end the game first" in answer.get_json()["error"]
    assert client.get("/api/settings").get_json()["running"] is True


def test_the_data_folder_moves_with_its_history_and_is_remembered_and_missed_without_loss(lobby, tmp_path, armies):
    client = create_app(lobby, TOKEN).test_client()
    home, stick = tmp_path / "data", tmp_path / "usb" / "station"
    stick.parent.mkdir()  # the stick, mounted
    army = json.loads((EXAMPLES / "blue-protectorate.json").read_text())
    assert (
        client.post("/api/armies/bronepekhota", json={"name": "mine", "army": army}, headers=REFEREE).status_code == 200
    )
    lobby.start("bronepekhota", armies)
    played = lobby.end("before the move").name
    answer = client.put("/api/settings", json={"data": str(stick)}, headers=REFEREE)
    assert answer.status_code == 200 and answer.get_json()["copied"] == 2, answer.get_json()  # the journal and the army
    assert client.get("/api/settings").get_json()["data"] == str(stick)
    assert (stick / "journals" / played).read_bytes() == (home / "journals" / played).read_bytes()  # the old kept
    assert [g["name"] for g in client.get("/api/games").get_json()["games"]] == [played]  # the history followed
    games = {g["name"]: g for g in client.get("/api/rulesets").get_json()["games"]}
    assert "saved:mine.json" in [a["id"] for a in games["bronepekhota"]["armies"]]  # the shelf followed
    station = lobby.start("bronepekhota", armies)
    assert station.journal.path.parent == stick / "journals"  # a new game is kept on the stick
    assert client.put("/api/settings", json={"data": None}, headers=REFEREE).status_code == 409  # not mid-game
    lobby.end("on the stick")

    lobby.close()  # a restart: the stick is used again, from the home's settings
    again = Lobby(home / "journals", home / "armies")
    try:
        again.apply_settings(load_settings(home), save=False)
        assert again.data == stick and len(again.history.games()) == 2
    finally:
        again.close()
    moved = stick.rename(tmp_path / "usb" / "away")  # the stick left at the club
    again = Lobby(home / "journals", home / "armies")
    try:
        again.apply_settings(load_settings(home), save=False)
        assert again.data == home and "until it is back" in again.messages[0]
        assert load_settings(home).data == str(stick)  # still wanted, for when it is back
        assert not stick.exists()  # and not made on the SD card in its place
    finally:
        again.close()
    assert len(list((moved / "journals").glob("*.jsonl"))) == 2


def test_a_data_folder_that_cannot_be_used_is_refused_naming_why(lobby, tmp_path):
    client = create_app(lobby, TOKEN).test_client()
    (tmp_path / "a-file").write_text("")
    for folder, why in (
        ("usb/station", "whole path"),
        (str(tmp_path / "unmounted" / "station"), "no such folder"),
        (str(tmp_path / "a-file" / "station"), "no such folder"),
        ("/proc", "cannot write there"),  # (root writes anywhere on a disk, so: not a disk)
        (str(tmp_path / "data"), None),  # the home itself: nothing to do
    ):
        answer = client.put("/api/settings", json={"data": folder}, headers=REFEREE)
        if why is None:
            assert answer.status_code == 200 and answer.get_json()["copied"] == 0
            continue
        assert answer.status_code == 400 and why in answer.get_json()["error"], answer.get_json()
        assert answer.get_json()["field"] == "data" and lobby.data == tmp_path / "data"
    other = Lobby(tmp_path / "other" / "journals", tmp_path / "other" / "armies")
    try:
        other.use_data_folder(tmp_path / "shared")  # another station keeps its data there
        answer = client.put("/api/settings", json={"data": str(tmp_path / "shared")}, headers=REFEREE)
        assert answer.status_code == 400 and "in use" in answer.get_json()["error"], answer.get_json()
    finally:
        other.close()


def test_a_broken_settings_file_is_an_error_naming_it(tmp_path):
    (tmp_path / "settings.json").write_text('{"serial": [7]}')
    with pytest.raises(SettingsError, match="settings.json: serial"):
        load_settings(tmp_path)
    (tmp_path / "settings.json").write_text('{"serial": ["/dev/ttyACM0", "/dev/ttyACM0"]}')
    with pytest.raises(SettingsError, match="settings.json: serial.*different ports"):
        load_settings(tmp_path)
    (tmp_path / "settings.json").write_text('{"serial": "/dev/ttyACM0"}')  # as an older station wrote it
    assert load_settings(tmp_path).serial == ("/dev/ttyACM0",)
    assert load_settings(tmp_path / "nowhere") == Settings()


def test_every_port_is_probed_for_a_hub_but_the_one_in_use():
    ports = [
        SimpleNamespace(device=d, description=k)
        for d, k in (
            ("/dev/ttyACM0", "hub"),
            ("/dev/ttyS0", "uart"),
            ("/dev/ttyUSB0", "busy"),
            ("/dev/ttyACM1", "open"),
        )
    ]
    probed = []

    def prober(device):
        probed.append(device)
        if device == "/dev/ttyUSB0":
            raise OSError("[Errno 16] Device or resource busy")
        return (
            SimpleNamespace(fw="bronehub/1.1", boot="A1", nodes=(Node("L1", "launcher", 3),), hub="")
            if device.endswith("0") and "ACM" in device
            else None
        )

    found = {p["device"]: p for p in serial_ports(lambda: ports, prober, skip=("/dev/ttyACM1",))}
    assert found["/dev/ttyACM0"]["hub"] == {"fw": "bronehub/1.1", "boot": "A1", "nodes": 1, "id": ""}
    assert "hub" not in found["/dev/ttyS0"] and "Errno 16" in found["/dev/ttyUSB0"]["error"]
    assert found["/dev/ttyACM1"]["in_use"] and "/dev/ttyACM1" not in probed
