"""Бронепехота's quick rules as the dashboard, the API and replay checks see it: every fighter its
own unit, with its wounds, armour and the moves of this turn."""

from __future__ import annotations

from typing import Any

from ..table_snapshot import table_view
from ..text import say
from ..view import ElementView, StateView, Status, UnitView
from . import turns
from .state import OPTIONS, Fighter, QuickState


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
        "won_by": say("no enemy infantry is left (§4.1)") if state.winner and state.winner != "draw" else None,
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
