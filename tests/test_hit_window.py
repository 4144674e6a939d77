"""One real-shooting hit window for both Бронепехота rulebooks (station/rules/hits.py).

Both judge a real hit by the model's state *after the hit* (seed 000 §6.7 Table 4; seed 002 §11:
"judged by its physical state after the hit"), so an impact waits ``settle_ms`` for a fall from
the impact's own time.  The quick rules used to count from the shot, and called a model hit late
in the window "stood" before it could fall; they also let a launcher's recoil count as a hit on
the model that fired it.
"""

from __future__ import annotations

import pytest

from station.devices import protocol as p
from station.rules.hits import Fired, HitTracker, Stamp

from .conftest import Table, hb, impact, tilt
from .test_bronepekhota_quick import Quick

WINDOW, SETTLE = 2500, 1500


def tracker(*shots: tuple[int, str, int]) -> HitTracker[Fired]:
    found: HitTracker[Fired] = HitTracker()
    for seq, shooter, t in shots:
        found = found.fire(Fired(seq=seq, shooter=shooter, t=Stamp(t)))
    return found


def test_the_latest_shot_by_another_model_in_its_window_is_the_one():
    hits = tracker((1, "gun", 1000), (2, "tank", 1800))
    shot, count = hits.shot_for("clone", Stamp(2000), WINDOW)
    assert (shot.seq, count) == (2, 2)
    assert hits.shot_for("clone", Stamp(3600), WINDOW)[0].seq == 2  # only the second is still open
    assert hits.shot_for("clone", Stamp(999), WINDOW) == (None, 0)  # before any shot
    assert hits.shot_for("tank", Stamp(2000), WINDOW)[0].seq == 1  # never its own shot (recoil)


def test_an_impact_waits_from_its_own_time_once_per_target():
    hits = tracker((1, "gun", 1000)).struck(7, "clone", Stamp(3400), WINDOW)  # 2.4 s after the shot
    assert hits.impact_on("clone").t == Stamp(3400)
    assert hits.struck(8, "clone", Stamp(3450), WINDOW) is hits  # a second impact on the same model: the first stands
    assert hits.settled(Stamp(3400 + SETTLE - 1), SETTLE) == []
    (settled,) = hits.settled(Stamp(3400 + SETTLE), SETTLE)
    after, shot = hits.take(settled)
    assert shot.seq == 1 and after.waiting == () and "clone" in shot.hit
    assert after.shot_for("clone", Stamp(3500), WINDOW) == (None, 0)  # a shot hits a model once


def test_shots_expire_unless_an_impact_still_waits_on_them():
    hits = tracker((1, "gun", 1000), (2, "tank", 1100)).struck(5, "clone", Stamp(1200), WINDOW)
    kept = hits.expire(Stamp(1100 + WINDOW + 1), WINDOW)
    assert [s.seq for s in kept.shots] == [2]  # shot 1 is gone; shot 2 (the latest) has an impact waiting
    assert kept.expire(Stamp(1100 + WINDOW + 2), WINDOW) is kept  # nothing to drop: the same tracker


def test_quick_rules_a_late_hit_that_falls_is_a_kill_not_stood():
    """§11: shot at 2.0 s, impact at 4.4 s (inside the 2.5 s window), fall at 4.8 s: killed.
    Counting the settle from the shot would have ruled "stood" at the impact."""
    game = Quick()
    game.do("roll_off", 5, 2)
    game.send(p.Shot(1, "L1", 1, "shell", 1, 2000))
    assert game.send(p.Impact(2, "T31", 6.0, 4400)) == []
    assert game.send(p.Heartbeat(3, 4500, 0)) == []  # still settling
    fell = game.send(p.Tilt(4, "T31", "fallen", 85, 4800))
    assert "killed" in fell[0].text and game.f("raider-1").dead
    assert game.send(p.Heartbeat(5, 9000, 0)) == []  # nothing left to settle


def test_quick_rules_an_impact_that_settles_is_stood_from_the_impact():
    game = Quick()
    game.do("roll_off", 5, 2)
    game.send(p.Shot(1, "L1", 1, "shell", 1, 2000))
    game.send(p.Impact(2, "T21", 6.0, 4400))
    assert game.send(p.Heartbeat(3, 4400 + SETTLE - 1, 0)) == []
    stood = game.send(p.Heartbeat(4, 4400 + SETTLE, 0), 2)
    assert "Crawler" in stood[0].text and "stood" in stood[0].text and game.f("crawler").damage == 2


def test_quick_rules_a_launchers_recoil_is_not_a_hit_on_the_model_that_fired():
    game = Quick()
    game.do("roll_off", 5, 2)
    game.send(p.Shot(1, "L1", 1, "shell", 1, 2000))  # the walker's cannon
    game.send(p.Impact(2, "T1", 3.0, 2050))  # the walker's own tilt node feels the recoil
    assert game.send(p.Heartbeat(3, 9000, 0)) == [] and game.f("walker").damage == 0


@pytest.mark.parametrize("late_ms", [100, 2400])
def test_full_rules_settle_from_the_impact_too(armies, late_ms):
    """§6.7 Table 4: the same timing through the full rules: the vehicle that fell after a late
    impact takes the "fell" row, not "stood"."""
    table = Table(armies)
    table.begin_round()
    table.send(table.shot("L1", t=1000))
    table.send(impact("T21", t=1000 + late_ms))
    assert table.send(hb(1000 + late_ms + 100)) == []
    rulings = table.send(tilt("T21", t=1000 + late_ms + 400), 20, 5)
    hit = next(r for r in rulings if r.kind == "hit")
    assert hit.details["result"] == "fell"
