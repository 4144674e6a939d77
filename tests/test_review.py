"""Looking back at a played game: the replay viewer's frames agree with the fold at every stop,
and the post-game report holds the summary, casualties, every ruling, the overrides with their
notes and the pictures of the disputed rulings."""

import json
import re
import shutil

import pytest
from markupsafe import escape

from station.dice import DiceBook
from station.fold import dice_of, fold
from station.journal import read_records
from station.lobby.lobby import Lobby
from station.lobby.replay import GameReplay
from station.rules.text import catalog, with_messages
from station.rules.view import model_names
from station.runtime import Station
from station.web.app import create_app
from tests.conftest import ROOT

SESSIONS = ROOT / "tests" / "data" / "sessions"


@pytest.fixture
def played(tmp_path):
    """A lobby whose history holds two recorded games."""
    journals = tmp_path / "journals"
    journals.mkdir()
    for name in ("training-day.jsonl", "virtual.jsonl"):
        shutil.copy(SESSIONS / name, journals / name)
    lobby = Lobby(journals, tmp_path / "armies")
    return lobby, create_app(lobby, "review-token").test_client()


def test_every_frame_is_the_fold_of_the_journal_up_to_it(played):
    lobby, client = played
    records = read_records(lobby.journals / "virtual.jsonl")
    timeline = client.get("/api/games/virtual.jsonl/timeline").get_json()
    assert timeline["game"] == "bronepekhota" and timeline["steps"][0]["kind"] == "game"
    assert len(timeline["rulings"]) == len(fold(records).rulings)
    for step in timeline["steps"][:: max(1, len(timeline["steps"]) // 12)] + timeline["steps"][-1:]:
        at = client.get(f"/api/games/virtual.jsonl/at/{step['seq']}").get_json()
        upto = [r for r in records if r["seq"] <= step["seq"]]
        expected = fold(upto, DiceBook(dice_of(records)))
        assert at["seq"] == step["seq"] and len(at["rulings"]) == len(expected.rulings)
        assert at["state"] == json.loads(json.dumps(with_messages(expected.ruleset.state_view(expected.state))))
    first = timeline["rulings"][0]
    at_first = client.get(f"/api/games/virtual.jsonl/at/{first['seq']}").get_json()
    assert at_first["rulings"][-1]["id"] == first["id"]
    before = client.get(f"/api/games/virtual.jsonl/at/{first['seq'] - 1}").get_json()
    assert first["id"] not in [r["id"] for r in before["rulings"]]


def test_the_map_at_a_record_draws_the_snapshot_of_that_moment(played):
    lobby, client = played
    replay = GameReplay(lobby.journals / "training-day.jsonl")
    snapshot = next(r for r in replay.records if r["kind"] == "snapshot")
    svg = client.get(f"/api/games/training-day.jsonl/at/{snapshot['seq']}/map.svg").data.decode()
    assert svg.startswith("<svg") and all(f">{u['element']}<" in svg for u in snapshot["units"])
    assert f"record {snapshot['seq']}" in svg


def test_the_report_holds_everything_a_club_keeps(played, tmp_path):
    lobby, client = played
    path = lobby.journals / "training-day.jsonl"
    replay = GameReplay(path)
    measured = next(m for m in replay.marks if m.ruling.details.get("measured"))
    station = Station(path)  # the referee overrides a measured ruling after the game, with a note
    station.game.override(measured.ruling.id, "void", "the base was lifted to measure")
    station.stop()

    page = client.get("/games/training-day.jsonl/report")
    assert page.status_code == 200
    html = page.data.decode()
    after = GameReplay(path)
    assert html.count('<tr id="ruling-') == len(after.marks)
    assert "the base was lifted to measure" in html and "status-overridden" in html
    assert (
        html.count("<figure><svg")
        == sum(1 for m in after.marks if m.status in ("pending", "overridden") and m.made["details"].get("measured"))
        >= 1
    )
    assert "<link" not in html and "<script src" not in html  # self-contained: it prints and mails alone
    assert after.final.ruleset.summary(after.final.state).splitlines()[0] in html

    virtual = client.get("/games/virtual.jsonl/report").data.decode()
    view = GameReplay(lobby.journals / "virtual.jsonl").final
    destroyed = [
        e for u in view.ruleset.state_view(view.state)["units"] for e in u["elements"] if e["status"] == "destroyed"
    ]
    assert destroyed and f"Casualties ({len(destroyed)})" in virtual


def test_the_report_in_russian_says_every_ruling_in_russian(played):
    lobby, client = played
    client.set_cookie("lang", "ru")
    for name in ("training-day.jsonl", "virtual.jsonl"):
        html = client.get(f"/games/{name}/report").data.decode()
        replay = GameReplay(lobby.journals / name)
        words = catalog("ru", replay.final.ruleset.name)
        names = model_names(replay.final.ruleset.state_view(replay.final.state))
        for mark in replay.marks:
            russian = mark.ruling.text.said(words, names)
            assert russian != mark.ruling.text or not re.search(r"[a-z]{4,}", mark.ruling.text), mark.ruling.text
            assert str(escape(russian)) in html, russian


def test_the_russian_report_cites_tables_as_the_russian_rulebook_prints_them(played):
    lobby, client = played
    shutil.copy(SESSIONS / "demo.jsonl", lobby.journals / "demo.jsonl")
    sections = {m.ruling.section for m in GameReplay(lobby.journals / "demo.jsonl").marks}
    assert "§6.7 Table 4" in sections
    english = client.get("/games/demo.jsonl/report").data.decode()
    client.set_cookie("lang", "ru")
    russian = client.get("/games/demo.jsonl/report").data.decode()
    assert '">§6.7 Table 4</td>' in english and '">§6.7 Таблица 4</td>' in russian
    assert "Table 4" not in russian


def test_the_report_names_models_as_the_army_does_where_the_journal_keeps_ids(played):
    lobby, client = played
    shutil.copy(SESSIONS / "demo.jsonl", lobby.journals / "demo.jsonl")
    texts = [m.ruling.text for m in GameReplay(lobby.journals / "demo.jsonl").marks]
    assert "clones has acted. blue to act." in texts  # the journal's English names the unit by its id
    said = {
        "en": "Clone infantry (Тяжёлая клон-пехота) has acted.",
        "ru": "Clone infantry (Тяжёлая клон-пехота): ход окончен.",
    }
    for lang, sentence in said.items():
        client.set_cookie("lang", lang)
        report = client.get("/games/demo.jsonl/report").data.decode()
        assert f'">{escape(sentence)}' in report
        assert '">clones' not in report and '">varan' not in report


def test_unknown_and_damaged_games_are_named(played):
    lobby, client = played
    assert client.get("/games/nope.jsonl").status_code == 404
    assert client.get("/api/games/nope.jsonl/timeline").get_json() == {"error": "no game 'nope.jsonl'"}
    path = lobby.journals / "virtual.jsonl"
    lines = path.read_text().splitlines()
    lines[5] = "{not json"
    path.write_text("\n".join(lines) + "\n")
    response = client.get("/api/games/virtual.jsonl/timeline")
    assert response.status_code == 422 and "cannot be replayed" in response.get_json()["error"]


def test_the_report_says_which_victory_condition_won_in_both_languages(played):
    """§12.1: the winner and how: the recorded virtual game ends with red's soldiers all gone."""
    lobby, client = played
    station = Station(lobby.journals / "virtual.jsonl")
    station.game.end("by elimination")
    station.stop()
    english = client.get("/games/virtual.jsonl/report").data.decode()
    assert "Winner: blue: destroyed every enemy soldier (§12.1)" in english
    client.set_cookie("lang", "ru")
    russian = client.get("/games/virtual.jsonl/report").data.decode()
    assert "Победитель: blue: уничтожил всех бойцов противника (§12.1)" in russian
    end = [r for r in read_records(lobby.journals / "virtual.jsonl") if r["kind"] == "end"]
    assert end[-1]["won_by"] == "destroyed every enemy soldier (§12.1)"


def test_the_replay_cache_lets_the_least_recently_used_go(tmp_path):
    """Eight replays kept: a ninth lets the least recently used go, not the newest (after A-H,
    inserting I kept the first seven for ever and read the recent ones again each time)."""
    from station.lobby.replay import Replays

    paths = []
    for name in "ABCDEFGHI":
        path = tmp_path / f"{name}.jsonl"
        shutil.copy(SESSIONS / "quick.jsonl", path)
        paths.append(path)
    replays = Replays()
    first = {p.name: replays.of(p) for p in paths[:8]}
    assert replays.of(paths[0]) is first["A.jsonl"]  # A used again: the least recent is now B
    replays.of(paths[8])  # I
    assert replays.of(paths[7]) is first["H.jsonl"] and replays.of(paths[0]) is first["A.jsonl"]
    assert replays.of(paths[1]) is not first["B.jsonl"]  # B left, and is read again
