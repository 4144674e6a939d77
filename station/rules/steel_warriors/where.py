"""Where the figures are, from the state's camera evidence, for the measurement layer."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ...measure import relations
from ...measure.bases import Base
from ...measure.measurement import DEFAULT_SIGMA_MM, Placed
from ...measure.paths import Pose

if TYPE_CHECKING:  # state.py's module imports would come back here
    from .state import WarState


def _base_name(state: WarState, figure_id: str) -> str:
    return str(next(x["base"] for a in state.armies for s in a["squads"] for x in s["figures"] if x["id"] == figure_id))


def placed(state: WarState, figure_id: str, pose: Pose | None = None) -> Placed | None:
    where = pose or state.positions.get(figure_id)
    if where is None:
        return None
    return Placed(
        figure_id, Base.named(_base_name(state, figure_id), *where), state.sigmas.get(figure_id, DEFAULT_SIGMA_MM)
    )


def placed_many(state: WarState, figure_ids: Iterable[str]) -> list[Placed]:
    return [p for p in (placed(state, f) for f in figure_ids) if p is not None]


def nearest_enemy_mm(state: WarState, figure_id: str, pose: Pose) -> float:
    """Centre distance from a pose to the nearest fighting enemy figure (for 'towards' or 'away')."""
    me = state.figures[figure_id]
    gaps = [
        ((pose[0] - w[0]) ** 2 + (pose[1] - w[1]) ** 2) ** 0.5
        for f, w in state.positions.items()
        if f in state.figures and state.figures[f].player != me.player and state.figures[f].fighting
    ]
    return min(gaps, default=float("inf"))


def nearest_gap(state: WarState, ours: Iterable[str], theirs: Iterable[str]) -> tuple[float, float] | None:
    """The nearest edge-to-edge gap between two groups of figures, and its σ, both in the game's
    units; None where the camera has not placed both groups.  Fire zones, charges and a fleeing
    squad's surrender all measure this."""
    found = relations.nearest_gap(placed_many(state, ours), placed_many(state, theirs))
    return None if found is None else (found[0] / state.unit_mm, found[1] / state.unit_mm)


def nearest_enemy_gap(state: WarState, squad_id: str) -> tuple[float, float] | None:
    """The gap from the squad to the nearest fighting enemy figure, and its σ (``nearest_gap``)."""
    player = state.squads[squad_id].player
    foes = [f.id for f in state.figures.values() if f.player != player and f.fighting]
    return nearest_gap(state, [f.id for f in state.fighting(squad_id)], foes)
