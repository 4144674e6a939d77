"""The dice at the table: every smart die in range, what each is doing, which player it belongs
to, and its rolls, handed to the game exactly once.

One asyncio loop on its own thread runs the radios: Pixels dice are read from their advertisements
(no connection, so eight or more cost nothing), GoDice over a connection kept while the die is
assigned, and remade when it drops.  A roll goes to ``on_roll`` (the running game, which journals
it when it was asking for that die); the answer, used or why not, is shown with the die.  Nothing
here waits on the web; the web reads ``nearby()`` under a lock.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from .codec import (
    GODICE_BATTERY,
    GODICE_COLOUR,
    GODICE_NAME_PREFIX,
    GODICE_NOTIFY,
    GODICE_WRITE,
    PIXELS_NOTIFY,
    PIXELS_WRITE,
    DiceBytesError,
    Motion,
    godice_colour,
    godice_message,
    godice_pulse,
    pixels_advert,
    pixels_blink,
)
from .rolls import Roll, RollWatch
from .transport import Advert, Connection, Radio, RadioUnavailable

log = logging.getLogger(__name__)

SILENT_S = 5.0  # a Pixels die advertises several times a second: five silent seconds is out of range
RECONNECT_S = (0.5, 1.0, 2.0, 5.0)  # a GoDice link that drops is remade after these, then every 5 s


def NO_GAME(roll: Roll, player: str) -> str:
    return "no game is running"


@dataclass
class Die:
    id: str
    make: str  # "pixels" or "godice"
    radio: Radio
    address: str
    name: str
    watch: RollWatch
    colour: str = ""
    heard_at: float = 0.0
    rssi: int | None = None
    use: str = ""  # "" not used, ANY_PLAYER, or a player
    connection: Connection | None = None
    connecting: bool = False
    drops: int = 0
    last_roll: dict[str, Any] | None = None
    bad_bytes: int = 0
    tasks: set[asyncio.Task[None]] = field(default_factory=set)


class DiceSource:
    def __init__(
        self,
        radios: Sequence[Radio],
        assigned: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.radios = list(radios)
        self._assigned = dict(assigned or {})  # remembered before the die is heard (settings)
        self._clock = clock
        self._dice: dict[str, Die] = {}
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="dice", daemon=True)
        self.on_roll: Callable[[Roll, str], str] = NO_GAME  # (roll, player): "" when used, else why not
        self.problem = ""  # why a radio could not start, for the settings page
        self.rolls = 0
        self.false_rests = 0
        self._stopping = False
        # one connection attempt at a time: a controller (BlueZ's, bumble's) refuses a second
        # while one is pending, so a blink and a GoDice's reconnect would fail each other
        self._one_connect = asyncio.Lock()

    # ---- life ------------------------------------------------------------------------------
    def start(self) -> DiceSource:
        self._thread.start()
        for radio in self.radios:
            self._call(self._start_radio(radio))
        return self

    async def _start_radio(self, radio: Radio) -> None:
        try:
            await radio.start(lambda advert, radio=radio: self._heard(radio, advert))  # type: ignore[misc]
        except RadioUnavailable as exc:
            self.problem = str(exc)
            log.warning("dice: %s", exc)

    def stop(self) -> None:
        if not self._thread.is_alive():
            return
        future = asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop)
        try:
            future.result(timeout=10)
        except Exception:  # a radio that will not stop must not hold up the station's exit
            log.exception("dice: stopping the radios")
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

    async def _shutdown(self) -> None:
        self._stopping = True  # a link closed now is not remade
        for die in list(self._dice.values()):
            for task in list(die.tasks):
                task.cancel()
            if die.connection is not None:
                await _quietly(die.connection.close())
                die.connection = None
        for radio in self.radios:
            await _quietly(radio.stop())

    def _call(self, coroutine: Any) -> Future[Any]:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    # ---- what the radios hear --------------------------------------------------------------
    def _heard(self, radio: Radio, advert: Advert) -> None:
        now = self._clock()
        if advert.name.startswith(GODICE_NAME_PREFIX):
            die = self._die(f"godice-{advert.address.replace(':', '').lower()}", "godice", radio, advert, 6)
            die.heard_at, die.rssi = now, advert.rssi
            self._keep_connected(die)
            return
        pixels = _pixels(advert)
        if pixels is None:
            return
        make_id = f"pixels-{pixels.pixel_id:08x}" if pixels.pixel_id is not None else f"pixels-{advert.address}"
        die = self._die(make_id, "pixels", radio, advert, pixels.sides)
        die.heard_at, die.rssi = now, advert.rssi
        self._read(die, pixels.reading, now)

    def _die(self, die_id: str, make: str, radio: Radio, advert: Advert, sides: int) -> Die:
        die = self._dice.get(die_id)
        if die is None:
            with self._lock:
                die = Die(die_id, make, radio, advert.address, advert.name or die_id, RollWatch(die_id, sides))
                die.use = self._assigned.get(die_id, "")
                self._dice[die_id] = die
            log.info("dice: %s %s heard (%s)", make, die.name, die_id)
        die.address = advert.address
        return die

    def _read(self, die: Die, reading: Any, now: float) -> None:
        before = die.watch.not_rolls
        roll = die.watch.read(reading, now)
        self.false_rests += die.watch.not_rolls - before
        if roll is None:
            return
        self.rolls += 1
        if not die.use:
            why = "this die is not paired with a player"
        else:
            try:
                why = self.on_roll(roll, die.use)
            except Exception as exc:  # the journal cannot write (a full disk): said, never a lost reader
                log.exception("dice: %s's throw could not go to the game", die.name)
                why = str(exc)
        with self._lock:
            die.last_roll = {"face": roll.face, "throw": roll.throw, "used": not why, "why": why}
        log.info("dice: %s rolled %d%s", die.name, roll.face, f" (not used: {why})" if why else "")

    # ---- GoDice: a connection while assigned ----------------------------------------------
    def _keep_connected(self, die: Die) -> None:
        """A paired GoDice gets a connection, once: the flag is set before the task runs, so the
        adverts heard meanwhile do not start a second."""
        if die.use and die.connection is None and not die.connecting and not self._stopping:
            die.connecting = True
            self._spawn(die, self._connect_godice(die))

    async def _connect_godice(self, die: Die) -> None:
        die.connecting = True
        try:
            for attempt in itertools.count():
                if not die.use or self._stopping:
                    return
                try:
                    async with self._one_connect:
                        die.connection = await die.radio.connect(
                            die.address,
                            GODICE_NOTIFY,
                            lambda data: self._godice_bytes(die, data),
                            lambda: self._godice_lost(die),
                        )
                    await die.connection.write(GODICE_WRITE, bytes([GODICE_BATTERY]))
                    await die.connection.write(GODICE_WRITE, bytes([GODICE_COLOUR]))
                    log.info("dice: %s connected", die.name)
                    return
                except Exception as exc:  # out of range, adapter busy: try again, slower
                    log.debug("dice: %s connect failed: %s", die.name, exc)
                    if die.connection is not None:  # connected, then a write failed: start afresh
                        connection, die.connection = die.connection, None
                        await _quietly(connection.close())
                    await asyncio.sleep(RECONNECT_S[min(attempt, len(RECONNECT_S) - 1)])
        finally:
            die.connecting = False

    def _godice_bytes(self, die: Die, data: bytes) -> None:
        colour = godice_colour(data)
        if colour is not None:
            with self._lock:
                die.colour = colour
            return
        try:
            reading = godice_message(data, die.watch.sides)
        except DiceBytesError as exc:
            die.bad_bytes += 1
            log.debug("dice: %s: %s", die.name, exc)
            return
        die.heard_at = self._clock()
        if reading is not None:
            self._read(die, reading, die.heard_at)

    def _godice_lost(self, die: Die) -> None:
        """Called by the radio (on the loop) when a GoDice link drops: remade while assigned."""
        die.connection = None
        die.drops += 1
        if die.watch.link_lost():
            log.warning("dice: %s lost mid-roll", die.name)
        self._keep_connected(die)

    def _spawn(self, die: Die, coroutine: Any) -> None:
        task = self._loop.create_task(coroutine)
        die.tasks.add(task)
        task.add_done_callback(die.tasks.discard)

    # ---- what the referee does -------------------------------------------------------------
    def assign(self, die_id: str, use: str) -> None:
        """Pair ``die_id`` with a player (or ANY_PLAYER, or "" to leave it out), and blink it so the
        referee sees which die that was.  KeyError for a die never heard."""
        with self._lock:
            if die_id not in self._dice:
                raise KeyError(die_id)
            self._assigned[die_id] = use
        self._call(self._assign(die_id, use)).result(timeout=5)

    async def _assign(self, die_id: str, use: str) -> None:
        """On the loop: the pairing at once; the connection and the blink after, so a die out of
        reach never holds up the referee's request."""
        die = self._dice[die_id]
        die.use = use
        if die.make == "godice" and not use and die.connection is not None:
            connection, die.connection = die.connection, None
            await _quietly(connection.close())
        if use:
            self._spawn(die, self._connect_and_blink(die))

    async def _connect_and_blink(self, die: Die) -> None:
        if die.make == "godice":
            self._keep_connected(die)
            for _ in range(200):  # the blink needs the link: up to 10 s for it
                if die.connection is not None or not die.use:
                    break
                await asyncio.sleep(0.05)
        await self._blink(die)

    async def _blink(self, die: Die) -> None:
        try:
            if die.make == "godice":
                if die.connection is not None:
                    await die.connection.write(GODICE_WRITE, godice_pulse())
                return
            async with self._one_connect:
                link = await die.radio.connect(die.address, PIXELS_NOTIFY, lambda data: None, lambda: None)
            try:
                await link.write(PIXELS_WRITE, pixels_blink())
            finally:
                await _quietly(link.close())
        except Exception as exc:  # a blink is a courtesy: the pairing stands without it
            log.info("dice: %s did not blink: %s", die.name, exc)

    def assigned(self) -> dict[str, str]:
        with self._lock:
            return {k: v for k, v in self._assigned.items() if v}

    def nearby(self) -> list[dict[str, Any]]:
        """Every die heard, for the settings page and the hub badge."""
        now = self._clock()
        with self._lock:
            dice = list(self._dice.values())
        out = []
        for die in sorted(dice, key=lambda d: (not d.use, d.name)):
            watch = die.watch
            if die.make == "godice":
                link = "connected" if die.connection is not None else ("connecting" if die.use else "in range")
            else:
                link = "in range"
            if now - die.heard_at > SILENT_S and die.connection is None:
                link = "silent"
            out.append(
                {
                    "id": die.id,
                    "make": die.make,
                    "name": die.name,
                    "colour": die.colour,
                    "sides": watch.sides,
                    "battery": watch.battery,
                    "link": link,
                    "rssi": die.rssi,
                    "use": die.use,
                    "motion": watch.motion.value,
                    "face": watch.face if watch.motion in (Motion.ROLLED, Motion.RESTING) else None,
                    "lost_mid_roll": watch.lost_mid_roll,
                    "drops": die.drops,
                    "throws": watch.throws,
                    "last_roll": die.last_roll,
                    "virtual": getattr(die.radio, "virtual", False),
                }
            )
        return out

    def health(self) -> dict[str, Any]:
        dice = [d for d in self.nearby() if d["use"]]
        return {
            "dice": dice,
            "problem": self.problem,
            "low_battery": [d["name"] for d in dice if d["battery"] is not None and d["battery"] < 20],
        }

    def throw(self, die_id: str) -> None:
        """A virtual die thrown from the browser (the rehearsal hub's): ValueError for a real one."""
        with self._lock:
            die = self._dice.get(die_id)
        if die is None or not getattr(die.radio, "virtual", False):
            raise ValueError(f"{die_id} is not one of the rehearsal hub's virtual dice")
        self._call(die.radio.throw(die.address)).result(timeout=5)  # type: ignore[attr-defined]


def _pixels(advert: Advert) -> Any:
    """A Pixels die's advertisement read, or None for anything else in range."""
    pixel_data = next((d for d in advert.service_data.values() if len(d) == 8), None)
    for company, payload in advert.manufacturer.items():
        if len(payload) == 3 and pixel_data is not None:
            try:
                return pixels_advert(company, payload, pixel_data)
            except DiceBytesError:
                return None
    return None


async def _quietly(awaitable: Any) -> None:
    try:
        await awaitable
    except Exception as exc:
        log.debug("dice: %s", exc)
