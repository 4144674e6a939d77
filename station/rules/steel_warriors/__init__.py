"""Steel Warriors (seed 001), the infantry-combat fragment, as a camera-measured ruleset.

``SteelWarriors(roller)`` is pure like the other rulesets.  The fragment lost its turn sequence,
line of sight and morale test (digest §12); the station fills the turn with the digest's
suggested default and leaves morale changes to the referee (``set_morale``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...dice import Roller
from ...measure.bases import MM_PER_INCH
from ...measure.units import INCHES, Convention
from ..base import Event, Input, Overriding, Ruling
from ..inputs import Inputs
from ..model_fields import ArmyFormat, ModelRuleset
from ..options import UNCONFIRMED, OptionSet
from ..text import joined, say
from . import army, assault, morale, observe, shooting, turns  # noqa: F401  (each chapter registers its inputs)
from .army import MORALE_WORDS, check_armies, rules_data
from .ladder import LADDER
from .state import INPUTS, OPTIONS, WarState, build
from .view import GAME, WarView, state_view


class SteelWarriors(ModelRuleset[WarState]):
    name: ClassVar[str] = GAME
    title: ClassVar[str] = "Steel Warriors"
    override_verdicts: ClassVar[Sequence[str]] = ("void",)
    inputs: ClassVar[Inputs[Any, Any]] = INPUTS
    controls: ClassVar[Sequence[tuple[str, str]]] = (
        ("begin_turn", "Begin turn"),
        ("end_activation", "End activation"),
    )
    mm_per_unit: ClassVar[float] = MM_PER_INCH
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
    ) -> WarState:
        check_armies(armies)
        figures, squads = build(tuple(armies))
        return WarState(
            tuple(a["player"] for a in armies),
            tuple(armies),
            OPTIONS.build(options),
            figures,
            squads,
            overrides=dict(overrides or {}),
        )

    def apply(self, state: WarState, event: Event) -> tuple[WarState, list[Ruling]]:
        if not isinstance(event.body, Input):
            return state, []
        moving = [f.id for f in state.fighting(state.activation.squad)] if state.activation else []
        return INPUTS.dispatch(self, state, event.seq, event.body, state.figures, moving, state.overrides)

    def inputs_now(self, state: WarState) -> list[str]:
        """§5.0: between activations, who activates (a new turn first); during one, its actions
        (§5-§8) and the end of it."""
        if state.activation is None:
            return ["activate", "begin_turn", "morale_test"]
        if state.squads[state.activation.squad].suppression:  # §6.7: the five actions left to it first
            return ["observe", "communicate", "reorganise", "unsuppress", "move", "end_activation"]
        return [
            "move", "shoot", "dash", "assault", "charge", "close_combat", "prone", "get_up", "observe", "communicate",
            "end_activation",
        ]  # fmt: skip

    def preview(self, state: WarState, input_type: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """Any input's dry run (is it legal now, which dice); a shot allowed also shows its odds."""
        said = super().preview(state, input_type, args)
        return (
            shooting.preview(state, args, self.data["weapons"])
            if input_type == "shoot" and "refused" not in said
            else said
        )

    def reach(self, state: WarState, element: str) -> dict[str, Any]:
        """The squad's range zones (as wide as its Quality die) and its move."""
        figure = state.figures[element]
        squad = state.squads[figure.squad]
        unit = state.unit_mm
        targets = {s.id for s in state.squads.values() if s.player != squad.player and state.fighting(s.id)}
        previews = {
            t: shooting.preview(state, {"squad": squad.id, "target": t}, self.data["weapons"]) for t in sorted(targets)
        }
        attacks = {f.id: previews[f.squad] for f in state.figures.values() if f.squad in targets and f.fighting}
        return {
            "attacks": attacks,
            "rings": [
                {"label": say("zone {k} (target d{ladder})", k=k, ladder=LADDER[k - 1]), "mm": k * squad.quality * unit}
                for k in range(1, 6)
            ]
            + [
                {
                    "label": say('move {movement}"', movement=self.data["movement"][squad.movement]),
                    "mm": self.data["movement"][squad.movement] * unit,
                }
            ],
            "arcs": [],
        }

    def cover(self, hidden_fraction: float) -> dict[str, Any]:
        return {
            "label": say("hidden") if hidden_fraction > 2 / 3 else say("in sight"),
            "armour": None if hidden_fraction > 2 / 3 else 0,
        }

    def state_view(self, state: WarState) -> WarView:
        return state_view(state)

    def active_player(self, state: WarState) -> str | None:
        """§5.0: the player whose squad is activated; between activations nobody's clock runs."""
        return state.squads[state.activation.squad].player if state.activation else None

    def round_of(self, state: WarState) -> int:
        return state.turn

    def pending_stands(self, state: WarState) -> bool:
        return state.options.unconfirmed == UNCONFIRMED[0]

    def summary(self, state: WarState) -> str:
        lines = [say("Steel Warriors: turn {turn}", turn=state.turn)]
        lines += [
            say(
                "  {value} ({player}): {fighting_count} fighting, {morale}, suppression {suppression}",
                player=s.player,
                value=s.id,
                fighting_count=len(state.fighting(s.id)),
                morale=MORALE_WORDS[s.morale],
                suppression=s.suppression,
            )
            + (say(", prone") if s.prone else "")
            for s in sorted(state.squads.values(), key=lambda s: s.id)
        ]
        return joined(lines, "\n")
