"""The station's hardware as the referee sets it in the browser, remembered across restarts in the
data folder (``settings.json``), so the systemd unit needs no hardware flags.

What can be chosen: the hub's serial port (from the ports found, each probed for HELLO), the
rehearsal hub instead of one (a simulated hub driven from the browser), the camera (from the
cameras found), the calibration file, the data folder in use (station/lobby/datafolder.py), and
smart dice over Bluetooth with the player each die is paired with.  A flag given to ``station serve`` wins for that run and
is not written here.  The file is replaced whole, so a power cut leaves the old settings or the new.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ..datafile import DataFileError, Fields, load_json_file, problem, write_text_atomic

log = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"
MAX_HUBS = 16  # hub boards on one station: the example armies need ten
DEFAULT_CALIBRATION = "calibration/table.json"


class SettingsError(DataFileError):
    """A settings file or a change to it the station cannot use: names the field."""


@dataclass(frozen=True)
class Settings:
    serial: tuple[str, ...] = ()  # the hubs' ports, one per hub board; none: no hub
    rehearsal: bool = False  # a simulated hub the referee drives from the browser, instead of one
    camera: str | None = None  # a camera index ("0") or a recording; None: no camera
    calibration: str = DEFAULT_CALIBRATION
    data: str | None = None  # the data folder in use, if not this one (station/lobby/datafolder.py)
    dice: bool = False  # smart dice over Bluetooth (hardware.md "Smart dice")
    dice_pairs: dict[str, str] = field(default_factory=dict)  # a die's id: "any" or the player it is paired with

    def changed(self, changes: dict[str, Any], where: str = "settings") -> Settings:
        """These settings with ``changes`` (from the browser) checked: an error names the field."""
        f = Fields(where, changes, error=SettingsError)
        f.reject_unknown(["serial", "rehearsal", "camera", "calibration", "data", "dice", "dice_pairs"])
        text = (str, type(None))
        values: dict[str, Any] = {}
        if "serial" in changes:  # a list of ports (one port, or null, as older settings files say)
            ports = changes["serial"]
            ports = [ports] if isinstance(ports, str) else [] if ports is None else ports
            if not isinstance(ports, list) or not all(isinstance(p, str) and p for p in ports):
                raise SettingsError(where, "serial", 'must be a list of serial ports, like ["/dev/ttyACM0"]')
            bad = next((p for p in ports if _one_line(p)), None)
            if bad is not None or len(set(ports)) != len(ports) or len(ports) > MAX_HUBS:
                raise SettingsError(where, "serial", f"must be up to {MAX_HUBS} different ports, each one line")
            values["serial"] = tuple(ports)
        if "camera" in changes:
            values["camera"] = f.get("camera", text, check=_one_line) or None
        if "rehearsal" in changes:
            values["rehearsal"] = f.get("rehearsal", bool)
        if "calibration" in changes:
            values["calibration"] = f.get("calibration", str, check=_one_line) or DEFAULT_CALIBRATION
        if "data" in changes:
            values["data"] = f.get("data", text, check=_whole_path) or None
        if "dice" in changes:
            values["dice"] = f.get("dice", bool)
        if "dice_pairs" in changes:
            pairs = changes["dice_pairs"]
            if not isinstance(pairs, dict) or not all(
                isinstance(k, str) and isinstance(v, str) and 0 < len(k) <= 64 and len(v) <= 64 and not _one_line(v)
                for k, v in pairs.items()
            ):
                raise SettingsError(
                    where, "dice_pairs", 'must map each die\'s id to "any" or a player, like {"pixels-5eed0001": "any"}'
                )
            values["dice_pairs"] = {k: v for k, v in pairs.items() if v}
        if values.get("serial"):  # a real port chosen: the rehearsal hub steps aside
            values.setdefault("rehearsal", False)
        return replace(self, **values)


def _one_line(value: str | None) -> str | None:
    return (
        problem("must be one line of at most 200 characters") if value and ("\n" in value or len(value) > 200) else None
    )


def _whole_path(value: str | None) -> str | None:
    if value and not value.startswith("/"):
        return problem("must be the whole path, from / (for example /media/usb/station)")
    return _one_line(value)


def load_settings(folder: Path) -> Settings:
    path = folder / SETTINGS_FILE
    if not path.exists():
        return Settings()
    data = load_json_file(path, SettingsError)
    if not isinstance(data, dict):
        raise SettingsError(str(path), "settings", "must be a JSON object")
    return Settings().changed(data, str(path))


def save_settings(folder: Path, settings: Settings) -> None:
    write_text_atomic(folder / SETTINGS_FILE, json.dumps(asdict(settings), indent=2))
    log.info("settings saved: %s", asdict(settings))


def serial_ports(
    lister: Callable[[], list[Any]] | None = None,
    prober: Callable[[str], Any] | None = None,
    skip: tuple[str, ...] = (),
) -> list[dict[str, Any]]:
    """Every serial port found, each probed for a hub's HELLO (``skip``: the ports the station
    has open now, which a probe would disturb)."""
    if lister is None:
        from serial.tools import list_ports

        lister = list_ports.comports
    if prober is None:
        from ..devices.probe import probe_hub

        prober = probe_hub
    found = []
    for port in lister():
        described = getattr(port, "description", "") or ""  # pyserial says "n/a" for none
        entry: dict[str, Any] = {"device": port.device, "description": "" if described == "n/a" else described}
        if port.device in skip:
            entry["in_use"] = True
        else:
            try:
                hello = prober(port.device)
            except OSError as exc:
                entry["error"] = str(exc)
            else:
                if hello is not None:
                    entry["hub"] = {"fw": hello.fw, "boot": hello.boot, "nodes": len(hello.nodes), "id": hello.hub}
        found.append(entry)
    return found


def cameras(devices: Path = Path("/dev")) -> list[dict[str, str]]:
    """The video devices found (``/dev/video0`` is camera "0"); a USB camera often shows as two,
    the second its metadata, which offers no frames."""
    out = []
    for path in sorted(devices.glob("video*")):
        number = path.name[len("video") :]
        if number.isdigit():
            out.append({"camera": number, "device": str(path)})
    return out
