"""The pre-game check, ``station doctor`` for one game about to start: do the armies load
together, is the hub there with every node they are wired to, is the camera's calibration fresh
and good, is there room for the journal.  A failed check refuses the start; the referee may
start anyway with a note, and the check and the note are journaled."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..datafile import DataFileError
from ..dice import DiceBook
from ..doctor import Finding, calibration, disk
from ..rules.registry import make_ruleset
from ..rules.text import joined, say


def _armies(game: str, armies: Sequence[Mapping[str, Any]], options: Mapping[str, Any]) -> Finding:
    try:
        make_ruleset(game, DiceBook()).initial_state(armies, options)
    except (DataFileError, ValueError) as exc:
        return Finding("armies", "fail", str(exc), say("fix the army or the option it names"))
    return Finding("armies", "ok", say("{armies_count} armies load together", armies_count=len(armies)))


def _hub(game: str, armies: Sequence[Mapping[str, Any]], serial_url: str | None, health: Mapping[str, Any]) -> Finding:
    try:
        needed = make_ruleset(game, DiceBook()).sensor_nodes(armies)
    except (DataFileError, ValueError):
        return Finding("hub", "warn", say("not checked: the armies do not load"))
    if not needed:
        return Finding("hub", "ok", say("these armies use no hub nodes"))
    if not serial_url:
        return Finding(
            "hub",
            "warn",
            say("no hub port is set; the armies are wired to {needed_count} nodes", needed_count=len(needed)),
            say("start the station with --serial, or play with the referee entering shots"),
        )
    inventory = {entry.split(":")[0]: entry for entry in health.get("nodes") or []}
    if health.get("state") != "connected" or not inventory:
        error = health.get("last_error")
        return Finding(
            "hub",
            "fail",
            say("the hub on {serial_url} is not answering", serial_url=serial_url) + (f" ({error})" if error else ""),
            say("check the hub's USB cable and power; `station doctor` lists the ports"),
        )
    missing = [n.id for n in needed if n.id not in inventory]
    if missing:
        return Finding(
            "hub",
            "fail",
            say(
                "not on the hub: {missing} (the hub has {inventory})",
                missing=", ".join(missing),
                inventory=", ".join(sorted(inventory)),
            ),
            say("pair the models again (Wiring), or plug those nodes in"),
        )
    barrels = [
        say(
            "{node} has {on_hub} barrels on the hub, {barrels} in the army",
            node=n.id,
            on_hub=inventory[n.id].split(":")[2],
            barrels=n.barrels,
        )
        for n in needed
        if n.kind == "launcher" and inventory[n.id].count(":") == 2 and inventory[n.id].split(":")[2] != str(n.barrels)
    ]
    if barrels:
        return Finding("hub", "warn", joined(barrels, "; "), say("correct the army's launcher barrels"))
    return Finding(
        "hub",
        "ok",
        say("all {count} nodes are on the hub ({firmware})", count=len(needed), firmware=health.get("hub_fw")),
    )


def _deployment(game: str, armies: Sequence[Mapping[str, Any]], seen: Sequence[int] | None) -> Finding:
    """Every model with a marker is on the table, as far as the camera can tell before the game."""
    try:
        wanted = {int(m["id"]): m.get("element", "?") for m in make_ruleset(game, DiceBook()).marker_specs(armies)}
    except (DataFileError, ValueError):
        return Finding("deployment", "warn", say("not checked: the armies do not load"))
    if not wanted:
        return Finding("deployment", "ok", say("no model has a camera marker; the referee checks deployment by eye"))
    if seen is None:
        return Finding("deployment", "warn", say("not checked: the camera gives no picture yet"))
    missing = [
        say("{element} (marker {marker})", element=element, marker=marker)
        for marker, element in sorted(wanted.items())
        if marker not in set(seen)
    ]
    if missing:
        return Finding(
            "deployment",
            "warn",
            say("not seen on the table: {missing}", missing=joined(missing)),
            say("put them on the table (or leave them in reserve), and check nothing hides their markers"),
        )
    return Finding(
        "deployment", "ok", say("all {wanted_count} models with markers are on the table", wanted_count=len(wanted))
    )


def pregame_checks(
    game: str,
    armies: Sequence[Mapping[str, Any]],
    options: Mapping[str, Any],
    serial_url: str | None,
    hub_health: Mapping[str, Any],
    camera: str | None,
    calibration_path: Path,
    journals: Path,
    seen_markers: Sequence[int] | None = None,
) -> list[Finding]:
    findings = [_armies(game, armies, options), _hub(game, armies, serial_url, hub_health)]
    if camera is not None:
        findings.append(calibration(calibration_path))
        findings.append(_deployment(game, armies, seen_markers))
    findings.append(disk(journals))
    return findings
