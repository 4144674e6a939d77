"""A toy game that proves the Ruleset interface is enough (README "Adding a game"): two duellists
flip a coin for who shoots first, and a tilt node in each says who fell.  Under 100 lines."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from station.events import Node, Tilt
from station.measure.units import INCHES, Convention
from station.rules.base import ArmyError, Event, Input, Ruling, RulingKind
from station.rules.inputs import Inputs
from station.rules.model_fields import ModelRuleset
from station.rules.table_snapshot import TableState, fold_common

INPUTS = Inputs()


@dataclass(frozen=True, kw_only=True)
class DuelState(TableState):
    """Who shoots first, who is down, and the winner: a frozen dataclass like every game's state."""

    first: str | None = None
    down: frozenset[str] = frozenset()
    duellists: tuple[str, ...] = ()


@INPUTS.register("flip", "§1 (toy): the coin decides who shoots first")
def handle_flip(game: Any, state: DuelState, seq: int, args: Mapping[str, Any]):
    first = state.duellists[0 if game.roller.roll(6, f"{seq}/coin") <= 3 else 1]  # a d6 as the coin
    return state.evolve(first=first), [
        Ruling(f"{seq}:flip", seq, RulingKind.INITIATIVE, f"{first} shoots first.", "§1")
    ]


class Duel(ModelRuleset):
    name: ClassVar[str] = "duel"
    title: ClassVar[str] = "Duel (toy)"
    override_verdicts: ClassVar[Sequence[str]] = ("void",)
    input_types: ClassVar[Sequence[str]] = INPUTS.types
    controls: ClassVar[Sequence[tuple[str, str]]] = (("flip", "Flip the coin"),)
    mm_per_unit: ClassVar[float] = 25.4
    convention: ClassVar[Convention] = INCHES

    def load_army(self, path: str) -> dict[str, Any]:
        raise ArmyError(path, "file", "the toy duel takes its duellists inline")

    def model_specs(self, armies: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return [{"element": a["player"], "unit": a["player"], "player": a["player"], "kind": "infantry",
                 "base": "round25", "marker": None} for a in armies]  # fmt: skip

    def sensor_nodes(self, armies: Sequence[Mapping[str, Any]]) -> list[Node]:
        return [Node(a["tilt_node"], "tilt") for a in armies]

    def initial_state(self, armies, options, overrides=None) -> DuelState:
        return DuelState(duellists=tuple(a["player"] for a in armies), overrides=dict(overrides or {}))

    def apply(self, state: DuelState, event: Event) -> tuple[DuelState, list[Ruling]]:
        body, seq = event.body, event.seq
        if isinstance(body, Tilt) and body.state == "fallen":
            down = state.down | {body.node.removeprefix("T-")}
            winners = [d for d in state.duellists if d not in down]
            text = f"{body.node.removeprefix('T-')} is down" + (f"; {winners[0]} wins." if len(winners) == 1 else ".")
            return state.evolve(down=down), [Ruling(f"{seq}:down", seq, RulingKind.HIT, text, "§2")]
        if not isinstance(body, Input):
            return state, []
        handler = INPUTS.get(body.type)
        if handler is not None:
            return handler.handle(self, state, seq, body.args)
        return fold_common(state, seq, body.type, body.args, state.duellists, ())

    def postures(self, state: DuelState) -> dict[str, str]:
        return {d: "fallen" if d in state.down else "upright" for d in state.duellists}

    def reach(self, state: DuelState, element: str) -> dict[str, Any]:
        return {"rings": [], "arcs": []}

    def cover(self, hidden_fraction: float) -> dict[str, Any]:
        return {"label": "no cover in a duel", "armour": 0}

    def state_dict(self, state: DuelState) -> dict[str, Any]:
        return {"round": 1, "active_player": state.first, "players": list(state.duellists),
                "down": sorted(state.down), "confirmed": sorted(state.confirmed)}  # fmt: skip

    def summary(self, state: DuelState) -> str:
        return f"Duel: {', '.join(state.duellists)}; down: {', '.join(sorted(state.down)) or 'nobody'}"
