"""The whole station (journal, link, engine thread, game) against the simulated hub, including a
station restart in the middle of a game."""

from station.devices import protocol as p
from station.devices.hubsim import SimulatedHub
from station.dice import DiceBook
from station.fold import fold
from station.journal import read_records
from station.rules.bronepekhota import Bronepekhota
from station.runtime import Station

from .conftest import wait_for


def _hub(tmp_path, armies):
    return SimulatedHub(tmp_path / "hub", nodes=Bronepekhota(DiceBook()).sensor_nodes(armies), heartbeat=0.2).start()


def _applied(path, type_="SHOT"):
    return [
        r["line"]
        for r in read_records(path)
        if r["kind"] == "rx" and r["verdict"] == "event" and r["line"].startswith(type_)
    ]


def test_a_hit_flows_from_the_hub_to_a_ruling(tmp_path, armies):
    hub = _hub(tmp_path, armies)
    station = Station(tmp_path / "g.jsonl", "bronepekhota", armies, {}, hub.path, seed=2).start()
    try:
        wait_for(lambda: station.health()["state"] == "connected" and station.health()["hub_boot"])
        station.game.operator_input("begin_round")
        station.game.operator_input("set_order", {"order": ["blue", "red"]})
        hub.shot("L1", 1, "shell", t=1000)
        hub.tilt("T33", "fallen", 80, t=1300)
        wait_for(lambda: any(r["kind"] == "hit" for r in station.game.snapshot()["rulings"]), what="hit ruling")
        hit = next(r for r in station.game.snapshot()["rulings"] if r["kind"] == "hit")
        assert hit["element"] == "clone-3" and hit["details"]["destroyed"]
        assert station.health()["events"] == 2 and station.health()["seen_ago_s"] < 2
    finally:
        station.stop()
        hub.stop()


def test_restarted_station_never_applies_a_resent_event_twice(tmp_path, armies):
    hub = _hub(tmp_path, armies)
    path = tmp_path / "g.jsonl"
    station = Station(path, "bronepekhota", armies, {}, hub.path, seed=2).start()
    wait_for(lambda: station.health()["hub_boot"] is not None)
    station.game.operator_input("begin_round")
    for barrel in (1, 2):
        hub.shot("L1", barrel, "shell", t=1000 * barrel)
    wait_for(lambda: len(_applied(path)) == 2 and hub.pending() == 0)
    station.stop()  # the station goes down ...
    with hub._lock:  # ... just after journaling event 2 but before its ACK reached the hub
        hub.ring[2] = p.encode(p.Shot(2, "L1", 2, "shell", 1, 2000))
    hub.shot("L4", 1, "shell", t=3000)  # and the game goes on while it is down
    state_before = fold(read_records(path)).state_json()
    restarted = Station(path, None, serial_url=hub.path, seed=5).start()
    try:
        assert restarted.game.state_json() == state_before
        wait_for(lambda: len(_applied(path)) == 3 and hub.pending() == 0, what="event 3 after restart")
        assert restarted.health()["duplicates"] >= 1
        assert _applied(path) == sorted(set(_applied(path)), key=_applied(path).index)  # no line twice
        records = read_records(path)
        assert fold(records).state_json() == restarted.game.state_json()
    finally:
        restarted.stop()
        hub.stop()
