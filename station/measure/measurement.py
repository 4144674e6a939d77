"""A measurement between two bases: the two exact points, the value in the game's units, and its
uncertainty, so that a ruling can say what it measured and the referee can check it.  A value
within ``CALL_SIGMAS`` standard deviations of a rules threshold is "too close to call": the
station asks the referee instead of deciding silently."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .bases import Base, centre_distance, closest_points
from .units import Convention

DEFAULT_SIGMA_MM = 0.5  # a base the snapshot gave no σ for (older journals, tests)
CALL_SIGMAS = 2.0  # about 95 % of honest measurements fall within two sigmas


@dataclass(frozen=True)
class Placed:
    """A base on the table as the camera saw it, with how far its position may be off (mm, 1 sigma)."""

    id: str
    base: Base
    sigma_mm: float = DEFAULT_SIGMA_MM


def too_close_to_call(measured: float, threshold: float, sigma: float) -> bool:
    """The one test every rule applies to a measured value against its limit (in any one unit):
    within ``CALL_SIGMAS`` of the measurement's σ, the camera cannot tell which side it is on, so
    the referee decides (docs/measuring.md, "Thresholds")."""
    return abs(measured - threshold) <= CALL_SIGMAS * sigma


def path_sigma(sigma_mm: float) -> float:
    """How far a path's length may be off, from one base's position σ: its two ends are each that
    uncertain (the points between add to both the length and the error, and cancel on average)."""
    return math.sqrt(2.0) * sigma_mm


def pair_sigma(a: Placed, b: Placed) -> float:
    """How far anything measured between two bases may be off: their position sigmas combined
    (1 sigma, mm).  Every distance, gap and bearing between two bases starts from it."""
    return math.hypot(a.sigma_mm, b.sigma_mm)


def position_sigma(calibration_sigma_mm: float, confidence: float) -> float:
    """A base's position uncertainty: the calibration's expected error there, widened as the
    tracker's confidence in the sighting drops."""
    return max(calibration_sigma_mm, 0.1) / max(confidence, 0.1)


def unit_sigma(unit: Mapping[str, Any], fallback_mm: float) -> float:
    """The position sigma of one unit of a TableSnapshot: its own ``sigma_mm`` (the calibration's
    error map at that base, journaled with it), or ``fallback_mm`` for snapshots recorded before
    the map existed (the calibration's worst anchor residual)."""
    return position_sigma(float(unit.get("sigma_mm") or fallback_mm), float(unit.get("confidence", 1.0)))


@dataclass(frozen=True)
class Measurement:
    a: str
    b: str
    kind: str  # "edge" or "centre"
    mm: float
    sigma_mm: float
    point_a: tuple[float, float]
    point_b: tuple[float, float]
    convention: Convention

    @property
    def value(self) -> float:
        """In the game's units, rounded as the game rounds."""
        return self.convention.state(self.mm)

    @property
    def exact(self) -> float:
        return self.convention.unit.from_mm(self.mm)

    def too_close_to_call(self, threshold: float) -> bool:
        """Is ``threshold`` (game units) within the uncertainty band of this measurement?"""
        return too_close_to_call(self.mm, self.convention.unit.to_mm(threshold), self.sigma_mm)

    def describe(self) -> str:
        u = self.convention.unit
        return (
            f"{self.a}→{self.b} {self.kind} to {self.kind}: {self.exact:.2f} {u.name} "
            f"(±{u.from_mm(CALL_SIGMAS * self.sigma_mm):.2f}), counted as {self.value:g}"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "kind": self.kind,
            "mm": round(self.mm, 2),
            "sigma_mm": round(self.sigma_mm, 2),
            "value": self.value,
            "exact": round(self.exact, 3),
            "unit": self.convention.unit.name,
            "point_a": [round(c, 2) for c in self.point_a],
            "point_b": [round(c, 2) for c in self.point_b],
        }


def measure(a: Placed, b: Placed, convention: Convention, kind: str = "edge") -> Measurement:
    sigma = pair_sigma(a, b)
    if kind == "centre":
        return Measurement(
            a.id,
            b.id,
            kind,
            centre_distance(a.base, b.base),
            sigma,
            (a.base.x, a.base.y),
            (b.base.x, b.base.y),
            convention,
        )
    if kind != "edge":
        raise ValueError("kind must be 'edge' or 'centre'")
    mm, pa, pb = closest_points(a.base, b.base)
    return Measurement(a.id, b.id, kind, mm, sigma, tuple(np.round(pa, 4)), tuple(np.round(pb, 4)), convention)
