"""The data folder as clubs leave it (station/lobby/entries.py, datafile.one_writer): links, loops,
FIFOs and broken files cost only themselves, and writers at once never lose or spoil a file."""

import json
import os
import threading
import time
import urllib.request

import pytest

from station.lobby.lobby import Hardware, Lobby
from station.rules.alpha_strike.library import LIBRARY_FILE, CardLibrary
from station.rules.text import catalog, from_message
from station.web.app import create_app
from station.web.i18n import catalog as web_catalog
from tests.conftest import ROOT
from tests.test_dashboard_browser import station_process

TOKEN = "data-folder-token"
REFEREE = {"X-Referee-Token": TOKEN}
BLUE = json.loads((ROOT / "examples" / "blue-protectorate.json").read_text())
MUL = json.loads((ROOT / "tests" / "data" / "mul" / "quicklist.json").read_text())["Units"]


def _spoil(data, outside):
    """Everything a hand-edited data folder was seen to hold."""
    journals, shelf = data / "journals", data / "armies" / "bronepekhota"
    journals.mkdir(parents=True)
    shelf.mkdir(parents=True)
    (journals / "dangling.jsonl").symlink_to(data / "nowhere.jsonl")
    (journals / "loop.jsonl").symlink_to(journals / "loop.jsonl")
    (journals / "secret.jsonl").symlink_to(outside)  # a file outside the data folder
    os.mkfifo(journals / "pipe.jsonl")
    (shelf / "garbage.json").write_text("{not json")
    (shelf / "passwd.json").symlink_to("/etc/passwd")
    (shelf / "good.json").write_text(json.dumps(BLUE))


@pytest.fixture(autouse=True)
def _data_folder_env(monkeypatch):
    """A lobby moving its data folder sets STATION_DATA: put back after each test."""
    monkeypatch.setenv("STATION_DATA", os.environ.get("STATION_DATA", "data"))


def test_odd_entries_cost_only_themselves_and_the_lobby_answers_at_once(tmp_path):
    outside = tmp_path / "outside.jsonl"
    outside.write_text('{"seq":1,"kind":"game","game":"bronepekhota","armies":[]}\n')
    data = tmp_path / "data"
    _spoil(data, outside)
    lobby = Lobby(data / "journals", data / "armies", Hardware(seed=1))
    client = create_app(lobby, TOKEN).test_client()
    try:
        for path in ("/api/games", "/api/lobby", "/api/rulesets"):
            started = time.monotonic()
            answer = client.get(path)
            assert answer.status_code == 200 and time.monotonic() - started < 1.0, (path, answer.data[:200])
        assert client.get("/api/games").get_json()["games"] == []  # no link is followed, no FIFO opened
        assert client.get("/api/games/secret.jsonl/journal").status_code == 404  # not served either
        armies = {g["name"]: g for g in client.get("/api/rulesets").get_json()["games"]}["bronepekhota"]["armies"]
        by_id = {a["id"]: a for a in armies}
        assert (
            "broken" not in by_id["saved:good.json"]
            and "Expecting property name" in by_id["saved:garbage.json"]["broken"]
        )
        assert "saved:passwd.json" not in by_id and len([a for a in armies if a["sample"]]) == 2  # the rest still there
        said = "\n".join(client.get("/api/lobby").get_json()["messages"])
        for name in ("dangling.jsonl", "loop.jsonl", "secret.jsonl", "pipe.jsonl", "passwd.json"):
            assert name in said
        assert "FIFO" in said and "symbolic link" in said
        status = client.get("/api/lobby").get_json()  # and said in the page's language, by its message
        words = {**web_catalog("ru"), **catalog("ru")}
        russian = [from_message(m).said(words) for m in status["messages_messages"] if m]
        assert any("станция его не трогает" in r and "pipe.jsonl" in r for r in russian), russian
        started = client.post("/api/games", json={"game": "bronepekhota", "armies": ["saved:good.json", "sample:red-polaris.json"], "force": True, "note": "t"}, headers=REFEREE)  # fmt: skip
        assert started.status_code == 201, started.get_json()
    finally:
        lobby.close()


def test_station_serve_starts_whatever_the_data_folder_holds(tmp_path):
    outside = tmp_path / "outside.jsonl"
    outside.write_text("")
    _spoil(tmp_path / "data", outside)
    command = ["serve", "--data", str(tmp_path / "data"), "--host", "127.0.0.1"]
    with station_process(tmp_path, command, TOKEN, ready="/api/lobby") as url:
        status = json.load(urllib.request.urlopen(url + "/api/lobby", timeout=5))
        assert any("pipe.jsonl" in m for m in status["messages"])
    log = (tmp_path / "serve.log").read_text()
    assert log.count("pipe.jsonl is not a regular file") == 1  # named once in the log


def test_ten_pastes_at_once_keep_ten_cards(tmp_path, monkeypatch):
    path = tmp_path / LIBRARY_FILE
    records = [dict(MUL[0], Id=700_000 + i, Name=f"Paste {i}") for i in range(10)]
    barrier = threading.Barrier(len(records))

    def paste(record):
        barrier.wait()
        CardLibrary(path).add([record], "a phone")

    threads = [threading.Thread(target=paste, args=(r,)) for r in records]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(CardLibrary(path).records) == [r["Id"] for r in records]


def test_saves_at_once_under_one_name_leave_the_last_valid_army(tmp_path):
    lobby = Lobby(tmp_path / "journals", tmp_path / "armies")
    invalid = {**BLUE, "units": "not a list"}
    outcomes: list[tuple[bool, bool]] = []  # (valid, accepted)
    try:
        for burst in range(5):
            barrier = threading.Barrier(8)

            def save(valid, burst=burst, barrier=barrier):
                barrier.wait()
                document = {**BLUE, "name": f"burst {burst}"} if valid else invalid
                try:
                    lobby.shelf.save("bronepekhota", "ours", document)
                    outcomes.append((valid, True))
                except ValueError:
                    outcomes.append((valid, False))

            threads = [threading.Thread(target=save, args=(k % 2 == 0,)) for k in range(8)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert lobby.shelf.load("bronepekhota", "saved:ours.json")["name"] == f"burst {burst}"
        assert all(valid == accepted for valid, accepted in outcomes) and len(outcomes) == 40
        assert not list((tmp_path / "armies" / ".checking").iterdir())  # no scratch file left
    finally:
        lobby.close()


@pytest.mark.parametrize("bad", ["fifo", "link"])
def test_the_history_never_opens_what_is_not_a_file(tmp_path, bad):
    journals = tmp_path / "journals"
    journals.mkdir()
    target = journals / "odd.jsonl"
    if bad == "fifo":
        os.mkfifo(target)
    else:
        (tmp_path / "real.jsonl").write_text((ROOT / "tests" / "data" / "sessions" / "demo.jsonl").read_text())
        target.symlink_to(tmp_path / "real.jsonl")
    lobby = Lobby(journals, tmp_path / "armies")
    try:
        assert lobby.history.games() == [] and lobby.unfinished() is None
    finally:
        lobby.close()
