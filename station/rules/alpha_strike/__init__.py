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
from ..base import DashboardParts, Event, ImportReport, Input, Overriding, Ruling
from ..model_fields import ArmyFormat, ModelRuleset
from ..options import OptionSet
from ..table_snapshot import table_view
from ..text import joined, say
from ..view import ElementView, StateView, Status, UnitView
from . import army, combat, formations, library, setup, strike, turns  # noqa: F401  (each chapter registers its inputs)
from .army import card_of, check_forces
from .attack import WORDS
from .cards import UnitState, skill_pv
from .formations import lucky_left
from .options import OPTIONS
from .state import INPUTS, PHASES, AlphaState
from .turns import next_player


class AlphaStrike(ModelRuleset[AlphaState]):
    name: ClassVar[str] = "alpha_strike"
    title: ClassVar[str] = "BattleTech Alpha Strike"
    override_verdicts: ClassVar[Sequence[str]] = ("void",)
    input_types: ClassVar[Sequence[str]] = INPUTS.types
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
        """The attack picker's view of an attack before it is declared (§6.4), with the camera's
        geometry or the referee's own (``by_hand``)."""
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

    def summary(self, state: AlphaState) -> str:
        lines = [say("Alpha Strike: turn {turn}, {phase} phase", turn=state.turn, phase=WORDS[state.phase])]
        for u in sorted(state.units.values(), key=lambda u: u.id):
            lines.append(
                say(
                    "  {player} {u} A {armour}/{armour2} S {structure}/{structure2} heat {heat}",
                    player=f"{u.player:<9}",
                    u=f"{u.id:<12}",
                    armour=u.armour,
                    armour2=u.card.armour,
                    structure=u.structure,
                    structure2=u.card.structure,
                    heat=u.heat,
                )
                + (say(" destroyed") if u.destroyed else "")
            )
        if state.winner:
            lines.append(say("  winner: {winner}", winner=state.winner))
        return joined(lines, "\n")


class CardView(ElementView):
    """A unit card (§2.1) with its damage, heat and critical hits."""

    type: str
    role: str
    size: int
    tmm: int
    move_in: float
    jump_in: float
    skill: int
    pv: int
    damage: list[str]
    printed_damage: list[str]
    extreme: str
    threshold: int
    overheat: int
    specials: list[str]
    armour_max: int
    structure: int
    structure_max: int
    heat: int
    crits: dict[str, int]
    move: str | None
    moved_in: float
    attacked: bool
    sample_data: bool
    unit_type: str
    quick_start: bool
    movement: str
    mul_id: int | None


class AlphaView(StateView):
    phase: str
    phases: list[str]
    moves: dict[str, str]
    snipers: list[str]
    lucky_left: dict[str, int]
    lucky: str | None
    home_edges: dict[str, str]


def _card_view(state: AlphaState, u: UnitState) -> CardView:
    """One unit card as players know it (§2.1): the printed values with the damage after Weapon
    hits, the pips left, the heat scale and the critical boxes."""
    status: Status = "destroyed" if u.destroyed or u.id in state.removed else "shut down" if u.shutdown else "in play"
    return {
        "id": u.id,
        "name": u.card.name,
        "kind": "mech",
        "status": status,
        "type": u.card.type,
        "role": u.card.role,
        "size": u.card.size,
        "tmm": u.tmm,
        "move_in": u.move_in,
        "jump_in": u.card.jump_in,
        "skill": u.skill,
        "pv": skill_pv(u.card.pv, u.skill),
        "damage": [u.damage_at(k) for k in range(3)],
        "printed_damage": list(u.card.damage),
        "extreme": u.card.extreme,
        "threshold": u.card.threshold,
        "overheat": u.card.overheat,
        "specials": list(u.card.specials),
        "armour": u.armour,
        "armour_max": u.card.armour,
        "structure": u.structure,
        "structure_max": u.card.structure,
        "durability_max": u.card.armour + u.card.structure,
        "heat": u.heat,
        "crits": {
            "engine": u.engine_hits,
            "fire_control": u.fire_control_hits,
            "mp": u.mp_hits,
            "weapons": u.weapon_hits,
        },
        "move": state.moves.get(u.id),
        "moved_in": round(state.moved_in.get(u.id, 0.0), 1),
        "attacked": u.id in state.attacked,
        "sample_data": u.card.sample_data,
        "unit_type": u.card.unit_type,
        "quick_start": u.card.quick_start,  # false: the quick-start has no rules for it; the referee rules
        "movement": u.card.movement or (f'{u.card.move_in}"' + (f'/{u.card.jump_in}"j' if u.card.jump_in else "")),
        "mul_id": u.card.mul_id,
    }


def state_view(state: AlphaState) -> AlphaView:
    """The dashboard's view: the phase tracker and each unit's card."""
    units: list[UnitView] = []
    for u in state.units.values():
        card = _card_view(state, u)
        units.append(
            {
                "id": u.id,
                "name": u.card.name,
                "player": u.player,
                "kind": "mech",
                "status": card["status"],
                "acted": u.id in state.attacked,
                "can_act": card["status"] == "in play",
                "elements": [card],
            }
        )
    due = {
        "movement": next_player(state, state.moves),
        "combat": state.order[state.combat_side] if state.order else None,
    }.get(state.phase)
    return {
        "game": "alpha_strike",
        "round": state.turn,
        "phase": state.phase,
        "phases": list(PHASES),
        "initiative": {},
        "order": list(state.order),
        "active_player": due,
        "active_unit": None,
        "players": list(state.players),
        "out": [],
        "winner": state.winner,
        "units": units,
        "options": OPTIONS.dump(state.options),
        "moves": dict(state.moves),
        **table_view(state),
        "moved": {},
        "snipers": sorted(state.snipers),
        "lucky_left": {p: lucky_left(state, p) for p in state.players},
        "lucky": state.last_miss.plan.attacker.id if state.last_miss else None,
        "home_edges": dict(state.home_edges),
    }
