"""Is there a hub on this port?  ``probe_hub`` asks it to introduce itself (``SYNC``) and waits
for its ``HELLO``, acknowledging nothing, so the events it holds stay for the game."""

from __future__ import annotations

import time

import serial

from . import protocol as p
from .link import BAUD, OTHER_BAUDS, LineAssembler

PROBE_SECONDS = 1.5  # a hub answers SYNC at once; its heartbeat comes every second anyway


class ProbeError(OSError):
    """The port could not be opened or read (missing, busy, no permission)."""


def probe_hub(
    url: str, seconds: float = PROBE_SECONDS, baud: int = BAUD, ask: p.Message | None = None
) -> p.Hello | None:
    """The hub's HELLO on ``url`` at ``baud``, or None when something else (or nothing) is there.
    ``ask`` is what to send instead of SYNC (the ``station hub-id`` command's ID)."""
    try:
        port = serial.serial_for_url(url, baudrate=baud, timeout=0.05)
    except (serial.SerialException, OSError, ValueError) as exc:
        raise ProbeError(str(exc)) from None
    try:
        port.write(p.encode(ask or p.Sync(1, p.PROTOCOL_VERSION)))
        assembler, deadline = LineAssembler(), time.monotonic() + seconds
        while time.monotonic() < deadline:
            for raw in assembler.feed(port.read(port.in_waiting or 1)):
                try:
                    message = p.decode(raw.rstrip(b"\r"))
                except p.ProtocolError:
                    continue
                if isinstance(message, p.Hello) and (ask is None or message.hub == getattr(ask, "hub", None)):
                    return message
        return None
    except (serial.SerialException, OSError) as exc:
        raise ProbeError(str(exc)) from None
    finally:
        port.close()


def find_rate(url: str, seconds: float = PROBE_SECONDS) -> int | None:
    """The rate at which a hub answers on ``url`` (the station's own first), or None."""
    for baud in OTHER_BAUDS:
        if probe_hub(url, seconds, baud) is not None:
            return baud
    return None


def set_hub_id(url: str, hub_id: str, baud: int = BAUD) -> p.Hello | None:
    """Give the hub on ``url`` the id ``hub_id`` (kept in its EEPROM); its HELLO with the new id,
    or None when no hub there takes it (one older than bronehub/1.2)."""
    return probe_hub(url, PROBE_SECONDS, baud, ask=p.SetHubId(1, hub_id))
