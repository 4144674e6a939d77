"""The station's smart dice between games and during them: one dice source for the lobby's life,
its radios as the settings say (Bluetooth when the referee turned smart dice on, the rehearsal
hub's virtual dice while it is on), the pairings remembered in the settings, and the running
game the rolls go to.  Pairing is allowed mid-game: a player who swaps dice does not stop play.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..devices.dice.bleak_radio import BleakRadio
from ..devices.dice.source import DiceSource
from ..devices.dice.transport import Radio
from ..devices.dice.virtual import VirtualRadio

if TYPE_CHECKING:
    from ..runtime import Station

log = logging.getLogger(__name__)


class DiceDesk:
    def __init__(self, make_bluetooth: Callable[[], Radio] = BleakRadio) -> None:
        self.source: DiceSource | None = None
        self._radios: tuple[bool, bool] = (False, False)  # (bluetooth, rehearsal) the source runs
        self.pairs: dict[str, str] = {}  # every die's pairing, heard yet or not (the settings keep it)
        self._make_bluetooth = make_bluetooth
        self._station: Station | None = None
        self._lock = threading.Lock()

    def configure(self, bluetooth: bool, rehearsal: bool, pairs: dict[str, str]) -> None:
        """The radios the settings ask for; a change starts a new source with the same pairings."""
        with self._lock:
            self.pairs = {k: v for k, v in pairs.items() if v}
            if (bluetooth, rehearsal) == self._radios and self.source is not None:
                return
            if self.source is not None:
                self.source.stop()
                self.source = None
            self._radios = (bluetooth, rehearsal)
            radios: list[Radio] = []
            if bluetooth:
                radios.append(self._make_bluetooth())
            if rehearsal:
                radios.append(VirtualRadio())
            if radios:
                self.source = DiceSource(radios, self.pairs).start()
                if self._station is not None:
                    self._station.attach_dice(self.source)
                log.info("dice: listening on %s", ", ".join(r.name for r in radios))

    def attach(self, station: Station) -> None:
        with self._lock:
            self._station = station
            if self.source is not None:
                station.attach_dice(self.source)

    def detach(self, station: Station) -> None:
        with self._lock:
            station.detach_dice()
            if self._station is station:
                self._station = None

    def pair(self, die: str, use: str) -> dict[str, str]:
        """Pair ``die`` (KeyError: never heard) and blink it; returns every pairing, to save."""
        source = self.source
        if source is None:
            raise KeyError(die)
        source.assign(die, use)
        with self._lock:
            self.pairs = {k: v for k, v in {**self.pairs, die: use}.items() if v}
            return dict(self.pairs)

    def throw(self, die: str) -> None:
        if self.source is None:
            raise ValueError("the rehearsal hub is off: it has the virtual dice")
        self.source.throw(die)

    @property
    def bluetooth(self) -> bool:
        return self._radios[0]

    def nearby(self) -> dict[str, Any]:
        """The dice in range for the settings page, and the players of the game running (a die
        is paired with one of them, or with any roll)."""
        source, station = self.source, self._station
        players = [str(a.get("player")) for a in station.game.header["armies"]] if station is not None else []
        return {
            "on": source is not None,
            "players": players,
            "bluetooth": self.bluetooth,
            "problem": source.problem if source else "",
            "dice": source.nearby() if source else [],
        }

    def stop(self) -> None:
        with self._lock:
            if self.source is not None:
                self.source.stop()
                self.source = None
            self._radios = (False, False)
