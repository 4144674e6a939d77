"""The Flask JSON API, the referee token, and the Server-Sent Events stream."""

import http.client
import json
import threading
import time

import pytest

from station.devices import protocol as p
from station.web.server import DashboardServer

from .conftest import REFEREE as REF
from .conftest import REFEREE_TOKEN as TOKEN


def test_dashboard_page_renders(client):
    page = client.get("/")
    assert page.status_code == 200 and "Бронепехота" in page.text and "dashboard.js" in page.text
    assert client.get("/static/dashboard.js").status_code == 200


def _dice_sides(page: str) -> list[str]:
    import re

    found = re.search(r'<select id="dice-sides">(.*?)</select>', page, re.S)
    assert found is not None
    return re.findall(r"<option>(\d+)</option>", found.group(1))


def test_table_dice_start_on_the_games_own_die(client, tmp_path):
    """The Price of a Mile rolls d10s: its table dice start on D10 (they started on D6, as the
    other games', though the docs said D10); every die stays on offer once."""
    from pathlib import Path

    from station.rules.price_of_a_mile.army import load_army
    from station.runtime import Station
    from station.web.app import create_app

    assert _dice_sides(client.get("/").text) == ["6", "10", "12", "20", "4", "8"]
    data = Path(__file__).resolve().parent.parent / "station" / "data" / "price_of_a_mile"
    armies = [load_army(data / "entente.json"), load_army(data / "central.json")]
    station = Station(tmp_path / "pm.jsonl", "price_of_a_mile", armies, {}, seed=5).start()
    try:
        page = create_app(station, TOKEN).test_client().get("/").text
        assert _dice_sides(page) == ["10", "6", "12", "20", "4", "8"]
    finally:
        station.stop()


def test_state_is_public(client):
    data = client.get("/api/state").get_json()
    assert data["game"] == "bronepekhota" and data["state"]["round"] == 0
    assert data["health"]["state"] == "none"
    assert {u["id"] for u in data["state"]["units"]} >= {"gryphon", "clones", "mortar"}


@pytest.mark.parametrize(
    "headers, status", [({}, 401), ({"X-Referee-Token": "nope"}, 403), ({"Authorization": "Bearer nope"}, 403)]
)
def test_controls_need_the_referee_token(client, station, headers, status):
    response = client.post("/api/input", json={"type": "begin_round"}, headers=headers)
    assert response.status_code == status and "token" in response.get_json()["error"]
    assert station.game.snapshot()["state"]["round"] == 0  # nothing happened


def test_referee_drives_the_game(client, station):
    assert (
        client.post(
            "/api/input", json={"type": "begin_round"}, headers={"Authorization": f"Bearer {TOKEN}"}
        ).status_code
        == 200
    )
    assert station.game.snapshot()["state"]["round"] == 1
    records = station.game.snapshot()["records"]
    response = client.post("/api/input", json={"type": "activate", "args": {"unit": "nonexistent"}}, headers=REF)
    assert response.status_code == 400 and response.get_json()["field"] == "unit"  # checked before journaling
    assert "nonexistent is not in this game" in response.get_json()["error"]
    assert station.game.snapshot()["records"] == records
    response = client.post("/api/input", json={"type": "activate", "args": {"unit": "mortar"}}, headers=REF)
    assert response.status_code == 200 and response.get_json()["rulings"][0]["kind"] == "warning"  # not its turn


@pytest.mark.parametrize(
    "args, field, english, russian",
    [
        ({}, "unit", "unit: needed", "unit: нужно указать"),
        (
            {"unit": "gryphon", "speed": 3},
            "speed",
            "activate takes unit, not speed",
            "activate принимает unit, а не speed",
        ),
        ({"unit": 7}, "unit", "unit: an id of this game", "unit: идентификатор из этой игры"),
    ],
)
def test_a_wrong_argument_is_refused_naming_its_field_in_both_languages(client, station, args, field, english, russian):
    """An input's arguments are checked against its declaration (rules/input_args.py) before
    they are journaled; the refusal names the field and can be said in Russian."""
    from station.rules.text import catalog, from_message

    records = station.game.snapshot()["records"]
    response = client.post("/api/input", json={"type": "activate", "args": args}, headers=REF)
    said = response.get_json()
    assert response.status_code == 400 and said["field"] == field and said["error"] == english, said
    assert from_message(said["message"]).said(catalog("ru", "bronepekhota")) == russian
    assert station.game.snapshot()["records"] == records


def test_each_games_inputs_are_served_as_json_schema(client):
    for game in ("bronepekhota", "bronepekhota_quick", "steel_warriors", "price_of_a_mile", "alpha_strike"):
        inputs = client.get(f"/api/rulesets/{game}/inputs").get_json()["inputs"]
        assert inputs and all(i["section"].startswith("§") and i["args"]["type"] == "object" for i in inputs.values())
    shot = client.get("/api/rulesets/bronepekhota/inputs").get_json()["inputs"]["virtual_shot"]["args"]
    assert shot["required"] == ["shooter", "target"] and shot["additionalProperties"] is False
    assert shot["properties"]["distance"] == {**shot["properties"]["distance"], "type": "integer", "x-distance": True}
    assert client.get("/api/rulesets/chess/inputs").status_code == 404


def test_the_inputs_the_referee_could_not_enter_are_served_so_the_phone_offers_them(client):
    """Issue 51: each rule that had no input is now a declared one, served with its section."""
    wanted = {
        "bronepekhota": {"refill_ammo": "§6.5, §7.7"},
        "alpha_strike": {"pass_attacks": "§4.3"},
        "steel_warriors": {"observe": "§6.7", "communicate": "§6.7"},
        "price_of_a_mile": {
            "close_in": "§10.1",
            "follow_up": "§12.1, §12.2, §10.4",
            "turn_gun": "§9.3",
            "standing_order": "§3.2",
            "move_deceived": "§16.9",
        },
    }
    for game, inputs in wanted.items():
        served = client.get(f"/api/rulesets/{game}/inputs").get_json()["inputs"]
        assert {name: served[name]["section"] for name in inputs} == inputs


@pytest.mark.parametrize(
    "body, message",
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "JSON object"),
        (json.dumps({"type": "launch_nukes"}).encode(), "unknown input"),
        (json.dumps({"type": "begin_round", "args": [1]}).encode(), "expected"),
    ],
)
def test_bad_requests_get_clear_errors(client, body, message):
    response = client.post("/api/input", data=body, headers={**REF, "Content-Type": "application/json"})
    assert response.status_code == 400 and message in response.get_json()["error"]


def _hit(station):
    game = station.game
    game.operator_input("begin_round")
    game.operator_input("set_order", {"order": ["blue", "red"]})
    for message in (p.Shot(1, "L1", 1, "shell", 1, 1000), p.Tilt(2, "T33", "fallen", 80, 1200)):
        game.observe(game.journal.append("rx", line=p.encode(message).decode().strip(), verdict="event"))
    return next(r for r in game.snapshot()["rulings"] if r["kind"] == "hit")


def test_confirm_and_override_over_http(client, station):
    hit = _hit(station)
    assert client.post(f"/api/rulings/{hit['id']}/confirm").status_code == 401
    assert client.post(f"/api/rulings/{hit['id']}/confirm", headers=REF).status_code == 200
    response = client.post(
        f"/api/rulings/{hit['id']}/override", json={"verdict": "void", "note": "ricochet"}, headers=REF
    )
    assert response.status_code == 200 and response.get_json()["ruling"]["overridden"] == "void"
    assert client.post("/api/rulings/1:nothing/confirm", headers=REF).status_code == 400
    records = client.get("/api/events?since=0").get_json()["records"]
    assert [r["kind"] for r in records if r["kind"] in ("confirm", "override")] == ["confirm", "override"]
    assert client.get("/api/events?since=abc").status_code == 400


def _read_events(response, wanted, timeout=10.0):
    """Parse SSE frames until ``wanted(event, data)`` is true; returns the frames seen."""
    frames, buffer, deadline = [], b"", time.monotonic() + timeout
    while time.monotonic() < deadline:
        chunk = response.fp.read1(65536) if hasattr(response.fp, "read1") else response.read(1)
        buffer += chunk
        while b"\n\n" in buffer:
            frame, buffer = buffer.split(b"\n\n", 1)
            fields = dict(line.split(": ", 1) for line in frame.decode().splitlines() if ": " in line)
            event, data = fields.get("event"), json.loads(fields.get("data", "null"))
            frames.append((event, data))
            if wanted(event, data):
                return frames
    raise AssertionError(f"stream never delivered; saw {[f[0] for f in frames]}")


def test_sse_stream_delivers_snapshot_then_new_rulings(station):
    server = DashboardServer(station, TOKEN, port=0).start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", "/api/stream")
        response = conn.getresponse()
        assert response.status == 200 and response.getheader("Content-Type").startswith("text/event-stream")
        frames = _read_events(response, lambda e, d: e == "snapshot")
        assert frames[0][1]["state"]["round"] == 0
        threading.Timer(0.2, lambda: _hit(station)).start()
        frames = _read_events(response, lambda e, d: e == "update" and any(r["kind"] == "hit" for r in d["rulings"]))
        hit = next(r for e, d in frames if e == "update" for r in d["rulings"] if r["kind"] == "hit")
        assert "Clone 3" in hit["text"] and hit["section"] == "§6.7 Table 4"
        station.game.override(hit["id"], "void")
        frames = _read_events(response, lambda e, d: e == "snapshot")
        assert any(r["overridden"] == "void" for r in frames[-1][1]["rulings"])
        _read_events(response, lambda e, d: e == "health", timeout=5)
        conn.close()
    finally:
        server.stop()


def test_camera_endpoints_without_a_camera(client):
    assert client.get("/api/camera.jpg").status_code == 404
    assert client.get("/api/table").get_json() == {"table": None, "camera": None}


def test_frames_go_out_at_once_until_a_flood_and_then_twenty_a_second():
    """The token bucket behind the SSE frames: a burst of changes after a quiet spell is sent at
    once, frame after frame; under a sustained flood the frames come 20 a second."""
    from station.web.stream import FRAME_BURST, FRAMES_PER_SECOND, TokenBucket

    now = [0.0]
    bucket = TokenBucket(FRAMES_PER_SECOND, FRAME_BURST, clock=lambda: now[0])
    assert [bucket.wait() for _ in range(6)] == [0.0] * 6  # a shot, a lean, a fall, inputs: no wait
    sent, t = 0, 0.0
    while t < 10.0:  # a flood: a change every millisecond for ten seconds
        now[0] = t
        pause = bucket.wait()
        t += pause + 0.001
        sent += 1
    assert 200 <= sent <= 200 + FRAME_BURST + 1  # 20 a second once the burst is spent
    now[0] = t + 5.0  # a quiet spell refills it
    assert bucket.wait() == 0.0


def test_a_rules_bug_on_an_input_is_a_clear_answer_and_the_game_goes_on(client, station, monkeypatch):
    """The rules raising on a referee's input: it stays journaled, the request is told so (not a
    500), the state is still served, and the next input is applied."""
    from dataclasses import replace

    from station.rules.bronepekhota.state import INPUTS

    def broken(rules, state, seq, args):
        raise KeyError("a bug")

    monkeypatch.setitem(INPUTS._by_type, "set_order", replace(INPUTS.get("set_order"), handle=broken))
    assert client.post("/api/input", json={"type": "begin_round"}, headers=REF).status_code == 200
    response = client.post("/api/input", json={"type": "set_order", "args": {"order": ["red", "blue"]}}, headers=REF)
    assert response.status_code == 400 and "the rules failed on this set_order" in response.get_json()["error"]
    assert client.get("/api/state").status_code == 200 and station.health()["engine_errors"] == 1
    assert (
        client.post("/api/input", json={"type": "activate", "args": {"unit": "gryphon"}}, headers=REF).status_code
        == 200
    )
    assert any(r["type"] == "set_order" for r in station.journal.records if r["kind"] == "input")


def test_a_ruling_with_a_non_finite_number_is_still_journaled_and_served(client, station, monkeypatch):
    """A rules bug puts an infinity in a ruling's details: the ruling is kept, journaled and
    served with the number said as text (the journal refused it, the engine lost the ruling and
    /api/state answered 500), and the replay says the same."""
    from dataclasses import replace

    from station.fold import fold
    from station.rules.base import Ruling, RulingKind
    from station.rules.bronepekhota.state import INPUTS
    from station.rules.text import say

    def doubtful(rules, state, seq, args):
        text = say("Player order: {order}.", order="odd")
        return state, [Ruling(f"{seq}:odd", seq, RulingKind.WARNING, text, "§3", True, details={"ms": float("inf")})]

    monkeypatch.setitem(INPUTS._by_type, "set_order", replace(INPUTS.get("set_order"), handle=doubtful))
    order = {"order": ["blue", "red"]}
    response = client.post("/api/input", json={"type": "set_order", "args": order}, headers=REF)
    assert response.status_code == 200 and response.get_json()["rulings"][0]["details"] == {"ms": "inf"}
    assert client.get("/api/state").status_code == 200
    journaled = [r["ruling"] for r in station.journal.records if r["kind"] == "ruling"]
    assert journaled[-1]["id"].endswith(":odd") and journaled[-1]["details"] == {"ms": "inf"}
    replayed = fold(station.journal.records).rulings[-1]
    assert replayed.details == {"ms": "inf"}
