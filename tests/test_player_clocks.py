"""Each player's clock (issue 50, What 4): the handover follows the game's journal (the end of an
activation hands the time to the other player, with no button), only the referee pauses it,
running out is flagged, and the replay of the journal counts the same seconds as the live game."""

import pytest

from station.clock import FakeClock
from station.dice import DiceBook
from station.fold import fold
from station.game import Game, InputError
from station.journal import Journal, read_records
from station.playerclock import PlayerClocks, wall_seconds
from station.rules.registry import make_ruleset
from tests.conftest import ROOT


@pytest.fixture
def armies():
    ruleset = make_ruleset("bronepekhota", DiceBook())
    return [
        ruleset.load_army(str(ROOT / "station" / "data" / "demo" / f"{n}.json"))
        for n in ("blue-protectorate", "red-polaris")
    ]


def test_the_clock_hands_over_at_the_end_of_an_activation_and_pauses_only_for_the_referee(tmp_path, armies):
    clock = FakeClock()
    game = Game(Journal(tmp_path / "g.jsonl", clock=clock), "bronepekhota", armies, clock_s=60 * 60)
    assert game.header["clock"] == {"seconds": 3600.0}
    game.operator_input("begin_round")
    game.operator_input("set_order", {"order": ["blue", "red"]})
    clock.advance(30)
    assert game.clocks()["running"] == "blue" and game.clocks()["players"]["blue"]["used_s"] == 30
    game.operator_input("activate", {"unit": "cyber"})
    clock.advance(15)
    game.operator_input("end_activation")  # blue's activation ends: red's time runs
    assert game.clocks()["running"] == "red"
    clock.advance(20)
    seen = game.clocks()
    assert seen["players"]["blue"]["used_s"] == 45 and seen["players"]["red"]["used_s"] == 20
    game.set_clocks_running(False)  # the referee stops the clocks for a rules question
    clock.advance(300)
    assert game.clocks()["players"]["red"]["used_s"] == 20 and game.clocks()["paused"]
    game.set_clocks_running(True)
    clock.advance(5)
    live = game.clocks()
    assert live["players"]["red"]["used_s"] == 25 and live["players"]["red"]["left_s"] == 3575
    game.journal.close()

    records = read_records(tmp_path / "g.jsonl")
    replayed = fold(records).clocks  # the replay counts what the journal says, to its last record
    at_last = replayed.view(wall_seconds(records[-1]))
    assert at_last["players"] == {
        "blue": {"used_s": 45.0, "left_s": 3555.0, "out": False},
        "red": {"used_s": 20.0, "left_s": 3580.0, "out": False},
    }
    assert [r["running"] for r in records if r["kind"] == "timer"] == [False, True]


def test_out_of_time_is_flagged_and_a_game_without_clocks_has_none(tmp_path, armies):
    clocks = PlayerClocks(60, {"blue": 0.0, "red": 0.0})
    clocks.step(1000.0, "blue")
    assert clocks.view(1061.0)["players"]["blue"] == {"used_s": 61.0, "left_s": -1.0, "out": True}
    game = Game(Journal(tmp_path / "n.jsonl", clock=FakeClock()), "bronepekhota", armies)
    assert game.clocks() is None and "clock" not in game.header
    with pytest.raises(InputError, match="no players' clocks"):
        game.set_clocks_running(False)
    game.journal.close()
