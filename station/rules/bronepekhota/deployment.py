"""§1.5 and §1.6, checked when the first round begins: the armies' costs within 20 % of each
other, each side deployed in an area at most 60 x 20 cm at a table edge (as the camera saw it),
and, as the rulebook only wishes, at least 60 cm from the nearest enemy.  These are questions for
the referee, never refusals: the players may have agreed otherwise."""

from __future__ import annotations

import numpy as np

from ...measure.bases import Base
from ...measure.pairwise import edge_distances
from ..base import Ruling, RulingKind
from ..text import say
from .state import GameState

COST_SPREAD = 0.20  # §1.5: "no more than 10-20 %"
AREA_ALONG, AREA_DEEP = 600.0, 200.0  # §1.6: 60 cm along the edge, 20 cm deep
ENEMY_GAP = 600.0  # §1.6: "desirable" 60-70 cm


def deployment_rulings(state: GameState, seq: int) -> list[Ruling]:
    if state.round != 0 or not state.options.check_deployment:
        return []
    rulings = []
    costs = {a["player"]: sum(u.get("cost", 0) for u in a["units"]) for a in state.setup.armies}
    if (
        costs
        and min(costs.values()) > 0
        and (max(costs.values()) - min(costs.values())) / max(costs.values()) > COST_SPREAD
    ):
        shown = ", ".join(f"{p} {c}" for p, c in costs.items())
        rulings.append(
            Ruling(
                f"{seq}:costs",
                seq,
                RulingKind.WARNING,
                say("Army costs differ by more than 20 % ({shown}).", shown=shown),
                "§1.5",
                needs_referee=True,
            )
        )
    placed = {
        e.id: Base.named(state.setup.bases[e.id], *state.positions[e.id])
        for e in state.elements.values()
        if e.id in state.positions and not e.destroyed and not e.aboard
    }
    if not placed or not state.table_mm:
        return rulings
    for player in state.setup.players:
        mine = [b for k, b in placed.items() if state.elements[k].player == player]
        if mine and not _in_an_edge_area(mine, state.table_mm):
            rulings.append(
                Ruling(
                    f"{seq}:deploy:{player}",
                    seq,
                    RulingKind.WARNING,
                    say("{player}'s models are not within one 60 × 20 cm area at a table edge.", player=player),
                    "§1.6",
                    needs_referee=True,
                )
            )
    ids = list(placed)
    gaps = edge_distances([placed[k] for k in ids])
    sides = np.array([state.elements[k].player for k in ids])
    enemy = sides[:, None] != sides[None, :]
    if enemy.any() and gaps[enemy].min() < ENEMY_GAP:
        rulings.append(
            Ruling(
                f"{seq}:deploy-gap",
                seq,
                RulingKind.STATUS,
                say(
                    "The armies deployed {n} cm apart; the rulebook wishes for at least 60-70 cm.",
                    n=f"{gaps[enemy].min() / 10:.0f}",
                ),
                "§1.6",
            )
        )
    return rulings


def _in_an_edge_area(bases: list[Base], table_mm: tuple[float, float]) -> bool:
    """Do these bases fit inside one area 60 cm along some edge and 20 cm deep from it?"""
    outline = np.concatenate([b.outline(16) for b in bases])
    (x0, y0), (x1, y1) = outline.min(axis=0), outline.max(axis=0)
    width, depth = table_mm
    return any(
        [
            x1 - x0 <= AREA_ALONG and y1 <= AREA_DEEP,
            x1 - x0 <= AREA_ALONG and y0 >= depth - AREA_DEEP,
            y1 - y0 <= AREA_ALONG and x1 <= AREA_DEEP,
            y1 - y0 <= AREA_ALONG and x0 >= width - AREA_DEEP,
        ]
    )
