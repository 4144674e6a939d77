"""A chess clock for each player, run by the journal instead of buttons.

Wargame clocks (Warmachine's death clock, Warclock) need a player to press a button at every
handover, and players forget.  Here the clock follows the game: after each step of the fold,
the player the rules say is to act (``Ruleset.active_player``) is the one whose time runs, from
that record's wall time to the next one's.  Only the referee stops it: a ``timer`` record
(``{"running": false}``, then ``true``) pauses and resumes every clock.

Everything it counts comes from journaled records, so the live game, a resumed game and the
replay count the same seconds.  Between records the running player's time is added up to
``now`` only when the clock is shown (``view``).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .records import Kind

MOST_CLOCK_MINUTES = 600  # a player's time a game, at most (ten hours: any wargame's longest day)


def wall_seconds(record: Mapping[str, Any]) -> float | None:
    """A record's wall time in seconds since the epoch (None if it has none)."""
    wall = record.get("wall")
    if not isinstance(wall, str):
        return None
    try:
        return _dt.datetime.fromisoformat(wall).timestamp()
    except ValueError:
        return None


@dataclass
class PlayerClocks:
    """Each player's time used, of ``budget_s`` each."""

    budget_s: float
    used: dict[str, float] = field(default_factory=dict)
    running: str | None = None  # whose time runs now
    since: float | None = None  # the wall time it runs from
    paused: bool = False

    @classmethod
    def of(cls, header: Mapping[str, Any]) -> PlayerClocks | None:
        """The clocks a game's header sets (``"clock": {"seconds": 3600}``), or None."""
        clock = header.get("clock")
        if not isinstance(clock, Mapping) or not clock.get("seconds"):
            return None
        players = [a.get("player") for a in header.get("armies", []) if isinstance(a, Mapping)]
        return cls(float(clock["seconds"]), {p: 0.0 for p in players if isinstance(p, str)})

    def _charge(self, wall: float) -> None:
        if self.running is not None and self.since is not None and not self.paused and wall > self.since:
            self.used[self.running] = self.used.get(self.running, 0.0) + wall - self.since
        self.since = wall if self.since is None or wall > self.since else self.since

    def step(self, wall: float | None, active: str | None) -> None:
        """After a record at ``wall``: time so far to whoever was acting, then ``active``'s runs."""
        if wall is None:
            return
        self._charge(wall)
        self.running = active

    def set_running(self, wall: float | None, running: bool) -> None:
        """The referee's pause (``running`` False) or resume, at ``wall``."""
        if wall is None:
            return
        self._charge(wall)
        self.paused = not running

    def record(self, record: Mapping[str, Any], active: str | None) -> None:
        """One journal record: the referee's pause or resume, or a step of the game."""
        if record.get("kind") == Kind.TIMER:
            self.set_running(wall_seconds(record), bool(record.get("running")))
        else:
            self.step(wall_seconds(record), active)

    def view(self, now: float | None) -> dict[str, Any]:
        """Each player's time used and left at ``now`` (the last record's time if None)."""
        used = dict(self.used)
        if now is not None and self.running is not None and self.since is not None and not self.paused:
            used[self.running] = used.get(self.running, 0.0) + max(0.0, now - self.since)
        return {
            "budget_s": self.budget_s,
            "running": None if self.paused else self.running,
            "paused": self.paused,
            "players": {
                p: {"used_s": round(s, 1), "left_s": round(self.budget_s - s, 1), "out": s >= self.budget_s}
                for p, s in used.items()
            },
        }
