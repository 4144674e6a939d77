"""Each hub's clock on the station's: the one timeline that events from several hubs share.

A hub stamps its events with its own uptime ``t`` (whole milliseconds from its crystal).  Two
hubs have two crystals: their offsets differ by however long apart they were powered up, and their
rates by tens of ppm (a ceramic resonator: thousands).  The serial link estimates, per hub and per
boot, a line ``station_ms = s0 + rate * (t - h0)`` (``devices/clocksync.py``) and journals it as a
``clock`` record; the fold maps every later event of that hub with the latest one, so a replay
places events exactly where the live game did.

Events of one hub are still compared on that hub's own clock, exactly as before: the mapping only
comes in between two clocks.  Journals from before the mapping have no ``hub`` on their records,
and their events keep their own clock (``""``), so they replay unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

STAMP_MS = 1.0  # a hub stamps whole milliseconds: two stamps' gap is within ±1 ms of the true one
UNMAPPED_ERR_MS = math.inf  # a hub whose clock is not mapped yet cannot be compared with another


@dataclass(frozen=True, slots=True)
class ClockMap:
    """One hub boot's clock on the station's monotonic clock (both in milliseconds)."""

    hub: str
    boot: str
    h0: float  # a time on the hub's clock
    s0: float  # the station's time at h0
    rate: float  # station ms per hub ms (1 + drift)
    err: float  # how far s0 may be off, ms (a bound, from the samples' round trips)
    rate_err: float  # how far rate may be off: err grows by this many ms per ms away from h0
    samples: int = 0
    warming: float = 0.0  # how fast the rate itself may change: err grows by this times (ms from h0)²

    def at(self, t: float) -> float:
        """Hub time ``t`` on the station's clock, ms."""
        return self.s0 + (t - self.h0) * self.rate

    def err_at(self, t: float) -> float:
        away = t - self.h0
        return self.err + abs(away) * self.rate_err + self.warming * away * away

    def record(self) -> dict[str, Any]:
        """The journal's ``clock`` record fields."""
        return {
            "hub": self.hub,
            "boot": self.boot,
            "h0": round(self.h0, 3),
            "s0": round(self.s0, 3),
            "rate": round(self.rate, 12),
            "err": round(self.err, 3),
            "rate_err": float(f"{self.rate_err:.3g}"),
            "samples": self.samples,
            **({"warming": float(f"{self.warming:.3g}")} if self.warming else {}),
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> ClockMap:
        return cls(
            str(record["hub"]),
            str(record["boot"]),
            float(record["h0"]),
            float(record["s0"]),
            float(record["rate"]),
            float(record["err"]),
            float(record["rate_err"]),
            int(record.get("samples", 0)),
            float(record.get("warming", 0.0)),
        )


class Placed(NamedTuple):
    """Where one hub event sits: its hub's clock (hub/boot, ``""`` in an older journal) and its
    time on the station's timeline with the mapping's uncertainty (``at`` None: not mapped)."""

    clock: str = ""
    at: float | None = None
    err: float = 0.0


UNPLACED = Placed()


class Timeline:
    """The mappings in force while a journal is read in order: the latest ``clock`` record of each
    hub's current boot.  The fold keeps one; so does the live game, fed the same records."""

    def __init__(self) -> None:
        self._boots: dict[str, str] = {}
        self._maps: dict[str, ClockMap] = {}

    def learn(self, record: Mapping[str, Any]) -> None:
        """A ``clock`` record: the hub's mapping from here on; or, marked ``unmapped``, none (the
        link found its clock beyond what can be mapped: its events are placed nowhere)."""
        if record.get("unmapped"):
            if self._boots.get(str(record["hub"])) == str(record["boot"]):
                self._maps.pop(str(record["hub"]), None)
            return
        clock_map = ClockMap.from_record(record)
        if self._boots.get(clock_map.hub) == clock_map.boot:
            self._maps[clock_map.hub] = clock_map

    def boot(self, hub: str, boot: str) -> None:
        """The hub introduced a boot (its HELLO): a new clock, unmapped until its first mapping."""
        if self._boots.get(hub) != boot:
            self._boots[hub] = boot
            self._maps.pop(hub, None)

    def place(self, hub: str | None, t: int | None) -> Placed:
        """Where hub time ``t`` of ``hub`` sits; an untagged record (an older journal) keeps its
        own clock."""
        if hub is None:
            return UNPLACED
        clock = f"{hub}/{self._boots.get(hub, '')}"
        clock_map = self._maps.get(hub)
        if clock_map is None or t is None:
            return Placed(clock, None, UNMAPPED_ERR_MS)
        return Placed(clock, clock_map.at(t), clock_map.err_at(t))
