"""The Price of a Mile as the dashboard, the API and replay checks see it: squads and their bases,
orders, the command links drawn on the map, the turn's activations and victory points."""

from __future__ import annotations

from ...measure.pairwise import edge_distances
from ..table_snapshot import table_view
from ..text import joined, say, word
from ..view import ElementView, StateView, UnitView, status_of
from . import turns
from .command import cut_off_bases
from .state import COMMAND_IN, INCH, OPTIONS, MileState
from .where import placed_many

GAME = "price_of_a_mile"  # the labels of its words (text.word) are this game's


def _command_links(state: MileState) -> tuple[list[list[str]], list[str]]:
    """§3.2 for the map: each squad's bases within 2" of one another, and those cut off (not a
    base holding a standing order, nor one the camera cannot tell from in command)."""
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
        cut += cut_off_bases(state, squad.id)[0]  # as the activation rules it: standing orders, doubt
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
    links: list[list[str]]  # §3.2: pairs of a squad's bases within command distance
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
                    "actions_left": [say("order")] * act.actions.get(f.id, 0) if act else [],
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
        "won_by": say("the most victory points (§18)") if state.winner and state.winner != "draw" else None,
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
