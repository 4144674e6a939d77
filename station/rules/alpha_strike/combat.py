"""Alpha Strike's Combat Phase (seed 004 digest §4.3, §6, §8): one declared attack per unit, its
geometry from the camera and the terrain, the to-hit roll, and the damage marked at once."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from ...dice import Roller
from ...measure.measurement import Placed, measure
from ...measure.relations import attack_side, share_in_front
from ...measure.terrain import line_of_sight
from ...measure.units import INCHES
from ..base import Ruling
from .attack import Geometry, apply_damage, critical_hit, target_number, weapon_damage
from .cards import UnitState
from .heat import TurnHeat, max_overheat
from .melee import melee_plan, self_damage
from .turn import AlphaState
from .where import height_mm, placed, terrain_at

INCH = 25.4
KINDS = ("weapon", "standard", "melee_weapon", "charge", "dfa")


class Refused(Exception):
    def __init__(self, text: str, section: str) -> None:
        super().__init__(text)
        self.section = section


def _placed(state: AlphaState, unit: UnitState) -> Placed:
    found = placed(state, unit.id)
    if found is None:
        raise Refused(f"the camera has not placed {unit.id}", "§6")
    return found


def geometry(state: AlphaState, attacker: UnitState, target: UnitState) -> tuple[Geometry, dict[str, Any], list[str]]:
    """§6.1-6.3, §6.6 from the measurement layer: edge distance, line of sight, woods, cover, the
    firing arc (A3: more than half the target's base outside the front half: no attack), and the
    attack direction (a corner is the target's controller's choice: the referee)."""
    a, t = _placed(state, attacker), _placed(state, target)
    m = measure(a, t, INCHES)
    doubts = []
    if share_in_front(a, t) < 0.5:
        raise Refused(f"more than half of {target.id}'s base is outside {attacker.id}'s firing arc", "§6.2 A3")
    sight = line_of_sight(a, height_mm(state, attacker.id) * 0.9, t, height_mm(state, target.id), list(state.terrain))
    side = attack_side(a, t)
    if side == "vertex":
        doubts.append("the attack line runs through a corner of the target's base: its controller chooses front or rear")
    touching = m.mm <= 2.0  # §6.1: units in base contact always see each other
    g = Geometry(m.exact, 0.0 if touching else sight.hidden_fraction, 0.0 if touching else sight.woods_mm / INCH,
                 terrain_at(state, target.id, "woods"), terrain_at(state, target.id, "water"), side == "rear")
    for edge in (6.0, 24.0, 42.0):
        if m.too_close_to_call(edge):
            doubts.append(f'the distance is within the camera\'s uncertainty of the {edge:g}" band edge')
    return g, {**m.as_dict(), "table_seq": state.table_seq}, doubts


@dataclass(frozen=True)
class AttackPlan:
    """A declared attack checked and measured, before any die is rolled: what the dashboard's
    attack wizard shows and what ``attack`` resolves."""

    attacker: UnitState
    target: UnitState
    kind: str
    overheat: int
    geometry: Geometry
    measured: dict[str, Any]
    doubts: tuple[str, ...]
    side: int  # the attacker's place in the initiative order
    tn: int
    parts: tuple[tuple[str, int], ...]
    band: str | None  # weapon attacks
    melee_damage: int = 0  # physical attacks

    def hit_chance(self) -> float:
        """2D6 >= TN (§6.5)."""
        return sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= self.tn) / 36


def plan_attack(state: AlphaState, args: Mapping[str, Any]) -> AttackPlan:
    """§4.3 declaration, §6 steps 1-4 or §8.1-8.3: the attack's legality and target number."""
    if state.phase != "combat":
        raise Refused(f"it is the {state.phase} phase", "§4.3")
    attacker, target = state.units.get(str(args.get("attacker"))), state.units.get(str(args.get("target")))
    kind, overheat = args.get("kind", "weapon"), args.get("overheat", 0)
    if attacker is None or target is None or attacker.id in state.removed or target.id in state.removed:
        raise Refused("give an attacker and a target in play", "§4.3")
    if attacker.player == target.player:
        raise Refused("quick-start targets are enemy units", "§4.3")
    if kind not in KINDS or not isinstance(overheat, int) or isinstance(overheat, bool) or overheat < 0:
        raise Refused(f"kind is one of {', '.join(KINDS)}, and overheat a whole number", "§4.3")
    if attacker.id in state.attacked:
        raise Refused(f"{attacker.id} has made its attack this turn", "§4.3")
    if attacker.shutdown:
        raise Refused(f"{attacker.id} is shut down", "§9.4")
    if overheat > max_overheat(attacker) or (overheat and kind != "weapon"):
        raise Refused(f"{attacker.id} may overheat by at most {max_overheat(attacker)}, and only in a weapon attack", "§9.1")
    g, measured, doubts = geometry(state, attacker, target)
    side = state.order.index(attacker.player) if attacker.player in state.order else 0
    if side < state.combat_side:  # §4.3: the loser attacks with all its units, then the winner
        doubts.append(f"the {state.order[state.combat_side]} side has begun its attacks, which ends the "
                      f"{attacker.player} side's (§4.3)")
    # §4.3: damage and critical hits take effect in the End Phase, so both units fight as they
    # were when the Combat Phase began
    shooter, aimed_at = (state.combat_start.get(u.id, u) for u in (attacker, target))
    moves = (state.moves.get(attacker.id, "still"), state.moves.get(target.id, "still"))
    if kind == "weapon":
        tn = target_number(shooter, aimed_at, g, *moves)
        if tn.value is None:
            raise Refused(tn.why_not, "§6")
        return AttackPlan(shooter, aimed_at, kind, overheat, g, measured, tuple(doubts), side, tn.value, tn.parts, tn.band)
    melee = melee_plan(shooter, aimed_at, kind, g.edge_in, state.moved_in.get(attacker.id, 0.0), *moves)
    if melee.why_not or melee.tn is None:
        raise Refused(melee.why_not or "no attack", "§8")
    return AttackPlan(shooter, aimed_at, kind, 0, g, measured, tuple(doubts), side, melee.tn, melee.parts, None,
                      melee.damage)


def preview(state: AlphaState, args: Mapping[str, Any]) -> dict[str, Any]:
    """The attack wizard's view of a declared attack: the range and its band with the margin to
    the band's edges, line of sight and cover, the TN breakdown and the chance to hit."""
    try:
        plan = plan_attack(state, args)
    except Refused as no:
        return {"refused": f"{no} ({no.section})"}
    g = plan.geometry
    low, high = {"short": (0.0, 6.0), "medium": (6.0, 24.0), "long": (24.0, 42.0)}.get(plan.band or "", (0.0, 0.0))
    return {"tn": plan.tn, "parts": [list(p) for p in plan.parts], "band": plan.band, "distance_in": round(g.edge_in, 2),
            "band_margin_in": [round(g.edge_in - low, 2), round(high - g.edge_in, 2)] if plan.band else None,
            "hidden_fraction": round(g.hidden_fraction, 3), "woods_in": round(g.woods_in, 2), "rear": g.rear,
            "hit_chance": round(plan.hit_chance(), 3), "doubts": list(plan.doubts), "kind": plan.kind}


def attack(state: AlphaState, seq: int, args: Mapping[str, Any], roller: Roller) -> tuple[AlphaState, Ruling]:
    plan = plan_attack(state, args)
    shooter, kind, g, value = plan.attacker, plan.kind, plan.geometry, plan.tn
    key = f"{state.overrides.get(f'{seq}:attack', (seq,))[0]}/attack"
    dice = [roller.roll(6, f"{key}/to-hit/1"), roller.roll(6, f"{key}/to-hit/2")]
    hit = sum(dice) >= value
    words = [f"{shooter.card.name} ({shooter.id}) {kind.replace('_', ' ')} attack on {plan.target.id}: TN {value} ("
             + ", ".join(f"{n} {v:+d}" if n != "skill" else f"skill {v}" for n, v in plan.parts)
             + f"), 2D6 {dice[0]}+{dice[1]}" + (": hit" if hit else ": miss")]
    state = state.evolve(attacked=state.attacked | {shooter.id}, combat_side=max(plan.side, state.combat_side))
    if kind == "weapon":
        heat = state.heat_turn.get(shooter.id, TurnHeat())
        state = state.evolve(heat_turn={**state.heat_turn, shooter.id: replace(
            heat, overheat_used=heat.overheat_used + plan.overheat, fired_weapons=True)})
    if hit:
        target = state.units[plan.target.id]
        if kind == "weapon":
            damage, minimal_failed, how = weapon_damage(shooter, plan.band, g.rear, plan.overheat, roller, key)
        else:
            damage, minimal_failed = plan.melee_damage + (1 if g.rear else 0), False
            how = f"{plan.melee_damage} ({kind.replace('_', ' ')}" + (f", {state.moved_in.get(shooter.id, 0.0):.1f}\" moved"
                                                                   if kind in ("charge", "dfa") else "") + ")" + \
                (", +1 from the rear" if g.rear else "")
        hurt, marks = apply_damage(target, damage, dice == [6, 6], minimal_failed, roller, f"{key}/{target.id}")
        if kind == "dfa" and not minimal_failed:  # §8.5: a successful DFA always crits once more
            hurt, said = critical_hit(hurt, roller, f"{key}/dfa-crit")
            marks.append("death from above: " + said)
        state = state.with_unit(hurt)
        words.append(f"{how}: " + ("; ".join(marks) if marks else "no damage"))
    cost = self_damage(shooter, plan.target, kind, hit)
    if cost:
        hurt, marks = apply_damage(state.units[shooter.id], cost, False, False, roller, f"{key}/self")
        state = state.with_unit(hurt)
        words.append(f"{shooter.id} takes {cost} self-damage: " + "; ".join(marks))
    text = ". ".join(words) + "."
    if plan.doubts:
        text += " For the referee: " + "; ".join(plan.doubts) + "."
    return state, Ruling(f"{seq}:attack", seq, "shot", text, "§6 §7" if kind == "weapon" else "§8 §7",
                         needs_referee=bool(plan.doubts), element=shooter.id,
                         details={"attacker": shooter.id, "target": plan.target.id, "tn": value, "dice": dice, "hit": hit,
                                  "measured": plan.measured, "kind": kind, "hit_chance": round(plan.hit_chance(), 3)})
