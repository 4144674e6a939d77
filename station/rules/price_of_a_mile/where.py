"""Where the bases are, from the state's camera evidence, for the measurement layer."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ...measure.bases import Base
from ...measure.measurement import DEFAULT_SIGMA_MM, Placed

if TYPE_CHECKING:  # state.py's helpers come back here
    from .state import MileState


def _base_name(state: MileState, fighter_id: str) -> str:
    for army in state.armies:
        for squad in army["squads"]:
            for b in squad["bases"]:
                if b["id"] == fighter_id:
                    return str(b["base"])
        for c in army["characters"]:
            if c["id"] == fighter_id:
                return str(c["base"])
    raise KeyError(fighter_id)


def placed(state: MileState, fighter_id: str) -> Placed | None:
    """The base where the camera last saw it; None if unseen or riding in a truck (§15.1)."""
    where = state.positions.get(fighter_id)
    if where is None or state.fighters[fighter_id].aboard:
        return None
    return Placed(
        fighter_id, Base.named(_base_name(state, fighter_id), *where), state.sigmas.get(fighter_id, DEFAULT_SIGMA_MM)
    )


def placed_many(state: MileState, fighter_ids: Iterable[str]) -> list[Placed]:
    """The bases the camera has placed, in the order given; unseen ones are left out."""
    return [p for p in (placed(state, f) for f in fighter_ids) if p is not None]
