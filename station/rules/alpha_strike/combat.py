"""Alpha Strike's Combat Phase (seed 004 digest §4.3, §6, §8): one declared attack per unit, its
geometry from the camera and the terrain, the to-hit roll, and the damage marked at once."""
from __future__ import annotations

from dataclasses import replace
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


def attack(state: AlphaState, seq: int, args: Mapping[str, Any], roller: Roller) -> tuple[AlphaState, Ruling]:
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
    key = f"{state.overrides.get(f'{seq}:attack', (seq,))[0]}/attack"
    if kind == "weapon":
        tn = target_number(shooter, aimed_at, g, *moves)
        if tn.value is None:
            raise Refused(tn.why_not, "§6")
        value, parts, band = tn.value, tn.parts, tn.band
    else:
        plan = melee_plan(shooter, aimed_at, kind, g.edge_in, state.moved_in.get(attacker.id, 0.0), *moves)
        if plan.why_not:
            raise Refused(plan.why_not, "§8")
        value, parts, band = plan.tn, plan.parts, None
    dice = [roller.roll(6, f"{key}/to-hit/1"), roller.roll(6, f"{key}/to-hit/2")]
    hit = sum(dice) >= value
    words = [f"{attacker.card.name} ({attacker.id}) {kind.replace('_', ' ')} attack on {target.id}: TN {value} ("
             + ", ".join(f"{n} {v:+d}" if n != "skill" else f"skill {v}" for n, v in parts) + f"), 2D6 {dice[0]}+{dice[1]}"
             + (": hit" if hit else ": miss")]
    state = state.evolve(attacked=state.attacked | {attacker.id}, combat_side=max(side, state.combat_side))
    if kind == "weapon":
        heat = state.heat_turn.get(attacker.id, TurnHeat())
        state = state.evolve(heat_turn={**state.heat_turn, attacker.id: replace(heat, overheat_used=heat.overheat_used + overheat,
                                                                                fired_weapons=True)})
    if hit:
        target = state.units[target.id]
        if kind == "weapon":
            damage, minimal_failed, how = weapon_damage(shooter, band, g.rear, overheat, roller, key)
        else:
            damage, minimal_failed, how = plan.damage + (1 if g.rear else 0), False, f"{plan.damage} ({kind})" + \
                (", +1 from the rear" if g.rear else "")
        hurt, marks = apply_damage(target, damage, dice == [6, 6], minimal_failed, roller, f"{key}/{target.id}")
        if kind == "dfa" and not minimal_failed:  # §8.5: a successful DFA always crits once more
            hurt, said = critical_hit(hurt, roller, f"{key}/dfa-crit")
            marks.append("death from above: " + said)
        state = state.with_unit(hurt)
        words.append(f"{how}: " + ("; ".join(marks) if marks else "no damage"))
    cost = self_damage(attacker, target, kind, hit)
    if cost:
        hurt, marks = apply_damage(state.units[attacker.id], cost, False, False, roller, f"{key}/self")
        state = state.with_unit(hurt)
        words.append(f"{attacker.id} takes {cost} self-damage: " + "; ".join(marks))
    text = ". ".join(words) + "."
    if doubts:
        text += " For the referee: " + "; ".join(doubts) + "."
    return state, Ruling(f"{seq}:attack", seq, "shot", text, "§6 §7" if kind == "weapon" else "§8 §7",
                         needs_referee=bool(doubts), element=attacker.id,
                         details={"attacker": attacker.id, "target": target.id, "tn": value, "dice": dice, "hit": hit,
                                  "measured": measured, "kind": kind})
