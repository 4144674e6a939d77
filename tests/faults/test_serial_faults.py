"""Faults on the serial side, each over a whole scripted game (issue 9): cable pulls at random
moments, damaged lines, noise at the wrong baud rate, duplicated and reordered lines, and a hub
reset mid-game.  Each must lose and double nothing, rule as a clean pass does, show on the
dashboard's health, and recover by itself."""

import random

import pytest

from ..test_link import wait_for
from .rig import Rig, script

STEPS = script(30)


@pytest.fixture
def rig(tmp_path, armies):
    rig = Rig(tmp_path, armies)
    yield rig
    rig.close()


def test_cable_pulls_at_random_moments(rig):
    rng = random.Random(5)
    pulls = []

    def maybe_pull(index):
        if rng.random() < 0.2:
            pulls.append(index)
            rig.hub.disconnect(rng.uniform(0.01, 0.1))  # over before the next step, 0.2 s on

    rig.play(STEPS[:10], before=maybe_pull, pace=0.2)
    rig.hub.unplug()  # one long pull, to see the dashboard say so
    wait_for(lambda: rig.health()["state"] == "lost", what="the dashboard to show the link lost")
    rig.play(STEPS[10:15])  # the game goes on; the hub keeps these
    rig.hub.replug()
    rig.play(STEPS[15:], before=maybe_pull, pace=0.2)
    rig.settle(STEPS)
    rig.check(STEPS)
    health = rig.health()
    assert health["state"] == "connected" and health["reconnects"] >= 1 + len(set(pulls)) // 2, (pulls, health)


@pytest.mark.parametrize(
    "fault, counters",
    [
        ("bitflip", ("checksum_errors", "syntax_errors", "unknown")),
        ("truncate", ("checksum_errors", "syntax_errors")),
        ("garbage", ("checksum_errors", "syntax_errors", "unknown")),
        ("corrupt", ("checksum_errors",)),
    ],
)
def test_damaged_lines_are_refused_and_fetched_again(rig, fault, counters):
    rig.play(STEPS, before=lambda i: rig.hub.inject(fault) if i % 3 == 1 else None)
    rig.settle(STEPS)
    rig.check(STEPS)
    health = rig.health()
    assert sum(health[c] for c in counters) >= 5 and health["resends_requested"] >= 1, health
    assert health["state"] == "connected" and health["engine_errors"] == 0


def test_duplicated_and_reordered_lines(rig):
    faults = iter(["duplicate", "reorder"] * 20)
    rig.play(STEPS, before=lambda i: rig.hub.inject(next(faults)) if i % 2 else None)
    rig.settle(STEPS)
    rig.check(STEPS)
    health = rig.health()
    assert health["duplicates"] >= 7 and health["out_of_order"] >= 3, health


@pytest.mark.parametrize("hello_lost", [False, True], ids=["hello", "hello-lost"])
def test_hub_reset_mid_game_restarts_its_numbers(rig, hello_lost):
    rig.play(STEPS[:15])
    rig.settle(STEPS[:15])
    rig.hub.reset("B0B0", hello_lost=hello_lost)
    rig.play(STEPS[15:])
    rig.settle(STEPS)
    rig.check(STEPS)
    health = rig.health()
    assert health["hub_boot"] == "B0B0" and health["state"] == "connected"
    assert health["resets_detected"] == (1 if hello_lost else 0), health
