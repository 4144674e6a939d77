"""Бронепехота quick rules (seed 002): every model its own unit, player-turns with three actions,
"exploding six" d6 attacks, wounds that heal or kill at the end of the turn, real shots judged by
how the target ends up, and victory when the enemy's infantry are gone.

``BronepekhotaQuick(roller)`` is a pure ruleset like ``Bronepekhota``: ``apply(state, event)``
returns a new state and its rulings, with dice only from the injected roller.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...events import Heartbeat, Hello, Impact, Node, Overflow, Shot, Tilt
from ...measure.units import Convention, step
from ..base import Event, HubLink, Input, Overriding, Ruling
from ..hits import Stamp, hub_overflow, stamp_of
from ..inputs import Inputs
from ..model_fields import ArmyFormat, ModelRuleset
from ..options import UNCONFIRMED, OptionSet
from ..text import NOTHING, joined, say
from . import army, combat, real, turns  # noqa: F401  (each chapter registers its inputs)
from .army import check_armies
from .state import INPUTS, OPTIONS, QuickState, build
from .view import QuickView, state_view


class BronepekhotaQuick(ModelRuleset[QuickState]):
    name: ClassVar[str] = "bronepekhota_quick"
    title: ClassVar[str] = "Бронепехота — quick rules"
    override_verdicts: ClassVar[Sequence[str]] = ("void",)
    inputs: ClassVar[Inputs[Any, Any]] = INPUTS
    controls: ClassVar[Sequence[tuple[str, str]]] = (("roll_off", "Roll off"), ("end_turn", "End turn"))
    mm_per_unit: ClassVar[float] = 50.0
    convention: ClassVar[Convention] = Convention(step(5.0), "none")  # §1: steps; the quick rules never round
    options: ClassVar[OptionSet[Any]] = OPTIONS
    army_format: ClassVar[ArmyFormat] = army

    def sensor_nodes(self, armies: Sequence[Mapping[str, Any]]) -> list[Node]:
        return [
            Node(w["launcher"], "launcher", w["barrels"])
            for a in armies
            for u in a["units"]
            for w in u["weapons"]
            if w["launcher"]
        ] + [Node(u["tilt_node"], "tilt") for a in armies for u in a["units"] if u["tilt_node"]]

    def initial_state(
        self,
        armies: Sequence[Mapping[str, Any]],
        options: Mapping[str, Any],
        overrides: Mapping[str, Overriding] | None = None,
    ) -> QuickState:
        check_armies(armies)
        opts = OPTIONS.build(options)
        return QuickState(
            tuple(a["player"] for a in armies),
            tuple(armies),
            opts,
            build(armies, opts),
            overrides=dict(overrides or {}),
        )

    def apply(self, state: QuickState, event: Event) -> tuple[QuickState, list[Ruling]]:
        body, seq = event.body, event.seq
        if isinstance(body, Input):
            return self._input(state, seq, body)
        if isinstance(body, HubLink):  # a hub away may hold a shot it has not sent
            return state.evolve(hits=state.hits.linked(body)), []
        if isinstance(body, Heartbeat):
            return real.advance_time(state, stamp_of(event, body.up), self.roller)
        if isinstance(body, Hello):  # a hub introduced: its shots may come late to evidence on another
            return (state.evolve(hits=state.hits.heard(Stamp(0, event.clock))) if event.clock else state), []
        if isinstance(body, Overflow):
            return state, [hub_overflow(seq, body.lost)]
        if not isinstance(body, (Shot, Tilt, Impact)):
            return state, []
        when = stamp_of(event, body.t)
        state, rulings = real.advance_time(state, when, self.roller)
        if isinstance(body, Shot):
            state, more = real.on_shot(state, seq, body, when, self.roller)
        elif isinstance(body, Tilt):
            state, more = real.on_tilt(state, seq, body, when, self.roller)
        else:
            state, more = real.on_impact(state, seq, body, when)
        state, won = turns.victory(state, seq)
        return state, rulings + more + won

    def _input(self, state: QuickState, seq: int, body: Input) -> tuple[QuickState, list[Ruling]]:
        moving = [f.id for f in state.fighters.values() if f.player == state.active_player]
        return INPUTS.dispatch(self, state, seq, body, state.fighters, moving)

    def inputs_now(self, state: QuickState) -> list[str]:
        """§4.2: the roll-off first; then the player whose turn it is acts and ends the turn."""
        if state.turn == 0:
            return ["roll_off"]
        return ["virtual_shot", "grenade", "close_combat", "ram", "end_turn"]

    def reach(self, state: QuickState, element: str) -> dict[str, Any]:
        """§5 Manoeuvre, §7 close target (2 steps), §8 grenade reach (3 steps), §10 close combat (1 step)."""
        f = state.fighters[element]
        unit = state.step_mm
        rings = [{"label": say("one Manoeuvre: {maneuver} steps (§5)", maneuver=f.maneuver), "mm": f.maneuver * unit}]
        if f.soldier:
            rings += [
                {"label": say("close combat within 1 step (§10)"), "mm": unit},
                {"label": say("close target +2 within 2 steps (§7)"), "mm": 2 * unit},
            ]
        if f.kind == "infantry":
            rings.append({"label": say("grenade reach 3 steps (§8)"), "mm": 3 * unit})
        return {"rings": rings, "arcs": []}

    def cover(self, hidden_fraction: float) -> dict[str, Any]:
        """§7: more than half hidden by an obstacle is cover, Armour +2; none at all hidden: no shot."""
        if hidden_fraction >= 1.0:
            return {"label": say("not visible: no shot"), "armour": None}
        if hidden_fraction > 0.5:
            return {"label": say("more than half hidden: Armour +2"), "armour": 2}
        return {
            "label": say("in the open") if hidden_fraction == 0 else say("less than half hidden: no cover"),
            "armour": 0,
        }

    def state_view(self, state: QuickState) -> QuickView:
        return state_view(state)

    def active_player(self, state: QuickState) -> str | None:
        return state.active_player

    def round_of(self, state: QuickState) -> int:
        return state.turn

    def pending_stands(self, state: QuickState) -> bool:
        return state.options.unconfirmed == UNCONFIRMED[0]

    def summary(self, state: QuickState) -> str:
        view = state_view(state)
        lines = [
            say("Бронепехота quick rules: turn {round}", round=view["round"])
            + (say(", {player} to act", player=view["active_player"]) if view["active_player"] else NOTHING)
        ]
        for player in view["players"]:
            alive = [u for u in view["units"] if u["player"] == player and u["status"] != "destroyed"]
            lines.append(say("  {player}: {alive_count} models on the table", player=player, alive_count=len(alive)))
        if view["winner"]:
            lines.append(say("  winner: {winner}", winner=view["winner"]))
        return joined(lines, "\n")
