"""What a ruleset takes from a journaled TableSnapshot: where each known model stands, how surely,
the table's size, and the paths of the models moving now.  Shared by every ruleset, so that the
camera's evidence means the same in every game."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict, TypeVar

from ..measure.measurement import unit_sigma
from ..measure.movement import append_position
from ..measure.paths import Pose
from ..measure.terrain import Piece, parse_terrain
from .base import Evolving, Overriding, Ruling, RulingKind
from .text import say

DEFAULT_RESIDUAL_MM = 0.5  # a snapshot that does not say how well the camera is calibrated (a recorded session)


@dataclass(frozen=True)
class Seen:
    positions: Mapping[str, Pose]
    sigmas: Mapping[str, float]
    paths: Mapping[str, tuple[Pose, ...]]
    table_mm: tuple[float, float] | None


def read_snapshot(
    args: Mapping[str, Any],
    known: Collection[str],
    positions: Mapping[str, Pose],
    sigmas: Mapping[str, float],
    paths: Mapping[str, tuple[Pose, ...]],
    moving: Collection[str],
    table_mm: tuple[float, float] | None,
) -> Seen | None:
    """The state's camera evidence updated by one snapshot, or None if it saw no known model
    standing.  A hidden or fallen model keeps its last place; each model in ``moving`` extends its
    path (camera noise under 2 mm is dropped)."""
    standing = [u for u in args.get("units", []) if u.get("status") == "up" and u.get("element") in known]
    if not standing:
        return None
    seen = {u["element"]: (float(u["x_mm"]), float(u["y_mm"]), float(u["facing_deg"])) for u in standing}
    residual = float(args.get("residual_mm") or DEFAULT_RESIDUAL_MM)
    new_sigmas = {u["element"]: unit_sigma(u, residual) for u in standing}
    new_paths = dict(paths)
    for model in moving:
        if model in seen:
            start = new_paths.get(model) or ((positions[model],) if model in positions else ())
            new_paths[model] = append_position(start, seen[model])
    size = args.get("table_mm")
    return Seen(
        {**positions, **seen},
        {**sigmas, **new_sigmas},
        new_paths,
        (float(size[0]), float(size[1])) if size and len(size) == 2 else table_mm,
    )


T = TypeVar("T", bound="TableState")  # a game's state, built on TableState


def table_input(
    state: T, seq: int, kind: str, args: Mapping[str, Any], known: Collection[str], moving: Collection[str]
) -> T | None:
    """The inputs every model-spec ruleset folds the same way: a table snapshot (``known``
    models, ``moving`` ones extend their paths), the terrain, a confirmation, and an override
    (which acts retroactively through the state's overrides).  The new state, or None for any
    other input."""
    if kind == "snapshot":
        seen = read_snapshot(args, known, state.positions, state.sigmas, state.paths, moving, state.table_mm)
        if seen is None:
            return state.evolve(table_seq=seq)
        return state.evolve(
            positions=seen.positions, sigmas=seen.sigmas, paths=seen.paths, table_mm=seen.table_mm, table_seq=seq
        )
    if kind == "terrain":
        return state.evolve(terrain=tuple(parse_terrain(dict(args), f"journal record {seq}")))
    if kind == "confirm":
        return state.evolve(confirmed=state.confirmed | {str(args.get("ruling"))})
    if kind == "override":
        return state
    return None


@dataclass(frozen=True, kw_only=True)
class TableState(Evolving):
    """What every model-spec ruleset's state keeps besides its own game: the referee's overrides,
    the camera's evidence (where each model stands, how surely, the paths of the models moving
    now), the terrain and the confirmed rulings.  Subclasses are frozen dataclasses too."""

    overrides: Mapping[str, Overriding] = field(default_factory=dict)  # ruling -> (seq, override)
    positions: Mapping[str, Pose] = field(default_factory=dict)  # x, y, facing from the camera
    sigmas: Mapping[str, float] = field(default_factory=dict)
    paths: Mapping[str, tuple[Pose, ...]] = field(default_factory=dict)
    table_seq: int = 0
    table_mm: tuple[float, float] | None = None
    terrain: tuple[Piece, ...] = ()
    confirmed: frozenset[str] = frozenset()

    def stands_in(self, model_id: str, kinds: Collection[str]) -> bool:
        """Does the model's centre, where the camera last saw it, stand in terrain of these kinds?"""
        where = self.positions.get(model_id)
        return where is not None and any(p.type in kinds and p.contains(where[:2]) for p in self.terrain)


def fold_common(
    state: T, seq: int, kind: str, args: Mapping[str, Any], known: Collection[str], moving: Collection[str]
) -> tuple[T, list[Ruling]]:
    """The end of a ruleset's ``apply``: the shared table inputs, or a warning for an unknown one."""
    folded = table_input(state, seq, kind, args, known, moving)
    if folded is not None:
        return folded, []
    return state, [Ruling(f"{seq}:input", seq, RulingKind.WARNING, say("Unknown input {input}.", input=repr(kind)), "")]


class SettledTableView(TypedDict):
    """The keys of every game's ``state_view`` that come from the shared table state, built once
    here: the confirmed and overridden rulings, where the camera put each model (mm, mm, degrees),
    the snapshot that came from, and the terrain in force."""

    confirmed: list[str]
    overridden: list[str]
    positions: dict[str, list[float]]
    table_seq: int
    terrain: list[str]


def table_view(state: TableState) -> SettledTableView:
    return {
        "confirmed": sorted(state.confirmed),
        "overridden": sorted(state.overrides),
        "positions": {k: [round(c, 2) for c in v] for k, v in sorted(state.positions.items())},
        "table_seq": state.table_seq,
        "terrain": [p.id for p in state.terrain],
    }
