"""The station as an SD-card image (image/, docs/pi.md "The station image"): its network at boot,
from a text file on the card's boot partition, and what its screen says.

A club edits ``station.txt`` on the card from any computer (the boot partition is FAT, which
Windows, macOS and Linux all open)::

    wifi_name = Клуб «Бастион»
    wifi_password = 12345678
    hostname = station

At every boot ``station boot-network`` reads it: the name goes to the system (mDNS then answers
``<hostname>.local``), the Wi-Fi to NetworkManager as a keyfile.  With no Wi-Fi named, or none
joined within a minute and no cable either, the station opens its own access point, named after
it, with a password made once for this card and kept on its data partition; the screen (the
Pi's HDMI and console) shows the QR code that joins it, then the address and, until the station
is claimed, the claim code.

NetworkManager, not hand-written wpa_supplicant and dnsmasq configuration, because it does both
halves with one keyfile each: a client connection and a "shared" access point with its own DHCP
server, and it is Debian's own package.  The root file system is an overlay in memory, so what
this writes to /etc lasts one boot and is written again from ``station.txt`` at the next: the
file on the card is the one truth.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .datafile import write_text_atomic

log = logging.getLogger(__name__)

BOOT_FILE = Path("/boot/firmware/station.txt")
CONNECTIONS = "NetworkManager/system-connections"  # under /etc
KEYS = {"wifi_name", "wifi_password", "hostname", "country"}
HOSTNAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")  # one DNS label (RFC 1123), as mDNS needs
AP_ADDRESS = "10.42.0.1"  # NetworkManager's "shared" network's own address
JOIN_SECONDS = 60.0


class BootFileError(ValueError):
    """``station.txt`` says something the station cannot use: the line and what is wrong."""


@dataclass(frozen=True)
class NetworkPlan:
    hostname: str = "station"
    wifi_name: str | None = None
    wifi_password: str | None = None  # None: an open network
    country: str | None = None  # the Wi-Fi regulatory domain, two letters


def read_boot_file(text: str, where: str = "station.txt") -> NetworkPlan:
    """``text`` (the file as a club wrote it: any editor, a byte-order mark, CRLF lines) as a plan;
    BootFileError names the line."""
    values: dict[str, str] = {}
    for number, line in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        key = key.strip().lower()
        if not sep:
            raise BootFileError(f"{where}, line {number}: {line!r} is not 'name = value'")
        if key not in KEYS:
            raise BootFileError(f"{where}, line {number}: {key!r} is not one of {', '.join(sorted(KEYS))}")
        values[key] = value.strip()
    hostname = values.get("hostname") or "station"
    if not HOSTNAME.match(hostname):
        raise BootFileError(f"{where}: hostname {hostname!r} must be small Latin letters, digits and '-', up to 63")
    name, password = values.get("wifi_name") or None, values.get("wifi_password") or None
    if name is not None and len(name.encode()) > 32:
        raise BootFileError(f"{where}: wifi_name is {len(name.encode())} bytes; a Wi-Fi name is at most 32")
    if password is not None and not 8 <= len(password) <= 63:
        raise BootFileError(
            f"{where}: wifi_password must be 8 to 63 characters (WPA2), or left out for an open network"
        )
    if password is not None and name is None:
        raise BootFileError(f"{where}: wifi_password without a wifi_name")
    country = values.get("country") or None
    if country is not None and not re.fullmatch(r"[A-Za-z]{2}", country):
        raise BootFileError(f"{where}: country {country!r} must be two letters, such as RU or DE")
    return NetworkPlan(hostname, name, password, country.upper() if country else None)


def _keyfile_text(value: str) -> str:
    """``value`` as a GLib key file writes a string (NetworkManager's keyfiles are GLib key files)."""
    escaped = value.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    return "\\s" + escaped[1:] if escaped.startswith(" ") else escaped


def _ssid(name: str) -> str:
    """A Wi-Fi name as NetworkManager reads it back byte for byte: its UTF-8 bytes as a list when it
    holds a ';' (a key file's list separator) or a control character, else as text."""
    if ";" in name or any(ord(c) < 32 for c in name):
        return ";".join(str(b) for b in name.encode()) + ";"
    return _keyfile_text(name)


def client_keyfile(plan: NetworkPlan) -> str:
    """The NetworkManager connection that joins the club's Wi-Fi."""
    assert plan.wifi_name is not None
    security = (
        f"\n[wifi-security]\nkey-mgmt=wpa-psk\npsk={_keyfile_text(plan.wifi_password)}\n" if plan.wifi_password else ""
    )
    return (
        "[connection]\nid=station-wifi\ntype=wifi\nautoconnect=true\n\n"
        f"[wifi]\nmode=infrastructure\nssid={_ssid(plan.wifi_name)}\n{security}\n"
        "[ipv4]\nmethod=auto\n\n[ipv6]\nmethod=auto\n"
    )


@dataclass(frozen=True)
class AccessPoint:
    name: str
    password: str

    def keyfile(self) -> str:
        """NetworkManager's own access point: WPA2, and a "shared" network that hands out addresses."""
        return (
            "[connection]\nid=station-ap\ntype=wifi\nautoconnect=false\n\n"
            f"[wifi]\nmode=ap\nband=bg\nssid={_ssid(self.name)}\n\n"
            f"[wifi-security]\nkey-mgmt=wpa-psk\nproto=rsn\npairwise=ccmp\ngroup=ccmp\npsk={_keyfile_text(self.password)}\n\n"
            "[ipv4]\nmethod=shared\n\n[ipv6]\nmethod=ignore\n"
        )

    def join_code(self) -> str:
        """The text of the QR code a phone's camera joins with (the ``WIFI:`` scheme)."""

        def escaped(text: str) -> str:
            return re.sub(r'([\\;,:"])', r"\\\1", text)

        return f"WIFI:T:WPA;S:{escaped(self.name)};P:{escaped(self.password)};;"


def access_point(data: Path, hostname: str) -> AccessPoint:
    """This card's access point: made once and kept on the data partition, so a phone that joined
    it once joins it again."""
    path = data / "access-point.json"
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
        return AccessPoint(str(kept["name"]), str(kept["password"]))
    except (OSError, ValueError, KeyError, TypeError):
        pass
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read off a screen and typed
    made = AccessPoint(f"{hostname}-{secrets.token_hex(2)}", "".join(secrets.choice(alphabet) for _ in range(10)))
    write_text_atomic(path, json.dumps({"name": made.name, "password": made.password}))
    return made


def write_connection(etc: Path, name: str, text: str) -> Path:
    """A keyfile NetworkManager takes only when it is the root's alone (mode 600)."""
    folder = etc / CONNECTIONS
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.nmconnection"
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return path


Run = Callable[[Sequence[str]], subprocess.CompletedProcess[str]]


def _run(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(list(command), capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:  # no such tool, or it hung: said, not fatal
        return subprocess.CompletedProcess(list(command), 127, "", str(exc))


def connected(run: Run = _run) -> bool:
    """Whether NetworkManager has any network up (Wi-Fi or a cable), its own access point aside."""
    result = run(["nmcli", "-t", "-f", "NAME,DEVICE,STATE", "connection", "show", "--active"])
    lines = [line.split(":") for line in result.stdout.splitlines()]
    return any(parts[0] != "station-ap" and parts[-1] == "activated" and parts[1] != "lo" for parts in lines)


def bring_up(
    plan: NetworkPlan,
    data: Path,
    run: Run = _run,
    wait: float = JOIN_SECONDS,
    etc: Path = Path("/etc"),
    set_hostname: Callable[[str], None] = socket.sethostname,
) -> AccessPoint | None:
    """The plan carried out: the name, the club's Wi-Fi, and the access point when no network came
    up within ``wait`` seconds; returns the access point if it was opened."""
    try:
        set_hostname(plan.hostname)
        (etc / "hostname").write_text(plan.hostname + "\n", encoding="utf-8")
    except OSError as exc:
        log.warning("could not set the hostname to %s: %s", plan.hostname, exc)
    if plan.country:
        run(["iw", "reg", "set", plan.country])
    run(["nmcli", "radio", "wifi", "on"])
    if plan.wifi_name:
        write_connection(etc, "station-wifi", client_keyfile(plan))
    run(["nmcli", "connection", "reload"])
    deadline = time.monotonic() + (wait if plan.wifi_name else min(wait, 10.0))  # a cable's address: seconds
    while time.monotonic() < deadline:
        if connected(run):
            log.info("network up")
            return None
        time.sleep(min(2.0, max(0.0, deadline - time.monotonic())))
    ap = access_point(data, plan.hostname)
    write_connection(etc, "station-ap", ap.keyfile())
    run(["nmcli", "connection", "reload"])
    result = run(["nmcli", "connection", "up", "station-ap"])
    if result.returncode != 0:
        log.warning("the access point did not open: %s", (result.stderr or result.stdout).strip())
    return ap


def screen_text(hostname: str, port: int, addresses: Sequence[str], ap: AccessPoint | None, claim: str | None) -> str:
    """What the Pi's screen says once the network is decided: how a phone gets to the station."""
    import io

    import segno

    def qr(text: str) -> str:
        out = io.StringIO()
        segno.make(text, error="m").terminal(out, compact=True)
        return out.getvalue()

    suffix = "" if port == 80 else f":{port}"
    lines = ["", "Referee station", "==============="]
    if ap is not None:
        lines += [
            f"No Wi-Fi joined: the station's own network is {ap.name!r}, password {ap.password}.",
            "1. Scan this with the phone's camera to join it:",
            qr(ap.join_code()),
        ]
        address = f"http://{AP_ADDRESS}{suffix}/"
    else:
        address = f"http://{hostname}.local{suffix}/"
    lines += [("2. " if ap else "") + f"Open {address} (or scan this):", qr(address)]
    others = [a for a in addresses if a != address]
    if others:
        lines.append("Also: " + "  ".join(others))
    if claim:
        lines.append(f"Claim code: {claim}  (the first phone enters it to become the referee)")
    lines.append("Wi-Fi for the club: write wifi_name and wifi_password in station.txt on the card's boot partition.")
    return "\n".join(lines) + "\n"
