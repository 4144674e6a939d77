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
from ..base import Event, Input, Overriding, Ruling, RulingKind
from ..hits import stamp_of
from ..model_fields import ArmyFormat, ModelRuleset
from ..options import OptionSet
from ..table_snapshot import table_view
from ..text import joined, say
from ..view import ElementView, StateView, Status, UnitView
from . import army, combat, real, turns  # noqa: F401  (each chapter registers its inputs)
from .army import check_armies
from .state import INPUTS, OPTIONS, Fighter, QuickState, build


class BronepekhotaQuick(ModelRuleset[QuickState]):
    name: ClassVar[str] = "bronepekhota_quick"
    title: ClassVar[str] = "Бронепехота — quick rules"
    override_verdicts: ClassVar[Sequence[str]] = ("void",)
    input_types: ClassVar[Sequence[str]] = INPUTS.types
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
        if isinstance(body, Heartbeat):
            return real.advance_time(state, stamp_of(event, body.up), self.roller)
        if isinstance(body, (Hello,)):
            return state, []
        if isinstance(body, Overflow):
            return state, [
                Ruling(
                    f"{seq}:overflow",
                    seq,
                    RulingKind.WARNING,
                    say("The hub lost {lost} event(s); check the table by hand.", lost=body.lost),
                    "",  # the hub, not a rulebook: no section to cite
                    needs_referee=True,
                )
            ]
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

    def summary(self, state: QuickState) -> str:
        view = state_view(state)
        lines = [
            say(
                "Бронепехота quick rules: turn {round}, {value} to play",
                round=view["round"],
                value=view["active_player"] or "-",
            )
        ]
        for player in view["players"]:
            alive = [u for u in view["units"] if u["player"] == player and u["status"] != "destroyed"]
            lines.append(say("  {player}: {alive_count} models on the table", player=player, alive_count=len(alive)))
        if view["winner"]:
            lines.append(say("  winner: {winner}", winner=view["winner"]))
        return joined(lines, "\n")


class FighterView(ElementView):
    """A model's card in the quick rules (§4): its values, damage and this turn's two actions."""

    damage: int
    shooting: int
    melee: int
    maneuver: int
    shot: bool
    fought: bool


class QuickView(StateView):
    grenade_used: bool
    hub_time_ms: int


def state_view(state: QuickState) -> QuickView:
    """The dashboard's and API's view, shaped like the full rules' so the same page shows it."""

    def status(f: Fighter) -> Status:
        return "destroyed" if f.dead else "wounded" if f.wounded else "in play"

    units: list[UnitView] = []
    for f in state.fighters.values():
        element: FighterView = {
            "id": f.id,
            "name": f.name,
            "kind": "infantry" if f.soldier else f.kind,
            "status": status(f),
            "armour": f.armour if f.soldier else max((f.durability or 0) - f.damage, 0),
            "durability_max": f.durability if not f.soldier else None,
            "damage": f.damage,
            "shooting": f.shooting,
            "melee": f.melee,
            "maneuver": f.maneuver,
            "fired": sorted(f.fired),
            "weapons": [{"id": w.id, "name": w.name, "kind": w.kind} for w in f.weapons],
            "shot": f.shot,
            "fought": f.fought,
            "ammo_max": None,
        }
        units.append(
            {
                "id": f.id,
                "name": f.name,
                "player": f.player,
                "kind": f.kind,
                "status": status(f),
                "acted": f.shot and f.fought,
                "can_act": not f.dead and not f.wounded,
                "elements": [element],
            }
        )
    return {
        "game": "bronepekhota_quick",
        "round": state.turn,
        "initiative": {},
        "order": list(state.order),
        "active_player": state.active_player,
        "active_unit": None,
        "players": list(state.players),
        "out": [],
        "winner": state.winner,
        "units": units,
        "options": OPTIONS.dump(state.options),
        "grenade_used": state.grenade_used,
        "hub_time_ms": state.now.t,
        **table_view(state),
        "moved": {f: _moved(state, f) for f in sorted(state.paths)},
    }


def _moved(state: QuickState, fighter_id: str) -> dict[str, Any]:
    fighter, moves = state.fighters[fighter_id], turns.moves_used(state, fighter_id)
    used = moves + fighter.shot + fighter.fought
    return {
        "moves": moves,
        "text": f"{moves} manoeuvre{'s' if moves != 1 else ''} of {fighter.maneuver} steps; "
        f"{used} of {turns.ACTIONS} actions used",
        "over": used > turns.ACTIONS,
    }
