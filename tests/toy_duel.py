"""A toy game proving the Ruleset interface is enough (docs/development.md "Adding a game").  Under 100 lines:
two duellists flip a coin for who shoots first, and a tilt node in each says who fell."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from station.dice import Roller
from station.events import Node, Tilt
from station.measure.units import INCHES, Convention
from station.rules.base import ArmyError, Event, Input, Ruling, RulingKind
from station.rules.inputs import Args, Inputs
from station.rules.model_fields import ModelRuleset
from station.rules.options import OptionSet, declared, integer
from station.rules.ruleset import Ruleset
from station.rules.table_snapshot import TableState, table_view
from station.rules.text import say
from station.rules.view import StateView, UnitView, status_of


@dataclass(frozen=True)
class Options:  # every option is declared with its type, range, default and section
    rounds: int = integer(1, 1, 5, "§1 (toy)", "Duels fought")


@dataclass(frozen=True, kw_only=True)
class DuelState(TableState):  # who shoots first and who is down: frozen, like every game's state
    first: str | None = None
    down: frozenset[str] = frozenset()
    duellists: tuple[str, ...] = ()


INPUTS: Inputs[Duel, DuelState] = Inputs()  # a game's handlers see its ruleset through a protocol; the toy needs none


@INPUTS.register("flip", "§1 (toy): the coin decides who shoots first")
def flip(rules: Duel, state: DuelState, seq: int, args: Args) -> tuple[DuelState, list[Ruling]]:
    first = state.duellists[0 if rules.roller.roll(6, f"{seq}/coin") <= 3 else 1]  # a d6 as the coin
    return state.evolve(first=first), [
        Ruling(f"{seq}:flip", seq, RulingKind.INITIATIVE, say("{first} first.", first=first), "§1")
    ]


class Duel(ModelRuleset[DuelState]):
    name: ClassVar[str] = "duel"
    title: ClassVar[str] = "Duel (toy)"
    override_verdicts: ClassVar[Sequence[str]] = ("void",)
    inputs: ClassVar[Inputs[Any, Any]] = INPUTS
    controls: ClassVar[Sequence[tuple[str, str]]] = (("flip", "Flip the coin"),)
    mm_per_unit: ClassVar[float] = 25.4
    convention: ClassVar[Convention] = INCHES
    options: ClassVar[OptionSet[Options]] = declared(Options, "Duel")

    def load_army(self, path: str) -> dict[str, Any]:
        raise ArmyError(path, "file", "the toy duel takes its duellists inline")

    def army_schema(self) -> dict[str, Any]:
        return {"type": "object", "required": ["player", "tilt_node"]}

    def model_specs(self, armies: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return [{"element": a["player"], "unit": a["player"], "player": a["player"], "kind": "infantry",
                 "base": "round25", "marker": None} for a in armies]  # fmt: skip

    def sensor_nodes(self, armies: Sequence[Mapping[str, Any]]) -> list[Node]:
        return [Node(a["tilt_node"], "tilt") for a in armies]

    def initial_state(self, armies: Any, options: Any, overrides: Any = None) -> DuelState:
        return DuelState(duellists=tuple(a["player"] for a in armies), overrides=dict(overrides or {}))

    def apply(self, state: DuelState, event: Event) -> tuple[DuelState, list[Ruling]]:
        body, seq = event.body, event.seq
        if isinstance(body, Tilt) and body.state == "fallen":
            who = body.node.removeprefix("T-")
            return state.evolve(down=state.down | {who}), [Ruling(f"{seq}:down", seq, RulingKind.HIT, say("{who} is down.", who=who), "§2")]  # fmt: skip
        return INPUTS.dispatch(self, state, seq, body, state.duellists, ()) if isinstance(body, Input) else (state, [])

    def postures(self, state: DuelState) -> dict[str, str]:
        return {d: "fallen" if d in state.down else "upright" for d in state.duellists}

    def reach(self, state: DuelState, element: str) -> dict[str, Any]:
        return {"rings": [], "arcs": []}

    def cover(self, hidden_fraction: float) -> dict[str, Any]:
        return {"label": "no cover in a duel", "armour": 0}

    def state_view(self, state: DuelState) -> StateView:
        units: list[UnitView] = [{"id": d, "name": d, "player": d, "kind": "duellist", "status": status_of(self.postures(state)[d]),
                  "acted": False, "can_act": d not in state.down, "elements": []} for d in state.duellists]  # fmt: skip
        return {"game": self.name, "round": 1, "initiative": {}, "order": [], "active_player": state.first,
                "active_unit": None, "players": list(state.duellists), "out": sorted(state.down), "winner": None, "won_by": None,
                "units": units, "options": {}, "moved": {}, **table_view(state)}  # fmt: skip

    def summary(self, state: DuelState) -> str:
        return f"Duel: {', '.join(state.duellists)}; down: {', '.join(sorted(state.down)) or 'nobody'}"


RULESET: Callable[[Roller], Ruleset[DuelState]] = Duel  # mypy (make lint) checks that Duel is a Ruleset
