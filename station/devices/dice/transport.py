"""The seam between the dice and a Bluetooth stack: what the station needs of a radio, and
nothing else.  ``BleakRadio`` (bleak over BlueZ, on the Pi) is the real one; the rehearsal hub's
``VirtualRadio`` and the tests' bumble radio (tests/sim/bledice.py: real advertisements and GATT
between emulated controllers) are the others.  Everything above the seam, from the bytes to the
journal, is the same code for all three.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Advert:
    """One advertisement heard: who sent it, and what it carried."""

    address: str
    name: str = ""
    manufacturer: dict[int, bytes] = field(default_factory=dict)  # company id: payload
    service_data: dict[str, bytes] = field(default_factory=dict)  # service uuid: data
    rssi: int | None = None


class Connection(Protocol):
    async def write(self, characteristic: str, data: bytes) -> None: ...

    async def close(self) -> None: ...


class Radio(Protocol):
    """A Bluetooth adapter as the dice source uses it.  Callbacks come on the source's loop."""

    name: str

    async def start(self, on_advert: Callable[[Advert], None]) -> None: ...

    async def stop(self) -> None: ...

    async def connect(
        self, address: str, notify: str, on_notify: Callable[[bytes], None], on_lost: Callable[[], None]
    ) -> Connection: ...


class RadioUnavailable(RuntimeError):
    """No adapter, no BlueZ, or bleak missing: said once on the settings page, never a crash."""
