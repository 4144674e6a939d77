"""Rulings checked against the rulebooks (issue 16), played as a referee would meet them: a
session script through `station demo --session … --exit-when-done` (simulated hub, real link,
journal), then `station replay` of the journal, which must derive the same rulings."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

SCENARIOS = Path(__file__).parent / "data" / "scenarios"
EXPECTED = {
    "bronepekhota-gun-and-pilot.json": [
        # §6.7: the impact on clone-1's node, in the Salamander's cockpit, is a hit on the Salamander
        ":hit:salamander] Hit on Salamander (on its pilot figure, which counts as the vehicle, §6.7)",
        # §6.7 with §9.3: the gun knocked over and stood up by hand still may not fire
        "was set upright before any repair; it still may not act.",
        "fired a shell from L4 barrel 1, but a fallen vehicle or gun cannot fire: the shot does not count.",
        "It may be set upright and act again (§6.7).",
        "fired a shell from L4 barrel 2: ammunition",
    ],
    "bronepekhota-repair-and-crew.json": [
        # §9.3: the repair takes cyber-2's whole turn; §7.6: so he cannot serve the gun either
        "repaired by Cyber-infantry 2",
        "Virtual shot refused: Cyber-infantry 2 may not shoot: he is repairing this round.",
        "a crewman fires either the gun or his own weapon",
    ],
    "steel-warriors-close-combat.json": [
        "Refused: bronescafs: robots and bronescafs never fight in close combat, so this squad never assaults.",
        "riders's charge arrives (1.5\"). partisans tests its morale with threat +2",  # 3 riders count 6 v 4, doubled
    ],
    "price-of-a-mile-field-gun.json": [
        "fg1 fires the field gun (unaimed, -2) at l6: d10 8 (Shooting +1, accuracy +0, unaimed -2) → 7 against 8+ (in cover): a miss",
    ],
    "alpha-strike-contact-and-charges.json": [
        "Attack refused: thunderbolt had not finished its movement when locust moved into contact.",
        "charge attack on thunderbolt: TN 4",
        "Attack refused: thunderbolt has already been the target of a charge or death from above this turn.",
        "Attack refused: locust's base touches thunderbolt's: only melee attacks (§8).",
    ],
    # Issue #35, family B: the rules of the path a model took, from the positions the camera journaled
    "alpha-strike-paths.json": [
        "It went through commando: a unit may not pass through enemy units at its height (§5.5).",
        'Catapult CPLT-K2 (catapult) jumps 7.1".\n',  # over thunderbolt: nothing said
    ],
    "price-of-a-mile-trench.json": [
        "It went into sap and out again in one Move: climbing out of a trench takes a whole Move begun in it (§5.6)",
        'g2 moves 2.8": Difficult-Terrain Mode through sap (-1", §5.2).',
    ],
    "bronepekhota-paths.json": [
        "He walked through Cyber-infantry 2 (§4.1).",
        "He touched Clone 3 and walked on; touching an enemy soldier he must stop for close combat (§4.1).",
    ],
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def station(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "station", *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("script", sorted(EXPECTED))
def test_the_scenario_plays_live_and_replays_to_the_same_rulings(script, tmp_path):
    journal = tmp_path / "game.jsonl"
    station(
        "demo", "--session", str(SCENARIOS / script), "--exit-when-done", "--speed", "10",
        "--journal", str(journal), "--port", str(free_port()),
    )  # fmt: skip
    records = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    precheck = next(r for r in records if r["kind"] == "precheck")  # the lobby's start policy, as every start
    assert not precheck["forced"] and precheck["by"] == "station demo", precheck["checks"]
    replayed = station("replay", str(journal), "--rulings")
    assert "all match the journal" in replayed
    for words in EXPECTED[script]:
        assert words in replayed, f"{script}: {words!r} not among the rulings:\n{replayed}"


def test_every_scenario_script_is_checked():
    scripts = [p for p in SCENARIOS.glob("*.json") if json.loads(p.read_text()).get("format") == "station-session/1"]
    assert sorted(p.name for p in scripts) == sorted(EXPECTED)
