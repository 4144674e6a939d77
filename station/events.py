"""What the hub tells the station, as the rules consume it: the protocol's messages as typed,
validated records.  They live here, under everything else, so that the rules depend on what a
message *is* and not on the serial link that carries it (``devices/protocol.py`` is the codec).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, TypeVar

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 512  # HELLO with a large inventory; every other line stays under 100
CHARGES = ("shell", "bomb", "rocket")
TILT_STATES = ("upright", "leaning", "fallen")
NODE_KINDS = ("launcher", "tilt")

TOKEN = re.compile(r"^[A-Za-z0-9_.:,/+-]{1,480}$")
_NODE_ID = re.compile(r"^[A-Za-z0-9_-]{1,16}$")
HUB_ID = re.compile(r"[0-9A-F]{4,8}")  # a hub board's own id (HELLO hub=)


NODE_AT = "@"  # a node on a given hub: "T1@3F2A" (node ids are the hub's own; two boards both have T1)

V = TypeVar("V")


def wired(table: Mapping[str, V], node: str) -> V | None:
    """What an army wired to ``node`` ("T1@3F2A" as a hub event names it): the army's own
    hub-qualified entry, else its bare "T1" (an army written for one hub)."""
    found = table.get(node)
    if found is None and NODE_AT in node:
        found = table.get(bare_node(node))
    return found


def bare_node(node: str) -> str:
    return node.partition(NODE_AT)[0]


def sensor_inventory(wired_nodes: set[str], hello: Hello, hub: str) -> tuple[list[str], list[str]]:
    """The nodes an army wires that this hub should have and has not, and the hub's nodes no army
    wires.  ``hub`` "" is the one hub of an older journal, where every wired node is its own."""
    if not hub:
        present = {node.id for node in hello.nodes}
        return sorted(wired_nodes - present), sorted(present - wired_nodes)
    present = {f"{node.id}{NODE_AT}{hub}" for node in hello.nodes}
    unknown = sorted(n for n in present if n not in wired_nodes and bare_node(n) not in wired_nodes)
    missing = sorted(n for n in wired_nodes if n.endswith(f"{NODE_AT}{hub}") and n not in present)
    return missing, unknown


class ProtocolError(ValueError):
    """A line that must not be treated as valid.  ``reason`` is a short counter name."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Node:
    """One device behind the hub, as announced in HELLO."""

    id: str
    kind: str
    barrels: int = 0

    def encode(self) -> str:
        return f"{self.id}:{self.kind}:{self.barrels}" if self.kind == "launcher" else f"{self.id}:{self.kind}"


def parse_nodes(text: str) -> tuple[Node, ...]:
    if not text:  # a radio hub that has heard none of its nodes yet
        return ()
    nodes = []
    for item in text.split(","):
        parts = item.split(":")
        if len(parts) not in (2, 3) or not _NODE_ID.match(parts[0]) or parts[1] not in NODE_KINDS:
            raise ProtocolError("field", f"bad node entry {item!r}")
        barrels = 0
        if parts[1] == "launcher":
            if len(parts) != 3 or not parts[2].isdigit() or not 1 <= int(parts[2]) <= 9:
                raise ProtocolError("field", f"launcher {parts[0]} needs 1-9 barrels")
            barrels = int(parts[2])
        nodes.append(Node(parts[0], parts[1], barrels))
    return tuple(nodes)


@dataclass(frozen=True, slots=True)
class Message:
    """Base of every protocol message.  Subclasses declare TYPE and their fields in order."""

    TYPE: ClassVar[str] = ""
    SEQUENCED: ClassVar[bool] = False  # events: acknowledged, buffered and resent by the hub
    seq: int

    def fields(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "seq"}

    def check(self) -> None:
        """Raise ProtocolError if a field value is out of range."""


def _one_of(name: str, value: str, options: tuple[str, ...]) -> None:
    if value not in options:
        raise ProtocolError("field", f"{name} must be one of {', '.join(options)}, not {value!r}")


def _within(name: str, value: float, low: float, high: float) -> None:
    if not low <= value <= high:
        raise ProtocolError("field", f"{name} {value} outside {low}-{high}")


@dataclass(frozen=True, slots=True)
class Hello(Message):
    """Hub introduction: firmware, protocol version, boot id and node inventory.
    ``seq`` is the last event sequence number the hub has issued in this boot."""

    TYPE: ClassVar[str] = "HELLO"
    fw: str
    proto: int
    boot: str
    nodes: tuple[Node, ...]
    baud: int = 0  # the serial rate the hub runs at (bronehub/1.1 on); 0 when a hub does not say
    hub: str = ""  # the board's own id, kept across power cycles (bronehub/1.2 on); "" when not said

    def check(self) -> None:
        if self.hub and not HUB_ID.fullmatch(self.hub):
            raise ProtocolError("field", f"hub id {self.hub!r} is not 4-8 upper-case hex digits")


@dataclass(frozen=True, slots=True)
class Heartbeat(Message):
    """Sent every second; ``seq`` is the last event issued, so lost tails become visible."""

    TYPE: ClassVar[str] = "HB"
    up: int  # hub uptime, ms
    pend: int  # events waiting for an ACK
    drops: int = 0  # pin edges the hub's queue could not hold (bronehub/1.2 on, said when not 0)


@dataclass(frozen=True, slots=True)
class Shot(Message):
    TYPE: ClassVar[str] = "SHOT"
    SEQUENCED: ClassVar[bool] = True
    node: str
    barrel: int
    charge: str
    count: int  # per-barrel shot counter, only ever increases
    t: int  # hub uptime, ms, when the projectile left the muzzle

    def check(self) -> None:
        _one_of("charge", self.charge, CHARGES)
        _within("barrel", self.barrel, 1, 9)


@dataclass(frozen=True, slots=True)
class DryFire(Message):
    TYPE: ClassVar[str] = "DRY"
    SEQUENCED: ClassVar[bool] = True
    node: str
    barrel: int
    t: int

    def check(self) -> None:
        _within("barrel", self.barrel, 1, 9)


@dataclass(frozen=True, slots=True)
class Tilt(Message):
    TYPE: ClassVar[str] = "TILT"
    SEQUENCED: ClassVar[bool] = True
    node: str
    state: str
    angle: int  # degrees from vertical
    t: int
    first: int = 0  # 1: the node's first settled posture since it started (bronehub/1.3): a report, not a change

    def check(self) -> None:
        _one_of("state", self.state, TILT_STATES)
        _within("first", self.first, 0, 1)
        _within("angle", self.angle, 0, 180)


@dataclass(frozen=True, slots=True)
class Impact(Message):
    TYPE: ClassVar[str] = "IMPACT"
    SEQUENCED: ClassVar[bool] = True
    node: str
    g: float  # peak acceleration
    t: int

    def check(self) -> None:
        _within("peak g", self.g, 0, 999.9)


@dataclass(frozen=True, slots=True)
class Overflow(Message):
    """The hub's ring buffer was full and it discarded ``lost`` events: never silent."""

    TYPE: ClassVar[str] = "OVF"
    SEQUENCED: ClassVar[bool] = True
    lost: int


@dataclass(frozen=True, slots=True)
class Join(Message):
    """A radio hub heard a radio node's boot for the first time (bronehub-radio/1.0): the node
    joined, or it restarted and numbers its events from 1 again.  Sequenced, so it comes in order
    before that boot's events; ``boot`` is the node's own boot id."""

    TYPE: ClassVar[str] = "JOIN"
    SEQUENCED: ClassVar[bool] = True
    node: str
    boot: str
    t: int

    def check(self) -> None:
        if not HUB_ID.fullmatch(self.boot):
            raise ProtocolError("field", f"boot {self.boot!r} is not 4-8 upper-case hex digits")


@dataclass(frozen=True, slots=True)
class RadioStatus(Message):
    """A radio hub's word on one radio node, every second (bronehub-radio/1.0); ``seq`` is the last
    event issued, as in a heartbeat.  Not sequenced: a lost one is followed by the next."""

    TYPE: ClassVar[str] = "RADIO"
    node: str
    boot: str
    bat: int  # the node's cell, mV
    age: int  # ms since the hub last heard the node
    taken: int  # the node's events the hub has taken in this boot of the node
    retries: int  # the node's Enhanced ShockBurst retransmissions, summed (16 bits, wraps)
    failed: int  # packets the node's radio gave up on after its retransmissions (16 bits, wraps)
    dups: int  # events the hub got twice (their acknowledgement was lost), dropped


@dataclass(frozen=True, slots=True)
class ClockReading(Message):
    """The hub's answer to TIME (bronehub/1.2 on): its clock when it read the question, as
    ``up`` ms and ``us`` microseconds into that millisecond.  ``seq`` is the last event issued,
    as in a heartbeat; ``n`` is the question's own SEQ, so the station knows when it asked."""

    TYPE: ClassVar[str] = "CLK"
    n: int
    up: int
    us: int

    def check(self) -> None:
        _within("us", self.us, 0, 999)


@dataclass(frozen=True, slots=True)
class Sync(Message):
    """Station to hub: introduce yourself (HELLO) and resend every unacknowledged event."""

    TYPE: ClassVar[str] = "SYNC"
    proto: int


@dataclass(frozen=True, slots=True)
class Ack(Message):
    """Station to hub: every event up to and including ``upto`` is journaled."""

    TYPE: ClassVar[str] = "ACK"
    upto: int


@dataclass(frozen=True, slots=True)
class Nak(Message):
    """Station to hub: a gap; resend everything from ``start`` on (go-back-N)."""

    TYPE: ClassVar[str] = "NAK"
    start: int


@dataclass(frozen=True, slots=True)
class TimeQuery(Message):
    """Station to hub: read your clock now and answer with CLK (the clock sync's round trip).
    A hub older than bronehub/1.2 ignores it, and the station maps its clock from heartbeats."""

    TYPE: ClassVar[str] = "TIME"


@dataclass(frozen=True, slots=True)
class SetHubId(Message):
    """Station to hub: keep this id (EEPROM) and introduce yourself again with it."""

    TYPE: ClassVar[str] = "ID"
    hub: str

    def check(self) -> None:
        if not HUB_ID.fullmatch(self.hub):
            raise ProtocolError("field", f"hub id {self.hub!r} is not 4-8 upper-case hex digits")


def hub_time(message: Message) -> int | None:
    """The hub's own time a message carries: a heartbeat's uptime, an event's ``t``."""
    return message.up if isinstance(message, Heartbeat) else getattr(message, "t", None)


MESSAGE_TYPES: dict[str, type[Message]] = {
    cls.TYPE: cls
    for cls in (
        Hello,
        Heartbeat,
        Shot,
        DryFire,
        Tilt,
        Impact,
        Overflow,
        Join,
        RadioStatus,
        ClockReading,
        Sync,
        Ack,
        Nak,
        TimeQuery,
        SetHubId,
    )
}
