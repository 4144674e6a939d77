"""Serial hub protocol v1: one ASCII line per message, readable in a serial terminal.

A line is ``TYPE SEQ key=value key=value*CCCC`` followed by ``\\n``:

* ``TYPE`` is an upper-case message name, ``SEQ`` the sender's decimal sequence number;
* ``CCCC`` is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of every byte before ``*``, in
  four upper-case hex digits.  CRC-16 rather than NMEA's XOR byte because XOR misses any even
  number of flips in one bit column and every swap of two characters; CRC-16 catches all
  bursts up to 16 bits.  It costs the AVR one table-less loop (avr-libc ``_crc_xmodem_update``)
  and Python one C call (``binascii.crc_hqx``).

hardware.md is the normative description; this module is its executable form.
"""
from __future__ import annotations

import binascii
import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 512  # HELLO with a large inventory; every other line stays under 100
CHARGES = ("shell", "bomb", "rocket")
TILT_STATES = ("upright", "leaning", "fallen")
NODE_KINDS = ("launcher", "tilt")

_TOKEN = re.compile(r"^[A-Za-z0-9_.:,/+-]{1,480}$")
_NODE_ID = re.compile(r"^[A-Za-z0-9_-]{1,16}$")


class ProtocolError(ValueError):
    """A line that must not be treated as valid.  ``reason`` is a short counter name."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE; the check value of b"123456789" is 0x29B1."""
    return binascii.crc_hqx(data, 0xFFFF)


@dataclass(frozen=True, slots=True)
class Node:
    """One device behind the hub, as announced in HELLO."""

    id: str
    kind: str
    barrels: int = 0

    def encode(self) -> str:
        return f"{self.id}:{self.kind}:{self.barrels}" if self.kind == "launcher" else f"{self.id}:{self.kind}"


def _parse_nodes(text: str) -> tuple[Node, ...]:
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


@dataclass(frozen=True, slots=True)
class Heartbeat(Message):
    """Sent every second; ``seq`` is the last event issued, so lost tails become visible."""

    TYPE: ClassVar[str] = "HB"
    up: int  # hub uptime, ms
    pend: int  # events waiting for an ACK


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

    def check(self) -> None:
        _one_of("state", self.state, TILT_STATES)
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


MESSAGE_TYPES: dict[str, type[Message]] = {
    cls.TYPE: cls for cls in (Hello, Heartbeat, Shot, DryFire, Tilt, Impact, Overflow, Sync, Ack, Nak)
}
_FIELDS = {name: [f for f in dataclasses.fields(cls) if f.name != "seq"] for name, cls in MESSAGE_TYPES.items()}


def _format_value(value: object) -> str:
    if isinstance(value, tuple):
        return ",".join(v.encode() for v in value)
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def encode(message: Message) -> bytes:
    """The full wire line, newline included."""
    message.check()
    parts = [message.TYPE, str(message.seq)]
    for name, value in message.fields().items():
        text = _format_value(value)
        if not _TOKEN.match(text):
            raise ProtocolError("field", f"{name}={text!r} is not a protocol token")
        parts.append(f"{name}={text}")
    body = " ".join(parts).encode("ascii")
    line = body + b"*%04X\n" % crc16(body)
    if len(line) > MAX_LINE_BYTES:
        raise ProtocolError("too_long", f"{len(line)} bytes")
    return line


def _converter(name: str, annotation: object) -> Callable[[str], object]:
    if annotation in (int, "int"):
        def to_int(text: str) -> int:
            if not _INT.fullmatch(text):
                raise ProtocolError("field", f"{name}={text!r} is not a whole number")
            return int(text)
        return to_int
    if annotation in (float, "float"):
        def to_float(text: str) -> float:
            try:
                return float(text)
            except ValueError:
                raise ProtocolError("field", f"{name}={text!r} is not a number") from None
        return to_float
    if name == "nodes":
        return _parse_nodes
    return str


# Per type: the fields in order with their converters, computed once.
_CONVERTERS = {name: [(f.name, _converter(f.name, f.type)) for f in fs] for name, fs in _FIELDS.items()}
_INT = re.compile(r"-?\d{1,10}")
_CRC_HEX = re.compile(rb"[0-9A-F]{4}")
_LINE = re.compile(r"([A-Z]{2,8}) (\d{1,10})((?: [a-z_]{1,16}=[A-Za-z0-9_.:,/+-]{1,480})*)")


def decode(raw: bytes | str) -> Message:
    """Parse and verify one line.  Raises ProtocolError; never returns an unverified message."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogateescape")
    line = raw.rstrip(b"\r\n")
    if len(line) > MAX_LINE_BYTES:
        raise ProtocolError("too_long", f"{len(line)} bytes")
    star = line.rfind(b"*")
    if star < 0 or len(line) - star != 5:
        raise ProtocolError("syntax", "no *CCCC checksum at the end")
    body, check = line[:star], line[star + 1:]
    if not _CRC_HEX.fullmatch(check):
        raise ProtocolError("syntax", f"checksum {check!r} is not four upper-case hex digits")
    expected = int(check, 16)
    if crc16(body) != expected:
        raise ProtocolError("checksum", f"CRC {crc16(body):04X} != {expected:04X}")
    try:
        text = body.decode("ascii")
    except UnicodeDecodeError:
        raise ProtocolError("syntax", "non-ASCII byte") from None
    match = _LINE.fullmatch(text)
    if match is None:
        raise ProtocolError("syntax", f"expected 'TYPE SEQ key=value ...', got {text[:40]!r}")
    kind, seq, rest = match.groups()
    cls = MESSAGE_TYPES.get(kind)
    if cls is None:
        raise ProtocolError("unknown_type", kind)
    values: dict[str, str] = {}
    for word in rest.split(" ")[1:]:
        key, _, value = word.partition("=")
        if key in values:
            raise ProtocolError("syntax", f"field {key} twice")
        values[key] = value
    kwargs: dict[str, Any] = {"seq": int(seq)}
    for name, convert in _CONVERTERS[kind]:
        if name not in values:
            raise ProtocolError("field", f"{kind} lacks {name}")
        kwargs[name] = convert(values[name])
    # Extra fields are tolerated so that a v1.x hub can add information without breaking v1 stations.
    message = cls(**kwargs)
    message.check()
    return message
