"""The measurement layer over the game's latest table snapshot and terrain, for the dashboard.

The geometry of a snapshot (every distance, bearing and line of sight) is measured when someone
asks and then kept current: the next snapshot measures again only the pairs in which a base
moved, and a new terrain starts afresh.  Rulings never read this; the fold measures what it
needs from the journaled snapshots, so a replay does not depend on who looked at the dashboard.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .game import Game
from .measure.bases import Base, reach_outline
from .measure.measurement import CALL_SIGMAS, Placed, pair_sigma, unit_sigma
from .measure.table import Figure, TableGeometry, Terrain
from .measure.terrain import parse_terrain

DEFAULT_HEIGHT_MM = 40.0  # a model the army files do not know (the rules ignore it)


class NotPlaced(LookupError):
    pass


class TableView:
    def __init__(self, game: Game, residual_mm: Callable[[], float]) -> None:
        self.game = game
        self.residual_mm = residual_mm
        self._lock = threading.Lock()
        self._geometry: TableGeometry | None = None
        self._snapshot_seq: int | None = None
        self._terrain: tuple[int | None, Terrain] = (None, Terrain(()))

    def geometry(self) -> tuple[TableGeometry, dict[str, Any]]:
        """The geometry of the latest snapshot, measured again only where bases moved."""
        table = self.game.table()
        if table is None:
            raise NotPlaced("no table snapshot yet: is a camera attached?")
        with self._lock:
            terrain = self._current_terrain()
            if self._geometry is not None and self._snapshot_seq == table["seq"] and self._geometry.terrain is terrain:
                return self._geometry, table
            figures = self._figures(table)
            if self._geometry is None:
                self._geometry = TableGeometry.of(figures, terrain)
            else:
                self._geometry = self._geometry.update(figures, terrain)
            self._snapshot_seq = table["seq"]
            return self._geometry, table

    def _current_terrain(self) -> Terrain:
        document = self.game.terrain()
        if document["seq"] != self._terrain[0]:
            pieces = parse_terrain({"format": document["format"], "pieces": document["pieces"]}, "journal")
            self._terrain = (document["seq"], Terrain(pieces))
        return self._terrain[1]

    def _figures(self, table: dict[str, Any]) -> list[Figure]:
        residual = self.residual_mm()
        figures = []
        for unit in table["units"]:
            if unit["status"] != "up":
                continue  # hidden or fallen: its position is not current
            spec = self.game.model_spec(unit["element"])
            base = Base.named(
                unit.get("base") or spec.get("base") or "round25", unit["x_mm"], unit["y_mm"], unit["facing_deg"]
            )
            figures.append(
                Figure(
                    Placed(unit["element"], base, unit_sigma(unit, residual)),
                    unit.get("player") or spec.get("player") or "?",
                    float(spec.get("height_mm") or DEFAULT_HEIGHT_MM),
                )
            )
        return figures

    def reach(self, element: str) -> dict[str, Any]:
        """What the dashboard draws for a selected model: its rings and arcs from the rules, and
        every enemy base with its distance, whether it is in the front arc, and how much of it
        the model sees (and the cover that gives)."""
        geometry, table = self.geometry()
        if element not in geometry.ids:
            raise NotPlaced(f"{element!r} is not standing on the latest table snapshot")
        ruleset = self.game.ruleset
        convention = ruleset.convention
        me = geometry.index(element)
        figure = geometry.figures[me]
        drawn = self.game.reach(element)
        rings = [
            {
                **ring,
                "value": convention.state(ring["mm"]),
                "unit": convention.unit.name,
                "outline": _points(reach_outline(figure.placed.base, ring["mm"])),
            }
            for ring in drawn["rings"]
        ]
        targets: list[dict[str, Any]] = []
        for k, other in enumerate(geometry.figures):
            if other.side == figure.side:
                continue
            sigma = pair_sigma(figure.placed, other.placed)
            edge = float(geometry.edge_mm[me, k])
            sight = geometry.line_of_sight(element, other.id)
            targets.append(
                {
                    "element": other.id,
                    "player": other.side,
                    "edge_mm": round(edge, 1),
                    "value": convention.state(edge),
                    "exact": round(convention.unit.from_mm(edge), 2),
                    "in_front": geometry.in_arc(element, other.id, 0.0, 90.0),
                    "hidden_fraction": round(sight.hidden_fraction, 3),
                    "woods_mm": round(sight.woods_mm, 1),
                    "blockers": list(sight.blockers),
                    "cover": ruleset.cover(sight.hidden_fraction),
                    "near_ring": [r["label"] for r in rings if abs(r["mm"] - edge) <= CALL_SIGMAS * sigma],
                }
            )
            if other.id in drawn.get("attacks", {}):  # the rules' own attack preview (Alpha Strike's wizard)
                targets[-1]["attack"] = drawn["attacks"][other.id]
            if "hit_chance" in drawn:  # the chance of a hit at the distance counted, if the rules give one
                targets[-1]["hit_chance"] = drawn["hit_chance"].get(int(convention.state(edge)), 0.0)
        targets.sort(key=lambda t: t["edge_mm"])
        base = figure.placed.base
        return {
            "element": element,
            "player": figure.side,
            "x_mm": base.x,
            "y_mm": base.y,
            "facing_deg": base.facing_deg,
            "unit": convention.unit.name,
            "snapshot_seq": table["seq"],
            "outline": _points(base.outline()),
            "rings": rings,
            "arcs": drawn["arcs"],
            "weapon": drawn.get("weapon"),
            "targets": targets,
        }


def _points(points: Iterable[Sequence[float]]) -> list[list[float]]:
    return [[round(float(x), 1), round(float(y), 1)] for x, y in points]
