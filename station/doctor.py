"""``station doctor``: what on this machine would stop a game, and what to do about it.

Each check returns a ``Finding``: ok, a warning, or a problem, with the fix in words a club
member can follow.  Nothing here changes the machine.
"""

from __future__ import annotations

import datetime as _dt
import grp
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from .rules.text import say

MIN_FREE_MB = 200  # a long game's journal is a few MB; logs and camera stills want room too
CALIBRATION_STALE_DAYS = 30
MAX_RESIDUAL_MM = 3.0


@dataclass(frozen=True)
class Finding:
    check: str
    level: str  # ok | warn | fail
    said: str
    fix: str = ""


def serial_ports(
    lister: Callable[[], list[Any]] | None = None,
    prober: Callable[[str], object] | None = None,
    rate_finder: Callable[[str], int | None] | None = None,
) -> Finding:
    """A hub shows up as a USB serial port and answers SYNC with its HELLO (docs/protocol.md); a port
    where nothing answers (a Pi's own /dev/ttyS0) is listed, but it is not a hub."""
    if lister is None:
        from serial.tools import list_ports

        lister = list_ports.comports
    if prober is None or rate_finder is None:
        from .devices.probe import find_rate, probe_hub

        prober, rate_finder = prober or probe_hub, rate_finder or find_rate
    ports = [port.device for port in lister()]
    if not ports:
        return Finding(
            "serial",
            "warn",
            "no serial ports found",
            "plug the hub in by USB; `station simulate-hub` stands in for one without a board",
        )
    hubs: list[str] = []
    others: list[str] = []
    ids: dict[str, list[str]] = {}
    for port in ports:
        try:
            hello = prober(port)
        except OSError as exc:
            others.append(f"{port} (cannot open: {exc})")
            continue
        if hello is None:
            rate = rate_finder(port)
            others.append(
                f"{port} (no hub answers)"
                if rate is None
                else f"{port} (a hub answers at {rate} baud, not the station's: flash bronehub/1.2, or give --baud {rate})"
            )
        else:
            nodes, hub_id = getattr(hello, "nodes", ()), getattr(hello, "hub", "")
            ids.setdefault(hub_id, []).append(port)
            named = f"id {hub_id}" if hub_id else "no id (fine alone; beside other hubs, flash bronehub/1.2)"
            hubs.append(
                f"hub on {port}: {getattr(hello, 'fw', '?')}, boot {getattr(hello, 'boot', '?')}, {len(nodes)} nodes, {named}"
            )
    said = "; ".join(hubs + others)
    twins = {hub_id: where for hub_id, where in ids.items() if hub_id and len(where) > 1}
    if twins:
        hub_id, where = next(iter(twins.items()))
        return Finding(
            "serial",
            "fail",
            said,
            f"the hubs on {' and '.join(where)} both say id {hub_id}: give one a new id with `station hub-id {where[1]}`",
        )
    if not hubs:
        return Finding(
            "serial",
            "warn",
            said,
            "no hub answered: check its USB cable and power, and that it is flashed (hardware.md)",
        )
    return Finding("serial", "ok", said)


def groups(user_groups: set[str] | None = None) -> list[Finding]:
    """The serial port and the camera need the dialout and video groups (root needs neither)."""
    if user_groups is None:
        if os.geteuid() == 0:
            return [Finding("permissions", "ok", "running as root")]
        user_groups = {grp.getgrgid(g).gr_name for g in os.getgroups()}
    out = []
    for group, need in (("dialout", "the hub's serial port"), ("video", "the camera")):
        if group in user_groups:
            out.append(Finding("permissions", "ok", f"in the {group} group ({need})"))
        else:
            out.append(
                Finding(
                    "permissions",
                    "fail",
                    f"not in the {group} group, needed for {need}",
                    f"sudo usermod -aG {group} $USER, then log out and in again",
                )
            )
    return out


def bluetooth(
    sysfs: Path = Path("/sys/class/bluetooth"),
    user_groups: set[str] | None = None,
    bluez: Callable[[], bool] | None = None,
) -> Finding:
    """Smart dice (hardware.md "Smart dice"): a Bluetooth adapter, on USB rather than the Pi 4's
    own radio (which shares its chip with Wi-Fi), BlueZ, and the bluetooth group.  Only a warning
    at worst: a table without smart dice needs none of it."""
    adapters = sorted(p for p in sysfs.glob("hci*")) if sysfs.is_dir() else []
    if not adapters:
        return Finding("bluetooth", "ok", "no Bluetooth adapter: smart dice are typed instead")
    names = ", ".join(a.name for a in adapters)
    on_usb = [a for a in adapters if "/usb" in str(a.resolve())]
    if not (bluez or _bluez_installed)():
        return Finding("bluetooth", "warn", f"{names}, but BlueZ is not installed", "sudo apt install bluez")
    if user_groups is None:
        user_groups = {"root"} if os.geteuid() == 0 else {grp.getgrgid(g).gr_name for g in os.getgroups()}
    if not {"root", "bluetooth"} & user_groups:
        return Finding(
            "bluetooth",
            "warn",
            f"{names}: not in the bluetooth group, needed for smart dice",
            "sudo usermod -aG bluetooth $USER, then log out and in again",
        )
    if not on_usb:
        return Finding(
            "bluetooth",
            "warn",
            f"{names}: the board's own radio; on a Pi 4 it shares its chip with Wi-Fi and drops dice",
            'a USB Bluetooth dongle, and "dtoverlay=disable-bt" in /boot/firmware/config.txt (hardware.md "Smart dice")',
        )
    return Finding(
        "bluetooth", "ok", f"{', '.join(a.name for a in on_usb)} on USB, BlueZ installed: smart dice can pair"
    )


def _bluez_installed() -> bool:
    return any(Path(p).exists() for p in ("/usr/libexec/bluetooth/bluetoothd", "/usr/sbin/bluetoothd"))


def calibration(path: Path, now: _dt.datetime | None = None) -> Finding:
    """The table calibration: present, recent, and with small anchor residuals."""
    if not path.exists():
        return Finding(
            "calibration",
            "warn",
            say("{path} does not exist", path=str(path)),
            say("run `station calibrate lens` and `station calibrate table` (docs/camera.md, Calibration)"),
        )
    try:
        data = json.loads(path.read_text())
        created = _dt.datetime.fromisoformat(data["created"])
        table = data.get("table", {})
        used = {str(k) for k in table.get("used_anchors", table.get("residuals_mm", {}))}
        # anchors the referee left out (calibrate table --without) do not count against the fit
        residuals = [float(v) for k, v in table.get("residuals_mm", {}).items() if k in used]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return Finding(
            "calibration",
            "fail",
            say("{path} is damaged ({why})", path=str(path), why=str(exc)),
            say("calibrate again"),
        )
    age = ((now or _dt.datetime.now(_dt.UTC)) - created).days
    worst = max(residuals, default=None)
    said = say("{path}: {age} days old", path=str(path), age=age) + (
        say(", worst anchor {worst} mm", worst=f"{worst:.1f}") if worst is not None else say(", no table pose")
    )
    if worst is None:
        return Finding("calibration", "warn", said, say("run `station calibrate table` with the anchors on the table"))
    if worst > MAX_RESIDUAL_MM:
        return Finding(
            "calibration", "fail", said, say("an anchor moved or the camera was knocked: calibrate the table again")
        )
    if age > CALIBRATION_STALE_DAYS:
        return Finding("calibration", "warn", said, say("recalibrate the table if the camera or the table was moved"))
    return Finding("calibration", "ok", said)


def camera(index: int = 0, opener: Callable[[int], Iterator[Any]] | None = None) -> Finding:
    """The overhead camera answers and gives a frame."""
    if opener is None:
        from .vision.sources import open_source

        opener = lambda i: open_source(str(i))  # noqa: E731
    frames = None
    try:
        frames = opener(index)
        frame = next(frames, None)
    except Exception as exc:  # noqa: BLE001 - any failure to reach the camera is the finding itself
        return Finding(
            "camera",
            "warn",
            f"camera {index} is not available ({exc})",
            "plug the camera in, or play with recorded frames (`--camera DIR`)",
        )
    finally:
        if frames is not None and hasattr(frames, "close"):
            frames.close()
    if frame is None:
        return Finding("camera", "warn", f"camera {index} opened but gave no frame", "check its cable and light")
    return Finding("camera", "ok", f"camera {index} gives frames")


def disk(where: Path) -> Finding:
    """Room for the journal: it is fsynced on every input, and a full disk refuses new records."""
    where = where if where.exists() else Path(".")
    free_mb = shutil.disk_usage(where).free / 1e6
    if free_mb < MIN_FREE_MB:
        return Finding(
            "disk",
            "fail",
            say("{free_mb} MB free at {where}", free_mb=f"{free_mb:.0f}", where=str(where.resolve())),
            say("free some space, or give --journal on a bigger disk"),
        )
    return Finding(
        "disk", "ok", say("{free_mb} MB free at {where}", free_mb=f"{free_mb:.0f}", where=str(where.resolve()))
    )


def versions() -> Finding:
    names = ("pyserial", "opencv-python-headless", "numpy", "flask")
    found = []
    for name in names:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} missing")
    missing = [f for f in found if f.endswith("missing") and not f.startswith("opencv")]
    said = f"Python {sys.version.split()[0]}; " + ", ".join(found)
    if missing or sys.version_info < (3, 11):
        return Finding("versions", "fail", said, "run `make demo` (it installs everything) or `pip install -e .`")
    return Finding("versions", "ok", said)


def examine(calibration_path: Path, journal_dir: Path, camera_index: int | None = 0) -> list[Finding]:
    findings = [versions(), serial_ports(), *groups(), bluetooth(), calibration(calibration_path), disk(journal_dir)]
    if camera_index is not None:
        findings.append(camera(camera_index))
    return findings


def report(findings: list[Finding]) -> str:
    marks = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}
    lines = [
        f"{marks[f.level]} {f.check:<12} {f.said}" + (f"\n     fix: {f.fix}" if f.fix and f.level != "ok" else "")
        for f in findings
    ]
    bad = sum(1 for f in findings if f.level == "fail")
    lines.append(
        "All clear."
        if not bad and all(f.level == "ok" for f in findings)
        else f"{bad} problem(s) to fix before a game."
        if bad
        else "Ready, with the warnings above."
    )
    return "\n".join(lines)
