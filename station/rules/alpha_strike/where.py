"""Where a unit is on the table, from the state's camera evidence: its placed base for the
measurement layer, its height for line of sight, and the terrain it stands in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...measure.bases import MM_PER_INCH as INCH
from ...measure.bases import Base
from ...measure.measurement import CALL_SIGMAS, DEFAULT_SIGMA_MM, Placed, pair_sigma
from ...measure.paths import Pose, went_through
from ...measure.terrain import base_touches
from .state import AlphaState

WATER_DEPTH_IN = 1.0  # §5.4: «глубина воды всегда считается равной 1 дюйму» (a map's own depth wins)

EDGES = ("bottom", "top", "left", "right")  # y = 0, y = table depth, x = 0, x = table width
OPPOSITE = {"bottom": "top", "top": "bottom", "left": "right", "right": "left"}
DEFAULT_HEIGHT_MM = 60.0  # a 'Mech's marker above the table, where a force file gives none


def _unit_spec(state: AlphaState, unit_id: str) -> dict[str, Any]:
    return next(u for f in state.forces for u in f["units"] if u["id"] == unit_id)


def placed(state: AlphaState, unit_id: str) -> Placed | None:
    """The unit's base where the camera last saw it, or None if it has not been seen."""
    where = state.positions.get(unit_id)
    if where is None:
        return None
    return Placed(
        unit_id, Base.named(_unit_spec(state, unit_id)["base"], *where), state.sigmas.get(unit_id, DEFAULT_SIGMA_MM)
    )


def height_mm(state: AlphaState, unit_id: str) -> float:
    return float((_unit_spec(state, unit_id)["marker"] or {}).get("height_mm") or DEFAULT_HEIGHT_MM)


def on_terrain(state: AlphaState, unit_id: str, kinds: tuple[str, ...], at: Pose | None = None) -> bool:
    """Is the unit on terrain of these kinds: any part of its base touching a piece (the
    quick-start's «любая часть её подставки»), not only its centre; where it stands, or ``at``
    a pose of its path."""
    where = placed(state, unit_id)
    if where is None:
        return False
    base = where.base if at is None else where.base.at(*at)
    return any(piece.type in kinds and base_touches(base, piece) for piece in state.terrain)


def water_depth_in(state: AlphaState, unit_id: str) -> float | None:
    """How deep the water the unit stands in is, in inches (the deepest piece its base touches;
    a piece with no depth of its own is the quick-start's 1", §5.4), or None out of water."""
    where = placed(state, unit_id)
    if where is None:
        return None
    depths = [
        WATER_DEPTH_IN if piece.water_depth_mm is None else piece.water_depth_mm / INCH
        for piece in state.terrain
        if piece.type == "water" and base_touches(where.base, piece)
    ]
    return max(depths) if depths else None


def passed_through(state: AlphaState, unit_id: str, path: Sequence[Pose]) -> list[str]:
    """§5.5 «Группирование»: the enemy units a ground move went through.  Friends may be passed
    («может проходить сквозь дружественные»), and a jump passes over everything, so only a ground
    move is checked, against every enemy unit where it stands.  A graze within twice the two
    positions' σ is the camera's doubt, not a pass."""
    mine = placed(state, unit_id)
    if mine is None or len(path) < 2:
        return []
    player = state.units[unit_id].player
    enemies = [
        (u.id, where) for u in state.in_play() if u.player != player and (where := placed(state, u.id)) is not None
    ]
    margins = [CALL_SIGMAS * pair_sigma(mine, where) for _, where in enemies]
    return sorted(enemies[n][0] for n in went_through(mine.base, path, [w.base for _, w in enemies], margins))


def from_edges(state: AlphaState, unit_id: str) -> dict[str, tuple[float, float]] | None:
    """How far the nearest and the farthest point of the unit's base are from each table edge,
    in mm: the deployment zone takes the farthest (§3.5), leaving the table the nearest (§4.5)."""
    where = placed(state, unit_id)
    if where is None or state.table_mm is None:
        return None
    outline = where.base.outline(64)
    width, depth = state.table_mm
    x, y = outline[:, 0], outline[:, 1]
    return {
        "bottom": (float(y.min()), float(y.max())),
        "top": (float(depth - y.max()), float(depth - y.min())),
        "left": (float(x.min()), float(x.max())),
        "right": (float(width - x.max()), float(width - x.min())),
    }
