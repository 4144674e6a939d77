"""The station's end of the serial hub link.

One reader thread owns the port: it reads lines, judges each one, journals it, and only then
acknowledges it, so an ACKed event is always on disk.  Lines that arrive together are journaled
together: one fsync and one (cumulative) ACK cover all the events of one read, which is what
lets a busy table's 1,000 events a second through.  Events are delivered strictly in sequence
(go-back-N): a gap is NAKed and the hub resends from the gap, an older sequence number is a
duplicate and is dropped (and ACKed again so the hub can free it).  Judged records go to the
``deliver`` callback, which must not block (the station hands them to its engine thread), so the
reader never waits on the rules engine or the web server.

When the journal's disk is full the link takes no events: it leaves them unacknowledged, so they
wait in the hub's ring, and the hub resends them when the journal has room again.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import serial

from ..clock import Clock, SystemClock
from ..exclusive import port_in_use
from ..hubclock import ClockMap
from ..journal import Journal, JournalFull
from ..records import Kind
from . import protocol as p
from .clocksync import ClockSync, Sample, worth_journaling
from .radio import RadioNodes

log = logging.getLogger(__name__)

BAUD = 1_000_000  # bronehub/1.1's rate, exact at 16 MHz (firmware/avr/uart.h HUB_BAUD, hardware.md)
OTHER_BAUDS = (1_000_000, 500_000, 250_000, 115_200)  # what `doctor` tries when nothing answers
GARBLED_BYTES = 400  # bytes without one whole line since the port opened: the rate is wrong
_LINE_START = re.compile(rb"[A-Z]{2,8} \d")  # how every protocol line begins
STATION_TYPES = (p.Sync, p.Ack, p.Nak)
NAK_RETRY = 0.5  # seconds before the same gap is NAKed again, in case the NAK was lost
RECENT_LINES = 256  # accepted lines remembered per boot (4x the hub's ring), to tell resends from a reset
ACK_INTERVAL = 0.005  # seconds: at most one ACK this often while events flood in (plus one per ACK_EVERY events)
ACK_EVERY = 8  # events: an ACK at least this often, an eighth of the hub's ring
CLOCK_FAST_S, CLOCK_FAST_EVERY_S, CLOCK_EVERY_S = 60.0, 0.1, 1.0  # TIME questions: quick for a boot's first minute
CLOCK_ANSWER_S = 2.0  # a CLK later than this after its TIME is not used (nor is one to a lost question)


LINK_STATES = ("lost", "wrong baud", "silent", "connecting", "connected")  # worst first


class HubIds:
    """The ids the hubs of one game go by, shared by its links.  A board keeps the id it was
    first heard with for the whole game: one that says another id mid-game is still itself (its
    nodes stay wired), and is said so.  A second board saying an id another already has is told
    apart by its port, and its lines are journaled with the verdict ``twin``, never applied: it
    never shares the first one's clock or nodes, and every hit involving it is the referee's."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_port: dict[str, str] = {}  # port -> the tag its lines go by
        self._owner: dict[str, str] = {}  # tag -> the port that first said it

    def tag_for(self, url: str, said: str) -> tuple[str, str | None]:
        """The tag this port's lines go by, and what is wrong with its id (``twin``: another
        board has it; ``changed``: this board said another id before); None when nothing."""
        with self._lock:
            first = self._by_port.get(url)
            if first is not None:
                return first, None if first == said else "changed"
            owner = self._owner.get(said)
            if owner is not None and owner != url:
                tag = port_label(url)
                self._by_port[url] = tag
                return tag, "twin"
            self._owner[said], self._by_port[url] = url, said
            return said, None


def hubs_health(hubs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The station's hub health: with one hub, that hub's (as it always was); with several, the
    worst state among them, the first one in trouble's error, every node (hub-qualified) and the
    counters summed, with each hub's own under ``hubs``."""
    if not hubs:
        return {"state": "none", "url": None, "hubs": []}
    if len(hubs) == 1:
        return {**hubs[0], "hubs": list(hubs)}
    worst = min(hubs, key=lambda h: LINK_STATES.index(h["state"]) if h["state"] in LINK_STATES else 0)
    ids = [h["hub_id"] for h in hubs if h.get("hub_id")]
    twins = sorted({i for i in ids if ids.count(i) > 1})
    summed = {k: sum(h[k] for h in hubs) for k, v in hubs[0].items() if isinstance(v, int) and k != "hub_baud"}
    seen = [h["seen_ago_s"] for h in hubs if h["seen_ago_s"] is not None]
    return {
        **summed,
        "state": worst["state"],
        "url": ", ".join(h["url"] for h in hubs),
        "last_error": (
            f"two hubs say id {twins[0]}: their nodes and clocks cannot be told apart; "
            f"give one a new id with `station hub-id PORT`"
            if twins
            else next((f"{h['hub']}: {h['last_error']}" for h in hubs if h["last_error"]), None)
        ),
        "twin_ids": twins,
        "hub_fw": ", ".join(f"{h['hub']} {h['hub_fw']}" for h in hubs if h["hub_fw"]) or None,
        "nodes": [f"{n.split(':')[0]}@{h['hub']}:{n.split(':', 1)[1]}" for h in hubs for n in h["nodes"]],
        "radio": {f"{name}@{h['hub']}": node for h in hubs for name, node in h.get("radio", {}).items()},
        "seen_ago_s": max(seen) if seen else None,
        "hubs": list(hubs),
    }


def port_label(url: str) -> str:
    """What a hub that does not say its id is called: its port's last path part."""
    return url.rstrip("/").rsplit("/", 1)[-1] or url


@dataclass
class LinkHealth:
    """What the dashboard shows about the hub link."""

    url: str
    state: str = "connecting"  # connecting | connected | silent | lost
    since: float = 0.0
    last_seen: float | None = None
    hub_fw: str | None = None
    hub_boot: str | None = None
    hub_baud: int = 0  # the rate the hub says it runs at (0: an older hub that does not say)
    hub: str = ""  # the hub's id (its HELLO's hub=, else its port's name): what its journal rows are tagged with
    hub_id: str = ""  # the id the hub said ("" for a hub before bronehub/1.2)
    clock: dict[str, Any] | None = None  # the mapping of its clock onto the station's (hubclock.ClockMap)
    clock_state: str | None = None  # steady, unsteady or unmappable (clocksync.ClockSync.state); None: no answer yet
    clock_rejected: int = 0  # clock answers rejected as impossible (garbled or stale CLK lines)
    identity: str | None = None  # twin (another board has its id) or changed (mid-game): HubIds
    nodes: list[str] = field(default_factory=list)
    radio: dict[str, dict[str, Any]] = field(default_factory=dict)  # a radio hub's nodes (devices/radio.py)
    lines_ok: int = 0
    events: int = 0
    checksum_errors: int = 0
    syntax_errors: int = 0
    unknown: int = 0
    out_of_order: int = 0
    duplicates: int = 0
    resets_detected: int = 0  # "duplicates" that were new events of a hub reset whose HELLO was lost
    resends_requested: int = 0
    reconnects: int = 0
    overflows: int = 0
    held: int = 0  # events left in the hub's ring because the journal could not take them
    last_error: str | None = None  # what is wrong now; None when all is well
    resolved_error: str | None = None  # the last error that was recovered from, kept for the referee
    resolved_at: str | None = None  # when (wall time)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class LineAssembler:
    """Bytes in, complete lines out.  An overlong line is cut to its first ``limit`` bytes (which
    the codec then rejects as too long) and never glued to the next line."""

    def __init__(self, limit: int = p.MAX_LINE_BYTES + 16) -> None:
        self._buffer = bytearray()
        self._limit = limit
        self._overlong = False

    def feed(self, data: bytes) -> list[bytes]:
        *complete, rest = data.split(b"\n")
        lines = []
        for chunk in complete:
            self._buffer += chunk
            lines.append(bytes(self._buffer[: self._limit]))
            self._buffer.clear()
            self._overlong = False
        if not self._overlong:
            self._buffer += rest
            if len(self._buffer) > self._limit:
                del self._buffer[self._limit :]
                self._overlong = True  # keep the head, drop the rest until the next newline
        return lines


class HubLink:
    """Keeps a hub connected, journals everything it says, and delivers valid events in order."""

    def __init__(
        self,
        url: str,
        journal: Journal,
        deliver: Callable[[dict[str, Any]], None],
        clock: Clock | None = None,
        silence_timeout: float = 3.0,
        backoff: Sequence[float] = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0),
        baud: int = BAUD,
        only_hub: bool = True,
        ids: HubIds | None = None,
    ) -> None:
        """``only_hub``: this is the station's one hub, so journal rows from before hubs were
        tagged (an older journal resumed) are its own.  ``ids``: the game's hub ids, shared by
        its links (``HubIds``)."""
        self.ids = ids or HubIds()
        self.url = url
        self.baud = baud
        self.journal = journal
        self.deliver = deliver
        self.clock = clock or SystemClock()
        self.silence_timeout = silence_timeout
        self.backoff = tuple(backoff)
        self.health = LinkHealth(url, hub=port_label(url))
        self.tag = port_label(url)  # the hub's id once its HELLO says it
        self.hub_id = ""  # the id the hub said in its HELLO ("" for a hub before bronehub/1.2)
        self.only_hub = only_hub
        self._heard: Sequence[Mapping[str, Any]] = ()  # the journal's hub lines, until this hub is known
        self._introduced = False  # a HELLO in this run: until then, events wait in the hub
        self._sync: ClockSync | None = None
        self._journaled_map: ClockMap | None = None
        self._asked: OrderedDict[int, float] = OrderedDict()  # TIME seq -> station ms it was sent
        self._next_question = 0.0  # 0: a new clock, asked quickly from now on
        self._sync_started = 0.0
        self._read_at = 0.0  # station ms of the read that brought the line in hand
        self._health_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._port: serial.SerialBase | None = None
        self._holding = False  # events are being left in the hub for want of journal space
        self._tx_seq = 0
        self._boot: str | None = None
        self._expected: int | None = 1  # None: met a boot mid-way, waiting for its heartbeat
        self._reset_seen = False  # a restart whose HELLO has not come yet was already counted
        self._first_line = True  # the first line after opening may be the tail of an older one
        self._garbled = 0  # bytes since opening that made no line
        self._whole = False  # a whole line has come since opening
        self._nak_sent_for: tuple[int, float] | None = None
        self._recent: OrderedDict[int, str] = OrderedDict()  # seq -> line accepted in this boot
        self._batch: list[dict[str, Any]] = []  # journaled, not yet durable: delivered by _flush
        self._batch_upto: int | None = None  # the hub SEQ of the batch's last event
        self._acked = 0  # the last hub SEQ acknowledged (every one up to it is on disk)
        self._ack_due = False
        self._acked_at, self._acked_sent = 0.0, 0  # when the last ACK went, and up to which seq
        self._radio = RadioNodes()  # a radio hub's nodes, from its RADIO and JOIN lines

    # -- lifecycle ------------------------------------------------------------------------------
    def resume(self, records: Sequence[Mapping[str, Any]]) -> None:
        """Continue deduplication where a previous run of the station left off: from this hub's
        own lines in ``records`` (the journal's accepted hub lines), once its HELLO says which
        hub it is."""
        self._heard = records

    def _resume_as(self, tag: str) -> None:
        for record in self._heard:
            if record.get("hub", tag if self.only_hub else None) != tag:
                continue
            message = p.decode(record["line"])
            if isinstance(message, p.Hello):
                if message.boot != self._boot:
                    self._boot, self._expected, self._acked = message.boot, 1, 0
                    self._recent.clear()
            elif message.SEQUENCED:
                self._expected, self._acked = message.seq + 1, message.seq
                self._remember(message.seq, record["line"])
        self._heard = ()

    def claim(self) -> None:
        """Open the port now, exclusively, in the caller's thread: a port another station holds
        raises ``exclusive.InUse`` before anything else starts.  A port that is not there yet
        (the hub unplugged) is no error; the reader keeps trying it."""
        try:
            self._port = self._open()
        except (serial.SerialException, OSError, ValueError) as exc:
            taken = port_in_use(self.url, exc)
            if taken is not None:
                raise taken from None

    def _open(self) -> serial.SerialBase:
        # exclusive: a second daemon on the port would read half of the hub's lines.
        return serial.serial_for_url(self.url, baudrate=self.baud, timeout=0.05, exclusive=True)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="hub-link", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)
        elif self._port is not None:  # claimed, never started
            self._port.close()
            self._port = None

    def snapshot(self) -> dict[str, Any]:
        with self._health_lock:
            view = self.health.as_dict()
        now = self.clock.monotonic()
        view["seen_ago_s"] = round(now - view["last_seen"], 1) if view["last_seen"] is not None else None
        view["state_for_s"] = round(now - view["since"], 1) if view["since"] else None
        return view

    def _set(self, **changes: Any) -> None:
        with self._health_lock:
            for key, value in changes.items():
                setattr(self.health, key, value)

    def _resolve(self) -> None:
        """What was wrong is over: it moves to ``resolved_error``, with its time, and is no longer
        the current ``last_error``."""
        with self._health_lock:
            if self.health.last_error is not None:
                log.info("hub link recovered from: %s", self.health.last_error)
                self.health.resolved_error, self.health.last_error = self.health.last_error, None
                self.health.resolved_at = self.clock.wall_iso()

    def _count(self, name: str) -> None:
        with self._health_lock:
            setattr(self.health, name, getattr(self.health, name) + 1)

    # -- the reader thread ----------------------------------------------------------------------
    def _run(self) -> None:
        attempt = 0
        while not self._stop.is_set():
            try:
                if self._port is None:  # else claimed already
                    self._port = self._open()
            except (serial.SerialException, OSError, ValueError) as exc:
                taken = port_in_use(self.url, exc)
                self._set(state="lost" if self.health.reconnects else "connecting", last_error=str(taken or exc))
                self._stop.wait(self.backoff[min(attempt, len(self.backoff) - 1)])
                attempt += 1
                continue
            attempt = 0
            self._audit(Kind.LINK, state="connected", url=self.url)
            self._resolve()
            self._set(state="connected", since=self.clock.monotonic())
            log.info("hub link open on %s", self.url)
            try:
                self._session()
            except (serial.SerialException, OSError) as exc:
                log.warning("hub link on %s lost: %s", self.url, exc)
                self._set(last_error=str(exc))
            finally:
                try:
                    self._open_port().close()
                except (serial.SerialException, OSError):
                    pass
                self._port = None
            if not self._stop.is_set():
                self._audit(Kind.LINK, state="lost", url=self.url, error=self.health.last_error)
                with self._health_lock:
                    self.health.state = "lost"
                    self.health.reconnects += 1
                    self.health.since = self.clock.monotonic()

    def _open_port(self) -> serial.SerialBase:
        """The port of the session in progress (only the reader thread reads or writes it)."""
        if self._port is None:
            raise serial.SerialException("the hub's port is closed")
        return self._port

    def _session(self) -> None:
        assembler = LineAssembler()
        self._send(p.Sync(0, p.PROTOCOL_VERSION))
        last_rx = self.clock.monotonic()
        port = self._open_port()
        self._first_line, self._garbled, self._whole = True, 0, False
        while not self._stop.is_set():
            data = port.read(port.in_waiting or 1)
            now = self.clock.monotonic()
            self._read_at = now * 1000.0
            if data and not self._whole:
                self._garbled += len(data)
                if self._garbled >= GARBLED_BYTES:
                    self._wrong_rate()
            self._ask_the_time(now)
            if not data:
                self._flush()  # an ACK held back by ACK_INTERVAL goes out once the wire is quiet
                if now - last_rx > self.silence_timeout:
                    self._set(state="silent")
                    self._send(p.Sync(0, p.PROTOCOL_VERSION))  # wake a hub that rebooted quietly
                    last_rx = now
                continue
            last_rx = now
            try:
                for raw in assembler.feed(data):
                    self._on_line(raw.rstrip(b"\r"))
            finally:
                self._deliver_batch()
            self._flush()

    def _send(self, message: p.Message, audit: bool = True) -> None:
        self._tx_seq += 1
        line = p.encode(replace(message, seq=self._tx_seq))
        self._open_port().write(line)
        if audit:
            self._audit(Kind.TX, line=line.decode("ascii").rstrip("\n"))

    # -- the hub's clock ------------------------------------------------------------------------
    def _ask_the_time(self, now: float) -> None:
        """A TIME question as the schedule says: ten a second in a boot's first minute (the
        mapping is good in seconds), then one a second.  Not journaled: the mapping they make is."""
        if self._sync is None or now < self._next_question:
            return
        if not self._next_question:
            self._sync_started = now
        fast = now - self._sync_started < CLOCK_FAST_S
        self._next_question = now + (CLOCK_FAST_EVERY_S if fast else CLOCK_EVERY_S)
        while self._asked and next(iter(self._asked.values())) < (now - CLOCK_ANSWER_S) * 1000:
            self._asked.popitem(last=False)
        self._asked[self._tx_seq + 1] = self.clock.monotonic() * 1000.0
        self._send(p.TimeQuery(0), audit=False)

    def _on_clock_sample(self, sample: Sample) -> None:
        """A reading of the hub's clock: re-estimate, and journal the mapping when it moved."""
        if self._sync is None:
            return
        estimate = self._sync.add(sample)
        state, rejected = self._sync.state(), self._sync.rejected
        if state != self.health.clock_state or rejected != self.health.clock_rejected:
            if state != self.health.clock_state and state != "steady":
                log.warning("hub %s: its clock is %s (%d answers rejected)", self.tag, state, rejected)
            self._set(clock_state=state, clock_rejected=rejected)
        if self._sync.unmappable:  # its events are placed nowhere, and their hits are judged by hand
            if self._journaled_map is not None and self.journal.accepting():
                try:
                    self._batch.append(
                        self.journal.append(Kind.CLOCK, hub=self.tag, boot=self._sync.boot, unmapped=True)
                    )
                except JournalFull:
                    return
                self._journaled_map = None
                self._set(clock=None)
            return
        if worth_journaling(self._journaled_map, estimate) and self.journal.accepting():
            try:
                self._batch.append(self.journal.append(Kind.CLOCK, **estimate.record()))
            except JournalFull:
                return
            self._journaled_map = estimate
            self._set(clock=estimate.record())

    def _audit(self, kind: str, **fields: Any) -> None:
        """Journal a record kept for the audit trail only, unless the disk is full."""
        if kind in (Kind.RX, Kind.LINK):  # a link record names its hub: the fold reads it
            fields["hub"] = self.tag
        if self.journal.accepting():
            try:
                self.journal.append(kind, **fields)
            except JournalFull:
                pass  # the journal logged it; the dashboard shows it

    # -- judging one line -----------------------------------------------------------------------
    def _wrong_rate(self) -> None:
        """Bytes keep coming and none makes a line: a hub talking at another rate, or no hub."""
        others = ", ".join(str(b) for b in OTHER_BAUDS if b != self.baud)
        error = f"no hub at {self.baud} baud on {self.url}: the bytes make no lines; try --baud {others.split(',')[0]} (or {others})"
        if self.health.last_error != error:
            log.error("%s", error)
            self._set(state="wrong baud", last_error=error)
        self._garbled = 0

    def _on_line(self, raw: bytes) -> None:
        text = raw.decode("ascii", "backslashreplace")
        first, self._first_line = self._first_line, False
        if first and not _LINE_START.match(raw):
            # The tail of a line the hub began before the port was opened (opening a port drops
            # what it had received): not a fault of the line, and nothing to count against it.
            self._audit(Kind.RX, line=text, verdict="partial", error="began before the port was opened")
            return
        try:
            message = p.decode(raw)
        except p.ProtocolError as exc:
            counter = {"checksum": "checksum_errors", "unknown_type": "unknown"}.get(exc.reason, "syntax_errors")
            self._count(counter)
            log.warning("hub line rejected (%s): %r", exc, text[:80])
            self._audit(Kind.RX, line=text, verdict=exc.reason, error=exc.detail)
            return
        self._whole = True
        if self.health.state == "wrong baud":  # a whole line: the rate is right after all
            self._resolve()
        self._set(last_seen=self.clock.monotonic(), state="connected")
        self._count("lines_ok")
        if isinstance(message, STATION_TYPES):
            self._count("unknown")
            self._audit(Kind.RX, line=text, verdict="unexpected", error="station message from the hub")
            return
        if isinstance(message, p.Hello):
            self._on_hello(message, text)
        elif isinstance(message, p.ClockReading):
            sent = self._asked.pop(message.n, None)
            if sent is not None:
                self._on_clock_sample(Sample(message.up + message.us / 1000.0, self._read_at, sent))
        elif isinstance(message, p.RadioStatus):
            self._on_radio(message)
        elif isinstance(message, p.Heartbeat) and not self._introduced:
            self._audit(Kind.RX, line=text, verdict="early", error="before the hub's HELLO")
        elif isinstance(message, p.Heartbeat):
            if self.journal.accepting():
                self._journal_and_deliver(text, "control")
            self._on_clock_sample(Sample(float(message.up), self._read_at))
            if self._expected is None:  # a boot met mid-way: its oldest unacknowledged event
                self._expected = message.seq - message.pend + 1
                log.info("hub boot %s met at event %d: taking events from %d", self._boot, message.seq, self._expected)
                if message.pend:
                    self._nak(self._expected)
            elif message.seq >= self._expected:  # the tail of the stream was lost
                self._nak(self._expected)
        else:
            self._on_event(message, text)

    def _on_hello(self, hello: p.Hello, text: str) -> None:
        if hello.proto != p.PROTOCOL_VERSION:
            self._count("unknown")
            self._audit(Kind.RX, line=text, verdict="unsupported", error=f"protocol {hello.proto}")
            log.error("hub speaks protocol %s; this station speaks %s", hello.proto, p.PROTOCOL_VERSION)
            return
        tag, identity = self.ids.tag_for(self.url, hello.hub or port_label(self.url))
        if identity is not None and identity != self.health.identity:
            log.warning(
                "hub on %s says id %s: %s",
                self.url,
                hello.hub,
                "another board already has it; its lines are journaled, not applied"
                if identity == "twin"
                else f"it was {tag} when the game began; its lines still count as {tag}'s",
            )
        if not self._introduced:
            self._introduced = True
            self._resume_as(tag)
        if hello.boot != self._boot:
            if self._boot is not None:
                log.warning("hub rebooted (boot %s -> %s)", self._boot, hello.boot)
            self._flush()  # the old boot's events, ACKed under the old numbering
            # A boot that has issued events this station never saw (the previous game, or the
            # lobby between games, took and ACKed them): where to start is the hub's oldest
            # unacknowledged event, which its next heartbeat tells (its seq minus its pending).
            self._boot, self._expected, self._nak_sent_for = hello.boot, 1 if hello.seq == 0 else None, None
            self._acked, self._ack_due = 0, False
            self._recent.clear()
        self.tag, self.hub_id = tag, hello.hub
        self._reset_seen = False
        self._set(
            identity=identity,
            hub_fw=hello.fw,
            hub_boot=hello.boot,
            nodes=[n.encode() for n in hello.nodes],
            hub_baud=hello.baud,
            hub=self.tag,
            hub_id=hello.hub,
        )
        self._journal_and_deliver(text, "control")
        if self._sync is None or (self._sync.hub, self._sync.boot) != (self.tag, hello.boot):
            # a new boot (or a new station run) is a new clock: its mapping starts again, quickly
            self._sync, self._journaled_map, self._next_question = ClockSync(self.tag, hello.boot), None, 0.0
            self._asked.clear()
            self._set(clock_state=None)
            self._set(clock=None)

    def _on_radio(self, status: p.RadioStatus) -> None:
        """A radio hub's word on one of its nodes: kept for the dashboard; a change (silent, heard
        again, low battery) is logged and journaled for the audit trail."""
        change = self._radio.update(status, self.clock.wall_iso())
        with self._health_lock:
            self.health.radio = self._radio.as_dict()
        if change is not None:
            level = logging.INFO if change in ("heard", "heard again") else logging.WARNING
            log.log(level, "radio node %s: %s", status.node, change)
            self._audit(
                "radio", hub=self.tag, node=status.node, change=change, battery_mv=status.bat, age_ms=status.age
            )

    def _on_event(self, message: p.Message, text: str) -> None:
        if not self._introduced:  # which hub (and which boot) is not known yet: SYNC asks
            self._audit(Kind.RX, line=text, verdict="early", error="before the hub's HELLO")
            return
        if self._expected is None:
            if message.seq != 1:  # wait for the heartbeat; unacknowledged, the hub resends it
                self._audit(Kind.RX, line=text, verdict="early", error="before the hub's heartbeat said where to start")
                return
            self._expected = 1
        if message.seq < self._expected:
            if self._recent.get(message.seq, text) != text:
                self._reset_detected(text)
                return
            self._count("duplicates")
            self._audit(Kind.RX, line=text, verdict="duplicate")
            self._ack_due = True  # ACKed again (at the flush) so the hub frees it
            return
        if message.seq > self._expected:
            self._count("out_of_order")
            self._audit(Kind.RX, line=text, verdict="gap", error=f"expected {self._expected}")
            self._nak(self._expected)
            return
        if not self._journal_event(text):
            return  # not ACKed: the hub keeps it and resends it after the next heartbeat
        self._expected = message.seq + 1
        self._nak_sent_for = None
        self._remember(message.seq, text)
        self._count("events")
        if isinstance(message, p.Overflow):
            self._count("overflows")
        elif isinstance(message, p.Join) and self._radio.joined(message):
            log.warning("radio node %s restarted (boot %s)", message.node, message.boot)
            with self._health_lock:
                self.health.radio = self._radio.as_dict()
        self._batch_upto = message.seq

    def _flush(self) -> None:
        """Make the read's events durable with one fsync, hand everything on in order, and ACK."""
        self._deliver_batch()
        if self._batch_upto is not None:
            self._acked, self._batch_upto, self._ack_due = self._batch_upto, None, True
        if self._ack_due and self._acked and self._ack_now():
            self._ack_due = False
            self._acked_at, self._acked_sent = self.clock.monotonic(), self._acked
            self._send(p.Ack(0, self._acked))

    def _ack_now(self) -> bool:
        """One ACK per read, but not more often than every ACK_INTERVAL unless ACK_EVERY events
        wait: a hub flooding the wire spends its time sending, not parsing ACKs one a line."""
        waiting = self._acked - self._acked_sent
        return waiting >= ACK_EVERY or waiting <= 0 or self.clock.monotonic() - self._acked_at >= ACK_INTERVAL

    def _remember(self, seq: int, text: str) -> None:
        self._recent[seq] = text
        if len(self._recent) > RECENT_LINES:
            self._recent.popitem(last=False)

    def _reset_detected(self, text: str) -> None:
        """An old SEQ with new content: the hub restarted and its HELLO was lost.  Not ACKed (that
        would free the new event); SYNC asks for the HELLO and a resend of the new boot's ring.
        One restart is counted once, however many of its lines arrive before its HELLO."""
        if not self._reset_seen:
            self._reset_seen = True
            self._count("resets_detected")
            log.warning("hub line %r reuses an accepted SEQ with other content: the hub restarted", text[:60])
        self._audit(Kind.RX, line=text, verdict="reset", error="SEQ reused with other content")
        now = self.clock.monotonic()
        if self._nak_sent_for != (-1, now // NAK_RETRY):
            self._nak_sent_for = (-1, now // NAK_RETRY)
            self._send(p.Sync(0, p.PROTOCOL_VERSION))

    def _nak(self, start: int) -> None:
        now = self.clock.monotonic()
        if self._nak_sent_for == (start, now // NAK_RETRY):
            return  # one request per gap and retry period; the hub's resends follow in order
        self._nak_sent_for = (start, now // NAK_RETRY)
        self._count("resends_requested")
        self._send(p.Nak(0, start))

    def _deliver_batch(self) -> None:
        """Hand on what the batch journaled, once it is on disk; also when the port fails mid-read,
        so that what is journaled is always applied (the hub's resends are then duplicates)."""
        if self._batch:
            self.journal.wait_durable(self._batch[-1]["seq"])
            for record in self._batch:
                self.deliver(record)
            self._batch.clear()

    def _journal_event(self, text: str) -> bool:
        """Journal (durably) and deliver an in-sequence event, or leave it with the hub."""
        if self.journal.accepting() and self._journal_and_deliver(text, "event"):
            if self._holding:  # the journal has room again
                self._holding = False
                self._resolve()
            return True
        self._count("held")
        self._holding = True
        self._set(last_error=f"journal not writable, events wait in the hub: {self.journal.fault}")
        return False

    def _journal_and_deliver(self, text: str, verdict: str) -> bool:
        """Journal a line the fold applies, to be handed on at the flush; False if refused.  A
        twin's lines (another board has its id) are journaled and acknowledged, never applied:
        its clock and nodes cannot be told from the other's."""
        if self.health.identity == "twin":
            verdict = "twin"
        try:
            self._batch.append(self.journal.append(Kind.RX, line=text, verdict=verdict, hub=self.tag))
        except JournalFull:
            return False
        return True
