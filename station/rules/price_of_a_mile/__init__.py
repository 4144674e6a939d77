"""The Price of a Mile (seed 003), a WWI big skirmish, as a camera-measured ruleset.

``PriceOfAMile(roller)`` is pure like the other rulesets: activations and orders are operator
inputs, the geometry (command distance, the three nearest targets, casualties nearest the
shooter, contact, templates) comes from the journaled table snapshots and terrain, and every die
comes from the injected roller or the table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...dice import Roller
from ...measure.units import INCHES, Convention
from ..base import Event, Input, Overriding, Refused, Ruling, refusal
from ..inputs import Inputs, refusal_text
from ..model_fields import ArmyFormat, ModelRuleset
from ..options import UNCONFIRMED, OptionSet
from ..text import joined, say
from . import (  # noqa: F401  (each chapter registers its inputs)
    army,
    artillery,
    blasts,
    command,
    landing,
    melee,
    melee_moves,
    morale,
    moving,
    optional,
    shooting,
    support,
    transport,
    turns,
)
from .army import check_armies, rules_data
from .state import INCH, INPUTS, OPTIONS, MileState, RulesOf, build
from .view import GAME, MileView, state_view


class PriceOfAMile(ModelRuleset[MileState]):
    name: ClassVar[str] = GAME
    title: ClassVar[str] = "The Price of a Mile"
    override_verdicts: ClassVar[Sequence[str]] = ("void",)
    inputs: ClassVar[Inputs[Any, Any]] = INPUTS
    controls: ClassVar[Sequence[tuple[str, str]]] = (
        ("roll_initiative", "Initiative"),
        ("end_activation", "End activation"),
    )
    mm_per_unit: ClassVar[float] = INCH
    table_die: ClassVar[int] = 10  # §1: "about ten d10, several d6": tests and attacks roll d10
    convention: ClassVar[Convention] = INCHES
    options: ClassVar[OptionSet[Any]] = OPTIONS
    army_format: ClassVar[ArmyFormat] = army

    def __init__(self, roller: Roller) -> None:
        super().__init__(roller)
        self.data = rules_data()

    def initial_state(
        self,
        armies: Sequence[Mapping[str, Any]],
        options: Mapping[str, Any],
        overrides: Mapping[str, Overriding] | None = None,
    ) -> MileState:
        check_armies(armies)
        fighters, squads = build(tuple(armies))
        opts = OPTIONS.build(options)
        return MileState(
            tuple(a["player"] for a in armies), tuple(armies), opts, fighters, squads, overrides=dict(overrides or {})
        )

    def rules_of(self, state: MileState) -> RulesOf:
        kinds = self.data["troop_types"]
        return lambda f: (
            tuple(kinds.get(f.type, {}).get("rules", ())) + (state.squads[f.squad].rules if f.squad else ())
        )

    def apply(self, state: MileState, event: Event) -> tuple[MileState, list[Ruling]]:
        if not isinstance(event.body, Input):
            return state, []
        forbidden = optional.unreliable_refusal(state, event.body.type, event.body.args)
        if forbidden is not None:  # §16.8: what the Unreliable squad's table roll left it
            said = refusal_text(Refused(forbidden, "§16.8"), event.body.args)
            return state, [refusal(f"{event.seq}:{event.body.type}", event.seq, said, "§16.8")]
        moving_now = list(state.activation.actions) if state.activation else []
        return INPUTS.dispatch(self, state, event.seq, event.body, state.fighters, moving_now, state.overrides)

    def inputs_now(self, state: MileState) -> list[str]:
        """§4.3: between activations, who activates (initiative first in a new turn); during one,
        its orders, and the end of it; a template the dice scattered waits to be laid first."""
        if state.landing is not None:
            return ["blast"]
        first = ["follow_up"] * bool(state.may_follow) + ["move_deceived"] * bool(state.deceived)  # §12, §16.9
        if state.activation is None:
            return [*first, "activate", "roll_initiative", "regroup", "melee", "close_in"]
        return [
            *first,
            "move",
            "shoot",
            "melee",
            "close_in",
            "grenade",
            "flame",
            "mortar",
            "field_gun",
            "turn_gun",
            "free",
            "cut_wire",
            "standing_order",
            "end_activation",
        ]

    def preview(self, state: MileState, input_type: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """Any input's dry run (is it legal now, which dice); a shot allowed also shows its odds."""
        said = super().preview(state, input_type, args)
        return (
            shooting.preview(state, args, self.data["weapons"], self.rules_of(state))
            if input_type == "shoot" and "refused" not in said
            else said
        )

    def reach(self, state: MileState, element: str) -> dict[str, Any]:
        """The base's Speed, its weapon's effective range, contact and command distance."""
        f = state.fighters[element]
        weapon = self.data["weapons"][f.weapon]
        attacks = (
            {
                e.id: shooting.preview(
                    state, {"shooter": element, "target": e.id}, self.data["weapons"], self.rules_of(state)
                )
                for e in state.fighters.values()
                if e.player != f.player and e.standing
            }
            if f.standing
            else {}
        )
        return {
            "attacks": attacks,
            "rings": [
                {"label": say('contact 1"'), "mm": INCH},
                {"label": say('command distance 2"'), "mm": 2 * INCH},
                {"label": say('move {speed}"', speed=f.stats["speed"]), "mm": f.stats["speed"] * INCH},
                {
                    "label": say(
                        '{replace} effective range {range_in}"',
                        replace=f.weapon.replace("_", " "),
                        range_in=weapon["range_in"],
                    ),
                    "mm": weapon["range_in"] * INCH,
                },
            ],
            "arcs": [],
        }

    def cover(self, hidden_fraction: float) -> dict[str, Any]:
        """§6.4: behind an obstacle on the line of fire is cover; solid terrain hiding most is no sight."""
        if hidden_fraction > 2 / 3:
            return {"label": say("not visible"), "armour": None}
        return {
            "label": say("in cover (8+ / 10+)") if hidden_fraction > 0 else say("in the open"),
            "armour": 1 if hidden_fraction else 0,
        }

    def state_view(self, state: MileState) -> MileView:
        return state_view(state)

    def active_player(self, state: MileState) -> str | None:
        """§4.2-4.3: the side whose activation runs, else the side due to activate."""
        return state.activation.player if state.activation else turns.due(state)

    def round_of(self, state: MileState) -> int:
        return state.turn

    def pending_stands(self, state: MileState) -> bool:
        return state.options.unconfirmed == UNCONFIRMED[0]

    def summary(self, state: MileState) -> str:
        lines = [say("The Price of a Mile: turn {turn}", turn=state.turn) + (say(", game over") if state.over else "")]
        for p in state.players:
            counts = {
                s: sum(1 for f in state.fighters.values() if f.player == p and f.status == s)
                for s in ("ok", "out", "fled")
            }
            lines.append(
                say(
                    "  {p}: {ok} standing, {out} out, {fled} fled; VP {victory_points}",
                    p=p,
                    ok=counts["ok"],
                    out=counts["out"],
                    fled=counts["fled"],
                    victory_points=f"{turns.victory_points(state, p):g}",
                )
            )
        if state.winner:
            lines.append(say("  winner: {winner}", winner=state.winner))
        return joined(lines, "\n")
