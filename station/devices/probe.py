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


def probe_hub(url: str, seconds: float = PROBE_SECONDS, baud: int = BAUD) -> p.Hello | None:
    """The hub's HELLO on ``url`` at ``baud``, or None when something else (or nothing) is there."""
    try:
        port = serial.serial_for_url(url, baudrate=baud, timeout=0.05)
    except (serial.SerialException, OSError, ValueError) as exc:
        raise ProbeError(str(exc)) from None
    try:
        port.write(p.encode(p.Sync(1, p.PROTOCOL_VERSION)))
        assembler, deadline = LineAssembler(), time.monotonic() + seconds
        while time.monotonic() < deadline:
            for raw in assembler.feed(port.read(port.in_waiting or 1)):
                try:
                    message = p.decode(raw.rstrip(b"\r"))
                except p.ProtocolError:
                    continue
                if isinstance(message, p.Hello):
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
