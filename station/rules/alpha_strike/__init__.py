"""BattleTech Alpha Strike quick-start (seed 004) as a camera-measured ruleset.

``AlphaStrike(roller)`` is pure like the other rulesets: the turn's phases are operator inputs,
the geometry comes from the journaled table snapshots and terrain, and dice come from the
injected roller (or the table, see "Dice at the table").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from ...measure.bases import MM_PER_INCH
from ...measure.units import INCHES, Convention
from ..base import Event, Input, Overriding, Ruling
from ..inputs import Inputs
from ..model_fields import ArmyFormat, ModelRuleset
from ..options import UNCONFIRMED, OptionSet
from ..ruleset import DashboardParts, ImportReport
from ..text import joined, say
from . import army, combat, formations, library, setup, strike, turns, victory  # noqa: F401  (each chapter registers its inputs)
from .army import card_of, check_forces
from .attack import WORDS
from .cards import UnitState
from .options import OPTIONS
from .state import INPUTS, AlphaState
from .view import AlphaView, state_view


class AlphaStrike(ModelRuleset[AlphaState]):
    name: ClassVar[str] = "alpha_strike"
    title: ClassVar[str] = "BattleTech Alpha Strike"
    override_verdicts: ClassVar[Sequence[str]] = ("void",)
    inputs: ClassVar[Inputs[Any, Any]] = INPUTS
    controls: ClassVar[Sequence[tuple[str, str]]] = (
        ("setup_roll", "Setup roll"),
        ("roll_initiative", "Initiative"),
        ("end_movement", "End movement"),
        ("end_turn", "End phase"),
    )
    mm_per_unit: ClassVar[float] = MM_PER_INCH
    convention: ClassVar[Convention] = INCHES
    options: ClassVar[OptionSet[Any]] = OPTIONS
    army_format: ClassVar[ArmyFormat] = army
    # The card as printed (§2.1), the phase tracker (§4) and the attack wizard: alpha.js.
    dashboard: ClassVar[DashboardParts] = DashboardParts(card="alpha", script="alpha.js", attack_wizard=True)
    card_library: ClassVar[str | None] = library.LIBRARY_FILE

    def import_cards(self, pasted: Any, source: str, library_file: Path) -> ImportReport:
        """Master Unit List records (a MUL response, a list, or one record) into the club's library."""
        return library.CardLibrary(library_file).add(library.records_of(pasted, source), source)

    def initial_state(
        self,
        forces: Sequence[Mapping[str, Any]],
        options: Mapping[str, Any],
        overrides: Mapping[str, Overriding] | None = None,
    ) -> AlphaState:
        check_forces(forces)
        units = {
            u["id"]: UnitState.fresh(u["id"], f["player"], card_of(u), u["skill"]) for f in forces for u in f["units"]
        }
        return AlphaState(
            tuple(f["player"] for f in forces),
            tuple(forces),
            OPTIONS.build(options),
            units,
            overrides=dict(overrides or {}),
        )

    def apply(self, state: AlphaState, event: Event) -> tuple[AlphaState, list[Ruling]]:
        if not isinstance(event.body, Input):
            return state, []  # no hub events in Alpha Strike
        moving = [u.id for u in state.in_play()] if state.phase == "movement" else []
        return INPUTS.dispatch(self, state, event.seq, event.body, state.units, moving)

    def inputs_now(self, state: AlphaState) -> list[str]:
        """§4: the turn's phases in order, each with what is declared in it; a Battle Lance's
        Lucky re-roll straight after its miss (§11.1)."""
        if state.phase == "combat" and state.last_miss is not None:
            return ["lucky", "attack", "pass_attacks", "end_turn"]
        return {
            "initiative": ["roll_initiative", "setup_roll", "home_edge", "sniper"],
            "movement": ["move", "end_movement", "leave_table"],
            "combat": ["attack", "pass_attacks", "end_turn"],
        }.get(state.phase, ["end_turn"])

    def reach(self, state: AlphaState, element: str) -> dict[str, Any]:
        """§6.3 range bands from the base edge, the front arc (A3), and in the Combat Phase the
        attack wizard: each enemy's weapon attack as it would be declared now."""
        me = state.units.get(element)
        attacks = (
            {
                u.id: combat.preview(state, {"attacker": element, "target": u.id})
                for u in state.in_play()
                if me and u.player != me.player
            }
            if state.phase == "combat"
            else {}
        )
        return {
            "attacks": attacks,
            "rings": [
                {"label": say('short 6" (+0)'), "mm": 6 * MM_PER_INCH},
                {"label": say('medium 24" (+2)'), "mm": 24 * MM_PER_INCH},
                {"label": say('long 42" (+4)'), "mm": 42 * MM_PER_INCH},
            ],
            "arcs": [{"label": say("firing arc (front 180°, A3)"), "centre_deg": 0.0, "half_width_deg": 90.0}],
        }

    def preview(self, state: AlphaState, input_type: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """An attack's view before it is declared (§6.4): the target number and why, with the
        camera's geometry or the referee's own; any other input's dry run."""
        if input_type != "attack":
            return super().preview(state, input_type, args)
        return combat.preview(state, args)

    def cover(self, hidden_fraction: float) -> dict[str, Any]:
        """§6.1 and A18: more than two thirds hidden blocks; a third or more is partial cover."""
        if hidden_fraction > 2 / 3:
            return {"label": say("less than a third visible: no line of sight"), "armour": None}
        if hidden_fraction >= 1 / 3:
            return {"label": say("partial cover: +1 to hit"), "armour": 1}
        return {"label": say("clear"), "armour": 0}

    def state_view(self, state: AlphaState) -> AlphaView:
        return state_view(state)

    def active_player(self, state: AlphaState) -> str | None:
        """§4.3: in the Combat Phase, the side attacking now; the other phases are the table's."""
        if state.phase == "combat" and state.order:
            return state.order[min(state.combat_side, len(state.order) - 1)]
        return None

    def round_of(self, state: AlphaState) -> int:
        return state.turn

    def pending_stands(self, state: AlphaState) -> bool:
        return state.options.unconfirmed == UNCONFIRMED[0]

    def summary(self, state: AlphaState) -> str:
        lines = [say("Alpha Strike: turn {turn}, {phase} phase", turn=state.turn, phase=WORDS[state.phase])]
        lines += [
            say(
                "  {u} ({player}): armour {armour}/{armour2}, structure {structure}/{structure2}, heat {heat}",
                player=u.player,
                u=u.id,
                armour=u.armour,
                armour2=u.card.armour,
                structure=u.structure,
                structure2=u.card.structure,
                heat=u.heat,
            )
            + (say(", destroyed") if u.destroyed else "")
            for u in sorted(state.units.values(), key=lambda u: u.id)
        ]
        if state.winner:
            lines.append(say("  winner: {winner}", winner=state.winner))
        return joined(lines, "\n")
