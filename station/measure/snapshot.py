"""Measuring on a TableSnapshot: the bases the camera saw, as the measurement layer's Placed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .bases import Base
from .measurement import Measurement, Placed, measure, unit_sigma
from .units import Convention


class NotOnTable(LookupError):
    pass


def placed_from(snapshot: Mapping[str, Any], element: str, residual_mm: float) -> Placed:
    unit = next((u for u in snapshot["units"] if u["element"] == element), None)
    if unit is None:
        raise NotOnTable(f"{element!r} is not in the latest table snapshot")
    if unit["status"] != "up":
        raise NotOnTable(f"{element!r} is {unit['status']}; its position is not current")
    base = Base.named(unit.get("base") or "round25", unit["x_mm"], unit["y_mm"], unit["facing_deg"])
    return Placed(element, base, unit_sigma(unit, residual_mm))


def measure_on_snapshot(
    snapshot: Mapping[str, Any], a: str, b: str, convention: Convention, residual_mm: float, kind: str = "edge"
) -> Measurement:
    return measure(placed_from(snapshot, a, residual_mm), placed_from(snapshot, b, residual_mm), convention, kind)
