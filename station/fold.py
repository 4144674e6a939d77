"""The fold: a game's state and rulings as a pure function of its journal records.

``fold(records)`` is the whole truth; ``station.game.Game`` is its live counterpart.  No I/O, no
clock: dice come from the journal (or the given book), so a replay is exact or fails loudly.
"""

from __future__ import annotations

import logging
import math
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from .devices import protocol
from .dice import DiceBook, Roll
from .events import HUB_ID, NODE_AT, hub_time
from .gcpause import without_cycle_collection
from .hubclock import Timeline
from .journal import JournalError
from .playerclock import PlayerClocks
from .records import Kind
from .rules.base import Event, HubLink, Input, Override, Overriding, Ruling
from .rules.registry import make_ruleset
from .rules.ruleset import Ruleset, state_json

log = logging.getLogger(__name__)

HEADER_KIND = Kind.GAME
APPLIED_RX = ("event", "control")  # rx verdicts the fold applies; the rest are kept for audit
LINK_STATES = ("connected", "lost")


@cache
def _node_suffix(hub: str | None) -> str:
    """What a node id of this hub is qualified with: ``@A1B2`` for a board that names itself."""
    return f"{NODE_AT}{hub}" if hub is not None and HUB_ID.fullmatch(hub) else ""


def record_event(record: Mapping[str, Any], timeline: Timeline) -> Event | None:
    """The fold's view of one journal record, or None for records it does not apply.  The
    ``timeline`` learns each hub's clock from the records as they pass, in journal order."""
    kind = record["kind"]
    if kind == Kind.RX:
        if record.get("verdict") not in APPLIED_RX:
            return None
        hub = record.get("hub")
        try:  # a board's own ids: T1 on two boards are two nodes
            message = protocol.decode_verified(record["line"], _node_suffix(hub))
        except protocol.ProtocolError as exc:
            raise JournalError(f"record {record['seq']}: line marked valid does not decode ({exc})") from None
        if hub is None:  # a journal from before several hubs: one hub, its own clock
            return Event(record["seq"], message, record.get("mono"))
        if isinstance(message, protocol.Hello):
            timeline.boot(hub, message.boot)
        placed = timeline.place(hub, hub_time(message))
        return Event(record["seq"], message, record.get("mono"), placed.clock, placed.at, placed.err)
    if kind == Kind.CLOCK:
        timeline.learn(record)
        return None
    if kind == Kind.LINK:
        if not is_folded(record):
            return None
        return Event(record["seq"], HubLink(record["hub"], record["state"] == "connected"), record.get("mono"))
    if kind == Kind.INPUT:
        return Event(record["seq"], Input(record["type"], record.get("args", {})))
    if kind in (Kind.CONFIRM, Kind.OVERRIDE):
        return Event(record["seq"], Input(kind, {"ruling": record["ruling"]}))
    if kind == Kind.SNAPSHOT:  # where the camera saw every base: geometry for the rules
        return Event(
            record["seq"],
            Input(
                "snapshot",
                {
                    "units": record.get("units", []),
                    "table_mm": record.get("table_mm"),
                    "residual_mm": record.get("residual_mm"),
                },
            ),
        )
    if kind == Kind.CAMERA and record.get("event") in ("ModelFell", "ModelUp"):  # what the camera saw a model do
        return Event(
            record["seq"],
            Input("camera_posture", {"element": record["element"], "fallen": record["event"] == "ModelFell"}),
            record.get("mono"),
        )
    if kind == Kind.TERRAIN:  # the table's terrain pieces, for line of sight, cover and movement
        return Event(record["seq"], Input("terrain", {"format": record["format"], "pieces": record["pieces"]}))
    return None


FOLDED_KINDS = frozenset(
    {
        Kind.GAME,
        Kind.RX,
        Kind.INPUT,
        Kind.DICE,
        Kind.DICE_ENTRY,
        Kind.CONFIRM,
        Kind.OVERRIDE,
        Kind.SNAPSHOT,
        Kind.CAMERA,
        Kind.TERRAIN,
        Kind.CLOCK,
        Kind.LINK,
        Kind.TIMER,
    }
)
# What is applied one record at a time, in journal order (the header starts the fold, and dice
# are drawn by key from the journal's whole book)
STEP_KINDS = FOLDED_KINDS - {Kind.GAME, Kind.DICE, Kind.DICE_ENTRY}


def is_folded(record: Mapping[str, Any]) -> bool:
    """Whether the fold reads this record (the rest are kept for the audit trail).  A ``link``
    record is read when it names its hub (older journals' did not, and replay as they did)."""
    kind = record["kind"]
    if kind == Kind.RX:
        return record.get("verdict") in APPLIED_RX
    if kind == Kind.LINK:
        return isinstance(record.get("hub"), str) and record.get("state") in LINK_STATES
    return kind in FOLDED_KINDS


def is_step(record: Mapping[str, Any]) -> bool:
    """Whether the fold applies this record as a step of its own, in journal order."""
    return record["kind"] in STEP_KINDS and is_folded(record)


def overrides_of(records: Iterable[Mapping[str, Any]]) -> dict[str, Overriding]:
    """The latest override of each ruling, with the seq of the record that made it."""
    return {
        r["ruling"]: Overriding(r["seq"], Override(r["ruling"], r["verdict"], r.get("note", "")))
        for r in records
        if r["kind"] == Kind.OVERRIDE
    }


def dice_of(records: Iterable[Mapping[str, Any]]) -> list[Roll]:
    return [Roll(r["key"], r["sides"], r["value"], bool(r.get("physical"))) for r in records if r["kind"] == Kind.DICE]


def ruling_status(ruling: Ruling, confirmed: set[str] | frozenset[str], round_began: int | None = None) -> str:
    """Where a ruling stands for the referee: overridden, confirmed, pending or simply applied;
    or ``unchallenged``, a ruling that waited for him until its round ended, when the game's
    option ``unconfirmed`` lets it stand (``round_began``: the seq that began the round now
    played, None when it waits)."""
    if ruling.overridden:
        return "overridden"
    if ruling.id in confirmed:
        return "confirmed"
    if not ruling.needs_referee:
        return "applied"
    return "unchallenged" if round_began is not None and ruling.cause < round_began else "pending"


_PLAIN = frozenset({str, int, bool, type(None)})  # what most details hold: nothing to look into


def _non_finite(value: Any) -> bool:
    """Whether a non-finite number hides in ``value``: a walk that copies nothing and looks past
    plain values by their type alone, since it runs on every ruling of every fold."""
    for item in value.values() if isinstance(value, Mapping) else value:
        kind = type(item)
        if kind in _PLAIN:
            continue
        if kind is float:
            if not math.isfinite(item):
                return True
        elif isinstance(item, (Mapping, list, tuple)) and _non_finite(item):
            return True
    return False


def _finite_value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, Mapping):
        return {k: _finite_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_value(v) for v in value]
    return value


def finite(ruling: Ruling) -> Ruling:
    """A ruling every reader can take: a non-finite number in its details (a rules bug: no JSON
    reader takes it, and the journal refuses it) is said as text instead, and logged, so the
    ruling is still journaled and served, the same way live and in a replay."""
    if not _non_finite(ruling.details):
        return ruling
    details = _finite_value(ruling.details)
    log.error("ruling %s held a non-finite number in its details: %s", ruling.id, details)
    return replace(ruling, details=details)


@dataclass
class FoldResult:
    ruleset: Ruleset[Any]
    state: Any
    rulings: list[Ruling] | deque[Ruling] = field(default_factory=list)
    timeline: Timeline = field(default_factory=Timeline)  # each hub's clock where the records end
    round_began: int = 0  # the seq of the event that began the round now played
    clocks: PlayerClocks | None = None  # the players' clocks, if the game has them (playerclock.py)

    def apply(self, event: Event) -> list[Ruling]:
        """One event folded in: the new state, its rulings kept, and the round noted if it began."""
        ruleset, before = self.ruleset, self.state
        self.state, rulings = ruleset.apply(before, event)
        if ruleset.round_of(self.state) != ruleset.round_of(before):
            self.round_began = event.seq
        return [finite(r) for r in rulings] if rulings else rulings

    def clock_step(self, record: Mapping[str, Any]) -> None:
        """The players' clocks after a record applied (or the referee's pause): whoever is to
        act now is the one whose time runs from this record on."""
        if self.clocks is not None:
            self.clocks.record(record, self.ruleset.active_player(self.state))

    def standing_from(self) -> int | None:
        """What ``ruling_status`` needs to say a ruling stood unchallenged: the seq that began
        this round when the game lets unconfirmed rulings stand, None when they wait."""
        return self.round_began if self.ruleset.pending_stands(self.state) else None

    def status(self, ruling: Ruling) -> str:
        return ruling_status(ruling, self.state.confirmed, self.standing_from())

    def state_json(self) -> str:
        return state_json(self.ruleset, self.state)


def header_of(records: Sequence[Mapping[str, Any]], where: str = "journal") -> Mapping[str, Any]:
    if not records or records[0]["kind"] != HEADER_KIND:
        raise JournalError(f"{where}: the first record must be the game header")
    return records[0]


def fold(
    records: Sequence[Mapping[str, Any]],
    book: DiceBook | None = None,
    on_step: Callable[[Mapping[str, Any], list[Ruling]], None] | None = None,
    keep_rulings: int | None = None,
) -> FoldResult:
    """Rebuild a game from its journal records.  Without ``book`` only journaled dice are used,
    so a replay is exact or fails loudly.  ``keep_rulings`` keeps only the latest rulings."""
    header = header_of(records)
    book = book if book is not None else DiceBook(dice_of(records))
    ruleset = make_ruleset(header["game"], book)
    state = ruleset.initial_state(header["armies"], header.get("options", {}), overrides_of(records))
    result = FoldResult(ruleset, state, deque(maxlen=keep_rulings) if keep_rulings else [])
    result.clocks = PlayerClocks.of(header)
    apply, timeline, made = result.apply, result.timeline, result.rulings.extend  # the loop's names, looked up once
    timed = result.clock_step if result.clocks is not None else None
    with without_cycle_collection():
        for record in records:
            event = record_event(record, timeline)
            if event is None:
                if timed is not None and record["kind"] == Kind.TIMER:
                    timed(record)
                continue
            rulings = apply(event)
            if timed is not None:
                timed(record)
            if rulings:
                made(rulings)
            if on_step is not None:
                on_step(record, rulings)
    return result
