"""Estimating one hub's clock against the station's, from round trips and heartbeats.

Klipper's clocksync.py is the model: the host asks each MCU for its clock, notes when it asked
and when the answer came, and trusts the quick round trips most.  This estimator takes that one
step further, to bounds instead of averages:

* a clock answer (CLK, to the station's TIME) read hub time ``h`` somewhere between the moment
  the question left (``sent``) and the moment the answer was read (``received``): so the line
  ``s0 + rate * (h - h0)`` passes between them.  Every answer is one such interval; a heartbeat
  (HB ``up``) is an upper bound only, since it says nothing of when it left;
* the **rate** is the least-squares slope through the quickest round trip of each
  ``BUCKET_MS`` of hub time in the window (a delayed answer is never the quickest of its bucket);
* the **offset** is the middle of the intersection of every interval in the window, each widened
  by the rate's own uncertainty times its distance from ``h0``.  The intersection's lower edge is
  the answer whose *question* travelled quickest, its upper edge the one whose *answer* did, so a
  window of a minute at 1-8 ms of USB jitter pins the offset to a few hundredths of a
  millisecond; a sample delayed by 50 ms only loosens one side, so no outlier test is needed;
* the mapping's stated error is that intersection's half-width: a bound, not a spread.

The window is ``WINDOW_S`` of station time, so a crystal that warms up through a game is
followed.  A hub that does not answer TIME (before bronehub/1.2) is mapped from its heartbeats:
the upper bounds only, lowered by half of ``HEARTBEAT_FLOOR_MS`` and stated with that as its
error, because nothing says how quick its quickest heartbeat was.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from ..hubclock import ClockMap

WINDOW_S = 300.0  # samples older than this (station time) no longer count
BUCKET_MS = 10_000.0  # of hub time: the lowest heartbeat of each sets a heartbeat-only rate
MIN_RATE_SPAN_MS = 2000.0  # below this much hub time the rate is taken as nominal
NOMINAL_RATE_ERR = 0.005  # a ceramic resonator's ±0.5 %: the bound while the rate is unknown
MAX_RATE_ERR = 0.01  # no crystal or resonator is further from its nominal rate
RATE_ERR_FLOOR = 2e-6  # a least-squares slope's bound is never tighter than this
HEARTBEAT_FLOOR_MS = 2.0  # a heartbeat's quickest trip over USB is somewhere in 0-2 ms
RATE_SIGMAS = 4.0  # a heartbeat-only slope's bound: this many standard errors
RATE_STEPS, ZOOMS, BISECTIONS = 33, 8, 30  # the search for the rates that fit every answer


@dataclass(frozen=True, slots=True)
class Sample:
    """Hub time ``hub`` was read between the station's ``sent`` and ``received`` (ms);
    ``sent`` None for a heartbeat, whose departure is unknown."""

    hub: float
    received: float
    sent: float | None = None


class ClockSync:
    """The mapping of one hub boot, re-estimated as samples come."""

    def __init__(self, hub: str, boot: str, window_s: float = WINDOW_S) -> None:
        self.hub, self.boot = hub, boot
        self.window_ms = window_s * 1000.0
        self._samples: deque[Sample] = deque()
        self.answers = 0  # CLK samples in the window: 0 means heartbeats only

    def add(self, sample: Sample) -> ClockMap:
        if sample.sent is not None:
            self.answers += 1
        self._samples.append(sample)
        while self._samples[0].received < sample.received - self.window_ms:
            if self._samples.popleft().sent is not None:
                self.answers -= 1
        return self.estimate()

    def estimate(self) -> ClockMap:
        h0 = self._samples[-1].hub
        if not self.answers:
            rate, rate_err = _heartbeat_rate(list(self._samples))
            high = min(s.received - rate * (s.hub - h0) + rate_err * abs(s.hub - h0) for s in self._samples)
            s0, err = high - HEARTBEAT_FLOOR_MS / 2, HEARTBEAT_FLOOR_MS / 2
            return ClockMap(self.hub, self.boot, h0, s0, rate, err, rate_err, len(self._samples))
        below = _hull([(s.hub - h0, s.received) for s in self._samples], lower=True)
        above = _hull([(s.hub - h0, s.sent) for s in self._samples if s.sent is not None], lower=False)
        lines = _Lines(
            np.array([p[0] for p in below]),
            np.array([p[1] for p in below]),
            np.array([p[0] for p in above]),
            np.array([p[1] for p in above]),
        )
        rate, rate_low, rate_high = lines.rates()
        s0 = float(lines.low(rate)[0] + lines.high(rate)[0]) / 2
        between = np.linspace(rate_low, rate_high, RATE_STEPS)
        err = max(float(np.max(lines.high(between))) - s0, s0 - float(np.min(lines.low(between))))
        return ClockMap(self.hub, self.boot, h0, s0, rate, err, (rate_high - rate_low) / 2, len(self._samples))


class _Lines:
    """The answers' intervals, as bounds on the line ``s0 + rate * x``: for a rate, the highest
    and lowest ``s0`` every interval allows.  ``high - low`` is concave in the rate, so the rates
    that fit every interval are one range, found by bisection."""

    def __init__(self, x: np.ndarray, upper: np.ndarray, x_asked: np.ndarray, lower: np.ndarray) -> None:
        self.x, self.upper, self.x_asked, self.lower = x, upper, x_asked, lower

    def high(self, rate: float | np.ndarray) -> np.ndarray:
        rates = np.atleast_1d(rate)
        bound: np.ndarray = np.min(self.upper[:, None] - self.x[:, None] * rates[None, :], axis=0)
        return bound

    def low(self, rate: float | np.ndarray) -> np.ndarray:
        rates = np.atleast_1d(rate)
        bound: np.ndarray = np.max(self.lower[:, None] - self.x_asked[:, None] * rates[None, :], axis=0)
        return bound

    def width(self, rate: float | np.ndarray) -> np.ndarray:
        room: np.ndarray = self.high(rate) - self.low(rate)
        return room

    def rates(self) -> tuple[float, float, float]:
        """The rate that leaves the widest room, and the range of rates that leave any."""
        low, high = 1.0 - MAX_RATE_ERR, 1.0 + MAX_RATE_ERR
        for _ in range(ZOOMS):  # the widest room: a concave function, zoomed in on
            grid = np.linspace(low, high, RATE_STEPS)
            best = int(np.argmax(self.width(grid)))
            step = grid[1] - grid[0]
            low, high = grid[max(best - 1, 0)] - step, grid[min(best + 1, RATE_STEPS - 1)] + step
        grid = np.linspace(low, high, RATE_STEPS)
        widths = self.width(grid)
        rate = float(grid[int(np.argmax(widths))])
        if widths.max() < 0:  # no line fits every interval (the rate changed in the window)
            return rate, rate, rate
        return rate, self._edge(rate, 1.0 - MAX_RATE_ERR), self._edge(rate, 1.0 + MAX_RATE_ERR)

    def _edge(self, inside: float, outside: float) -> float:
        if self.width(outside)[0] >= 0:
            return outside
        for _ in range(BISECTIONS):
            middle = (inside + outside) / 2
            if self.width(middle)[0] >= 0:
                inside = middle
            else:
                outside = middle
        return inside


def _hull(points: list[tuple[float, float]], lower: bool) -> list[tuple[float, float]]:
    """The lower (or upper) convex hull of the points: for any line's slope, the tightest bound
    below (above) the points is met at one of them, so only these few need checking."""
    chain: list[tuple[float, float]] = []
    sign = 1.0 if lower else -1.0
    for point in sorted(points):
        while len(chain) >= 2:
            (x1, y1), (x2, y2) = chain[-2], chain[-1]
            if sign * ((x2 - x1) * (point[1] - y1) - (y2 - y1) * (point[0] - x1)) > 0:
                break
            chain.pop()
        chain.append(point)
    return chain


def _heartbeat_rate(samples: list[Sample]) -> tuple[float, float]:
    """Station ms per hub ms, and its bound, from the lowest heartbeat of each bucket (a hub
    that does not answer TIME)."""
    if samples[-1].hub - samples[0].hub < MIN_RATE_SPAN_MS:
        return 1.0, NOMINAL_RATE_ERR
    best: dict[int, tuple[float, float]] = {}  # bucket -> (hub, station)
    for s in samples:
        key = int(s.hub // BUCKET_MS)
        if key not in best or s.received - s.hub < best[key][1] - best[key][0]:
            best[key] = (s.hub, s.received)
    if len(best) < 3:
        return 1.0, NOMINAL_RATE_ERR
    xs = np.array([b[0] for b in best.values()])
    ys = np.array([b[1] for b in best.values()])
    slope, intercept = np.polyfit(xs - xs.mean(), ys, 1)
    residual = ys - intercept - slope * (xs - xs.mean())
    sigma = float(np.sqrt(np.sum(residual**2) / max(len(xs) - 2, 1) / np.sum((xs - xs.mean()) ** 2)))
    if abs(slope - 1.0) > MAX_RATE_ERR:
        return 1.0, NOMINAL_RATE_ERR
    return float(slope), min(max(RATE_SIGMAS * sigma, RATE_ERR_FLOOR), NOMINAL_RATE_ERR)


JOURNAL_SHIFT_MS = 0.02  # a new estimate that moves the mapping by more than this is journaled
JOURNAL_EVERY_MS = 10_000.0  # and one at least this often (of hub time), so the error stays honest


def worth_journaling(journaled: ClockMap | None, new: ClockMap) -> bool:
    """Whether the fold should learn ``new``: the first of a boot, one that moves the mapping or
    narrows its error, and one every ``JOURNAL_EVERY_MS``.  Between them the journaled mapping
    stays within its own stated error, so fewer records cost no accuracy the rules could use."""
    if journaled is None or journaled.boot != new.boot:
        return True
    return (
        abs(journaled.at(new.h0) - new.s0) > JOURNAL_SHIFT_MS
        or new.err < 0.8 * journaled.err_at(new.h0)
        or new.h0 - journaled.h0 >= JOURNAL_EVERY_MS
    )
