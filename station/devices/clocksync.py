"""Estimating one hub's clock against the station's, from round trips and heartbeats.

Klipper's clocksync.py is the model: the host asks each MCU for its clock, notes when it asked
and when the answer came, and trusts the quick round trips most.  This estimator takes that one
step further, to bounds instead of averages:

* a clock answer (CLK, to the station's TIME) read hub time ``h`` somewhere between the moment
  the question left (``sent``) and the moment the answer was read (``received``): so the line
  ``s0 + rate * (h - h0)`` passes between them.  Every answer is one such interval; a heartbeat
  (HB ``up``) is an upper bound only, since it says nothing of when it left;
* the **rate** is the one that leaves the widest room between what the intervals allow: for a
  given rate, every interval bounds the offset from above and below, and the room between the
  tightest bounds is concave in the rate, so its best lies where a bound changes sample (an edge
  of the samples' convex hulls), which is searched exactly;
* the **offset** is the middle of that room.  Its lower edge is the answer whose *question*
  travelled quickest, its upper edge the one whose *answer* did, so a window of a minute at
  1-8 ms of USB jitter pins the offset to a few hundredths of a millisecond; a sample delayed by
  50 ms only loosens one side, so no outlier test is needed;
* the mapping's stated error is how far the offset may be for *any* rate that fits every
  interval: a bound, not a spread.  Only the hulls' corners bound anything, so only they are kept
  (about twenty samples), and an estimate takes a tenth of a millisecond.

A resonator's rate climbs as it warms up (up to ``WARMING_PPM_PER_MIN``), so the clock is no
straight line over the window, and a line fitted through it claimed bounds the truth broke for
two events in five.  Each interval is widened by how far such a clock can bend away from its
tangent at the newest sample (``WARMING`` × distance²), so the tangent, the clock's rate *now*,
fits every widened interval whatever the warming did; the mapping carries ``warming`` so its
error grows the same way ahead of h0.  Moving h0 adds the same straight line to every widened
bound, so which samples are hull corners does not change, and pruning to them stays exact.

The window is ``WINDOW_S`` of station time.  When no straight line fits every interval of the window (a resonator warming faster
than a line can follow, or a clock that jumped), the oldest samples are let go until one does:
the bound widens, honestly, and ``unsteady`` says so for the hub's health.  An answer that the
hulls say is impossible by more than ``GARBAGE_MS`` (a garbled or stale CLK) is rejected and
counted, once the mapping rests on ``TRUSTED_ANSWERS``; ``GARBAGE_RUN`` such answers in a row mean
the clock itself jumped, and the mapping starts again from them.  A rate at the edge of the ±1 %
searched (``MAX_RATE_ERR``) cannot be mapped: ``unmappable`` says so, and the link journals the
hub unmapped.  So does a window that fits only once cut short when the whole leaned on the edge
(such a clock fits a few seconds at most), until a window of ``SHORT_FIT_MS`` fits: garbage
answers that leaned on the edge are cut away, and the good ones after them soon span that.  A hub that does not answer TIME (before bronehub/1.2) is mapped from its heartbeats:
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
GARBAGE_MS = 5.0  # an answer this far outside what the mapping allows is not a clock reading
TRUSTED_ANSWERS = 3  # answers kept before one that contradicts them is rejected rather than believed
GARBAGE_RUN = 5  # rejected answers in a row: the clock jumped, start again from them
SHORT_FIT_MS = 10_000.0  # a clock 0.2 % beyond the search fits no window longer than ~8 s
WARMING_PPM_PER_MIN = 30.0  # the fastest a resonator's rate climbs as it warms up
WARMING = 0.5 * WARMING_PPM_PER_MIN * 1e-6 / 60_000  # the same, as the bend it allows: ms per ms²


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
        self.answers = 0  # CLK samples kept: 0 means heartbeats only
        self.rejected = 0  # answers that contradicted the mapping (garbled or stale CLK lines)
        self.unsteady = False  # the latest estimate had to let old samples go: no line fit them all
        self.unmappable = False  # the rate is beyond the ±1 % searched: no mapping can be trusted
        self._at_edge = False  # the latest estimate's rate is the search's edge
        self._last: ClockMap | None = None
        self._trusted: ClockMap | None = None  # the latest steady mapping from enough answers
        self._refused: list[Sample] = []  # the rejected answers in a row

    def add(self, sample: Sample) -> ClockMap:
        if self._contradicts(sample):
            self.rejected += 1
            self._refused.append(sample)
            if len(self._refused) < GARBAGE_RUN:
                assert self._last is not None  # only a mapping can be contradicted
                return self._last
            self._samples, self._trusted = deque(self._refused[:-1]), None  # a run of them: the clock jumped
        self._refused.clear()
        self._samples.append(sample)
        while self._samples[0].received < sample.received - self.window_ms:
            self._samples.popleft()
        self.answers = sum(s.sent is not None for s in self._samples)
        self._last = self.estimate()
        if self.answers >= TRUSTED_ANSWERS and not self._at_edge and not self.unsteady:
            self._trusted = self._last  # what a later answer is checked against (even while a short
            # window keeps the hub unmappable: garbage must not keep it short)
        return self._last

    def _contradicts(self, sample: Sample) -> bool:
        """An answer the trusted mapping says cannot be: its interval misses the mapped time by
        more than ``GARBAGE_MS`` beyond the mapping's own bound."""
        last = self._trusted
        if sample.sent is None or last is None:
            return False
        at, err = last.at(sample.hub), last.err_at(sample.hub) + GARBAGE_MS
        return at + err < sample.sent or at - err > sample.received

    def estimate(self) -> ClockMap:
        h0 = self._samples[-1].hub
        if not self.answers:
            rate, rate_err = _heartbeat_rate(list(self._samples))
            high = min(s.received - rate * (s.hub - h0) + rate_err * abs(s.hub - h0) for s in self._samples)
            s0, err = high - HEARTBEAT_FLOOR_MS / 2, HEARTBEAT_FLOOR_MS / 2
            return ClockMap(self.hub, self.boot, h0, s0, rate, err, rate_err, len(self._samples))
        self.unsteady = cut_at_edge = False
        while True:
            below, above, (fits, rate, rate_low, rate_high) = _fit(self._samples, h0)
            span = self._samples[-1].hub - self._samples[0].hub
            beyond = span >= MIN_RATE_SPAN_MS and _at_edge(rate)
            if fits or len(self._samples) <= 2 or sum(s.sent is not None for s in self._samples) <= 1:
                break
            cut_at_edge = cut_at_edge or beyond
            self._samples.popleft()  # no line fits the whole window: the rate changed in it
            self.unsteady = True
        # Only the hulls' corners bound any line: the rest can go (a sample hidden now stays hidden
        # as newer ones come; one the window uncovers later would only have tightened the bound).
        kept = {id(c[2]) for c in below} | {id(c[2]) for c in above} | {id(self._samples[-1])}
        self._samples = deque(s for s in self._samples if id(s) in kept)
        self.answers = sum(s.sent is not None for s in self._samples)
        # The best rate is the search's edge: the truth may lie beyond.  Or no line fitted until the
        # window was cut short, and the whole one leaned on the edge: a clock beyond the search
        # fits a few seconds at most, so it stays unmappable until a window of SHORT_FIT_MS fits
        # (garbage answers, cut away, leave good ones whose window soon grows past that).
        self.unmappable = beyond or ((cut_at_edge or self.unmappable) and span < SHORT_FIT_MS)
        self._at_edge = beyond
        high, low = _bounds(rate, below, above)
        s0 = (high + low) / 2
        err = abs(high - low) / 2
        for r in _breaks(below, above, rate_low, rate_high):
            high, low = _bounds(r, below, above)
            err = max(err, high - s0, s0 - low)
        rate_err = max(rate - rate_low, rate_high - rate)  # from the rate taken to the farther end
        return ClockMap(self.hub, self.boot, h0, s0, rate, err, rate_err, len(self._samples), WARMING)

    def state(self) -> str:
        """The clock as the hub's health shows it: ``steady``, ``unsteady`` (its mapping had to
        let old samples go, so it is wider) or ``unmappable`` (a rate beyond the ±1 % searched)."""
        return "unmappable" if self.unmappable else "unsteady" if self.unsteady else "steady"


Corner = tuple[float, float, Sample]  # (hub ms from h0, a station-time bound, the sample)


def _at_edge(rate: float) -> bool:
    """The rate is the edge of the ±1 % searched: the true one may lie beyond."""
    return abs(rate - 1.0) >= MAX_RATE_ERR * (1 - 1e-9)


def _fit(samples: deque[Sample], h0: float) -> tuple[list[Corner], list[Corner], tuple[bool, float, float, float]]:
    """The samples' hulls, and what rates fit them (``_rates``).  Each interval is widened by
    ``WARMING`` × (its distance from h0)²: the clock's tangent at h0 (its rate now) passes
    through every widened interval, however its rate climbed on the way.  Which samples are
    corners does not depend on h0 (moving h0 adds the same straight line to every bound)."""
    below = _hull([(x, s.received + WARMING * x * x, s) for s in samples for x in (s.hub - h0,)], lower=True)
    above = _hull(
        [(x, s.sent - WARMING * x * x, s) for s in samples if s.sent is not None for x in (s.hub - h0,)], lower=False
    )
    return below, above, _rates(below, above)


def _bounds(rate: float, below: list[Corner], above: list[Corner]) -> tuple[float, float]:
    """For this rate, the highest and the lowest station time at h0 every sample allows."""
    return min(y - rate * x for x, y, _ in below), max(y - rate * x for x, y, _ in above)


def _breaks(below: list[Corner], above: list[Corner], low: float, high: float) -> list[float]:
    """The rates where a bound changes corner (its hull's edge slopes), and the range's ends: the
    room between the bounds is concave and piecewise linear, so its extremes lie at these."""
    slopes = [(b[1] - a[1]) / (b[0] - a[0]) for hull in (below, above) for a, b in zip(hull, hull[1:]) if b[0] > a[0]]
    return sorted({low, high, *(r for r in slopes if low < r < high)})


def _rates(below: list[Corner], above: list[Corner]) -> tuple[bool, float, float, float]:
    """Whether any line fits every interval; the rate that leaves the widest room between the
    bounds, and the range of rates that leave any (the room is concave in the rate, so that
    range is one interval)."""
    rates = _breaks(below, above, 1.0 - MAX_RATE_ERR, 1.0 + MAX_RATE_ERR)
    rooms = [h - lo for h, lo in (_bounds(r, below, above) for r in rates)]
    best = max(range(len(rates)), key=rooms.__getitem__)
    if rooms[best] < 0:  # no line fits every interval (the rate changed in the window)
        return False, rates[best], rates[best], rates[best]

    def edge(step: int) -> float:
        k = best
        while 0 <= k + step < len(rates) and rooms[k + step] >= 0:
            k += step
        if not 0 <= k + step < len(rates):
            return rates[k]
        inside, outside = rates[k], rates[k + step]  # the room reaches 0 on this segment, linearly
        room_in, room_out = rooms[k], rooms[k + step]
        return inside + (outside - inside) * room_in / (room_in - room_out)

    return True, rates[best], edge(-1), edge(+1)


def _hull(points: list[Corner], lower: bool) -> list[Corner]:
    """The lower (or upper) convex hull of the points: for any line's slope, the tightest bound
    below (above) the points is met at one of them, so only these few need checking."""
    chain: list[Corner] = []
    sign = 1.0 if lower else -1.0
    for point in sorted(points, key=lambda c: (c[0], c[1])):
        while len(chain) >= 2:
            (x1, y1, _), (x2, y2, _) = chain[-2], chain[-1]
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


JOURNAL_SHIFT_MS = (
    0.02  # a new estimate that moves the mapping by more than this (or a quarter of its error) is journaled
)
JOURNAL_EVERY_MS = 10_000.0  # and one at least this often (of hub time), so the error stays honest


def worth_journaling(journaled: ClockMap | None, new: ClockMap) -> bool:
    """Whether the fold should learn ``new``: the first of a boot, one that moves the mapping or
    narrows its error, and one every ``JOURNAL_EVERY_MS``.  Between them the journaled mapping
    stays within its own stated error, so fewer records cost no accuracy the rules could use."""
    if journaled is None or journaled.boot != new.boot:
        return True
    return (
        abs(journaled.at(new.h0) - new.s0) > max(JOURNAL_SHIFT_MS, new.err / 4)
        or new.err < 0.8 * journaled.err_at(new.h0)
        or new.h0 - journaled.h0 >= JOURNAL_EVERY_MS
    )
