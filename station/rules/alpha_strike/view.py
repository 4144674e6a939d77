"""Alpha Strike as the dashboard, the API and replay checks see it: each unit's card as printed
(§2.1), with the pips, heat and critical boxes play has marked."""

from __future__ import annotations

from ..table_snapshot import table_view
from ..view import ElementView, StateView, Status, UnitView
from .cards import UnitState, skill_pv
from .formations import lucky_left
from .options import OPTIONS
from .state import PHASES, AlphaState
from .turns import next_player


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
        "won_by": state.won_by,
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
