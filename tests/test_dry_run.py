"""The action panel's preview (station/rules/dry_run.py, issue 48): any input applied to the
current state and thrown away, before the referee commits it.  Nothing is journaled and no die
is rolled; a refusal shows why, a shot shows its odds, an input with no dice its words in full."""

from pathlib import Path

import pytest

from station.rules.dry_run import dice_words
from station.rules.price_of_a_mile.army import load_army
from station.runtime import Station
from station.web.app import create_app

from .conftest import REFEREE as REF
from .conftest import REFEREE_TOKEN as TOKEN
from .test_price_of_a_mile import Mile

DATA = Path(__file__).resolve().parent.parent / "station" / "data" / "price_of_a_mile"


def _acting():
    g = Mile()
    g.do("roll_initiative", 5, 3)
    g.do("activate", squad="grenadiers")
    return g


def test_a_preview_changes_nothing_and_rolls_nothing():
    g = _acting()
    before = g.state
    seen = g.rules.preview(g.state, "grenade", {"thrower": "g1", "distance": 4, "difficult": True})
    assert seen["dice"] == "d12 + d6" and seen["summary"].args == {"dice": "d12 + d6"}  # the arrow die, the d6
    assert g.state is before and g.roller.values == [] and g.state.landing is None


def test_a_refusal_is_previewed_with_its_reason_and_section():
    g = _acting()
    seen = g.rules.preview(g.state, "grenade", {"thrower": "g1", "distance": 9})
    assert 'a grenade reaches 6"' in str(seen["refused"]) and "§8.1" in str(seen["refused"])
    assert "not acting" in str(
        g.rules.preview(g.state, "shoot", {"shooter": "p1", "target": "l1", "distance": 9})["refused"]
    )


def test_a_shot_allowed_shows_its_odds_from_the_referees_tape():
    g = _acting()
    seen = g.rules.preview(g.state, "shoot", {"shooter": "g1", "target": "l2", "distance": 5, "cover": True})
    assert seen["need"] == 8 and "8+" in str(seen["summary"]) and "in cover" in str(seen["lines"][0])
    assert seen["input"]["args"] == {"shooter": "g1", "target": "l2", "distance": 5, "cover": True}


def test_an_input_without_dice_is_previewed_in_the_words_it_will_rule():
    g = _acting()
    seen = g.rules.preview(g.state, "move", {"base": "g1", "inches": 4})
    ruled = g.do("move", base="g1", inches=4)[0]
    assert seen["dice"] == "" and str(seen["summary"]) == str(ruled.text)


def test_a_ruling_for_the_referee_is_flagged_in_the_preview():
    g = _acting()
    seen = g.rules.preview(g.state, "move", {"base": "g1", "inches": 12})  # more than its Speed
    assert seen["doubts"] and "judge" in str(seen["doubts"][0])


@pytest.mark.parametrize("asked, said", [([10, 10, 6], "2d10 + d6"), ([6], "d6"), ([20, 4, 4, 4], "d20 + 3d4")])
def test_dice_are_written_as_the_rulebooks_write_them(asked, said):
    assert dice_words(asked) == said


def test_the_preview_api_checks_arguments_and_journals_nothing(tmp_path):
    armies = [load_army(DATA / "entente.json"), load_army(DATA / "central.json")]
    station = Station(tmp_path / "pm.jsonl", "price_of_a_mile", armies, {}, seed=5).start()
    try:
        client = create_app(station, TOKEN).test_client()
        client.post("/api/input", json={"type": "roll_initiative"}, headers=REF)
        records = len(station.game.journal.records)
        bad = client.post(
            "/api/preview", json={"type": "shoot", "args": {"shooter": "p1", "distance": "far"}}, headers=REF
        )
        assert bad.status_code == 400 and bad.get_json()["field"] in ("target", "distance")
        good = client.post(
            "/api/preview?lang=ru", json={"type": "activate", "args": {"squad": "poilus"}}, headers=REF
        ).get_json()
        assert "refused" in good or good["dice"] == ""
        assert len(station.game.journal.records) == records  # nothing journaled, no die rolled
        assert client.post("/api/preview", json={"type": "activate", "args": {}}).status_code == 401
    finally:
        station.stop()


def test_a_refusal_reaches_the_page_in_words_it_can_translate():
    """A refusal's reason travelled as the English of an exception, so a Russian page showed
    «Виртуальный выстрел отклонён: this game is played with real shooting…»."""
    from station.dice import DiceBook
    from station.rules.registry import make_ruleset
    from station.rules.text import with_messages

    rules = make_ruleset("bronepekhota", DiceBook())
    demo = DATA.parent / "demo"
    state = rules.initial_state([rules.load_army(demo / f) for f in ("blue-protectorate.json", "red-polaris.json")], {})
    said = with_messages(rules.preview(state, "virtual_shot", {"shooter": "cyber-3", "target": "clone-3"}))
    reason = said["refused_message"]["args"]["why"]["args"]["no"]
    assert reason["key"] == "this game is played with real shooting; virtual shots need the option shooting=virtual"
