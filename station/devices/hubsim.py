"""A simulated hub that speaks protocol v1 over a pseudo-terminal.

It behaves as docs/protocol.md says the firmware must: numbered events kept in a ring buffer until
ACKed, resent after SYNC or NAK, a heartbeat, a HELLO at power-up, and an OVF event when the ring
was full.  Faults can be injected on the wire (see ``FAULTS``), and the hub can be unplugged or
reset.  The pty's
slave is reached through a stable symlink, as udev's /dev/serial/by-id/ links are, so a replugged
hub reappears at the same path.
"""

from __future__ import annotations

import fcntl
import logging
import os
import random
import threading
import time
import tty
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ..scratch import remove, scratch_folder
from . import protocol as p
from .link import BAUD, LineAssembler

log = logging.getLogger(__name__)

RING_SIZE = 64  # as the firmware's (docs/protocol.md "Ring buffer and overflow")
FAULTS = (
    "drop",  # the line never arrives
    "corrupt",  # one bit flipped in the middle
    "bitflip",  # one to three bits flipped anywhere, the newline included
    "truncate",  # the line cut short (a glitch mid-line)
    "garbage",  # a burst of noise, as a port at the wrong baud rate reads, before the line
    "duplicate",  # the line arrives twice
    "reorder",  # the line arrives after the next one
)


class PtyPort:
    """The hub's end of a pty pair, plugged in and out under a fixed path."""

    def __init__(self, link_path: str | Path) -> None:
        self.link_path = Path(link_path)
        self.master: int | None = None
        self._slave: int | None = None

    def plug(self) -> str:
        master, slave = os.openpty()
        tty.setraw(slave)
        flags = fcntl.fcntl(master, fcntl.F_GETFL)
        fcntl.fcntl(master, fcntl.F_SETFL, flags | os.O_NONBLOCK)
        name = os.ttyname(slave)
        tmp = self.link_path.with_name(self.link_path.name + ".new")
        if tmp.is_symlink():
            tmp.unlink()
        os.symlink(name, tmp)
        os.replace(tmp, self.link_path)
        self.master, self._slave = master, slave
        return name

    def unplug(self) -> None:
        if self.link_path.is_symlink():
            self.link_path.unlink()
        for fd in (self.master, self._slave):
            if fd is not None:
                os.close(fd)
        self.master = self._slave = None

    @property
    def plugged(self) -> bool:
        return self.master is not None


class SimulatedHub:
    """The hub: call ``shot``/``tilt``/``impact`` to make events; run with ``start``."""

    def __init__(
        self,
        link_path: str | Path | None = None,
        nodes: Sequence[p.Node] = (),
        boot: str = "51A1",
        fw: str = "hubsim/1.0",
        ring_size: int = RING_SIZE,
        heartbeat: float = 1.0,
        speed: float = 1.0,
        fault_seed: int = 0,
        hub_id: str = "",
        drift_ppm: float = 0.0,
        uptime_ms: float = 0.0,
        answers_time: bool = True,
    ) -> None:
        """``hub_id`` is said in HELLO (as bronehub/1.2 does; "" as an older hub); its crystal
        runs ``drift_ppm`` fast, and had been up ``uptime_ms`` when started; ``answers_time``
        False is a hub older than the clock question."""
        self._scratch: Path | None = None  # a folder of its own, removed by stop()
        if link_path is None:
            self._scratch = scratch_folder("hubsim")
            link_path = self._scratch / "hub"
        self.port = PtyPort(link_path)
        self.nodes = tuple(nodes) or (p.Node("L1", "launcher", 1), p.Node("T1", "tilt"))
        self.boot, self.fw = boot, fw
        self.ring_size = ring_size
        self.heartbeat = heartbeat
        self.speed = speed
        self.ring: OrderedDict[int, bytes] = OrderedDict()
        self.last_seq = 0
        self.lost = 0
        self.lost_total = 0  # every event the full ring could not take, reported by OVF or not yet
        self.counts: dict[tuple[str, int], int] = {}
        self._faults: list[str] = []
        self._rng = random.Random(fault_seed)
        self._held: bytes | None = None  # a line being reordered
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._t0 = time.monotonic()
        self._tx_seq = 0
        self.hub_id, self.drift_ppm, self.answers_time = hub_id, drift_ppm, answers_time
        self._uptime0 = uptime_ms

    @property
    def path(self) -> str:
        return str(self.port.link_path)

    def restart_clock(self, speed: float) -> None:
        with self._lock:
            self._t0, self.speed = time.monotonic(), speed

    def now_ms(self) -> int:
        return int(self.clock_ms())

    def clock_ms(self) -> float:
        """The hub's crystal: its uptime in (fractional) milliseconds."""
        elapsed = (time.monotonic() - self._t0) * 1000 * self.speed
        return self._uptime0 + elapsed * (1 + self.drift_ppm * 1e-6)

    def station_ms(self, hub_ms: float) -> float:
        """When, on the station's monotonic clock (ms), this hub's clock read ``hub_ms``."""
        return self._t0 * 1000 + (hub_ms - self._uptime0) / (1 + self.drift_ppm * 1e-6) / self.speed

    def hub_ms_at(self, station_ms: float) -> float:
        """This hub's clock at the station's monotonic time ``station_ms``."""
        return self._uptime0 + (station_ms - self._t0 * 1000) * self.speed * (1 + self.drift_ppm * 1e-6)

    def _hello(self) -> p.Hello:
        return p.Hello(self.last_seq, self.fw, p.PROTOCOL_VERSION, self.boot, self.nodes, BAUD, self.hub_id)

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> SimulatedHub:
        self.port.plug()
        self._control(self._hello())  # power-up
        for target, name in ((self._read_loop, "hubsim-read"), (self._heartbeat_loop, "hubsim-hb")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=2)
        with self._lock:
            self.port.unplug()
        if self._scratch is not None:
            remove(self._scratch)

    def unplug(self) -> None:
        with self._lock:
            self.port.unplug()
        log.info("hubsim: unplugged")

    def replug(self) -> None:
        with self._lock:
            if not self.port.plugged:
                self.port.plug()
        log.info("hubsim: plugged in again")

    def disconnect(self, seconds: float) -> None:
        """Unplug now and plug back in after ``seconds``, without blocking the caller."""
        self.unplug()
        timer = threading.Timer(seconds, self.replug)
        timer.daemon = True
        timer.start()

    def reset(self, boot: str, hello_lost: bool = False) -> None:
        """A power cycle of the hub itself (the USB cable stays in): the RAM ring and every
        counter are lost, SEQ restarts at 1, and the new boot introduces itself unasked (unless
        that HELLO is lost on the wire)."""
        with self._lock:
            self.boot, self.last_seq, self.lost = boot, 0, 0
            self.ring.clear()
            self.counts.clear()
            self._held = None
            self._t0, self._uptime0 = time.monotonic(), 0.0
            if not hello_lost:
                self._control(self._hello())
        log.info("hubsim: reset, boot %s", boot)

    def inject(self, fault: str, count: int = 1) -> None:
        """Apply ``fault`` to the next ``count`` event lines put on the wire."""
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r}; expected one of {', '.join(FAULTS)}")
        with self._lock:
            self._faults.extend([fault] * count)

    # -- events ---------------------------------------------------------------------------------
    def shot(self, node: str, barrel: int = 1, charge: str = "shell", t: int | None = None) -> int:
        with self._lock:
            count = self.counts.get((node, barrel), 0) + 1
            self.counts[(node, barrel)] = count
            return self._event(p.Shot(0, node, barrel, charge, count, self._t(t)))

    def dry_fire(self, node: str, barrel: int = 1, t: int | None = None) -> int:
        return self._event(p.DryFire(0, node, barrel, self._t(t)))

    def tilt(self, node: str, state: str, angle: int = 0, t: int | None = None) -> int:
        return self._event(p.Tilt(0, node, state, angle, self._t(t)))

    def impact(self, node: str, g: float = 5.0, t: int | None = None) -> int:
        return self._event(p.Impact(0, node, g, self._t(t)))

    def _t(self, t: int | None) -> int:
        return self.now_ms() if t is None else t

    def _event(self, message: p.Message) -> int:
        with self._lock:
            if len(self.ring) >= self.ring_size:
                self.lost += 1  # the firmware cannot buffer it; reported by OVF once there is room
                self.lost_total += 1
                log.warning("hubsim: ring full, event lost (%d so far)", self.lost)
                return 0
            if self.lost and len(self.ring) < self.ring_size - 1:
                self._issue(p.Overflow(0, self.lost))
                self.lost = 0
            return self._issue(message)

    def _issue(self, message: p.Message) -> int:
        self.last_seq += 1
        line = p.encode(replace(message, seq=self.last_seq))
        self.ring[self.last_seq] = line
        self._transmit(line, faults=True)
        return self.last_seq

    # -- the wire -------------------------------------------------------------------------------
    def _transmit(self, line: bytes, faults: bool = False) -> None:
        with self._lock:
            if not self.port.plugged:
                return
            fault = self._faults.pop(0) if faults and self._faults else None
            if fault == "reorder" and self._held is None:
                self._held = line
                return
            chunks = self._damaged(line, fault)
            if faults and self._held:  # a reordered line arrives after the next event line
                chunks.append(self._held)
                self._held = None
            master = self.port.master
            for chunk in chunks:
                try:
                    if master is None:
                        raise OSError("the pty is closed")
                    os.write(master, chunk)
                except (BlockingIOError, OSError) as exc:
                    log.debug("hubsim: write failed (%s); the line stays in the ring", exc)

    def _damaged(self, line: bytes, fault: str | None) -> list[bytes]:
        """What ``fault`` makes of ``line`` on the wire."""
        rng = self._rng
        if fault == "drop":
            return []
        if fault == "corrupt":
            middle = len(line) // 2
            return [line[:middle] + bytes([line[middle] ^ 0x01]) + line[middle + 1 :]]
        if fault == "bitflip":
            damaged = bytearray(line)
            for _ in range(rng.randint(1, 3)):
                damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
            return [bytes(damaged)]
        if fault == "truncate":
            return [line[: rng.randrange(1, len(line) - 1)] + b"\n"]
        if fault == "garbage":
            return [bytes(rng.randrange(256) for _ in range(rng.randint(8, 80))), line]
        if fault == "duplicate":
            return [line, line]
        return [line]

    def _control(self, message: p.Message) -> None:
        self._transmit(p.encode(message))

    def _read_loop(self) -> None:
        assembler = LineAssembler()
        while not self._stop.is_set():
            with self._lock:
                fd = self.port.master
            if fd is None:
                time.sleep(0.01)
                continue
            try:
                data = os.read(fd, 512)
            except BlockingIOError:
                time.sleep(0.002)
                continue
            except OSError:  # nobody has the slave open yet, or we were just unplugged
                time.sleep(0.01)
                continue
            for raw in assembler.feed(data):
                try:
                    self._on_station_line(raw)
                except (p.ProtocolError, OSError):
                    log.exception("hubsim: failed to answer %r", raw[:40])

    def _on_station_line(self, raw: bytes) -> None:
        try:
            message = p.decode(raw)
        except p.ProtocolError as exc:
            log.warning("hubsim: bad line from station (%s)", exc)
            return
        with self._lock:
            if isinstance(message, p.Sync):
                self._control(self._hello())
                self._resend(min(self.ring, default=self.last_seq + 1))
            elif isinstance(message, p.TimeQuery) and self.answers_time:
                now = self.clock_ms()
                self._control(p.ClockReading(self.last_seq, message.seq, int(now), int(now % 1 * 1000)))
            elif isinstance(message, p.SetHubId):
                self.hub_id = message.hub
                self._control(self._hello())
            elif isinstance(message, p.Ack):
                for seq in [s for s in self.ring if s <= message.upto]:
                    del self.ring[seq]
            elif isinstance(message, p.Nak):
                self._resend(message.start)

    def _resend(self, start: int) -> None:
        for seq, line in list(self.ring.items()):
            if seq >= start:
                self._transmit(line)

    def _heartbeat_loop(self) -> None:
        while not self._stop.wait(self.heartbeat):
            with self._lock:
                self._control(p.Heartbeat(self.last_seq, self.now_ms(), len(self.ring)))

    def pending(self) -> int:
        with self._lock:
            return len(self.ring)
