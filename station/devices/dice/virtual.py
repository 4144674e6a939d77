"""The rehearsal hub's dice: a Pixels die and a GoDice that a referee throws from the browser.

They speak the makes' own bytes (station/devices/dice/codec.py): the Pixels die advertises its
manufacturer data several times a second, the GoDice notifies ``R`` and ``S`` + x, y, z over its
connection, so a rehearsal runs the same reading, roll detection, pairing and journaling as real
dice.  Only the radio is missing.
"""

from __future__ import annotations

import asyncio
import random
import struct
from collections.abc import Callable
from dataclasses import dataclass

from .codec import Motion, godice_stable, pixels_manufacturer
from .transport import Advert

ADVERT_S = 0.1  # a Pixels die advertises every 100 ms or so while it is awake
HANDLING_S, TUMBLE_S = 0.3, 0.6  # a throw: shaken in the hand, then tumbling on the table


@dataclass
class VirtualDie:
    address: str
    make: str  # "pixels" or "godice"
    name: str
    battery: int = 80
    face: int = 1
    motion: Motion = Motion.RESTING
    pixel_id: int = 0


def rehearsal_dice() -> list[VirtualDie]:
    return [
        VirtualDie("0A:00:00:00:00:01", "pixels", "Rehearsal Pixel", pixel_id=0x5EED0001),
        VirtualDie("0A:00:00:00:00:02", "godice", "GoDice_rehearsal", battery=65),
    ]


class VirtualConnection:
    def __init__(self, radio: VirtualRadio, die: VirtualDie, on_notify: Callable[[bytes], None]) -> None:
        self.radio, self.die, self.on_notify = radio, die, on_notify
        self.written: list[bytes] = []

    async def write(self, characteristic: str, data: bytes) -> None:
        self.written.append(bytes(data))
        if self.die.make == "godice" and data[:1] == b"\x03":
            self.on_notify(b"Bat" + bytes([self.die.battery]))
        elif self.die.make == "godice" and data[:1] == bytes([23]):
            self.on_notify(b"Col" + bytes([3]))

    async def close(self) -> None:
        self.radio.connections.pop(self.die.address, None)


class VirtualRadio:
    name = "rehearsal"
    virtual = True

    def __init__(self, dice: list[VirtualDie] | None = None, seed: int | None = None) -> None:
        self.dice = {d.address: d for d in (dice if dice is not None else rehearsal_dice())}
        self.connections: dict[str, VirtualConnection] = {}
        self._rng = random.Random(seed)
        self._task: asyncio.Task[None] | None = None
        self._on_advert: Callable[[Advert], None] = lambda advert: None

    async def start(self, on_advert: Callable[[Advert], None]) -> None:
        self._on_advert = on_advert
        self._task = asyncio.get_running_loop().create_task(self._advertise())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _advertise(self) -> None:
        while True:
            for die in self.dice.values():
                self._announce(die)
            await asyncio.sleep(ADVERT_S)

    def _announce(self, die: VirtualDie) -> None:
        if die.make == "godice":
            self._on_advert(Advert(die.address, die.name, rssi=-50))
            return
        company, payload = pixels_manufacturer(6, die.motion, die.face, die.battery)
        service = struct.pack("<II", die.pixel_id, 1_700_000_000)
        self._on_advert(Advert(die.address, die.name, {company: payload}, {"pixels": service}, rssi=-50))

    async def connect(
        self, address: str, notify: str, on_notify: Callable[[bytes], None], on_lost: Callable[[], None]
    ) -> VirtualConnection:
        die = self.dice.get(address)
        if die is None:
            raise ConnectionError(f"no virtual die at {address}")
        connection = VirtualConnection(self, die, on_notify)
        self.connections[address] = connection
        return connection

    async def throw(self, address: str) -> None:
        """Shaken, thrown, tumbling, at rest on a random face: told as the make tells it."""
        die = self.dice[address]
        face = self._rng.randint(1, 6)
        asyncio.get_running_loop().create_task(self._tumble(die, face))

    async def _tumble(self, die: VirtualDie, face: int) -> None:
        for motion, seconds in ((Motion.HANDLING, HANDLING_S), (Motion.ROLLING, TUMBLE_S)):
            die.motion = motion
            self._tell(die, motion)
            await asyncio.sleep(seconds)
        die.motion, die.face = Motion.ROLLED, face
        self._tell(die, Motion.ROLLED)

    def _tell(self, die: VirtualDie, motion: Motion) -> None:
        if die.make == "pixels":
            self._announce(die)
            return
        connection = self.connections.get(die.address)
        if connection is None:
            return
        if motion is Motion.ROLLING:
            connection.on_notify(b"R")
        elif motion is Motion.ROLLED:
            connection.on_notify(godice_stable(die.face))
