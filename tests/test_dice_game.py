"""Smart dice in the game (issue 52): a roll the game is asking for is journaled as a table die
and used by the next roll of that die, exactly as typed dice are (and a replay gets it back); a
roll the game is not asking for is shown, not used; and the settings page's API pairs dice and
throws the rehearsal hub's virtual dice."""

import os
import random

import pytest

from station.devices.dice.rolls import Roll
from station.fold import fold
from station.game import Game
from station.journal import Journal, read_records
from station.lobby.lobby import Lobby
from station.lobby.settings import load_settings
from station.records import Kind
from station.web.app import create_app
from tests.conftest import EXAMPLES, wait_for

TOKEN = "dice-token"
REFEREE = {"X-Referee-Token": TOKEN}
PIXEL_ID, GODICE_ID = "pixels-5eed0001", "godice-0a0000000002"


def _game(tmp_path):
    from station.rules.bronepekhota.army import load_army

    armies = [load_army(EXAMPLES / "blue-protectorate.json"), load_army(EXAMPLES / "red-polaris.json")]
    return Game(Journal(tmp_path / "game.jsonl"), "bronepekhota", armies, {}, rng=random.Random(3))


def test_a_roll_the_game_asks_for_is_journaled_and_used_by_the_next_roll_of_that_die(tmp_path):
    game = _game(tmp_path)
    assert game.state_view()["active_player"] is None  # before the initiative: every die may roll
    assert game.table_die(Roll("pixels-1", 12, 9, 71, 1), "any") == ""
    assert game.table_die(Roll("godice-2", 12, 3, 40, 1), "red") == ""
    assert game.dice_waiting() == {12: [9, 3]}
    entries = [r for r in read_records(game.journal.path) if r["kind"] == Kind.DICE_ENTRY]
    assert [(e["values"], e["die"], e["throw"], e["battery"], e["by"]) for e in entries] == [
        ([9], "pixels-1", 1, 71, "any"),
        ([3], "godice-2", 1, 40, "red"),
    ]
    game.operator_input("begin_round", {})  # §3.2: each side rolls a D12 for the initiative
    records = read_records(game.journal.path)
    rolled = [(r["key"], r["value"], r.get("physical")) for r in records if r["kind"] == Kind.DICE]
    assert rolled == [("4/initiative/blue/1", 9, True), ("4/initiative/red/1", 3, True)]
    assert game.dice_waiting() == {} and game.state_view()["active_player"] == "blue"
    replayed = fold(records)
    assert replayed.ruleset.state_view(replayed.state) == game.state_view()  # the replay rolls the same


def test_a_roll_nobody_asked_for_is_not_used(tmp_path):
    game = _game(tmp_path)
    game.operator_input("begin_round", {})  # red wins the initiative with the station's own dice
    assert game.state_view()["active_player"] == "red"
    assert game.table_die(Roll("pixels-1", 12, 5, 71, 1), "blue") == "blue's die, and red is to act"
    game.end(note="done")
    assert game.table_die(Roll("pixels-1", 12, 4, 71, 2), "any") == "the game has ended"
    assert game.dice_waiting() == {}
    assert not [r for r in read_records(game.journal.path) if r["kind"] == Kind.DICE_ENTRY]


@pytest.fixture
def lobby(tmp_path, monkeypatch):
    monkeypatch.setenv("STATION_DATA", os.environ.get("STATION_DATA", "data"))
    lobby = Lobby(tmp_path / "data" / "journals", tmp_path / "data" / "armies")
    yield lobby
    lobby.close()


def test_the_rehearsal_hub_s_virtual_dice_pair_and_roll_into_the_game(lobby, tmp_path):
    client = create_app(lobby, TOKEN).test_client()
    assert client.get("/api/smart-dice").get_json() == {
        "on": False,
        "players": [],
        "bluetooth": False,
        "problem": "",
        "dice": [],
    }
    assert client.put("/api/settings", json={"rehearsal": True}, headers=REFEREE).status_code == 200
    wait_for(lambda: len(client.get("/api/smart-dice").get_json()["dice"]) == 2, 5, "the two virtual dice heard")
    assert (
        client.post("/api/smart-dice/pair", json={"die": PIXEL_ID, "use": "any"}).status_code == 401
    )  # spectators read
    answer = client.post("/api/smart-dice/pair", json={"die": PIXEL_ID, "use": "any"}, headers=REFEREE)
    assert answer.status_code == 200 and answer.get_json()["pairs"] == {PIXEL_ID: "any"}
    assert load_settings(tmp_path / "data").dice_pairs == {PIXEL_ID: "any"}  # remembered
    missing = client.post("/api/smart-dice/pair", json={"die": "pixels-nothere", "use": "any"}, headers=REFEREE)
    assert missing.status_code == 404 and missing.get_json()["field"] == "die"
    bad = client.post("/api/smart-dice/pair", json={"die": PIXEL_ID, "use": ["red"]}, headers=REFEREE)
    assert bad.status_code == 400 and bad.get_json()["field"] == "use"

    started = client.post(
        "/api/games",
        json={"game": "bronepekhota", "armies": ["sample:blue-protectorate.json", "sample:red-polaris.json"]},
        headers=REFEREE,
    )
    assert started.status_code == 201, started.get_json()
    assert client.post("/api/smart-dice/throw", json={"die": PIXEL_ID}, headers=REFEREE).status_code == 200
    wait_for(lambda: client.get("/api/state").get_json()["dice_waiting"], 5, "the throw waiting for the rules")
    waiting = client.get("/api/state").get_json()["dice_waiting"]
    face = waiting["6"][0]
    journal = lobby.station.journal.path
    entry = next(r for r in read_records(journal) if r["kind"] == Kind.DICE_ENTRY)
    assert (entry["die"], entry["values"], entry["battery"]) == (PIXEL_ID, [face], 80)
    shown = next(d for d in client.get("/api/smart-dice").get_json()["dice"] if d["id"] == PIXEL_ID)
    assert shown["last_roll"] == {"face": face, "throw": 1, "used": True, "why": ""}
    assert client.get("/api/health").get_json()["dice"]["dice"][0]["id"] == PIXEL_ID  # on the hub badge

    # the GoDice is paired with the side not acting: its throw is shown, not used
    assert client.post("/api/input", json={"type": "begin_round", "args": {}}, headers=REFEREE).status_code == 200
    acting = client.get("/api/state").get_json()["state"]["active_player"]
    idle = "red" if acting == "blue" else "blue"
    assert client.post("/api/smart-dice/pair", json={"die": GODICE_ID, "use": idle}, headers=REFEREE).status_code == 200
    assert client.post("/api/smart-dice/throw", json={"die": GODICE_ID}, headers=REFEREE).status_code == 200

    def godice_roll():
        return next(d for d in client.get("/api/smart-dice").get_json()["dice"] if d["id"] == GODICE_ID)["last_roll"]

    wait_for(godice_roll, 5, "the throw nobody asked for, shown")
    assert godice_roll()["used"] is False and godice_roll()["why"] == f"{idle}'s die, and {acting} is to act"
    assert len([r for r in read_records(journal) if r["kind"] == Kind.DICE_ENTRY]) == 1
    real = client.post("/api/smart-dice/throw", json={"die": "pixels-real"}, headers=REFEREE)
    assert real.status_code == 400 and "virtual dice" in real.get_json()["error"]
    assert client.get("/api/lobby").get_json()["dice"]["on"] is True  # the lobby page shows the dice too


@pytest.mark.parametrize(
    "changes",
    [
        {"dice": "yes"},
        {"dice_pairs": ["pixels-1"]},
        {"dice_pairs": {"pixels-1": 3}},
        {"dice_pairs": {"pixels-1": "a\nb"}},
    ],
)
def test_a_bad_dice_setting_names_its_field(changes):
    from station.lobby.settings import Settings, SettingsError

    with pytest.raises(SettingsError) as refused:
        Settings().changed(changes)
    assert next(iter(changes)) in str(refused.value)


def test_the_pairings_are_remembered_and_a_die_heard_later_comes_paired(tmp_path):
    from station.lobby.settings import Settings, save_settings

    save_settings(tmp_path, Settings().changed({"dice": True, "dice_pairs": {PIXEL_ID: "red", GODICE_ID: ""}}))
    assert load_settings(tmp_path).dice_pairs == {PIXEL_ID: "red"}  # "not used" is not kept
    from station.devices.dice.source import DiceSource
    from station.devices.dice.virtual import VirtualRadio

    source = DiceSource([VirtualRadio()], load_settings(tmp_path).dice_pairs).start()
    try:
        wait_for(lambda: len(source.nearby()) == 2, 5, "both heard")
        assert {d["id"]: d["use"] for d in source.nearby()} == {PIXEL_ID: "red", GODICE_ID: ""}
    finally:
        source.stop()


def test_a_pairing_made_while_hardware_flags_rule_is_saved_without_replacing_them(lobby, tmp_path):
    """`station serve --serial …` (the Pi's service) keeps its flags; the dice, which no flag
    sets, are still remembered in the settings file and come back at the next start."""
    assert lobby.settings is None  # the command's flags rule
    lobby.dice.configure(False, True, {})
    wait_for(lambda: len(lobby.dice.nearby()["dice"]) == 2, 5, "the virtual dice heard")
    assert lobby.pair_die(PIXEL_ID, "blue") == {PIXEL_ID: "blue"}
    assert lobby.settings is None
    assert load_settings(tmp_path / "data").dice_pairs == {PIXEL_ID: "blue"}
    assert lobby.current_settings().dice_pairs == {PIXEL_ID: "blue"}
    assert lobby.pair_die(PIXEL_ID, "") == {}
    assert load_settings(tmp_path / "data").dice_pairs == {}
