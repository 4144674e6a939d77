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
from ...measure.pairwise import edge_distances
from ...measure.relations import coherent
from ...measure.units import INCHES, Convention
from ..base import Event, Input, Overriding, Ruling
from ..model_fields import ArmyFormat, ModelRuleset
from ..options import OptionSet
from ..table_snapshot import table_view
from ..text import joined, say, word
from ..view import ElementView, StateView, UnitView, status_of
from . import army, artillery, blasts, melee, morale, moving, optional, shooting, transport, turns  # noqa: F401  (each chapter registers its inputs)
from .army import check_armies, rules_data
from .state import COMMAND_IN, INCH, INPUTS, OPTIONS, MileState, RulesOf, build
from .where import placed_many

GAME = "price_of_a_mile"  # the labels of its words (text.word) are this game's


class PriceOfAMile(ModelRuleset[MileState]):
    name: ClassVar[str] = GAME
    title: ClassVar[str] = "The Price of a Mile"
    override_verdicts: ClassVar[Sequence[str]] = ("void",)
    input_types: ClassVar[Sequence[str]] = INPUTS.types
    controls: ClassVar[Sequence[tuple[str, str]]] = (
        ("roll_initiative", "Initiative"),
        ("end_activation", "End activation"),
    )
    mm_per_unit: ClassVar[float] = INCH
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
        moving_now = list(state.activation.actions) if state.activation else []
        return INPUTS.dispatch(self, state, event.seq, event.body, state.fighters, moving_now, state.overrides)

    def reach(self, state: MileState, element: str) -> dict[str, Any]:
        """The base's Speed, its weapon's effective range, contact and command distance."""
        f = state.fighters[element]
        weapon = self.data["weapons"][f.weapon]
        attacks = (
            {
                e.id: shooting.preview(state, element, e.id, self.data["weapons"], self.rules_of(state))
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


def _command_links(state: MileState) -> tuple[list[Any], list[str]]:
    """§3.2 for the map: each squad's bases within 2" of one another, and those cut off."""
    links, cut = [], []
    for squad in state.squads.values():
        bases = placed_many(state, [f.id for f in state.standing(squad.id)])
        if len(bases) < 2:
            continue
        gaps = edge_distances([b.base for b in bases])
        links += [
            [bases[i].id, bases[j].id]
            for i in range(len(bases))
            for j in range(i + 1, len(bases))
            if gaps[i, j] <= COMMAND_IN * INCH
        ]
        cut += [b for group in coherent(bases, COMMAND_IN * INCH)[1:] for b in group]
    return links, sorted(cut)


class BaseView(ElementView):
    """A base (§2): its weapon, its profile and whether it is a hero."""

    weapon: str
    stats: dict[str, int]
    hero: bool
    fuel_spent: bool


class SquadView(UnitView):
    disordered: bool


class MileView(StateView):
    over: bool
    victory_points: dict[str, float]
    out_of_command: bool
    links: list[Any]  # §3.2: pairs of a squad's bases within command distance
    cut_off: list[str]  # bases out of command


def state_view(state: MileState) -> MileView:
    """The dashboard's view, shaped like the other rulesets': each squad (or character) a unit."""
    act = state.activation
    groups = [(s.id, s.player, list(s.bases), s) for s in state.squads.values()] + [
        (f.id, f.player, [f.id], None) for f in state.fighters.values() if f.squad is None
    ]
    units: list[UnitView] = []
    for uid, player, members, squad in groups:
        elements: list[BaseView] = []
        for m in members:
            f = state.fighters[m]
            elements.append(
                {
                    "id": f.id,
                    "name": f.name or f.id,
                    "kind": "infantry",
                    "status": status_of({"ok": "in play", "out": "destroyed", "fled": "fled"}[f.status]),
                    "armour": f.stats["toughness"],
                    "weapon": f.weapon,
                    "stats": dict(f.stats),
                    "hero": f.hero,
                    "label": joined(
                        [word(f.weapon, GAME), say("Toughness {n}", n=f.stats["toughness"])]
                        + ([word("hero", GAME)] if f.hero else [])
                        + ([say("no fuel")] if f.fuel_spent else []),
                        " · ",
                    ),
                    "actions_left": ["action"] * act.actions.get(f.id, 0) if act else [],
                    "fuel_spent": f.fuel_spent,
                    "ammo_max": None,
                    "fired": [],
                    "weapons": [],
                }
            )
        alive = any(e["status"] == "in play" for e in elements)
        lone = state.fighters[uid] if not squad else None
        markers = (
            ([say("Disordered")] if (squad and squad.disordered) or (lone and lone.disordered) else [])
            + ([say("immobilised")] if lone and lone.immobilised else [])
            + ([say("out of command")] if act and act.out_of_command and act.squad == uid else [])
        )
        unit: SquadView = {
            "id": uid,
            "name": (lone.name or uid) if lone else uid,
            "player": player,
            "kind": "squad" if squad else "character",
            "markers": markers,
            "status": "in play" if alive else "destroyed",
            "acted": uid in state.activated,
            "can_act": alive and uid not in state.activated,
            "disordered": bool(squad and squad.disordered),
            "elements": elements,
        }
        units.append(unit)
    links, cut_off = _command_links(state)
    return {
        "game": "price_of_a_mile",
        "round": state.turn,
        "initiative": {},
        "order": list(state.order),
        "active_player": act.player if act else turns.due(state),
        "active_unit": act.squad or act.character if act else None,
        "players": list(state.players),
        "out": [],
        "winner": state.winner,
        "over": state.over,
        "units": units,
        "options": OPTIONS.dump(state.options),
        "victory_points": {p: turns.victory_points(state, p) for p in state.players},
        "out_of_command": bool(act and act.out_of_command),
        "links": links,
        "cut_off": cut_off,
        **table_view(state),
        "moved": {},
    }
