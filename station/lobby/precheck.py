"""The pre-game check, ``station doctor`` for one game about to start: do the armies load
together, is the hub there with every node they are wired to, is the camera's calibration fresh
and good, is there room for the journal.  A failed check refuses the start; the referee may
start anyway with a note, and the check and the note are journaled."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..datafile import DataFileError
from ..dice import DiceBook
from ..doctor import Finding, calibration, disk
from ..events import NODE_AT
from ..rules.registry import make_ruleset
from ..rules.text import joined, say


def _armies(game: str, armies: Sequence[Mapping[str, Any]], options: Mapping[str, Any]) -> Finding:
    try:
        make_ruleset(game, DiceBook()).initial_state(armies, options)
    except (DataFileError, ValueError) as exc:
        return Finding("armies", "fail", str(exc), say("fix the army or the option it names"))
    return Finding("armies", "ok", say("{armies_count} armies load together", armies_count=len(armies)))


def _hub(
    game: str, armies: Sequence[Mapping[str, Any]], serial_urls: tuple[str, ...], health: Mapping[str, Any]
) -> Finding:
    try:
        needed = make_ruleset(game, DiceBook()).sensor_nodes(armies)
    except (DataFileError, ValueError):
        return Finding("hub", "warn", say("not checked: the armies do not load"))
    if not needed:
        return Finding("hub", "ok", say("these armies use no hub nodes"))
    if not serial_urls:
        return Finding(
            "hub",
            "warn",
            say("no hub port is set; the armies are wired to {needed_count} nodes", needed_count=len(needed)),
            say("start the station with --serial, or play with the referee entering shots"),
        )
    if health.get("twin_ids"):
        return Finding(
            "hub",
            "fail",
            say("two hubs say id {hub_id}", hub_id=health["twin_ids"][0]),
            say("give one a new id with `station hub-id PORT` between games, then pair its models again"),
        )
    hubs = list(health.get("hubs") or [health])
    silent = next((h for h in hubs if h.get("state") != "connected" or not h.get("nodes")), None)
    if silent is not None or len(hubs) < len(serial_urls):
        url = silent.get("url") if silent else ", ".join(serial_urls)
        error = silent.get("last_error") if silent else None
        return Finding(
            "hub",
            "fail",
            say("the hub on {serial_url} is not answering", serial_url=url) + (f" ({error})" if error else ""),
            say("check the hub's USB cable and power; `station doctor` lists the ports"),
        )
    missing, shared, barrels = [], [], []
    for node in needed:
        bare, _, hub_id = node.id.partition(NODE_AT)
        found = [
            (hub, entry)
            for hub in hubs
            for entry in hub["nodes"]
            if entry.split(":")[0] == bare and (not hub_id or hub.get("hub") == hub_id)
        ]
        if not found:
            missing.append(node.id)
        elif len(found) > 1:  # a bare id two boards both have: the army must say which
            shared.append(
                say("{node} is on hubs {hubs}", node=node.id, hubs=", ".join(h.get("hub", "?") for h, _ in found))
            )
        elif node.kind == "launcher" and found[0][1].count(":") == 2 and found[0][1].split(":")[2] != str(node.barrels):
            barrels.append(
                say(
                    "{node} has {on_hub} barrels on the hub, {barrels} in the army",
                    node=node.id,
                    on_hub=found[0][1].split(":")[2],
                    barrels=node.barrels,
                )
            )
    if missing:
        inventory = sorted(
            f"{e.split(':')[0]}{NODE_AT}{h.get('hub')}" if len(hubs) > 1 else e.split(":")[0]
            for h in hubs
            for e in h["nodes"]
        )
        return Finding(
            "hub",
            "fail",
            say(
                "not on the hub: {missing} (the hub has {inventory})",
                missing=", ".join(missing),
                inventory=", ".join(inventory),
            ),
            say("pair the models again (Wiring), or plug those nodes in"),
        )
    if shared:
        return Finding(
            "hub", "fail", joined(shared, "; "), say("pair those models again, so the army names the hub (T1@3F2A)")
        )
    if barrels:
        return Finding("hub", "warn", joined(barrels, "; "), say("correct the army's launcher barrels"))
    if len(hubs) > 1:
        return Finding("hub", "ok", say("all {count} nodes are on the {hubs} hubs", count=len(needed), hubs=len(hubs)))
    return Finding(
        "hub",
        "ok",
        say("all {count} nodes are on the hub ({firmware})", count=len(needed), firmware=health.get("hub_fw")),
    )


def clock_time(wall_iso: str) -> str:
    """A journal's UTC time as the club's clock shows it: 21:04:13."""
    return _dt.datetime.fromisoformat(wall_iso).astimezone().strftime("%H:%M:%S")


def _radio(health: Mapping[str, Any]) -> Finding | None:
    """Radio nodes (hardware.md "Radio option"): each one heard lately, and its cell not low.
    None when no hub has radio nodes."""
    nodes = health.get("radio") or {}
    if not nodes:
        return None
    silent = [
        say("{node} silent since {time}", node=name, time=clock_time(n["heard_at"]))
        for name, n in nodes.items()
        if n["silent"]
    ]
    low = [say("{node} at {volts} V", node=name, volts=n["battery_v"]) for name, n in nodes.items() if n["low_battery"]]
    if silent:
        return Finding(
            "radio",
            "warn",
            joined(silent + low, "; "),
            say("switch the node on or bring it nearer the hub; a silent node's shots and falls wait in it"),
        )
    if low:
        return Finding(
            "radio", "warn", say("low battery: {nodes}", nodes=joined(low)), say("charge those cells before the game")
        )
    weakest = min(nodes.items(), key=lambda item: item[1]["battery_v"])
    return Finding(
        "radio",
        "ok",
        say(
            "{count} radio nodes heard; the lowest cell is {node} at {volts} V",
            count=len(nodes),
            node=weakest[0],
            volts=weakest[1]["battery_v"],
        ),
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


def _marker_sizes(game: str, armies: Sequence[Mapping[str, Any]], calibration_path: Path) -> Finding | None:
    """Every army marker big enough for this mount to be read anywhere on the table, from the
    calibration's pose and each marker's printed size and height.  None when it cannot be told
    (no calibration with a table pose, or armies that do not load)."""
    from ..vision.calibration import CalibrationError, load_calibration
    from ..vision.locate import Locator, specs_from
    from ..vision.readable import RELIABLE_PX

    try:
        cal = load_calibration(calibration_path)
        specs = specs_from(make_ruleset(game, DiceBook()).marker_specs(armies))
    except (CalibrationError, DataFileError, ValueError, OSError):
        return None
    if cal.R is None or not specs:
        return None
    small = Locator(cal, specs).too_small(specs)
    if not small:
        return Finding(
            "markers", "ok", say("every marker is at least {px} px across at this mount", px=int(RELIABLE_PX))
        )
    return Finding(
        "markers",
        "warn",
        joined(
            [
                say(
                    "{markers} would be {px} px here, under the {reliable} px the detector reads reliably; "
                    "print at ≥ {print_mm} mm, or mount the camera lower",
                    markers=group.names,
                    px=group.px,
                    reliable=int(RELIABLE_PX),
                    print_mm=group.print_mm,
                )
                for group in small
            ],
            "; ",
        ),
        say("reprint those markers larger, or mount the camera lower, then calibrate the table again"),
    )


def pregame_checks(
    game: str,
    armies: Sequence[Mapping[str, Any]],
    options: Mapping[str, Any],
    serial_urls: tuple[str, ...],
    hub_health: Mapping[str, Any],
    camera: str | None,
    calibration_path: Path,
    journals: Path,
    seen_markers: Sequence[int] | None = None,
) -> list[Finding]:
    findings = [_armies(game, armies, options), _hub(game, armies, serial_urls, hub_health)]
    radio = _radio(hub_health)
    if radio is not None:
        findings.append(radio)
    if camera is not None:
        findings.append(calibration(calibration_path))
        sizes = _marker_sizes(game, armies, calibration_path)
        if sizes is not None:
            findings.append(sizes)
        findings.append(_deployment(game, armies, seen_markers))
    findings.append(disk(journals))
    return findings
