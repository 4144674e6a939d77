"""One order, one truth: the live game, its replay and a resumed game agree under every race.

The seeded game night (tests/gamenight.py) plays hubs with drifting clocks, resets, bad lines
and crossing lines, a camera and two referee phones on one journal, interleaved by a seed; 1,000
seeds here, ``make game-night`` runs 100,000.  The tests after it pin each race by hand.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from station.devices import protocol as p
from station.fold import fold
from station.game import Game
from station.hubclock import ClockMap
from station.journal import Journal, read_records
from station.rules.text import catalog, from_message

from .gamenight import WINDOW_MS, check_night, wired_armies

SEEDS, CHUNKS = 1000, 10
FAST_DISK = Path("/dev/shm") if Path("/dev/shm").is_dir() else None  # fsyncs cost nothing in RAM


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_live_replay_and_resume_agree_for_every_seed(chunk):
    size = SEEDS // CHUNKS
    verdicts = [check_night(seed, FAST_DISK) for seed in range(chunk * size, (chunk + 1) * size)]
    failing = {v.seed: v.problems for v in verdicts if v.problems}
    assert failing == {}, f"seeds that disagree (replay one with check_night(seed)): {failing}"
    assert sum(v.rulings for v in verdicts) > 10 * size  # the nights did make rulings


def _line(message: p.Message) -> str:
    return p.encode(message).decode().strip()


@pytest.fixture
def game(tmp_path, armies):
    journal = Journal(tmp_path / "g.jsonl")
    yield Game(journal, "bronepekhota", armies, {}, rng=random.Random(1))
    journal.close()


def test_a_tap_between_a_shot_journaled_and_applied_is_applied_after_it(game):
    """A SHOT journaled by the link, then a web request's input journaled and applied, then the
    SHOT handed to the engine: the live game must apply them in journal order, as the replay does."""
    game.operator_input("begin_round")
    game.operator_input("set_order", {"order": ["blue", "red"]})
    shot = game.journal.append("rx", line=_line(p.Shot(1, "L1", 1, "shell", 1, 1000)), verdict="event")
    game.operator_input("set_order", {"order": ["red", "blue"]})  # the referee's tap races the shot
    assert game.observe(shot) == []  # the tap's request applied it already, before itself
    assert game.state_json() == fold(game.journal.records).state_json()
    fired = next(r for r in game.snapshot()["rulings"] if r["kind"] == "shot")
    assert "does not count" not in fired["text"] and fired["cause"] == shot["seq"]


def test_every_record_is_applied_once_whoever_gets_there_first(game):
    game.operator_input("begin_round")
    records = [
        game.journal.append("rx", line=_line(p.Tilt(n, "T33", s, 80, 1000 * n)), verdict="event")
        for n, s in enumerate(("fallen", "upright", "fallen"), start=1)
    ]
    game.observe(records[1])  # the second applies the first too
    assert game.backlog == 1
    game.observe(records[0])  # already applied: nothing more
    game.observe(records[2])
    assert game.backlog == 0 and game.state_json() == fold(game.journal.records).state_json()


def _clock(hub: str, boot: str, h0: float = 0.0, s0: float = 0.0) -> dict:
    return ClockMap(hub, boot, h0, s0, 1.0, 0.5, 1e-6, 8).record()


def test_a_hit_on_a_hub_whose_clock_is_not_mapped_is_judged_in_words(tmp_path):
    """A hub reset before its clock is mapped: the hit is still ruled and journaled, with a
    finite, worded doubt; the dashboard's state still answers; the replay says the same."""
    journal = Journal(tmp_path / "g.jsonl")
    game = Game(journal, "bronepekhota", wired_armies(), {"hit_window_ms": WINDOW_MS}, rng=random.Random(1))
    nodes = (p.Node("L1", "launcher", 2), p.Node("T21", "tilt"))
    for hub in ("A1A1", "B2B2"):
        game.observe(
            journal.append("rx", line=_line(p.Hello(1, "sim", 1, "0001", nodes, hub=hub)), verdict="control", hub=hub)
        )
        game.observe(journal.append("clock", **_clock(hub, "0001")))
    game.operator_input("begin_round")
    game.operator_input("set_order", {"order": ["blue", "red"]})
    # hub B2B2 restarts: a new boot, no mapping yet
    game.observe(
        journal.append("rx", line=_line(p.Hello(1, "sim", 1, "0002", nodes, hub="B2B2")), verdict="control", hub="B2B2")
    )
    game.observe(journal.append("rx", line=_line(p.Shot(2, "L1", 1, "shell", 1, 5000)), verdict="event", hub="A1A1"))
    game.observe(journal.append("rx", line=_line(p.Tilt(2, "T21", "fallen", 80, 40)), verdict="event", hub="B2B2"))
    heartbeat = _line(p.Heartbeat(0, 600, 0))  # its own clock moves past the wait for late shots
    game.observe(journal.append("rx", line=heartbeat, verdict="control", hub="B2B2"))
    (hit,) = [r for r in game.snapshot()["rulings"] if r["kind"] == "hit"]
    assert hit["details"]["clock_unmapped"] == "B2B2" and "not mapped yet" in hit["text"] and "judge it" in hit["text"]
    assert "inf" not in hit["text"] and all(
        not isinstance(v, float) or math.isfinite(v) for v in hit["details"].values()
    )
    assert "Часы хаба B2B2" in from_message(hit["message"]).said(catalog("ru", "bronepekhota"))
    journal.close()
    records = read_records(journal.path)
    assert hit["id"] in {r["ruling"]["id"] for r in records if r["kind"] == "ruling"}  # journaled
    assert game.errors == 0
    assert json.dumps(fold(records).ruleset.state_view(fold(records).state), allow_nan=False)
    replayed = next(r for r in fold(records).rulings if r.id == hit["id"])
    assert replayed.text == hit["text"]


class ThreeHubs:
    """A game on the game night's three wired hubs, each clock mapped 1:1 onto the station's
    (hub time t is station ms t), lines journaled in the order the test gives."""

    NODES = (p.Node("L1", "launcher", 2), p.Node("L21", "launcher", 2), p.Node("T33", "tilt"), p.Node("T21", "tilt"))

    def __init__(self, tmp_path: Path) -> None:
        self.journal = Journal(tmp_path / "g.jsonl")
        options = {"hit_window_ms": WINDOW_MS}
        self.game = Game(self.journal, "bronepekhota", wired_armies(), options, rng=random.Random(1))
        for hub in ("A1A1", "B2B2", "C3C3"):
            self.line(hub, p.Hello(1, "sim", 1, "0001", self.NODES, hub=hub), "control")
            self.game.observe(self.journal.append("clock", **_clock(hub, "0001")))
            self.line(hub, p.Heartbeat(0, 1_000, 0), "control")  # every hub heard
        self.game.operator_input("begin_round")
        self.game.operator_input("set_order", {"order": ["blue", "red"]})

    def line(self, hub: str, message: p.Message, verdict: str = "event") -> list:
        record = self.journal.append("rx", line=_line(message), verdict=verdict, hub=hub)
        return self.game.observe(record)

    def hits(self) -> list[dict]:
        return [r for r in self.game.snapshot()["rulings"] if r["kind"] == "hit"]

    def link(self, hub: str, state: str) -> list:
        """The hub's link lost or connected again, as its reader journals it."""
        return self.game.observe(self.journal.append("link", state=state, url=f"/dev/hub-{hub}", hub=hub))


def test_crossing_lines_name_the_latest_shot_on_the_timeline(tmp_path):
    """Two shots on two hubs in one window, the model falls 40 ms after the later one, and the
    later shot's line arrives after the fall's: the later shot is the hit's, whatever the order
    the lines came in (it named the earlier one, with no doubt)."""
    table = ThreeHubs(tmp_path)
    table.line("A1A1", p.Shot(2, "L1", 1, "shell", 1, 10_000))  # gryphon (blue), hub A
    table.line("C3C3", p.Tilt(2, "T33", "fallen", 80, 10_140))  # clone-3 falls, hub C
    assert table.hits() == []  # another hub's shot may still be on the wire: the fall waits
    table.line("B2B2", p.Shot(2, "L21", 1, "shell", 1, 10_100))  # salamander (red), hub B, late
    table.line("A1A1", p.Heartbeat(0, 10_500, 0), "control")  # the timeline moves past the wait
    (hit,) = table.hits()
    assert hit["details"]["shooter"] == "salamander" and hit["details"]["candidates"] == 2, hit
    table.journal.close()
    assert fold(read_records(table.journal.path)).state_json() == table.game.state_json()


def test_a_shot_from_a_hub_unplugged_at_the_shot_rules_the_fall_again_when_it_comes(tmp_path):
    """The shooter's hub is unplugged for 5 s at the shot: the fall is ruled with no shot once
    the wait is over, and the shot's line, resent after the replug, rules it again in a new
    ruling that supersedes the first; both are journaled (nothing was re-ruled before)."""
    table = ThreeHubs(tmp_path)
    table.link("A1A1", "lost")
    table.line("C3C3", p.Tilt(2, "T33", "fallen", 80, 10_140))  # clone-3 falls
    for up in range(10_500, 15_500, 1000):  # hubs B and C go on; A is unplugged
        table.line("B2B2", p.Heartbeat(0, up, 0), "control")
    alone = [r for r in table.game.snapshot()["rulings"] if r["id"].endswith(":fall")]
    assert len(alone) == 1 and "no shot" in alone[0]["text"] and table.hits() == []
    assert "Hub A1A1 is disconnected" in alone[0]["text"] and alone[0]["needs_referee"]
    assert alone[0]["details"]["hubs_away"] == ["A1A1"]
    table.link("A1A1", "connected")
    table.line("A1A1", p.Shot(2, "L1", 1, "shell", 1, 10_100))  # resent after the replug
    (hit,) = table.hits()
    assert hit["details"]["supersedes"] == alone[0]["id"] and hit["details"]["shooter"] == "gryphon"
    assert "supersedes" in hit["text"] and hit["needs_referee"]
    table.journal.close()
    records = read_records(table.journal.path)
    journaled = {r["ruling"]["id"] for r in records if r["kind"] == "ruling"}
    assert {alone[0]["id"], hit["id"]} <= journaled
    assert "disconnected" not in hit["text"] and "hubs_away" not in hit["details"]  # A is back
    assert fold(records).state_json() == table.game.state_json()


def test_a_fall_with_no_shot_while_no_hub_is_away_is_ruled_without_the_referee(tmp_path):
    """The same fall with every hub connected: no hub can hold a shot still, so nothing is
    said of one (the shot that comes later anyway still supersedes it)."""
    table = ThreeHubs(tmp_path)
    table.line("C3C3", p.Tilt(2, "T33", "fallen", 80, 10_140))
    table.line("B2B2", p.Heartbeat(0, 10_500, 0), "control")
    (alone,) = [r for r in table.game.snapshot()["rulings"] if r["id"].endswith(":fall")]
    assert "disconnected" not in alone["text"] and "hubs_away" not in alone["details"]


def test_a_hit_ruled_while_another_hub_is_away_says_so(tmp_path):
    """A shot on A, the fall on C, and hub B unplugged: B may hold a later shot in the same
    window, so the hit names A's shot and asks the referee, in both languages."""
    table = ThreeHubs(tmp_path)
    table.link("B2B2", "lost")
    table.line("A1A1", p.Shot(2, "L1", 1, "shell", 1, 10_000))
    table.line("C3C3", p.Tilt(2, "T33", "fallen", 80, 10_040))
    table.line("A1A1", p.Heartbeat(0, 10_500, 0), "control")
    (hit,) = table.hits()
    assert hit["details"]["shooter"] == "gryphon" and hit["details"]["hubs_away"] == ["B2B2"]
    assert "Hub B2B2 is disconnected" in hit["text"] and hit["needs_referee"]
    assert "Хаб B2B2 отключён" in from_message(hit["message"]).said(catalog("ru", "bronepekhota"))
    table.journal.close()
    assert fold(read_records(table.journal.path)).state_json() == table.game.state_json()


def test_a_link_record_from_before_hubs_were_named_is_not_folded():
    """Older journals' link records named no hub: they replay as they did, as no step at all."""
    from station.fold import is_folded, is_step

    assert not is_step({"kind": "link", "seq": 5, "state": "lost", "url": "/dev/ttyUSB0"})
    assert is_step({"kind": "link", "seq": 5, "state": "lost", "url": "/dev/ttyUSB0", "hub": "A1A1"})
    assert not is_folded({"kind": "link", "seq": 5, "state": "opened", "url": "x", "hub": "A1A1"})


def test_a_fall_from_a_hub_unplugged_at_the_fall_is_still_the_shots_hit(tmp_path):
    """The target's hub is unplugged for 5 s at the fall: its line, resent after the replug,
    is still the shot's hit (it was "fell with no shot in the hit window: no damage")."""
    table = ThreeHubs(tmp_path)
    table.line("A1A1", p.Shot(2, "L1", 1, "shell", 1, 10_100))
    for up in range(10_500, 15_500, 1000):  # A and B go on; C is unplugged
        table.line("B2B2", p.Heartbeat(0, up, 0), "control")
    table.line("C3C3", p.Tilt(2, "T33", "fallen", 80, 10_140))  # resent after the replug
    table.line("C3C3", p.Heartbeat(0, 15_600, 0), "control")
    (hit,) = table.hits()
    assert hit["details"]["shooter"] == "gryphon" and hit["element"] == "clone-3"
    assert not [r for r in table.game.snapshot()["rulings"] if r["id"].endswith(":fall")]


def test_every_record_kind_the_station_writes_is_named_once():
    """Record kinds are one enum (station/records.py): every kind in the recorded sessions is
    one of its members."""
    from station.records import Kind

    sessions = Path(__file__).parent / "data" / "sessions"
    kinds = {r["kind"] for path in sessions.glob("*.jsonl") for r in read_records(path)}
    assert len(kinds) > 8 and kinds <= set(Kind), kinds - set(Kind)
