"""A hub's clock as cheap hardware makes it, fed to the link's estimator (station/devices/clocksync.py).

A resonator that warms (its rate climbs ``warm_ppm_per_min`` from ``ppm``), USB latency that is
not the same both ways, and CLK answers of which some are garbage.  ``run`` asks the time as the
link does, journals estimates by the link's rule, and at random moments checks the mapping in
force against the truth: how often the true error is within the bound it states.  The clock tests
and ``bench/clock_sync.py`` share it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from station.devices.clocksync import ClockSync, Sample, worth_journaling
from station.hubclock import ClockMap

FAST_S, FAST_EVERY_S, SLOW_EVERY_S = 60.0, 0.1, 1.0  # as station/devices/link.py asks


@dataclass(frozen=True)
class Crystal:
    """Hub ms as a function of station ms: ``ppm`` fast at power-up, climbing linearly."""

    ppm: float = 0.0
    warm_ppm_per_min: float = 0.0
    power_up_ms: float = 0.0

    def hub_ms(self, station_ms: float) -> float:
        dt = station_ms - self.power_up_ms
        return dt + 1e-6 * (self.ppm * dt + 0.5 * self.warm_ppm_per_min / 60_000 * dt * dt)


@dataclass(frozen=True)
class Wire:
    """The USB link: each way's latency in ms (uniform), a share of lines ``late_ms`` later, and
    a share of CLK answers that are garbage (a random reading)."""

    out_ms: tuple[float, float] = (0.0, 8.0)
    back_ms: tuple[float, float] = (0.0, 8.0)
    late_share: float = 0.01
    late_ms: float = 50.0
    garbage_share: float = 0.0

    def delay(self, rng: random.Random, way: tuple[float, float]) -> float:
        return rng.uniform(*way) + (self.late_ms if rng.random() < self.late_share else 0.0)


@dataclass
class Outcome:
    checks: int = 0
    within: int = 0
    worst_ratio: float = 0.0  # the worst true error over the stated bound
    stated: list[float] = field(default_factory=list)
    errors: list[float] = field(default_factory=list)
    sync: ClockSync | None = None
    journaled: ClockMap | None = None

    @property
    def share_within(self) -> float:
        return self.within / self.checks if self.checks else 1.0


def run(
    crystal: Crystal,
    wire: Wire,
    seconds: float,
    rng: random.Random,
    after_s: float = 20.0,
    ahead_s: tuple[float, float] = (1.0, 10.0),
) -> Outcome:
    """Ask the hub's time for ``seconds`` as the link does and, from ``after_s`` on, check the
    journaled mapping at an event ``ahead_s`` after its reference point, once a question."""
    sync, out = ClockSync("A1A1", "0001"), Outcome()
    out.sync = sync
    now = crystal.power_up_ms + 5.0
    end = crystal.power_up_ms + seconds * 1000
    while now < end:
        read_at = now + wire.delay(rng, wire.out_ms)
        received = read_at + wire.delay(rng, wire.back_ms)
        hub = crystal.hub_ms(read_at)
        if rng.random() < wire.garbage_share:
            hub = rng.choice((rng.uniform(0, 1e9), hub + rng.choice((-1, 1)) * rng.uniform(30, 5_000)))
        estimate = sync.add(Sample(hub, received, now))
        if sync.unmappable:
            out.journaled = None  # the link journals the hub unmapped
        elif worth_journaling(out.journaled, estimate):
            out.journaled = estimate
        age_s = (now - crystal.power_up_ms) / 1000
        if out.journaled is not None and age_s > after_s:
            event = received + rng.uniform(*ahead_s) * 1000  # an event later, on this mapping still
            h = crystal.hub_ms(event)
            error, bound = abs(out.journaled.at(h) - event), out.journaled.err_at(h)
            out.checks += 1
            out.within += error <= bound
            out.worst_ratio = max(out.worst_ratio, error / bound if bound else float("inf"))
            out.stated.append(bound)
            out.errors.append(error)
        now += 1000 * (FAST_EVERY_S if age_s < FAST_S else SLOW_EVERY_S)
    return out
