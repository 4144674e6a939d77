"""The lobby (``station serve``): a game started, refused, ended, resumed and downloaded through
the API; armies checked by the game's own loader before they are kept; a failed start leaves no
journal; the dashboard's stream ends when its game does."""

import http.client
import json
import time
import urllib.request

import pytest
from click.testing import CliRunner

from station.cli import main
from station.game import NOTE_CHARS, GameEnded
from station.lobby.history import History
from station.lobby.lobby import Hardware, Lobby
from station.lobby.network import lan_addresses, qr_svg
from station.lobby.starting import CheckFailed
from station.runtime import Station
from station.web.app import create_app
from station.web.server import DashboardServer
from tests.conftest import ROOT
from tests.test_dashboard_browser import station_process
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


@pytest.mark.parametrize(
    "body, result, winner",
    [
        ({"result": "time", "winner": "red"}, "time", "red"),
        ({"result": "concession", "winner": "blue"}, "concession", "blue"),
        ({"result": "victory", "winner": "red"}, "victory", "red"),  # judged by the referee: no rule said it
        ({"result": "draw"}, "draw", None),
        ({}, None, None),  # as the rules ruled: nobody has won yet
    ],
)
def test_the_referee_ends_a_game_with_a_result_and_a_winner(client, lobby, body, result, winner):
    """A game ended on time, by concession or by the referee's judgement keeps its winner (it
    was saved with none, and a tournament counted it a draw); the history and report say how."""
    name = _start(client).get_json()["journal"]
    ended = client.post("/api/game/end", json={"note": "22:00", **body}, headers=REFEREE)
    assert ended.status_code == 200, ended.get_json()
    assert ended.get_json()["game"]["winner"] == winner and ended.get_json()["game"]["result"] == result
    end = json.loads((lobby.journals / name).read_text().splitlines()[-1])
    assert end["kind"] == "end" and (end["result"], end["winner"]) == (result, winner)
    report = client.get(f"/games/{name}/report", headers={"Accept-Language": "ru"}).text
    said = {"time": "Победитель по времени: red", "concession": "Победитель (соперник сдался): blue"}
    said |= {"victory": "Победитель: red", "draw": "Ничья", None: "Завершена без победителя"}
    assert said[result] in report


@pytest.mark.parametrize(
    "body, field, words",
    [
        ({"result": "time"}, "winner", "name the player who won (blue, red)"),
        ({"result": "concession", "winner": "green"}, "winner", "'green' is not a player of this game"),
        ({"result": "draw", "winner": "red"}, "winner", "a draw has no winner"),
        ({"result": "forfeit", "winner": "red"}, "result", "'forfeit' is not one of victory, time, concession, draw"),
        ({"winner": "red"}, "result", "say how the game was won"),
        ({"result": 3}, "result", "text, or left out"),
    ],
)
def test_a_wrong_result_names_its_field_and_ends_nothing(client, lobby, body, field, words):
    name = _start(client).get_json()["journal"]
    refused = client.post("/api/game/end", json=body, headers=REFEREE)
    assert refused.status_code == 400 and refused.get_json()["field"] == field, refused.get_json()
    assert words in refused.get_json()["error"]
    assert lobby.station is not None  # the game goes on
    assert json.loads((lobby.journals / name).read_text().splitlines()[-1])["kind"] != "end"


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


def test_an_end_is_an_end_whatever_its_note_and_whatever_follows_it(tmp_path, lobby, client):
    name = _start(client).get_json()["journal"]
    too_long = client.post("/api/game/end", json={"note": "x" * (NOTE_CHARS + 1)}, headers=REFEREE)
    assert too_long.status_code == 400 and f"at most {NOTE_CHARS} characters" in too_long.get_json()["error"]
    assert lobby.station is not None  # refused: the game goes on, nothing journaled
    longest = client.post("/api/game/end", json={"note": "y" * NOTE_CHARS}, headers=REFEREE).get_json()["game"]
    assert longest["finished"] and longest["note"] == "y" * NOTE_CHARS
    path = lobby.journals / name
    seq = len(path.read_text().splitlines()) + 1
    with path.open("a") as f:  # a station that went on writing after the end (a late heartbeat)
        f.write(json.dumps({"seq": seq, "kind": "link", "mono": 1.0, "wall": "2026-11-26T20:00:00+00:00"}) + "\n")
    lobby.close()
    after = Lobby(tmp_path / "journals", tmp_path / "armies")
    client = create_app(after, TOKEN).test_client()
    try:
        assert client.get("/api/games").get_json()["games"][0]["finished"] is True
        assert client.get("/api/lobby").get_json()["resumable"] is None
        refused = client.post(f"/api/games/{name}/resume", headers=REFEREE)
        assert refused.status_code == 400 and "ended" in refused.get_json()["error"]
    finally:
        after.close()
    with pytest.raises(GameEnded, match="replayed, not resumed"):  # and not by another way in
        Station(path, None, [], {})
    run = CliRunner().invoke(main, ["run", "--resume", "--journal", str(path), "--port", "0"])
    assert run.exit_code != 0 and "not resumed" in run.output


def test_a_long_last_record_is_still_read_as_the_end(tmp_path, lobby, client, monkeypatch):
    monkeypatch.setattr("station.lobby.history.TAIL_BYTES", 256)  # the end record is longer than that
    _start(client)
    assert client.post("/api/game/end", json={"note": "z" * 1500}, headers=REFEREE).get_json()["game"]["finished"]
    assert History(lobby.journals).games()[0].end["note"] == "z" * 1500


def test_a_start_that_fails_leaves_no_journal_and_names_the_problem(tmp_path, client, lobby):
    bad = _start(client, hit_window_ms=5)
    assert bad.status_code == 400 and "hit_window_ms" in bad.get_json()["error"]
    assert bad.get_json()["field"] == "hit_window_ms"  # the form marks the option by its field, not its words
    body = {"game": "bronepekhota", "armies": SAMPLES, "options": {"ammo": 3}}
    checked = client.post("/api/games/check", json=body, headers=REFEREE)
    assert checked.status_code == 400 and checked.get_json()["field"] == "ammo"
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
    command = ["serve", "--data", str(tmp_path / "data"), "--host", "127.0.0.1"]
    with station_process(tmp_path, command, TOKEN, ready="/api/lobby") as url:
        status = json.load(urllib.request.urlopen(url + "/api/lobby", timeout=5))
        assert status["running"] is None and status["addresses"] == [url + "/"]
    assert f"Dashboard:      {url}/" in (tmp_path / "serve.log").read_text()


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
    assert "LimitNOFILE=8192" in unit  # room for the dashboard's connection cap
    assert "No user 'pi' here" in result.output  # nothing written for a user this machine lacks
    refused = CliRunner().invoke(main, ["install-service", "--unit-dir", "/proc/nope", "--no-start"])
    assert refused.exit_code == 2 and "run it with sudo" in refused.output


def test_install_service_needs_no_hardware_flags_and_prints_the_claim_code(tmp_path):
    """The last terminal step of a new station: the unit has no hardware flags (the browser's
    settings choose them) and the code the first phone enters at /setup is printed."""
    import getpass

    from click.testing import CliRunner

    from station.cli import main

    config = tmp_path / "station" / "config.json"
    command = ["install-service", "--unit-dir", str(tmp_path), "--no-start", "--user", getpass.getuser()]
    result = CliRunner().invoke(main, [*command, "--config", str(config)])
    assert result.exit_code == 0, result.output
    code = json.loads(config.read_text())["claim_code"]
    assert f"Claim code:     {code}" in result.output
    exec_start = next(line for line in (tmp_path / "station.service").read_text().splitlines() if "ExecStart" in line)
    assert f"--config {config}" in exec_start and "--serial" not in exec_start and "--camera" not in exec_start
    again = CliRunner().invoke(main, [*command, "--config", str(config)])
    assert "already claimed" not in again.output and f"Claim code:     {code}" in again.output  # the same code


def test_the_referee_link_as_a_qr_code_in_the_terminal(tmp_path):
    from click.testing import CliRunner

    from station.cli import main

    config = tmp_path / "config.json"
    config.write_text(json.dumps({"referee_token": TOKEN}))
    result = CliRunner().invoke(main, ["token", "--config", str(config), "--url", "http://10.1.2.3:8080/"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"http://10.1.2.3:8080/?token={TOKEN}" and len(lines) > 15  # the code's rows follow


@pytest.fixture
def hub_lobby(tmp_path):
    """A lobby watching a simulated hub that carries only part of the sample armies' nodes."""
    from station.devices.hubsim import SimulatedHub
    from station.dice import DiceBook
    from station.rules.registry import make_ruleset

    ruleset = make_ruleset("bronepekhota", DiceBook())
    shelf = Lobby(tmp_path / "j", tmp_path / "a").shelf
    nodes = ruleset.sensor_nodes([shelf.load("bronepekhota", a) for a in SAMPLES])
    hub = SimulatedHub(tmp_path / "hub", nodes=[n for n in nodes if n.id != "T31"], heartbeat=0.2).start()
    lobby = Lobby(tmp_path / "journals", tmp_path / "armies", Hardware(serial_urls=(hub.path,), seed=2))
    lobby.watch()
    deadline = time.monotonic() + 10
    while lobby.hub_health().get("state") != "connected" or not lobby.hub_health().get("nodes"):
        assert time.monotonic() < deadline, lobby.hub_health()
        time.sleep(0.05)
    yield lobby, hub
    lobby.close()
    hub.stop()


def test_the_pre_game_check_refuses_a_missing_node_unless_the_referee_writes_why(hub_lobby):
    lobby, hub = hub_lobby
    client = create_app(lobby, TOKEN).test_client()
    check = client.post("/api/games/check", json={"game": "bronepekhota", "armies": SAMPLES}, headers=REFEREE)
    checks = {c["check"]: c for c in check.get_json()["checks"]}
    assert check.get_json()["ready"] is False and checks["hub"]["level"] == "fail"
    assert checks["hub"]["said"].startswith("not on the hub: T31") and checks["armies"]["level"] == "ok"
    refused = _start(client)
    assert refused.status_code == 412 and "not on the hub: T31" in refused.get_json()["error"]
    assert list(lobby.journals.glob("*.jsonl")) == []
    no_note = client.post(
        "/api/games", json={"game": "bronepekhota", "armies": SAMPLES, "force": True}, headers=REFEREE
    )
    assert no_note.status_code == 400 and "needs a note" in no_note.get_json()["error"]
    forced = client.post(
        "/api/games",
        json={"game": "bronepekhota", "armies": SAMPLES, "force": True, "note": "Clone 1's node is broken; by eye"},
        headers=REFEREE,
    )
    assert forced.status_code == 201, forced.get_json()
    records = [json.loads(line) for line in next(lobby.journals.glob("*.jsonl")).read_text().splitlines()]
    precheck = next(r for r in records if r["kind"] == "precheck")
    assert precheck["forced"] and precheck["note"] == "Clone 1's node is broken; by eye"
    assert lobby.hub is not None and not lobby.hub.running  # the game's own link has the port now
    assert lobby.hub_health()["state"] == "connected"  # the game's link, shown in the lobby


def test_between_games_the_lobby_sees_the_hub_and_its_events_never_reach_the_next_game(hub_lobby):
    lobby, hub = hub_lobby
    client = create_app(lobby, TOKEN).test_client()
    status = client.get("/api/lobby").get_json()
    assert status["hub"]["state"] == "connected" and "L21:launcher:2" in status["hub"]["nodes"]
    hub.shot("L21")
    hub.tilt("T21", "leaning", angle=30)
    deadline = time.monotonic() + 5
    while len(client.get("/api/hub/events?since=0").get_json()["events"]) < 2:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    events = client.get("/api/hub/events?since=0").get_json()["events"]
    assert [(e["type"], e["node"], e["kind"]) for e in events] == [("SHOT", "L21", "launcher"), ("TILT", "T21", "tilt")]
    assert client.get(f"/api/hub/events?since={events[0]['n']}").get_json()["events"] == events[1:]
    while hub.pending():  # acknowledged in the setup journal
        assert time.monotonic() < deadline
        time.sleep(0.05)
    army = client.get("/api/armies/bronepekhota/sample:red-polaris.json").get_json()
    army["units"][0]["members"][1]["tilt_node"] = "T31"
    slots = client.post("/api/armies/bronepekhota/wiring", json={"army": army}, headers=REFEREE).get_json()["slots"]
    t31 = [s for s in slots if s["id"] == "T31"]
    assert len(t31) == 2 and all(s["conflict"] and s["absent"] for s in t31)

    with pytest.raises(CheckFailed, match="not on the hub: T31"):  # the lobby's start policy, as the page's
        lobby.start("bronepekhota", [lobby.shelf.load("bronepekhota", a) for a in SAMPLES])
    assert lobby.station is None and not list(lobby.journals.glob("*.jsonl"))
    lobby.start("bronepekhota", [lobby.shelf.load("bronepekhota", a) for a in SAMPLES], force=True, note="T31 is out")
    hub.shot("L1")
    station = lobby.station
    deadline = time.monotonic() + 5
    while not any(r["kind"] == "rx" and r.get("verdict") == "event" for r in station.journal.records):
        assert time.monotonic() < deadline, "the game's first event never came"
        time.sleep(0.05)
    lines = [r["line"] for r in station.journal.records if r["kind"] == "rx" and r.get("verdict") == "event"]
    assert len(lines) == 1 and "node=L1" in lines[0]  # the pairing-time events stayed in the lobby


def test_a_pasted_mul_export_builds_the_library_a_force_then_names_by_id(tmp_path, monkeypatch, client, lobby):
    monkeypatch.setenv("STATION_DATA", str(tmp_path))  # where `serve --data` points every loader
    pasted = json.loads((ROOT / "tests" / "data" / "mul" / "quicklist.json").read_text(encoding="utf-8"))
    response = client.post("/api/rulesets/alpha_strike/cards", json={"cards": pasted}, headers=REFEREE)
    body = response.get_json()
    assert response.status_code == 200 and len(body["added"]) == len(pasted["Units"]) == body["cards"]
    mech = next(r for r in pasted["Units"] if r["Type"]["Name"] == "BattleMech")
    force = {
        "format": "alpha-strike-force/1",
        "player": "attacker",
        "name": "From the MUL",
        "units": [{"id": "lead", "mul_id": mech["Id"], "skill": 4}],
    }
    started = _start(
        client, "alpha_strike", [{"label": "mul-force.json", "army": force}, "sample:training-day-defender.json"]
    )
    assert started.status_code == 201, started.get_json()
    header = json.loads(next(lobby.journals.glob("*.jsonl")).read_text().splitlines()[0])
    assert header["armies"][0]["units"][0]["card"]["name"].startswith(mech["Name"].split()[0])
    again = client.post(
        "/api/rulesets/alpha_strike/cards", json={"cards": pasted["Units"][0]}, headers=REFEREE
    ).get_json()
    assert again["updated"] and not again["added"]
    assert (
        client.post("/api/rulesets/alpha_strike/cards", json={"cards": {"nope": 1}}, headers=REFEREE).status_code == 400
    )
    refused = client.post("/api/rulesets/bronepekhota/cards", json={"cards": pasted}, headers=REFEREE)
    assert refused.status_code == 400 and "keeps no card library" in refused.get_json()["error"]


def test_station_schema_prints_the_army_format_the_form_is_made_from():
    from click.testing import CliRunner

    from station.cli import main
    from station.dice import DiceBook
    from station.rules.registry import make_ruleset

    result = CliRunner().invoke(main, ["schema", "price_of_a_mile"])
    assert (
        result.exit_code == 0 and json.loads(result.output) == make_ruleset("price_of_a_mile", DiceBook()).army_schema()
    )
    assert CliRunner().invoke(main, ["schema", "chess"]).exit_code == 2


def _frames_with_a_model_arriving(folder, marker_id=40, empty=3, present=3):
    """A recorded camera: the table with its anchors, then a model with marker ``marker_id``."""
    import numpy as np

    from station.vision.geometry import overhead_camera
    from tests.sim.synthetic import Scene, SceneMarker, anchor_markers, render, save_frame

    folder.mkdir()
    camera = overhead_camera(image_size=(1280, 720), focal_px=640.0)
    rng = np.random.default_rng(5)
    for k in range(empty + present):
        markers = anchor_markers() + ([SceneMarker(marker_id, 600.0, 500.0, 30.0)] if k >= empty else [])
        image, truth = render(Scene(camera, markers), rng)
        save_frame(str(folder / f"frame{k:02d}"), image, truth)
    return folder


def test_between_games_the_camera_offers_the_marker_a_model_brings_with_its_crop(tmp_path):
    frames = _frames_with_a_model_arriving(tmp_path / "frames")
    lobby = Lobby(tmp_path / "journals", tmp_path / "armies", Hardware(camera=str(frames), camera_fps=10))
    lobby.watch()
    client = create_app(lobby, TOKEN).test_client()
    try:
        seen, deadline = [], time.monotonic() + 15
        while not seen:
            assert time.monotonic() < deadline, client.get("/api/camera/markers").get_json()
            seen = client.get("/api/camera/markers").get_json()["markers"]
            time.sleep(0.1)
        assert [m["id"] for m in seen] == [40]  # the anchors (ids 0-15) are not models
        first = seen[0]["n"]
        crop = client.get(seen[0]["thumb"])
        assert crop.status_code == 200 and crop.data[:2] == b"\xff\xd8"
        while True:  # the recording loops: the model leaves, and coming back it is new again
            assert time.monotonic() < deadline
            again = client.get("/api/camera/markers").get_json()["markers"]
            if again and again[0]["n"] > first:
                break
            time.sleep(0.1)
        status = client.get("/api/lobby").get_json()
        assert status["camera"]["state"] == "running" and status["camera"]["source"] == str(frames)
        assert client.get("/api/camera/markers/41.jpg").status_code == 404
    finally:
        lobby.close()
    assert not lobby.camera.running  # let go for the game


def test_the_pre_game_check_names_models_with_markers_the_camera_does_not_see(tmp_path):
    from station.lobby.precheck import pregame_checks

    shelf = Lobby(tmp_path / "j", tmp_path / "a").shelf
    armies = [shelf.load("bronepekhota", a) for a in SAMPLES]
    armies[1]["units"][0]["members"][0]["marker"] = {"id": 40, "height_mm": 30.0, "size_mm": 30.0, "offset_mm": [0, 0]}
    armies[1]["units"][0]["members"][1]["marker"] = {"id": 41, "height_mm": 30.0, "size_mm": 30.0, "offset_mm": [0, 0]}

    def deployment(seen):
        found = pregame_checks("bronepekhota", armies, {}, None, {}, "0", tmp_path / "none.json", tmp_path, seen)
        return next(f for f in found if f.check == "deployment")

    assert deployment([40, 41]).level == "ok"
    partial = deployment([40, 7])
    assert partial.level == "warn" and partial.said == "not seen on the table: clone-2 (marker 41)"
    assert deployment(None).said.startswith("not checked")


@pytest.mark.parametrize("chunk", [7, 64, 1 << 20])
def test_the_history_counts_rulings_not_heartbeats_whatever_the_read_size(tmp_path, monkeypatch, chunk):
    """A referee counts rulings; most records are the hub's heartbeats.  A ruling's mark cut by
    the edge of a read is counted once."""
    from station.lobby import history

    source = ROOT / "tests" / "data" / "sessions" / "demo.jsonl"
    monkeypatch.setattr(history, "CHUNK", chunk)
    played = history.read_played(source)
    lines = source.read_text().splitlines()
    assert played.records == len(lines)
    assert played.rulings == sum(1 for line in lines if json.loads(line)["kind"] == "ruling") > 0


@pytest.mark.parametrize("game", ["..", "bronepekhota_quick%00", "%00", "nope"])
def test_a_bad_game_name_is_refused_before_anything_touches_the_disk(client, lobby, tmp_path, game):
    """A game name of ``..`` made the army save lock a file outside the armies folder before
    refusing it; one with a NUL answered 500."""
    army = client.get("/api/armies/bronepekhota/sample:red-polaris.json").get_json()
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    response = client.post(f"/api/armies/{game}", json={"name": "x", "army": army}, headers=REFEREE)
    assert response.status_code in (400, 404) and "unknown game" in response.get_json()["error"]
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before
