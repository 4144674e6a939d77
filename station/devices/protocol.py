"""Serial hub protocol v1: one ASCII line per message, readable in a serial terminal.

A line is ``TYPE SEQ key=value key=value*CCCC`` followed by ``\\n``:

* ``TYPE`` is an upper-case message name, ``SEQ`` the sender's decimal sequence number;
* ``CCCC`` is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of every byte before ``*``, in
  four upper-case hex digits.  CRC-16 rather than NMEA's XOR byte because XOR misses any even
  number of flips in one bit column and every swap of two characters; CRC-16 catches all
  bursts up to 16 bits.  It costs the AVR one table-less loop (avr-libc ``_crc_xmodem_update``)
  and Python one C call (``binascii.crc_hqx``).

docs/protocol.md is the normative description; this module is its executable form.
"""

from __future__ import annotations

import binascii
import dataclasses
import math
import re
from collections.abc import Callable
from typing import Any

from ..events import (
    CHARGES,
    MAX_LINE_BYTES,
    MESSAGE_TYPES,
    NODE_KINDS,
    PROTOCOL_VERSION,
    TILT_STATES,
    TOKEN,
    Ack,
    ClockReading,
    DryFire,
    Heartbeat,
    Hello,
    Impact,
    Join,
    Message,
    Nak,
    Node,
    Overflow,
    ProtocolError,
    RadioStatus,
    SetHubId,
    Shot,
    Sync,
    Tilt,
    TimeQuery,
    parse_nodes,
)

# The codec's messages are the events the rules consume (station/events.py): re-exported, so a
# caller of the codec needs one import.
__all__ = [
    "CHARGES",
    "MAX_LINE_BYTES",
    "MESSAGE_TYPES",
    "NODE_KINDS",
    "PROTOCOL_VERSION",
    "TILT_STATES",
    "TOKEN",
    "Ack",
    "ClockReading",
    "DryFire",
    "Heartbeat",
    "Hello",
    "Impact",
    "Join",
    "Message",
    "Nak",
    "Node",
    "Overflow",
    "ProtocolError",
    "RadioStatus",
    "SetHubId",
    "Shot",
    "Sync",
    "Tilt",
    "TimeQuery",
    "parse_nodes",
    "crc16",
    "encode",
    "decode",
]


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE; the check value of b"123456789" is 0x29B1."""
    return binascii.crc_hqx(data, 0xFFFF)


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
        if name in _OPTIONAL.get(message.TYPE, {}) and value == _OPTIONAL[message.TYPE][name]:
            continue  # a field added in v1.x is left out at its default, as a v1.0 hub would
        text = _format_value(value)
        if not TOKEN.match(text) and not (name == "nodes" and not text):  # a radio hub yet to hear a node
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
                value = float(text)
            except ValueError:
                value = math.nan
            if not math.isfinite(value):  # Python reads "nan" and "inf"; no hub means them
                raise ProtocolError("field", f"{name}={text!r} is not a number")
            return value

        return to_float
    if name == "nodes":
        return parse_nodes
    return str


# Per type: the fields in order with their converters, computed once.
_CONVERTERS = {name: [(f.name, _converter(f.name, f.type)) for f in fs] for name, fs in _FIELDS.items()}
# Fields added after v1.0, with their defaults: a line without them still decodes.
_OPTIONAL = {
    name: {f.name: f.default for f in fs if f.default is not dataclasses.MISSING} for name, fs in _FIELDS.items()
}
_INT = re.compile(r"-?\d{1,10}")
_CRC_HEX = re.compile(rb"[0-9A-F]{4}")
# A value may be empty only for ``nodes``: a radio hub that has heard no node yet lists none.
_LINE = re.compile(r"([A-Z]{2,8}) (\d{1,10})((?: [a-z_]{1,16}=[A-Za-z0-9_.:,/+-]{0,480})*)")


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
    body, check = line[:star], line[star + 1 :]
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
        if not value and key != "nodes":
            raise ProtocolError("syntax", f"field {key} is empty")
        values[key] = value
    kwargs: dict[str, Any] = {"seq": int(seq)}
    for name, convert in _CONVERTERS[kind]:
        if name not in values:
            if name in _OPTIONAL[kind]:
                continue
            raise ProtocolError("field", f"{kind} lacks {name}")
        kwargs[name] = convert(values[name])
    # Extra fields are tolerated so that a v1.x hub can add information without breaking v1 stations.
    message = cls(**kwargs)
    message.check()
    return message


# The plain converters for lines already verified: int() and float() where decode checks the text
# first; per type, by field name, with the fields a line must have.
_TRUSTED = {
    name: {n: int if f.type in (int, "int") else float if f.type in (float, "float") else convert
           for (n, convert), f in zip(_CONVERTERS[name], fs)}
    for name, fs in _FIELDS.items()
}  # fmt: skip
_REQUIRED = {name: {n for n in converters if n not in _OPTIONAL[name]} for name, converters in _TRUSTED.items()}


def decode_verified(line: str, node_suffix: str = "") -> Message:
    """A line ``decode`` accepted once already (the link journals it with the verdict ``event``),
    read again without checking its checksum, its syntax and its values a second time: the fold
    reads every hub line of a journal, and this is most of what a replay costs beyond the JSON.
    ``node_suffix`` is added to a ``node`` field (the board's name, for several hubs).  A line
    that is not what it claims still fails, with ProtocolError."""
    try:
        kind, seq, *words = line[: line.rindex("*")].split(" ")
        converters = _TRUSTED[kind]
        kwargs: dict[str, Any] = {"seq": int(seq)}
        for word in words:
            name, _, value = word.partition("=")
            convert = converters.get(name)
            if convert is not None:  # extra fields from a newer hub are tolerated, as decode does
                kwargs[name] = convert(value)
        if node_suffix and "node" in kwargs:
            kwargs["node"] += node_suffix
        if not _REQUIRED[kind] <= kwargs.keys():
            raise ProtocolError("field", f"{kind} lacks {', '.join(sorted(_REQUIRED[kind] - kwargs.keys()))}")
        message: Message = MESSAGE_TYPES[kind](**kwargs)
    except (ValueError, KeyError, TypeError) as exc:
        raise ProtocolError("syntax", f"not a verified line: {exc}") from None
    return message
