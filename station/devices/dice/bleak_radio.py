"""The real radio: bleak, over BlueZ and D-Bus on a Raspberry Pi.

bleak is the well-kept cross-platform BLE library for Python (GoDice's own Python API is built on
it); on Linux it talks to BlueZ, so no root and no raw HCI socket.  A scan runs all the time, with
duplicates kept: a Pixels die's state is in every advertisement it sends.  hardware.md says why a
USB dongle beats the Pi 4's own radio, which shares its chip with Wi-Fi.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from .transport import Advert, RadioUnavailable

log = logging.getLogger(__name__)

# said on the settings page (in its language: the web catalog has it); the reason is in the log
NO_BLUETOOTH = "Bluetooth is not available: is BlueZ running, and a Bluetooth adapter plugged in?"


class BleakConnection:
    def __init__(self, client: Any) -> None:
        self._client = client

    async def write(self, characteristic: str, data: bytes) -> None:
        await self._client.write_gatt_char(characteristic, data, response=False)

    async def close(self) -> None:
        await self._client.disconnect()


class BleakRadio:
    name = "bluetooth"

    def __init__(self, adapter: str | None = None) -> None:
        self.adapter = adapter  # hci0, hci1 (a dongle): None is BlueZ's default
        self._scanner: Any = None

    def _options(self) -> dict[str, Any]:
        return {"adapter": self.adapter} if self.adapter else {}

    async def start(self, on_advert: Callable[[Advert], None]) -> None:
        try:
            from bleak import BleakScanner
        except ImportError as exc:  # pragma: no cover - bleak is a dependency
            log.warning("bleak is not installed: %s", exc)
            raise RadioUnavailable(NO_BLUETOOTH) from None

        def heard(device: Any, data: Any) -> None:
            on_advert(
                Advert(
                    device.address,
                    data.local_name or device.name or "",
                    dict(data.manufacturer_data),
                    {str(k): bytes(v) for k, v in data.service_data.items()},
                    data.rssi,
                )
            )

        try:
            self._scanner = BleakScanner(heard, **self._options())
            await self._scanner.start()
        except Exception as exc:  # BlueZ missing, adapter off, no permission: the log says which
            log.warning("Bluetooth did not start: %s: %s", type(exc).__name__, exc)
            raise RadioUnavailable(NO_BLUETOOTH) from None

    async def stop(self) -> None:
        if self._scanner is not None:
            await self._scanner.stop()
            self._scanner = None

    async def connect(
        self, address: str, notify: str, on_notify: Callable[[bytes], None], on_lost: Callable[[], None]
    ) -> BleakConnection:
        from bleak import BleakClient

        client = BleakClient(address, disconnected_callback=lambda _client: on_lost(), timeout=10.0, **self._options())
        await client.connect()
        await client.start_notify(notify, lambda _char, data: on_notify(bytes(data)))
        return BleakConnection(client)
