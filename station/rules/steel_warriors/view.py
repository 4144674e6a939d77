"""Steel Warriors as the dashboard, the API and replay checks see it: each squad with its quality
die, leadership, morale and suppression, each figure with its weapon, armour and wounds."""

from __future__ import annotations

from ..table_snapshot import table_view
from ..text import joined, say, word
from ..view import ElementView, StateView, UnitView, status_of
from .army import MORALE_WORDS
from .state import OPTIONS, WarState

GAME = "steel_warriors"  # the labels of its words (text.word) are this game's


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
        "won_by": None,
        "units": units,
        "options": OPTIONS.dump(state.options),
        **table_view(state),
        "moved": {},
    }
