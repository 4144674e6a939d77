"""Game units and each ruleset's rounding.  Бронепехота measures in steps of 5 cm and rounds up
(seed 000 digest §7: "distance in steps, rounded up"); inch games keep fractions."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .bases import MM_PER_INCH

ROUNDINGS = ("up", "down", "nearest", "none")


@dataclass(frozen=True)
class Unit:
    name: str
    mm: float  # millimetres per unit

    def from_mm(self, mm: float) -> float:
        return mm / self.mm

    def to_mm(self, value: float) -> float:
        return value * self.mm


INCH = Unit("inch", MM_PER_INCH)
CM = Unit("cm", 10.0)


def step(cm_per_step: float = 5.0) -> Unit:
    if cm_per_step <= 0:
        raise ValueError("cm per step must be positive")
    return Unit("step", cm_per_step * 10.0)


@dataclass(frozen=True)
class Convention:
    """How a game states a distance: its unit and how it rounds."""

    unit: Unit
    rounding: str = "none"

    def __post_init__(self) -> None:
        if self.rounding not in ROUNDINGS:
            raise ValueError(f"rounding must be one of {', '.join(ROUNDINGS)}")

    def state(self, mm: float) -> float:
        value = self.unit.from_mm(mm)
        if self.rounding == "up":
            return float(math.ceil(value - 1e-9))
        if self.rounding == "down":
            return float(math.floor(value + 1e-9))
        if self.rounding == "nearest":
            return float(round(value))
        return value


BRONEPEKHOTA = Convention(step(5.0), "up")
INCHES = Convention(INCH)

# How each game in the rulebooks states a distance (docs/measuring.md, "Conventions by game").  Бронепехота
# and its quick rules: steps rounded up (seed 000 §7.4, seed 002).  Alpha Strike (seed 004 §6.3),
# The Price of a Mile (seed 003) and Steel Warriors (seed 001 §6.4): inches with fractions kept;
# Steel Warriors turns a distance into a range zone itself (zone = ceil(d / W)).
CONVENTIONS = {
    "bronepekhota": BRONEPEKHOTA,
    "bronepekhota_quick": BRONEPEKHOTA,
    "alpha_strike": INCHES,
    "price_of_a_mile": INCHES,
    "steel_warriors": INCHES,
}
