"""Adding a game is writing its rules: a toy duel (tests/toy_duel.py, under 100 lines) plays
through the live Game, its journal, the dashboard's API and a replay, with no change elsewhere."""

from station.devices import protocol as p
from station.fold import fold
from station.journal import Journal, read_records
from station.rules.registry import RULESETS
from station.runtime import Station
from station.web.app import create_app

from .toy_duel import Duel

ARMIES = [{"player": "athos", "tilt_node": "T-athos"}, {"player": "porthos", "tilt_node": "T-porthos"}]


def test_the_toy_ruleset_is_under_100_lines():
    from pathlib import Path

    assert len((Path(__file__).parent / "toy_duel.py").read_text().splitlines()) < 100


def test_a_toy_game_plays_journals_shows_and_replays(tmp_path, monkeypatch):
    monkeypatch.setitem(RULESETS, Duel.name, Duel)
    station = Station(tmp_path / "duel.jsonl", "duel", ARMIES, {}, seed=4)
    game = station.game
    flip = game.operator_input("flip", {})
    assert flip[0].kind == "initiative" and flip[0].text in ("athos first.", "porthos first.")
    record = game.journal.append(
        "rx", line=p.encode(p.Tilt(1, "T-porthos", "fallen", 80, 1500)).decode().strip(), verdict="event"
    )
    down = game.observe(record)
    assert [r.text for r in down] == ["porthos is down."]
    assert game.postures() == {"athos": "upright", "porthos": "fallen"}
    assert {n.id for n in station.game.ruleset.sensor_nodes(ARMIES)} == {"T-athos", "T-porthos"}
    client = create_app(station, "tok").test_client()
    state = client.get("/api/state").get_json()
    assert state["state"]["out"] == ["porthos"] and state["state"]["active_player"] == flip[0].text.split()[0]
    assert [u["status"] for u in state["state"]["units"]] == ["upright", "fallen"]
    refused = client.post("/api/input", json={"type": "charge"}, headers={"X-Referee-Token": "tok"})
    assert refused.status_code == 400 and "expected one of flip" in refused.get_json()["error"]
    station.stop()
    records = read_records(tmp_path / "duel.jsonl")
    again = fold(records)
    assert again.state_json() == fold(records).state_json() and [r.text for r in again.rulings][-1] == down[0].text
    Journal(tmp_path / "duel.jsonl").close()
