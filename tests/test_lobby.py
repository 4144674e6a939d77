"""The lobby (``station serve``): a game started, refused, ended, resumed and downloaded through
the API; armies checked by the game's own loader before they are kept; a failed start leaves no
journal; the dashboard's stream ends when its game does."""

import http.client
import json
import subprocess
import sys
import time
import urllib.request

import pytest

from station.lobby.lobby import Hardware, Lobby
from station.lobby.network import lan_addresses, qr_svg
from station.web.app import create_app
from station.web.server import DashboardServer
from tests.test_web import _read_events

TOKEN = "lobby-test-token"
REFEREE = {"X-Referee-Token": TOKEN}
SAMPLES = ["sample:blue-protectorate.json", "sample:red-polaris.json"]


@pytest.fixture
def lobby(tmp_path):
    lobby = Lobby(tmp_path / "journals", tmp_path / "armies", Hardware(seed=3))
    yield lobby
    lobby.close()


@pytest.fixture
def client(lobby):
    return create_app(lobby, TOKEN).test_client()


def _start(client, game="bronepekhota", armies=SAMPLES, **options):
    return client.post("/api/games", json={"game": game, "armies": armies, "options": options}, headers=REFEREE)


def test_with_no_game_the_station_opens_the_lobby_and_game_routes_say_so(client):
    response = client.get("/")
    assert response.status_code == 302 and response.headers["Location"].endswith("/lobby")
    assert client.get("/lobby").status_code == 200
    response = client.get("/api/state")
    assert response.status_code == 409 and "no game is running" in response.get_json()["error"]
    assert client.get("/api/lobby").get_json()["running"] is None


def test_the_new_game_form_offers_every_game_with_its_declared_options_and_armies(client):
    games = {g["name"]: g for g in client.get("/api/rulesets").get_json()["games"]}
    assert set(games) == {"bronepekhota", "bronepekhota_quick", "steel_warriors", "price_of_a_mile", "alpha_strike"}
    for game in games.values():
        assert len(game["armies"]) >= 2 and all(a["sample"] for a in game["armies"])
        assert game["options"] and all(o["section"].startswith("§") and "default" in o for o in game["options"])
    window = next(o for o in games["bronepekhota"]["options"] if o["name"] == "hit_window_ms")
    assert window == {**window, "kind": "integer", "default": 2500, "low": 100, "high": 60000}
    schema = client.get("/api/rulesets/alpha_strike/schema").get_json()
    assert schema["type"] == "object" and "units" in schema["properties"]


def test_start_refuse_a_second_end_and_download(client, lobby):
    response = _start(client)
    assert response.status_code == 201, response.get_json()
    name = response.get_json()["journal"]
    status = client.get("/api/lobby").get_json()
    assert status["running"]["journal"] == name and status["running"]["game"] == "bronepekhota"
    assert client.get("/").status_code == 200  # the dashboard now
    second = _start(client, "steel_warriors", ["sample:steel.json", "sample:keno.json"])
    assert second.status_code == 409 and "already running" in second.get_json()["error"]
    assert len(list(lobby.journals.glob("*.jsonl"))) == 1  # the refused start wrote nothing
    assert client.post("/api/input", json={"type": "begin_round"}, headers=REFEREE).status_code == 200

    ended = client.post("/api/game/end", json={"note": "time called at 22:00"}, headers=REFEREE)
    assert ended.status_code == 200, ended.get_json()
    game = ended.get_json()["game"]
    assert game["finished"] and game["note"] == "time called at 22:00" and "round 1" in game["summary"]
    assert client.get("/api/lobby").get_json() == {**client.get("/api/lobby").get_json(), "running": None}
    assert client.get("/api/lobby").get_json()["resumable"] is None  # an ended game is not offered
    assert client.post("/api/games/" + name + "/resume", headers=REFEREE).status_code == 400
    listed = client.get("/api/games").get_json()["games"]
    assert [g["name"] for g in listed] == [name] and listed[0]["armies"][0].startswith("blue: ")
    download = client.get(f"/api/games/{name}/journal")
    assert download.status_code == 200 and "attachment" in download.headers["Content-Disposition"]
    records = [json.loads(line) for line in download.data.decode().splitlines()]
    assert records == [json.loads(line) for line in (lobby.journals / name).read_text().splitlines()]
    assert records[0]["kind"] == "game" and records[-1]["kind"] == "end" and records[-1]["by"] == "dashboard"
    for bad in ("../armies", "..%2Fjournals%2F" + name, "nope.jsonl"):
        assert client.get(f"/api/games/{bad}/journal").status_code == 404


def test_after_a_power_cut_the_lobby_offers_the_unfinished_game_and_resumes_it(tmp_path, lobby, client):
    name = _start(client).get_json()["journal"]
    client.post("/api/input", json={"type": "begin_round"}, headers=REFEREE)
    written = lobby.station.journal.written
    lobby.close()  # the power cut: the game stopped without ending

    after = Lobby(tmp_path / "journals", tmp_path / "armies")
    client = create_app(after, TOKEN).test_client()
    try:
        offered = client.get("/api/lobby").get_json()["resumable"]
        assert offered["name"] == name and not offered["finished"] and offered["records"] == written
        resumed = client.post(f"/api/games/{name}/resume", headers=REFEREE)
        assert resumed.status_code == 200, resumed.get_json()
        assert client.get("/api/state").get_json()["state"]["round"] == 1
        assert client.get("/api/lobby").get_json()["resumable"] is None  # it is the running game now
    finally:
        after.close()


def test_a_start_that_fails_leaves_no_journal_and_names_the_problem(tmp_path, client, lobby):
    bad = _start(client, hit_window_ms=5)
    assert bad.status_code == 400 and "hit_window_ms" in bad.get_json()["error"]
    broken_camera = Lobby(tmp_path / "journals", tmp_path / "armies", Hardware(camera=str(tmp_path / "none.mp4")))
    with pytest.raises(ValueError, match="none.mp4"):
        broken_camera.start("bronepekhota", [lobby.shelf.load("bronepekhota", a) for a in SAMPLES])
    assert list((tmp_path / "journals").glob("*")) == []
    assert _start(client, armies=SAMPLES[:1]).status_code == 400
    assert _start(client, game="chess").get_json()["error"].startswith("game: expected one of")


def test_an_army_is_kept_only_once_its_game_accepts_it(client, lobby):
    army = client.get("/api/armies/bronepekhota/sample:red-polaris.json").get_json()
    army["units"][0]["models"] = "many"
    refused = client.post("/api/armies/bronepekhota", json={"name": "Моя армия", "army": army}, headers=REFEREE)
    body = refused.get_json()
    assert refused.status_code == 400 and body["field"] == "units[0].models", body
    assert body["error"].startswith("Моя-армия.json: units[0].models:")
    assert not (lobby.shelf.folder / "bronepekhota").exists() or not list(
        (lobby.shelf.folder / "bronepekhota").glob("*.json")
    )

    army = client.get("/api/armies/bronepekhota/sample:red-polaris.json").get_json()
    army["name"] = "Полярная колонна"
    kept = client.post("/api/armies/bronepekhota", json={"name": "Моя армия", "army": army}, headers=REFEREE)
    assert kept.status_code == 200, kept.get_json()
    assert kept.get_json()["army"] == {
        "id": "saved:Моя-армия.json",
        "game": "bronepekhota",
        "player": "red",
        "name": "Полярная колонна",
        "sample": False,
    }
    games = {g["name"]: g for g in client.get("/api/rulesets").get_json()["games"]}
    assert games["bronepekhota"]["armies"][0]["id"] == "saved:Моя-армия.json"
    assert _start(client, armies=["sample:blue-protectorate.json", "saved:Моя-армия.json"]).status_code == 201
    header = json.loads(next(lobby.journals.glob("*.jsonl")).read_text().splitlines()[0])
    assert header["armies"][1]["name"] == "Полярная колонна"


def test_an_uploaded_army_is_checked_under_its_own_name(client):
    army = client.get("/api/armies/bronepekhota/sample:red-polaris.json").get_json()
    del army["player"]
    response = _start(client, armies=["sample:blue-protectorate.json", {"label": "red.json", "army": army}])
    assert response.status_code == 400 and response.get_json()["error"].startswith("red.json: player:")
    assert response.get_json()["field"] == "player"
    for name in ("", "../..", "..."):
        response = client.post("/api/armies/bronepekhota", json={"name": name, "army": army}, headers=REFEREE)
        assert response.status_code == 400 and "cannot name a file" in response.get_json()["error"]


def test_ending_the_game_ends_every_dashboard_stream(lobby):
    lobby.start("bronepekhota", [lobby.shelf.load("bronepekhota", a) for a in SAMPLES])
    server = DashboardServer(lobby, TOKEN, port=0).start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", "/api/stream")
        response = conn.getresponse()
        _read_events(response, lambda e, d: e == "snapshot")
        lobby.end("done")
        frames = _read_events(response, lambda e, d: e == "ended")
        assert frames[-1][1]["journal"].startswith("bronepekhota-")
        assert response.fp.read().strip() in (b"", b"0")  # then the stream closes (its last chunk)
    finally:
        server.stop()


def test_phones_get_real_addresses_and_a_qr_code():
    assert "0.0.0.0" not in lan_addresses("0.0.0.0") and lan_addresses("127.0.0.1") == ["127.0.0.1"]
    svg = qr_svg("http://192.168.1.20:8080/")
    assert svg.startswith("<?xml") and "<svg" in svg and "path" in svg


def test_station_serve_starts_empty_and_says_where(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"referee_token": TOKEN}))
    from tests.test_dashboard_browser import _free_port

    port = _free_port()
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "station", "serve", "--data", str(tmp_path / "data"), "--host", "127.0.0.1"]
            + ["--port", str(port), "--config", str(config)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 20
            while True:
                try:
                    status = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/lobby", timeout=1))
                    break
                except OSError:
                    assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
                    time.sleep(0.2)
            assert status["running"] is None and status["addresses"] == [f"http://127.0.0.1:{port}/"]
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    assert f"Dashboard:      http://127.0.0.1:{port}/" in log.read_text()


def test_install_service_writes_a_unit_that_serves_and_pins_no_journal(tmp_path):
    from click.testing import CliRunner

    from station.cli import main

    result = CliRunner().invoke(
        main,
        ["install-service", "--unit-dir", str(tmp_path), "--no-start", "--serial", "/dev/station-hub"]
        + ["--camera", "0", "--user", "pi", "--data", str(tmp_path / "club data")],
    )
    assert result.exit_code == 0, result.output
    unit = (tmp_path / "station.service").read_text()
    exec_start = next(line for line in unit.splitlines() if line.startswith("ExecStart="))
    assert exec_start.endswith(
        f"serve --data '{tmp_path / 'club data'}' --port 8080 --serial /dev/station-hub --camera 0"
    )
    assert "User=pi" in unit and "SupplementaryGroups=dialout video" in unit and "--journal" not in unit
    refused = CliRunner().invoke(main, ["install-service", "--unit-dir", "/proc/nope", "--no-start"])
    assert refused.exit_code == 2 and "run it with sudo" in refused.output


def test_the_referee_link_as_a_qr_code_in_the_terminal(tmp_path):
    from click.testing import CliRunner

    from station.cli import main

    config = tmp_path / "config.json"
    config.write_text(json.dumps({"referee_token": TOKEN}))
    result = CliRunner().invoke(main, ["token", "--config", str(config), "--url", "http://10.1.2.3:8080/"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"http://10.1.2.3:8080/?token={TOKEN}" and len(lines) > 15  # the code's rows follow
