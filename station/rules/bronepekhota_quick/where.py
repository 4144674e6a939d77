"""Where the quick rules' fighters stand, from the camera: their placed bases, the distance
between two in steps, who is within a reach, and which of those the camera cannot place on one
side of the reach's edge (docs/measuring.md, "Thresholds: too close to call")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...measure.bases import Base
from ...measure.measurement import CALL_SIGMAS, DEFAULT_SIGMA_MM, Measurement, Placed, measure, pair_sigma
from ...measure.pairwise import edge_distances
from ...measure.relations import in_contact
from ...measure.units import Convention, step
from ..text import Text, say
from .state import Fighter, QuickState

CONTACT_MM = 2.0  # bases this close touch: a gun's operator, a ram


def convention(state: QuickState) -> Convention:
    return Convention(step(state.options.step_cm), "none")


def placed(state: QuickState, fighter: Fighter) -> Placed | None:
    where = state.positions.get(fighter.id)
    return (
        None
        if where is None
        else Placed(fighter.id, Base.named(fighter.base, *where), state.sigmas.get(fighter.id, DEFAULT_SIGMA_MM))
    )


@dataclass(frozen=True)
class Distance:
    """Two fighters' edge-to-edge distance as the camera measured it, or nothing without it."""

    steps: float | None
    measured: dict[str, Any] | None
    measurement: Measurement | None

    def close_call(self, limit_steps: float, name: str) -> Text | None:
        """The words for the referee when ``limit_steps`` is within the camera's doubt."""
        m = self.measurement
        if m is None or not m.too_close_to_call(limit_steps):
            return None
        return say(
            "Too close to call: {name} is {steps} steps away, within the camera's uncertainty of {limit}; the referee decides.",
            name=name,
            steps=f"{m.exact:.2f}",
            limit=f"{limit_steps:g}",
        )


def distance(state: QuickState, a: Fighter, b: Fighter) -> Distance:
    pa, pb = placed(state, a), placed(state, b)
    if pa is None or pb is None:
        return Distance(None, None, None)
    m = measure(pa, pb, convention(state))
    return Distance(m.value, {**m.as_dict(), "table_seq": state.table_seq}, m)


def within(state: QuickState, centre: Fighter, steps: float, enemies: bool) -> tuple[list[Fighter], list[Fighter]]:
    """The others (only the enemy, or everyone) whose base edge is within ``steps`` of
    ``centre``'s, and those of all the others that lie within 2σ of that reach either way."""
    me = placed(state, centre)
    others = [
        (f, p)
        for f in state.fighters.values()
        if f.id != centre.id and not f.dead and (not enemies or f.player != centre.player)
        and (p := placed(state, f)) is not None
    ]  # fmt: skip
    if me is None or not others:
        return [], []
    row = edge_distances([me.base] + [p.base for _, p in others])[0, 1:]
    reach = steps * state.step_mm
    inside = [f for (f, _), mm in zip(others, row) if mm <= reach]
    doubtful = [f for (f, p), mm in zip(others, row) if abs(mm - reach) <= CALL_SIGMAS * pair_sigma(me, p)]
    return inside, doubtful


def operator_of(state: QuickState, gun: Fighter) -> Fighter | None:
    """§6.1 «Артиллерийское орудие стреляет, только если рядом стоит боец»: the friendly fighter,
    able to act, whose base touches the gun's; None if the camera shows nobody there, or has not
    placed the gun."""
    me = placed(state, gun)
    if me is None:
        return None
    for f in state.fighters.values():
        if f.player == gun.player and f.soldier and not f.dead and not f.wounded:
            them = placed(state, f)
            if them is not None and in_contact(me, them, CONTACT_MM):
                return f
    return None
