"""The Price of a Mile (seed 003), a WWI big skirmish, as a camera-measured ruleset.

``PriceOfAMile(roller)`` is pure like the other rulesets: activations and orders are operator
inputs, the geometry (command distance, the three nearest targets, casualties nearest the
shooter, contact, templates) comes from the journaled table snapshots and terrain, and every die
comes from the injected roller or the table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from ...dice import Roller
from ...measure.pairwise import edge_distances
from ...measure.relations import coherent
from ...measure.units import INCHES, Convention
from ..base import Event, Input, Overriding, Refused, Ruling, RulingKind
from ..inputs import Inputs
from ..model_fields import ArmyFormat, ModelRuleset
from ..options import OptionSet
from ..table_snapshot import table_view
from ..text import joined, say, word
from ..view import ElementView, StateView, UnitView, status_of
from . import army, artillery, blasts, melee, moving, optional, shooting, transport, turns
from .army import check_armies, rules_data
from .shooting import RulesOf
from .state import COMMAND_IN, INCH, OPTIONS, MileState, build
from .where import placed_many

GAME = "price_of_a_mile"  # the labels of its words (text.word) are this game's

INPUTS = Inputs()


@INPUTS.register("gas_attack", "§14")
def handle_gas_attack(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, list[Ruling]]:
    return optional.gas_attack(state, seq, args, game.roller)


@INPUTS.register("artillery_markers", "§16.4 step 1")
def handle_artillery_markers(
    game: Any, state: MileState, seq: int, args: Mapping[str, Any]
) -> tuple[MileState, list[Ruling]]:
    return artillery.place_support(state, seq, args, game.roller)


@INPUTS.register("move_marker", "§16.4 step 3")
def handle_move_marker(
    game: Any, state: MileState, seq: int, args: Mapping[str, Any]
) -> tuple[MileState, list[Ruling]]:
    return artillery.shift_marker(state, seq, args)


@INPUTS.register("roll_initiative", "§4.2, §16.4 step 2")
def handle_roll_initiative(
    game: Any, state: MileState, seq: int, args: Mapping[str, Any]
) -> tuple[MileState, list[Ruling]]:
    state, rulings = turns.roll_initiative(state, seq, args, game.roller)
    if state.turn and rulings and rulings[0].kind == RulingKind.INITIATIVE:  # §16.4: the guns open each turn
        state, shells = artillery.bombard(state, seq, game.roller)
        rulings += shells
    return state, rulings


@INPUTS.register("activate", "§4.3")
def handle_activate(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, list[Ruling]]:
    return turns.activate(state, seq, args, game.roller)


@INPUTS.register("move", "§5")
def handle_move(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, Ruling]:
    return moving.move(state, seq, args, game.roller)


@INPUTS.register("free", "§5.7")
def handle_free(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, Ruling]:
    return moving.free(state, seq, args, game.roller)


@INPUTS.register("cut_wire", "§5.8")
def handle_cut_wire(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, Ruling]:
    return moving.cut_wire(state, seq, args, game.roller)


@INPUTS.register("shoot", "§6")
def handle_shoot(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, Ruling]:
    return shooting.shoot(state, seq, args, game.roller, game.data["weapons"], game.rules_of(state))


@INPUTS.register("melee", "§10")
def handle_melee(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, Ruling]:
    return melee.melee(state, seq, args, game.roller, game.data["melee_weapons"], state.options)


@INPUTS.register("grenade", "§8.1")
def handle_grenade(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, Ruling]:
    return blasts.grenade(state, seq, args, game.roller)


@INPUTS.register("flame", "§9.1")
def handle_flame(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, Ruling]:
    return blasts.flame(state, seq, args, game.roller)


@INPUTS.register("mortar", "§9.2")
def handle_mortar(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, Ruling]:
    return artillery.mortar(state, seq, args, game.roller)


@INPUTS.register("field_gun", "§9.3")
def handle_field_gun(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, Ruling]:
    return artillery.field_gun(state, seq, args, game.roller, game.data["weapons"])


@INPUTS.register("dismount", "§12.2")
def handle_dismount(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, list[Ruling]]:
    return optional.dismount(state, seq, args)


@INPUTS.register("wits", "§16.9")
def handle_wits(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, list[Ruling]]:
    return optional.war_of_wits(state, seq, args, game.roller)


@INPUTS.register("embark", "§15.1")
def handle_embark(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, list[Ruling]]:
    return transport.embark(state, seq, args, True)


@INPUTS.register("disembark", "§15.1")
def handle_disembark(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, list[Ruling]]:
    return transport.embark(state, seq, args, False)


@INPUTS.register("task", "§11")
def handle_task(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, list[Ruling]]:
    return optional.non_combat(state, seq, args, game.roller)


@INPUTS.register("carry_body", "§16.10")
def handle_carry_body(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, list[Ruling]]:
    return carry_body(state, seq, args)


@INPUTS.register("regroup", "§13.4")
def handle_regroup(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, list[Ruling]]:
    return regroup(state, seq, args, game.roller)


@INPUTS.register("flee", "§13.3")
def handle_flee(game: Any, state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, list[Ruling]]:
    return flee(state, seq, args)


@INPUTS.register("end_activation", "§13.1")
def handle_end_activation(
    game: Any, state: MileState, seq: int, args: Mapping[str, Any]
) -> tuple[MileState, list[Ruling]]:
    return turns.end_activation(state, seq, game.roller)


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


def regroup(state: MileState, seq: int, args: Mapping[str, Any], roller: Roller) -> tuple[MileState, list[Ruling]]:
    """§13.4: every base of the active squad spends both actions; one fled base comes back, and a
    Disordered squad tests Morale: passing clears the Disorder."""
    act = state.activation
    if act is None or act.squad is None or args.get("squad") != act.squad:
        raise Refused(say("only the squad now activated regroups"), "§13.4")
    squad_id = act.squad
    bases = [f.id for f in state.standing(squad_id)]
    if any(act.actions.get(b, 0) < 2 for b in bases):
        raise Refused(say("every base of the squad must still have both actions"), "§13.4")
    state = state.evolve(activation=replace(act, actions={**act.actions, **{b: 0 for b in bases}}))
    fled = [state.fighters[b] for b in state.squads[squad_id].bases if state.fighters[b].status == "fled"]
    words = []
    if fled:
        state = state.with_fighter(replace(fled[0], status="ok"))
        words.append(
            say('{fled} returns (place it within command distance, not within 1" of an enemy)', fled=fled[0].id)
        )
    rulings = []
    if state.squads[squad_id].disordered:
        state, test = turns.morale_test(state, seq, squad_id, roller, say("regroup"))
        if test.details["total"] >= turns.MORALE_TARGET:
            state = state.with_squad(replace(state.squads[squad_id], disordered=False))
            words.append(say("the Disorder is lifted"))
        rulings.append(test)
    text = (
        say("Squad {squad_id} regroups (§13.4)", squad_id=squad_id)
        + (": " + joined(words, "; ") if words else "")
        + "."
    )
    return state, [Ruling(f"{seq}:regroup", seq, RulingKind.STATUS, text, "§13.4")] + rulings


def carry_body(state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, list[Ruling]]:
    """§16.10: a popular commander taken out stays on the table; if his side carries him to the
    end, the referee records it and the side scores (option ``popularity_vp``)."""
    body = state.fighters.get(str(args.get("commander")))
    if body is None or body.id not in state.options.popular or body.status != "out":
        raise Refused(say("give a popular commander (option popular) who has been taken out"), "§16.10")
    state = state.evolve(carried=state.carried | {body.id})
    return state, [
        Ruling(
            f"{seq}:body",
            seq,
            RulingKind.STATUS,
            say(
                "{body}'s men carry his body: +{popularity_vp} victory points if they still have it at the end (§16.10).",
                body=body.id,
                popularity_vp=f"{state.options.popularity_vp:g}",
            ),
            "§16.10",
        )
    ]


def flee(state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, list[Ruling]]:
    """§13.3: the referee sends a base off the field (it touched the table edge, or could not fall back)."""
    fighter = state.fighters.get(str(args.get("base")))
    if fighter is None or not fighter.standing:
        raise Refused(say("give a standing base"), "§13.3")
    state = turns.flee(state, [fighter.id])
    return state, [
        Ruling(
            f"{seq}:flee",
            seq,
            RulingKind.STATUS,
            say("{fighter} flees the field: half victory points (§13.3).", fighter=fighter.id),
            "§13.3",
            element=fighter.id,
        )
    ]


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
