"""Steel Warriors (seed 001), the infantry-combat fragment, as a camera-measured ruleset.

``SteelWarriors(roller)`` is pure like the other rulesets.  The fragment lost its turn sequence,
line of sight and morale test (digest §12); the station fills the turn with the digest's
suggested default and leaves morale changes to the referee (``set_morale``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from ...dice import Roller
from ...measure.bases import MM_PER_INCH
from ...measure.units import INCHES, Convention
from ..base import Event, Input, Overriding, Refused, Ruling, RulingKind
from ..inputs import Inputs
from ..model_fields import ArmyFormat, ModelRuleset
from ..options import OptionSet
from ..table_snapshot import table_view
from ..text import joined, say, word
from ..view import ElementView, StateView, UnitView, status_of
from . import actions, army, assault, shooting
from .army import MORALE, MORALE_WORDS, check_armies, rules_data
from .ladder import LADDER
from .state import OPTIONS, WarState, build

GAME = "steel_warriors"  # the labels of its words (text.word) are this game's

INPUTS = Inputs()


@INPUTS.register("begin_turn", "§12")
def handle_begin_turn(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return actions.begin_turn(state, seq)


@INPUTS.register("activate", "§5.0")
def handle_activate(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return actions.activate(state, seq, args)


@INPUTS.register("move", "§5.1-5.3")
def handle_move(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return actions.move(state, seq, args, game.data)


@INPUTS.register("dash", "§5.3")
def handle_dash(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return actions.dash(state, seq, args, game.roller, game.data)


@INPUTS.register("prone", "§6.5")
def handle_prone(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return actions.go_prone(state, seq, args)


@INPUTS.register("get_up", "§6.5")
def handle_get_up(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return actions.get_up(state, seq, args, game.roller)


@INPUTS.register("shoot", "§6")
def handle_shoot(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return shooting.shoot(state, seq, args, game.roller, game.data["weapons"], game.data["armour"])


@INPUTS.register("unsuppress", "§6.7")
def handle_unsuppress(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return actions.unsuppress(state, seq, args, game.roller)


@INPUTS.register("reorganise", "§9")
def handle_reorganise(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return actions.reorganise(state, seq, args, game.roller)


@INPUTS.register("assault", "§8.1 steps 1-4")
def handle_assault(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return assault.assault(state, seq, args, game.roller, game.data)


@INPUTS.register("charge", "§8.1 steps 4-7")
def handle_charge(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return assault.charge(state, seq, args)


@INPUTS.register("recharge", "§8.1 step 5")
def handle_recharge(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return assault.recharge(state, seq, args, game.roller, game.data)


@INPUTS.register("close_combat", "§8.1 steps 8-12")
def handle_close_combat(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return assault.close_combat(state, seq, args, game.roller, game.data["weapons"])


@INPUTS.register("prisoners", "§8.1 step 12")
def handle_prisoners(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return assault.prisoners(state, seq, args)


@INPUTS.register("march_order", "§5.4")
def handle_march_order(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return actions.march_order(state, seq, args)


@INPUTS.register("tow", "§5.2")
def handle_tow(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return actions.tow(state, seq, args, game.data)


@INPUTS.register("leave_wounded", "§9")
def handle_leave_wounded(
    game: Any, state: WarState, seq: int, args: Mapping[str, Any]
) -> tuple[WarState, list[Ruling]]:
    return actions.leave_wounded(state, seq, args)


@INPUTS.register("end_activation", "§5.0")
def handle_end_activation(
    game: Any, state: WarState, seq: int, args: Mapping[str, Any]
) -> tuple[WarState, list[Ruling]]:
    return actions.end_activation(state, seq)


@INPUTS.register("set_morale", "§10")
def handle_set_morale(game: Any, state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    return set_morale(state, seq, args)


class SteelWarriors(ModelRuleset[WarState]):
    name: ClassVar[str] = GAME
    title: ClassVar[str] = "Steel Warriors"
    override_verdicts: ClassVar[Sequence[str]] = ("void",)
    input_types: ClassVar[Sequence[str]] = INPUTS.types
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

    def reach(self, state: WarState, element: str) -> dict[str, Any]:
        """The squad's range zones (as wide as its Quality die) and its move."""
        figure = state.figures[element]
        squad = state.squads[figure.squad]
        unit = state.unit_mm
        targets = {s.id for s in state.squads.values() if s.player != squad.player and state.fighting(s.id)}
        previews = {t: shooting.preview(state, squad.id, t, self.data["weapons"]) for t in sorted(targets)}
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

    def summary(self, state: WarState) -> str:
        lines = [say("Steel Warriors: turn {turn}", turn=state.turn)]
        for s in sorted(state.squads.values(), key=lambda s: s.id):
            lines.append(
                say(
                    "  {player} {value} {fighting_count} fighting, {morale}, suppression {suppression}",
                    player=f"{s.player:<8}",
                    value=f"{s.id:<12}",
                    fighting_count=len(state.fighting(s.id)),
                    morale=MORALE_WORDS[s.morale],
                    suppression=s.suppression,
                )
                + (say(", prone") if s.prone else "")
            )
        return joined(lines, "\n")


def set_morale(state: WarState, seq: int, args: Mapping[str, Any]) -> tuple[WarState, list[Ruling]]:
    """§10: the morale-test procedure is lost (digest §12); the referee records each result."""
    squad = state.squads.get(str(args.get("squad")))
    morale = args.get("morale")
    if squad is None or morale not in MORALE:
        raise Refused(say("give a squad and a morale state: {morale}", morale=", ".join(MORALE)), "§10")
    state = state.with_squad(replace(squad, morale=morale))
    return state, [
        Ruling(
            f"{seq}:morale",
            seq,
            RulingKind.STATUS,
            say("{squad} is now {morale} (§10).", squad=squad.id, morale=MORALE_WORDS[morale]),
            "§10",
        )
    ]


class WarSquadView(UnitView):
    """A squad (§3) with its quality die, leadership, morale and suppression."""

    quality: int
    leadership: int
    morale: str
    suppression: int
    prone: bool


class WarView(StateView):
    actions_left: int | None  # the active squad's actions left (§6)


WOUNDED = {"unverified": say("wounded, unverified"), "stabilised": say("wounded, stabilised (carried)")}  # §9


def state_view(state: WarState) -> WarView:
    act = state.activation
    units: list[UnitView] = []
    for s in state.squads.values():
        elements: list[ElementView] = [
            {
                "id": f.id,
                "name": f.id,
                "kind": "infantry",
                "status": status_of(
                    {"ok": "in play", "unverified": "wounded", "stabilised": "wounded"}.get(f.status, "destroyed")
                ),
                "armour": 0,
                "label": joined(
                    [word(f.weapon, GAME), word(f.armour, GAME)]
                    + ([word(f.role, GAME)] if f.role != "fighter" else [])
                    + ([say("{ammo} shots", ammo=f.ammo)] if f.ammo is not None else [])
                    + ([WOUNDED[f.status]] if f.status in WOUNDED else []),
                    " · ",
                ),
                "ammo_max": None,
                "fired": [],
                "weapons": [],
            }
            for f in (state.figures[x] for x in s.figures)
        ]
        alive = any(e["status"] == "in play" for e in elements)
        squad: WarSquadView = {
            "id": s.id,
            "name": s.id,
            "player": s.player,
            "kind": "squad",
            "status": "in play" if alive else "destroyed",
            "markers": [say("d{quality}", quality=s.quality), say("Leadership {n}", n=s.leadership)]
            + ([say("suppressed {n}", n=s.suppression)] if s.suppression else [])
            + ([say("prone")] if s.prone else [])
            + ([MORALE_WORDS[s.morale]] if s.morale not in ("confident", "steady") else [])
            + ([say("march order")] if s.march else []),
            "acted": s.id in state.activated,
            "can_act": alive and s.id not in state.activated,
            "quality": s.quality,
            "leadership": s.leadership,
            "morale": s.morale,
            "suppression": s.suppression,
            "prone": s.prone,
            "elements": elements,
        }
        units.append(squad)
    return {
        "game": "steel_warriors",
        "round": state.turn,
        "initiative": {},
        "order": [],
        "active_player": state.squads[act.squad].player if act else None,
        "active_unit": act.squad if act else None,
        "actions_left": act.actions if act else None,
        "players": list(state.players),
        "out": [],
        "winner": None,
        "units": units,
        "options": OPTIONS.dump(state.options),
        **table_view(state),
        "moved": {},
    }
