"""Injected time.  Nothing outside this module reads the wall clock, so tests and replays can
substitute a fake one, and the rules engine, which never sees a clock at all, stays pure."""

from __future__ import annotations

import datetime as _dt
import time
from typing import Protocol


class Clock(Protocol):
    def monotonic(self) -> float: ...

    def wall_iso(self) -> str: ...


class SystemClock:
    """The real clocks: monotonic seconds for ordering, UTC wall time for people."""

    def monotonic(self) -> float:
        return time.monotonic()

    def wall_iso(self) -> str:
        return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")


class FakeClock:
    """A clock that only moves when told to; its wall time follows its monotonic time."""

    def __init__(self, start: float = 0.0, epoch: str = "2026-01-01T00:00:00+00:00") -> None:
        self.now = start
        self._epoch = _dt.datetime.fromisoformat(epoch)

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def monotonic(self) -> float:
        return self.now

    def wall_iso(self) -> str:
        return (self._epoch + _dt.timedelta(seconds=self.now)).isoformat(timespec="milliseconds")
