"""Smart dice emulated in-process with bumble: real advertisements and real GATT between virtual
Bluetooth controllers on one link, no radio (issue 52).

``BumbleRadio`` is the station's radio seam (station/devices/dice/transport.py) over a bumble
central; the dice are bumble peripherals: a Pixels die advertises its manufacturer data (state,
face, battery) and serves the Pixels service for ``Blink``; a GoDice serves the Nordic UART
service and notifies ``R`` and ``S`` + x, y, z.  Everything runs on the dice source's own loop;
a test drives the dice from its thread with ``radio.run(...)``.
"""

from __future__ import annotations

import asyncio
import struct
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from bumble.controller import Controller
from bumble.core import UUID, AdvertisingData
from bumble.device import Connection, Device, Peer
from bumble.gatt import Characteristic, CharacteristicValue, Service
from bumble.hci import Address
from bumble.host import Host
from bumble.link import LocalLink
from bumble.transport.common import AsyncPipeSink

from station.devices.dice.codec import (
    GODICE_NOTIFY,
    GODICE_WRITE,
    PIXELS_NOTIFY,
    PIXELS_SERVICE,
    PIXELS_WRITE,
    Motion,
    godice_stable,
    pixels_manufacturer,
)
from station.devices.dice.transport import Advert

PIXELS_ADVERT_MS = 50  # a die advertises every 50 ms here; real Pixels every 100 ms or so


@dataclass
class DieSpec:
    make: str  # "pixels" or "godice"
    address: str
    name: str
    battery: int = 90
    pixel_id: int = 0


@dataclass
class EmulatedDie:
    spec: DieSpec
    device: Device
    notify: Characteristic | None = None
    written: list[bytes] = field(default_factory=list)
    face: int = 1
    motion: Motion = Motion.RESTING
    sent_at: float = 0.0  # when it last told a rest (time.perf_counter)


def _controller_device(link: LocalLink, name: str, address: str) -> Device:
    controller = Controller(name, link=link)
    return Device(name=name, address=Address(address), host=Host(controller, AsyncPipeSink(controller)))


class BumbleConnection:
    def __init__(self, connection: Connection, peer: Peer) -> None:
        self.connection, self.peer = connection, peer

    async def write(self, characteristic: str, data: bytes) -> None:
        found = self.peer.get_characteristics_by_uuid(UUID(characteristic))
        if not found:
            raise ConnectionError(f"no characteristic {characteristic}")
        await found[0].write_value(data, with_response=False)

    async def close(self) -> None:
        try:
            await self.connection.disconnect()
        except Exception:
            pass


class BumbleRadio:
    """The station's side: a bumble central scanning and connecting on the shared link."""

    name = "bumble"

    def __init__(self, specs: list[DieSpec]) -> None:
        self.specs = specs
        self.dice: dict[str, EmulatedDie] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self._central: Device | None = None
        self.connections: dict[str, Connection] = {}

    # -- the radio seam ----------------------------------------------------------------------
    async def start(self, on_advert: Callable[[Advert], None]) -> None:
        self.loop = asyncio.get_running_loop()
        link = LocalLink()
        for k, spec in enumerate(self.specs):
            self.dice[spec.address] = await self._emulate(link, spec, k)
        central = _controller_device(link, "station", "C0:00:00:00:00:01")
        await central.power_on()

        def heard(advertisement: Any) -> None:
            data = advertisement.data
            name = data.get(AdvertisingData.COMPLETE_LOCAL_NAME) or ""
            manufacturer = data.get(AdvertisingData.MANUFACTURER_SPECIFIC_DATA)
            service = data.get(AdvertisingData.SERVICE_DATA_128_BIT_UUID)
            on_advert(
                Advert(
                    str(advertisement.address).split("/")[0],
                    name if isinstance(name, str) else bytes(name).decode(),
                    {manufacturer[0]: bytes(manufacturer[1])} if manufacturer else {},
                    {str(service[0]): bytes(service[1])} if service else {},
                    advertisement.rssi,
                )
            )

        central.on("advertisement", heard)
        await central.start_scanning(filter_duplicates=False)
        self._central = central

    async def stop(self) -> None:
        if self._central is not None:
            await self._central.stop_scanning()

    async def connect(
        self, address: str, notify: str, on_notify: Callable[[bytes], None], on_lost: Callable[[], None]
    ) -> BumbleConnection:
        assert self._central is not None
        connection = await asyncio.wait_for(self._central.connect(Address(address)), 5.0)
        connection.on("disconnection", lambda reason: on_lost())
        peer = Peer(connection)
        await peer.discover_services()
        await peer.discover_characteristics()
        found = peer.get_characteristics_by_uuid(UUID(notify))
        if found:
            await found[0].subscribe(lambda value: on_notify(bytes(value)))
        self.connections[address] = connection
        return BumbleConnection(connection, peer)

    # -- the dice ----------------------------------------------------------------------------
    async def _emulate(self, link: LocalLink, spec: DieSpec, k: int) -> EmulatedDie:
        device = _controller_device(link, spec.name, spec.address)
        die = EmulatedDie(spec, device)

        def written(connection: Any, value: bytes) -> None:
            die.written.append(bytes(value))
            if spec.make == "godice" and value[:1] == b"\x03":
                self._spawn(self._notify(die, b"Bat" + bytes([spec.battery])))
            elif spec.make == "godice" and value[:1] == bytes([23]):
                self._spawn(self._notify(die, b"Col" + bytes([k % 6])))

        notify_uuid, write_uuid = (
            (PIXELS_NOTIFY, PIXELS_WRITE) if spec.make == "pixels" else (GODICE_NOTIFY, GODICE_WRITE)
        )
        die.notify = Characteristic(notify_uuid, Characteristic.Properties.NOTIFY, Characteristic.READABLE, b"")
        write = Characteristic(
            write_uuid,
            Characteristic.Properties.WRITE | Characteristic.Properties.WRITE_WITHOUT_RESPONSE,
            Characteristic.WRITEABLE,
            CharacteristicValue(write=written),
        )
        device.add_service(Service(PIXELS_SERVICE, [die.notify, write]))  # GoDice's is the same UART service
        await device.power_on()
        device.advertising_data = self._advertising(die)
        await device.start_advertising(
            auto_restart=True, advertising_interval_min=PIXELS_ADVERT_MS, advertising_interval_max=PIXELS_ADVERT_MS
        )
        return die

    def _advertising(self, die: EmulatedDie) -> bytes:
        fields: list[tuple[int, bytes]] = [(AdvertisingData.COMPLETE_LOCAL_NAME, die.spec.name.encode())]
        if die.spec.make == "pixels":
            company, payload = pixels_manufacturer(6, die.motion, die.face, die.spec.battery)
            fields.append((AdvertisingData.MANUFACTURER_SPECIFIC_DATA, struct.pack("<H", company) + payload))
            service = UUID(PIXELS_SERVICE).to_bytes() + struct.pack("<II", die.spec.pixel_id, 1_700_000_000)
            fields.append((AdvertisingData.SERVICE_DATA_128_BIT_UUID, service))
        return bytes(AdvertisingData(fields))

    async def _notify(self, die: EmulatedDie, data: bytes) -> None:
        assert die.notify is not None
        await die.device.notify_subscribers(die.notify, data)

    def _spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        assert self.loop is not None
        self.loop.create_task(coroutine)

    async def tell(self, address: str, motion: Motion, face: int | None = None, godice: bytes = b"") -> None:
        """The die's state changes: a Pixels die advertises it, a GoDice notifies ``godice`` (its
        bytes for this state: R, S…, FS…)."""
        die = self.dice[address]
        die.motion = motion
        if face is not None:
            die.face = face
        if motion in (Motion.ROLLED, Motion.RESTING):
            die.sent_at = time.perf_counter()
        if die.spec.make == "pixels":
            data = self._advertising(die)
            die.device.advertising_data = data  # what a restart after a connection sends
            advertising = die.device.legacy_advertising_set  # bumble advertises legacy PDUs from a set
            if advertising is not None:
                await advertising.set_advertising_data(data)
        elif godice:
            await self._notify(die, godice)

    async def throw(self, address: str, face: int, tumble_s: float = 0.3) -> None:
        die = self.dice[address]
        godice = die.spec.make == "godice"
        await self.tell(address, Motion.HANDLING)
        await self.tell(address, Motion.ROLLING, godice=b"R" if godice else b"")
        await asyncio.sleep(tumble_s)
        await self.tell(address, Motion.ROLLED, face, godice=godice_stable(face) if godice else b"")

    async def pick_up(self, address: str, face: int, kind: bytes = b"MS", jolt_s: float = 0.0) -> None:
        """Picked up (or nudged) and put down on ``face``: a GoDice says ``kind`` (FS, TS, MS); a
        jolt of ``jolt_s`` may make either make say "rolling" for a moment first."""
        die = self.dice[address]
        godice = die.spec.make == "godice"
        await self.tell(address, Motion.HANDLING)
        if jolt_s:
            await self.tell(address, Motion.ROLLING, godice=b"R" if godice else b"")
            await asyncio.sleep(jolt_s)
        ending = Motion.RESTING
        if not godice and jolt_s:  # a Pixels die held still after a jolt says "rolled" (DiceFirmware #78)
            ending = Motion.ROLLED
        await self.tell(address, ending, face, godice=godice_stable(face, kind=kind) if godice else b"")

    async def drop_link(self, address: str) -> None:
        """The die's link drops (out of range, a flat cell): the station sees the disconnection."""
        connection = self.connections.pop(address, None)
        if connection is not None:
            await connection.disconnect()

    def run(self, coroutine: Coroutine[Any, Any, Any], timeout: float = 10.0) -> Any:
        """Run ``coroutine`` on the dice's loop from a test's thread."""
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)
