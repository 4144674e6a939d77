"""A played game, folded to any moment: the replay viewer's timeline and its frames, and the
post-game report's facts.

Everything comes from the journal by the same fold as ``station replay``.  A frame at record
``seq`` folds the records up to it, with the overrides made by then (an override made later is
shown where it was made) and every die the journal holds (a roll is journaled just after the
input that asked for it).
"""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..dice import DiceBook
from ..fold import dice_of, fold, record_event
from ..game import END_KIND
from ..hubclock import Timeline
from ..journal import read_records
from ..playerclock import wall_seconds
from ..records import Kind
from ..rules.base import Ruling
from ..rules.text import Text

DISPUTED = ("pending", "overridden")  # what the viewer jumps between, and the report pictures


@dataclass(frozen=True)
class RulingMark:
    """A ruling on the timeline: the record it came from and where it stood at the end.
    ``ruling`` is as it stands at the end (an override may have replaced it); ``made`` is as the
    station first made it and journaled it, with what it measured."""

    ruling: Ruling
    made: Mapping[str, Any]
    seq: int
    status: str

    def as_dict(self) -> dict[str, Any]:
        return {**self.ruling.as_dict(), "seq": self.seq, "status": self.status}


class GameReplay:
    """One journal, read once, folded on demand."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records = read_records(path)
        self._seqs = [r["seq"] for r in self.records]
        self._book_records = dice_of(self.records)
        self._lock = threading.Lock()
        marks: list[tuple[Ruling, int]] = []
        self.final = fold(
            self.records, on_step=lambda record, rulings: marks.extend((r, record["seq"]) for r in rulings)
        )
        final_by_id = {r.id: r for r in self.final.rulings}
        journaled: dict[str, Mapping[str, Any]] = {}
        for record in self.records:
            if record["kind"] == Kind.RULING:
                journaled.setdefault(record["ruling"]["id"], record["ruling"])
        self.marks = [
            RulingMark(
                final_by_id.get(r.id, r),
                journaled.get(r.id) or r.as_dict(),
                seq,
                self.final.status(final_by_id.get(r.id, r)),
            )
            for r, seq in marks
        ]
        self.end = next((r for r in reversed(self.records) if r["kind"] == END_KIND), None)

    def timeline(self) -> dict[str, Any]:
        """The scrubber's stops (the records the fold applies, with their time) and the rulings."""
        timeline = Timeline()
        steps = [
            {"seq": r["seq"], "wall": r.get("wall"), "kind": r["kind"]}
            for r in self.records
            if r["kind"] == Kind.GAME or record_event(r, timeline) is not None
        ]
        return {
            "game": self.final.ruleset.name,
            "title": self.final.ruleset.title,
            "steps": steps,
            "rulings": [m.as_dict() for m in self.marks],
            "end": self.end,
        }

    def _prefix(self, seq: int) -> Sequence[Mapping[str, Any]]:
        return self.records[: bisect.bisect_right(self._seqs, seq)]

    def at(self, seq: int) -> dict[str, Any]:
        """The game as it stood once record ``seq`` was applied: state, rulings so far (with their
        status then), the camera's latest snapshot and the terrain in force."""
        prefix = self._prefix(seq)
        with self._lock:
            result = fold(prefix, DiceBook(list(self._book_records)))
        table = next((r for r in reversed(prefix) if r["kind"] == Kind.SNAPSHOT), None)
        terrain = next((r for r in reversed(prefix) if r["kind"] == Kind.TERRAIN), None)
        last = prefix[-1] if prefix else self.records[0]
        return {
            "seq": last["seq"],
            "wall": last.get("wall"),
            "state": result.ruleset.state_view(result.state),
            "summary": (summary := result.ruleset.summary(result.state)),
            "summary_message": summary.message() if isinstance(summary, Text) else None,
            "rulings": [{**r.as_dict(), "status": result.status(r)} for r in result.rulings],
            "table": table,
            "terrain": terrain["pieces"] if terrain else [],
            "clocks": result.clocks.view(wall_seconds(last)) if result.clocks is not None else None,
        }


class Replays:
    """Replays kept by journal and file size, so scrubbing a finished game reads it once: the
    ``kept`` most recently used, the least recently used leaving first."""

    def __init__(self, kept: int = 8) -> None:
        self._cache: OrderedDict[Path, tuple[int, GameReplay]] = OrderedDict()
        self._kept = kept
        self._lock = threading.Lock()

    def of(self, path: Path) -> GameReplay:
        size = path.stat().st_size
        with self._lock:
            cached = self._cache.get(path)
            if cached is None or cached[0] != size:
                cached = (size, GameReplay(path))
            self._cache[path] = cached
            self._cache.move_to_end(path)
            while len(self._cache) > self._kept:
                self._cache.popitem(last=False)
            return cached[1]
