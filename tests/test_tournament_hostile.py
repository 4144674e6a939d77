"""The tournament against what a club's broker can carry and what a Pi's disk can do
(station/tournament/messages.py, subscriber.py), with a real Mosquitto and real tables: no
message stops it, every poison is set aside once with its reason, and a storage failure is
waited out, with every real record kept exactly once."""

import json
import os
import sqlite3
import threading
import time

from station.publish import BrokerUrl, client
from station.tournament.app import create_tournament_app
from station.tournament.broker import LocalBroker
from tests import test_tournament
from tests.conftest import fill, tmpfs
from tests.test_tournament import Tournament, exactly_once, wait_for

broker, tables = test_tournament.broker, test_tournament.tables  # the same fixtures: a Mosquitto, stations

POISON = [
    ("station/t1/records", json.dumps({"journal": "x.jsonl", "record": {"seq": 2**64, "kind": "rx"}}).encode()),
    ("station/t1/records", b'{"journal": "x.jsonl", "record": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    ("station/t1/records", json.dumps({"journal": "x.jsonl", "record": {"seq": 1, "kind": "game", "armies": [1, 2]}}).encode()),
    ("station/t1/records", json.dumps({"journal": "x.jsonl", "record": {"seq": 2, "kind": "end", "winner": {"a": 1}}}).encode()),
    ("station/t1/records", json.dumps({"journal": "x.jsonl", "record": {"seq": 3, "kind": "judge", "note": {"a": 1}}}).encode()),
    ("station/t1/records", b'{"journal": "x.jsonl", "record": {"seq": NaN, "kind": "rx"}}'),
    ("station/t1/records", json.dumps({"journal": {"a": 1}, "record": {"seq": 4, "kind": "rx"}}).encode()),
    ("station/t1/state", b"null"),
    ("station/t1/health", b"[[[[[[]]]]]]"),
    ("station/t1/health", b"\xff\xfe not utf-8"),
    ("station/t1/records", b"{not json"),
]  # fmt: skip


def _publish(url, messages, retain=False, name="vandal"):
    vandal = client(name, BrokerUrl.parse(url))
    vandal.connect(BrokerUrl.parse(url).host, BrokerUrl.parse(url).port)
    vandal.loop_start()
    for topic, payload in messages:
        vandal.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)
    vandal.disconnect()
    vandal.loop_stop()


def test_no_message_stops_the_tournament_and_each_poison_is_set_aside_once(broker, tables, tmp_path):
    tournament = Tournament(tmp_path, broker.url)
    one, two, three = tables("t1"), tables("t2"), tables("t3")
    one.play(5)
    _publish(broker.url, POISON)
    two.play(5)
    three.play(5)
    exactly_once(tournament, one, two, three)
    wait_for(lambda: tournament.store.counters().get("malformed", 0) == len(POISON), 20, "every poison set aside")
    reasons = [r["reason"] for r in tournament.store.rejects()]
    assert any("seq must be" in r for r in reasons) and any("nested" in r for r in reasons)
    assert (
        any("armies" in r for r in reasons) and any("winner" in r for r in reasons) and any("NaN" in r for r in reasons)
    )
    assert tournament.subscriber.health()["taking"]
    tournament.kill()  # a restart: nothing set aside comes back (each was acknowledged)
    tournament.start()
    one.play(3)
    exactly_once(tournament, one, two, three)
    time.sleep(1.0)
    assert tournament.store.counters()["malformed"] == len(POISON)


def test_a_storage_failure_is_waited_out_and_the_tournament_heals_by_itself(broker, tables, tmp_path):
    with tmpfs(tmp_path / "disk", "16m") as disk:
        _locked_read_only_and_full(broker, tables, disk)


def _locked_read_only_and_full(broker, tables, small_disk):
    tournament = Tournament(small_disk, broker.url)
    screen = create_tournament_app(tournament.store, "judge-token", tournament.subscriber).test_client()
    t = tables("t1")
    t.play(5)
    exactly_once(tournament, t)

    other = sqlite3.connect(small_disk / "tournament.sqlite", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another program holds the database
    t.play(10)
    wait_for(lambda: tournament.subscriber.health()["error"] is not None, 20, "the lock noticed")
    said = screen.get("/api/tables").get_json()
    assert said["broker"] and not said["taking"] and "locked" in said["error"]
    other.execute("ROLLBACK")
    other.close()
    exactly_once(tournament, t)  # by itself, nothing lost or doubled
    assert screen.get("/api/tables").get_json()["taking"]

    store = tournament.store  # read-only: SQLite's own switch (a busy mount cannot be remounted)
    with store._lock:
        store._db.execute("PRAGMA query_only = ON")
    t.play(10)
    wait_for(lambda: "readonly" in (tournament.subscriber.health()["error"] or ""), 20, "read-only noticed")
    with store._lock:
        store._db.execute("PRAGMA query_only = OFF")
    exactly_once(tournament, t)

    filler = fill(small_disk)  # then full
    t.play(20)
    wait_for(lambda: tournament.subscriber.health()["error"] is not None, 20, "the full disk noticed")
    os.unlink(filler)
    exactly_once(tournament, t)
    assert tournament.subscriber.health() == {**tournament.subscriber.health(), "taking": True, "error": None}
    tournament.kill()


def test_the_subscribers_callbacks_never_raise(broker, tmp_path):
    tournament = Tournament(tmp_path, broker.url)
    seen = []

    def watching(client_, userdata, message):
        try:
            tournament.subscriber._on_message(client_, userdata, message)
        except BaseException as exc:  # noqa: BLE001 - what the test looks for
            seen.append(exc)
            raise

    tournament.subscriber._client.on_message = watching
    threads = [threading.Thread(target=_publish, args=(broker.url, POISON, False, f"vandal-{k}")) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wait_for(lambda: tournament.store.counters().get("malformed", 0) == len(POISON), 20, "the poisons set aside")
    time.sleep(1.0)
    assert seen == [] and tournament.store.counters()["malformed"] == len(POISON)  # the same message twice: one
    tournament.kill()


def test_a_poisoned_health_topic_never_stops_a_tables_publishing(broker, tables, tmp_path):
    _publish(broker.url, [("station/t1/health", b"null")], retain=True)  # there before the table comes
    tournament = Tournament(tmp_path, broker.url)
    t = tables("t1")
    t.play(5)
    _publish(broker.url, [("station/t1/health", b"[" * 5000 + b"]" * 5000), ("station/t1/health", b"[1, 2]")])
    t.play(25)
    exactly_once(tournament, t)
    health = t.station.publisher.health()
    assert health["publishing"] and health["error"] is None and health["stalled_s"] == 0.0
    tournament.kill()


def test_a_publisher_that_stops_getting_acknowledgements_says_so(broker, tables, tmp_path, monkeypatch):
    monkeypatch.setattr("station.publish.STALLED_S", 1.0)
    t = tables("t1")
    wait_for(lambda: t.station.publisher.health()["publishing"], 10, "publishing")
    t.station.publisher._client.on_publish = lambda *args: None  # acknowledgements stop arriving
    t.play(5)
    wait_for(lambda: not t.station.publisher.health()["publishing"], 10, "the stall told")
    assert t.station.publisher.health()["connected"] and t.station.publisher.health()["stalled_s"] >= 1.0


def test_delivered_means_kept_through_a_broker_crash_while_the_tournament_is_away(tables, tmp_path, monkeypatch):
    """The tournament killed, then the broker killed (no autosave in between: Mosquitto's
    default is 30 minutes) and restarted: what the broker had acknowledged and lost is sent again,
    because a table's mark moves only on the tournament's confirmation."""
    monkeypatch.setattr("station.publish.RESEND_AFTER_S", 2.0)
    broker = LocalBroker(tmp_path / "broker", autosave_s=1800).start()
    try:
        tournament = Tournament(tmp_path, broker.url)
        a, b = tables("t1", broker.url), tables("t2", broker.url)
        a.play(5)
        b.play(5)
        exactly_once(tournament, a, b)
        wait_for(lambda: a.station.publisher.health()["confirmed"] == len(a.journaled()), 20, "t1 confirmed")
        tournament.kill()
        a.play(30)
        b.play(30)
        wait_for(lambda: a.station.publisher.health()["acked"] == len(a.journaled()), 20, "the broker took them")
        broker.crash()  # before it ever saved them
        broker.start()
        a.play(5)
        for t in (a, b):  # the tables are back first: what they send again reaches no tournament
            wait_for(lambda t=t: t.station.publisher.health()["acked"] == len(t.journaled()), 30, "sent again")
        tournament.start()
        b.play(5)
        exactly_once(tournament, a, b)  # nothing lost, nothing doubled: the tournament's word made them resend
    finally:
        broker.stop()
