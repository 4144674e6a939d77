"""What a message from the broker must be before the tournament keeps it: checked at the boundary,
as the HTTP API checks a body.

Any client of the club's broker can publish on ``station/<table>/…`` (a table's own credentials
are enough under the docs' ACL), so a message may be anything: a seq of 2⁶⁴, JSON nested 100,000
levels deep, a header whose armies are numbers, a winner that is an object.  One of those once
raised out of paho's callback, stopped its network loop, and, never acknowledged, was delivered
again at every start.  ``check`` turns every such message into a ``Rejected`` with its reason;
the subscriber keeps it aside and acknowledges it, so it is seen once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import untrusted_json
from ..publish import TOPIC_ROOT, check_table_id
from ..records import Kind

MOST_BYTES = 16 * 1024 * 1024  # a record with a long game's terrain or armies is a few hundred kB
LARGEST_SEQ = 2**53  # a journal's seq is exact in a double, as every JSON reader has it
WHAT = ("records", "state", "health")


class Rejected(ValueError):
    """A message the tournament sets aside, and why."""


@dataclass(frozen=True)
class Message:
    what: str  # records | state | health
    table: str
    body: dict[str, Any]


def check(topic: str, payload: bytes) -> Message:
    """The message, checked; or ``Rejected`` saying what is wrong."""
    parts = topic.split("/")
    if len(parts) != 3 or parts[0] != TOPIC_ROOT or parts[2] not in WHAT:
        raise Rejected(f"not a station topic: {topic[:100]}")
    try:
        table = check_table_id(parts[1])
    except ValueError:
        raise Rejected(f"not a table id: {parts[1][:40]!r}") from None
    if len(payload) > MOST_BYTES:
        raise Rejected(f"{len(payload)} bytes, more than {MOST_BYTES}")
    body = _parsed(payload)
    if not isinstance(body, dict):
        raise Rejected(f"{parts[2]} must be a JSON object")
    if parts[2] == "records":
        _check_record(body)
    return Message(parts[2], table, body)


def _parsed(payload: bytes) -> Any:
    def no_constant(name: str) -> None:
        raise Rejected(f"{name} is not JSON")

    try:
        return untrusted_json.loads(payload, parse_constant=no_constant)
    except untrusted_json.TooDeep as exc:
        raise Rejected(f"{exc}: too deep to read") from None
    except (ValueError, UnicodeDecodeError) as exc:
        if isinstance(exc, Rejected):
            raise
        raise Rejected(f"not JSON: {str(exc)[:100]}") from None


def _text(value: Any, name: str, most: int, optional: bool = False) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str) or not 0 < len(value) <= most:
        raise Rejected(f"{name} must be text of 1-{most} characters")


def _check_record(body: dict[str, Any]) -> None:
    """A journal record as a station publishes it, and the fields the tournament reads of it."""
    record = body.get("record")
    _text(body.get("journal"), "journal", 200)
    if not isinstance(record, dict):
        raise Rejected("record must be a JSON object")
    seq = record.get("seq")
    if type(seq) is not int or not 1 <= seq <= LARGEST_SEQ:
        raise Rejected(f"seq must be a whole number from 1 to {LARGEST_SEQ}")
    _text(record.get("kind"), "kind", 32)
    _text(record.get("wall"), "wall", 64, optional=True)
    kind = record["kind"]
    if kind == Kind.GAME:
        _text(record.get("game"), "game", 64, optional=True)
        armies = record.get("armies", [])
        if not isinstance(armies, list) or not all(isinstance(a, dict) for a in armies):
            raise Rejected("armies must be a list of objects")
        for army in armies:
            _text(army.get("player"), "an army's player", 64, optional=True)
    elif kind == Kind.END:
        _text(record.get("winner"), "winner", 64, optional=True)
    elif kind == Kind.JUDGE:
        note = record.get("note", "")
        if not isinstance(note, str) or len(note) > 500:
            raise Rejected("note must be text of at most 500 characters")
