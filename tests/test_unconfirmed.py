"""A ruling left pending when its round ends (issue 36): by default it stands unchallenged, as a
dispute is settled when it arises (Бронепехота §12.2); the option ``unconfirmed`` keeps it
waiting.  Either way the statuses say so, and nothing journaled changes."""

from __future__ import annotations

import pytest

from station.fold import fold
from station.journal import read_records
from station.rules.bronepekhota.army import load_army
from station.runtime import Station
from tests.faults.crash import ARMY_FILES


def _two_rounds(tmp_path, options):
    station = Station(tmp_path / "game.jsonl", "bronepekhota", [load_army(p) for p in ARMY_FILES], options).start()
    game = station.game
    game.operator_input("begin_round", {})
    game.operator_input("jump", {"element": "cyber-1"})  # refused (no jump pack): waits for the referee
    first = [r for r in game.snapshot()["rulings"] if r["status"] == "pending"]
    game.operator_input("begin_round", {})
    game.operator_input("repair", {"element": "cyber-1"})  # refused in round 2: not a machine
    return station, first


@pytest.mark.parametrize("options, then", [({}, "unchallenged"), ({"unconfirmed": "wait"}, "pending")])
def test_a_ruling_pending_when_its_round_ends_stands_or_waits(tmp_path, options, then):
    station, first = _two_rounds(tmp_path, options)
    try:
        assert len(first) == 1
        statuses = {r["id"]: r["status"] for r in station.game.snapshot()["rulings"]}
        assert statuses[first[0]["id"]] == then
        assert [s for i, s in statuses.items() if i.endswith(":repair")] == ["pending"]  # this round's still waits
        snapshot = station.game.snapshot()
        assert snapshot["round_began"] > first[0]["cause"]
        station.game.confirm(first[0]["id"])  # confirming it later is still allowed
        assert {r["id"]: r["status"] for r in station.game.snapshot()["rulings"]}[first[0]["id"]] == "confirmed"
    finally:
        station.stop()
    replayed = fold(read_records(tmp_path / "game.jsonl"))  # a replay says the same
    assert replayed.status(next(r for r in replayed.rulings if r.id == first[0]["id"])) == "confirmed"


def test_an_unchallenged_ruling_is_not_counted_as_waiting(tmp_path):
    station, first = _two_rounds(tmp_path, {})
    try:
        # only round 2's: its refused repair, and the units that had not acted when it began (§3.2)
        assert station.table_summary()["waiting"] == 2
        pending = [r["id"] for r in station.game.snapshot()["rulings"] if r["status"] == "pending"]
        assert sorted(i.split(":")[1] for i in pending) == ["repair", "round-not-over"]
        end = station.game.end("done")
        assert end["pending"] == 2
    finally:
        station.stop()


def test_every_update_carries_the_statuses_it_changed(tmp_path):
    """The screens are told each ruling's status, computed once on the station: a new ruling's,
    a confirmed one's, and, when a round begins, the one that now stands unchallenged (the page
    worked them out itself, a second copy of the rule)."""
    station = Station(tmp_path / "game.jsonl", "bronepekhota", [load_army(p) for p in ARMY_FILES], {}).start()
    told: list[dict] = []
    subscription = station.bus.subscribe()
    try:
        game = station.game
        game.operator_input("begin_round", {})
        refused = game.operator_input("jump", {"element": "cyber-1"})[0]
        game.operator_input("begin_round", {})
        game.confirm(refused.id)
        while (message := subscription.get(timeout=1)) is not None:
            told.append(message)
            if refused.id in message["statuses"] and message["statuses"][refused.id] == "confirmed":
                break
    finally:
        station.bus.unsubscribe(subscription)
        station.stop()
    said = [m["statuses"].get(refused.id) for m in told if refused.id in m["statuses"]]
    assert said == ["pending", "unchallenged", "confirmed"]
    assert all(r["status"] == m["statuses"][r["id"]] for m in told for r in m["rulings"])
