"""Alpha Strike attack resolution (seed 004 digest §6 steps 5-7, §7, §8.4-8.5, §10, §11.1): the
to-hit roll, the damage marked at once, critical hits, heat from HT, self-damage, and a Battle
Lance's Lucky re-roll of a miss."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ...dice import Roller
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind, refusal, voided
from ..inputs import Args
from ..text import NOTHING, Text, joined, say
from .attack import apply_damage, critical_hit, modifiers, weapon_damage
from .cards import UnitState
from .combat import ATTACK_KINDS, KINDS, SPECIAL_MELEE, AttackPlan, plan_attack, rear_points
from .formations import benefit, lucky_left
from .heat import TurnHeat
from .melee import self_damage
from .state import INPUTS, AlphaState, Rules


@dataclass(frozen=True)
class Missed:
    """The attack just missed, kept for a Lucky re-roll: its plan, its dice key, and the attacker
    as it was before a miss's self-damage (a DFA that hits on the re-roll pays a hit's instead)."""

    seq: int
    plan: AttackPlan
    key: str
    attacker_before: UnitState


def _to_hit(roller: Roller, key: str) -> list[int]:
    return [roller.roll(6, f"{key}/to-hit/1"), roller.roll(6, f"{key}/to-hit/2")]


def _dealt(state: AlphaState, plan: AttackPlan, dice: list[int], roller: Roller, key: str) -> tuple[AlphaState, Text]:
    """§6.6 / §8.2 damage, §7 its application and crits, §10.1 HT heat for the End Phase."""
    g, shooter, target = plan.geometry, plan.attacker, state.units[plan.target.id]
    if plan.kind in ("weapon", "indirect"):
        damage, minimal_failed, how = weapon_damage(shooter, plan.band or "short", g.rear, plan.overheat, roller, key)
        if plan.rear:
            how = say("REAR ") + how
    else:
        damage, minimal_failed = plan.melee_damage + (1 if g.rear else 0), False  # A14: +1 from the rear
        moved = (
            say(', {get}" moved', get=f"{state.moved_in.get(shooter.id, 0.0):.1f}")
            if plan.kind in ("charge", "dfa")
            else ""
        )
        how = say("{damage} ({kind}{moved})", damage=plan.melee_damage, kind=ATTACK_KINDS[plan.kind], moved=moved) + (
            say(", +1 from the rear") if g.rear else ""
        )
    hurt, marks = apply_damage(target, damage, dice == [6, 6], minimal_failed, roller, f"{key}/{target.id}")
    if plan.kind == "dfa" and not minimal_failed:  # §8.5: a successful DFA always crits once more
        hurt, said = critical_hit(hurt, roller, f"{key}/dfa-crit")
        marks.append(say("death from above: ") + said)
    state = state.with_unit(hurt)
    if plan.heat and not minimal_failed:
        turn = state.heat_turn.get(target.id, TurnHeat())
        state = state.evolve(
            heat_turn={**state.heat_turn, target.id: replace(turn, ht_received=turn.ht_received + plan.heat)}
        )
        marks.append(say("HT: +{heat} heat in the End Phase (at most 2 a turn)", heat=plan.heat))
    return state, say("{how}: {marks}", how=how, marks=joined(marks, "; ") if marks else say("no damage"))


def _self_damage(
    state: AlphaState, plan: AttackPlan, hit: bool, roller: Roller, key: str
) -> tuple[AlphaState, Text | None]:
    cost = self_damage(plan.attacker, plan.target, plan.kind, hit)
    if not cost:
        return state, None
    hurt, marks = apply_damage(state.units[plan.attacker.id], cost, False, False, roller, f"{key}/self")
    return state.with_unit(hurt), say(
        "{attacker} takes {cost} self-damage: ", attacker=plan.attacker.id, cost=cost
    ) + joined(marks, "; ")


def _headline(plan: AttackPlan, dice: list[int], hit: bool, what: Text = NOTHING) -> Text:
    kind = (say("REAR weapon") if plan.rear else ATTACK_KINDS[plan.kind]) + say(" attack")
    return (
        say(
            "{name} ({attacker}) {what}{kind} on {target}: TN {tn} (",
            name=plan.attacker.card.name,
            attacker=plan.attacker.id,
            what=what,
            kind=kind,
            target=plan.target.id,
            tn=plan.tn,
        )
        + modifiers(plan.parts)
        + f"), 2D6 {dice[0]}+{dice[1]}"
        + (say(": hit") if hit else say(": miss"))
    )


def _ruling(seq: int, plan: AttackPlan, words: list[Text], dice: list[int], hit: bool, rid: str) -> Ruling:
    text = joined(words, ". ") + "."
    if plan.declared is not None:
        text += say(" Range and cover as the referee measured them.")
    if plan.doubts:
        text += say(" For the referee: ") + joined(plan.doubts, "; ") + "."
    section = {"weapon": "§6 §7", "indirect": "§10.4 §6 §7"}.get(plan.kind, "§8 §7")
    return Ruling(
        rid,
        seq,
        RulingKind.SHOT,
        text,
        "§10.3 " + section if plan.rear else section,
        needs_referee=bool(plan.doubts),
        element=plan.attacker.id,
        details={
            "attacker": plan.attacker.id,
            "target": plan.target.id,
            "tn": plan.tn,
            "dice": dice,
            "hit": hit,
            "measured": plan.measured,
            **({"by_hand": plan.declared} if plan.declared is not None else {}),
            "kind": plan.kind,
            "rear": plan.rear,
            "hit_chance": round(plan.hit_chance(), 3),
        },
    )


@INPUTS.register(
    "attack",
    "§6",
    arg.unit("attacker", "the unit that attacks", required=True),
    arg.unit("target", "the unit attacked", required=True),
    arg.choice("kind", "the attack (weapon when left out)", KINDS),
    arg.integer("overheat", "heat added to the damage (§10.2)", 0, 4),
    arg.flag("rear", "the REAR weapon's attack (§10.3)"),
    arg.unit("spotter", "the unit spotting for an indirect attack (§6.5)"),
    arg.taped(arg.number("distance", "edge to edge, by the referee's tape, when no camera sees both", 0, 240, True)),
    arg.taped(
        arg.choice(
            "band", "the range band, by the referee's word, when no camera sees both", ("short", "medium", "long")
        )
    ),
    arg.taped(
        arg.flag(
            "partial_cover", "partial cover: a third or more hidden, or in water, +1 (the referee's word, no camera)"
        )
    ),
    arg.taped(arg.flag("woods", "in or through less than 6 inches of woods, +1 (the referee's word, no camera)")),
    arg.taped(arg.flag("from_behind", "the line crosses the target's rear: +1 damage (the referee's word, no camera)")),
    arg.hidden(
        arg.measures(
            "by_hand",
            "the referee's measures as one object (older clients): distance_in or band, partial_cover, woods, from_behind",
        )
    ),
)
def attack_input(rules: Rules, state: AlphaState, seq: int, args: Args) -> tuple[AlphaState, list[Ruling]]:
    """An attack the referee may void outright; a refused one is said as the attack's refusal."""
    void = voided(state.overrides, seq, f"{seq}:attack", say("Attack voided by the referee."), RulingKind.SHOT, "§6")
    if void:
        return state, [void]
    try:
        state, ruling = attack(state, seq, args, rules.roller)
    except Refused as no:
        return state, [refusal(f"{seq}:attack", seq, say("Attack refused: {no}.", no=no.text), no.section)]
    return state, [ruling]


def attack(state: AlphaState, seq: int, args: Mapping[str, Any], roller: Roller) -> tuple[AlphaState, Ruling]:
    plan = plan_attack(state, args)
    key = f"{state.overrides.get(f'{seq}:attack', (seq,))[0]}/attack"
    dice = _to_hit(roller, key)
    hit = sum(dice) >= plan.tn
    words = [_headline(plan, dice, hit)]
    state = state.evolve(
        attacked=state.attacked | {plan.done_key},
        special_targets=state.special_targets | ({plan.target.id} if plan.kind in SPECIAL_MELEE else set()),
        combat_side=max(plan.side, state.combat_side),
        last_miss=None,
    )
    if plan.rear and (hit or state.options.rear_reduction_on_miss):  # §10.3, A21
        cut = rear_points(plan.attacker.card.damage, plan.band or "short")
        state = state.evolve(rear_fired={**state.rear_fired, plan.attacker.id: cut})
        words.append(say("its forward attack this turn deals {cut} less", cut=cut))
    if plan.kind in ("weapon", "indirect"):  # §9.1 and A9: overheat heats up, hit or miss
        turn = state.heat_turn.get(plan.attacker.id, TurnHeat())
        state = state.evolve(
            heat_turn={
                **state.heat_turn,
                plan.attacker.id: replace(turn, overheat_used=turn.overheat_used + plan.overheat, fired_weapons=True),
            }
        )
    before = state.units[plan.attacker.id]
    if hit:
        state, said = _dealt(state, plan, dice, roller, key)
        words.append(said)
    state, paid = _self_damage(state, plan, hit, roller, key)
    if paid:
        words.append(paid)
    if not hit and lucky_left(state, plan.attacker.player):
        state = state.evolve(last_miss=Missed(seq, plan, key, before))
        words.append(
            say(
                "a Lucky re-roll may be spent ({lucky_left} left, §11.1)",
                lucky_left=lucky_left(state, plan.attacker.player),
            )
        )
    return state, _ruling(seq, plan, words, dice, hit, f"{seq}:attack")


@INPUTS.register(
    "lucky", "§11.1", arg.unit("unit", "the Battle Lance unit whose missed attack is re-rolled", required=True)
)
def lucky_input(rules: Rules, state: AlphaState, seq: int, args: Args) -> tuple[AlphaState, list[Ruling]]:
    try:
        state, ruling = lucky(state, seq, args, rules.roller)
    except Refused as no:
        return state, [refusal(f"{seq}:lucky", seq, say("No Lucky re-roll: {no}.", no=no.text), no.section)]
    return state, [ruling]


def lucky(state: AlphaState, seq: int, args: Mapping[str, Any], roller: Roller) -> tuple[AlphaState, Ruling]:
    """§11.1: a Battle Lance re-rolls the failed to-hit roll of the attack just made, once."""
    missed: Missed | None = state.last_miss
    unit = str(args.get("unit"))
    acting = state.units.get(unit)
    if acting is not None and not benefit(state, acting.player, "battle"):  # the reason first, not a symptom
        raise Refused(
            say("the {player} side has no Battle Lance of three units or more, so no Lucky", player=acting.player),
            "§11",
        )
    if missed is None or missed.plan.attacker.id != unit:
        raise Refused(
            say("a Lucky re-roll follows a missed attack straight away; {unit} has none to re-roll", unit=unit), "§11.1"
        )
    player = missed.plan.attacker.player
    if not lucky_left(state, player):
        raise Refused(say("the {player} side has used its Lucky re-rolls", player=player), "§11.1")
    plan, key = missed.plan, f"{seq}/lucky"
    dice = _to_hit(roller, key)
    hit = sum(dice) >= plan.tn
    state = state.evolve(lucky_used={**state.lucky_used, player: state.lucky_used.get(player, 0) + 1}, last_miss=None)
    words = [_headline(plan, dice, hit, say("Lucky re-roll of the "))]
    if hit:
        state = state.with_unit(missed.attacker_before)  # undo a miss's self-damage: the hit's applies
        state, said = _dealt(state, plan, dice, roller, key)
        words.append(said)
        state, paid = _self_damage(state, plan, hit, roller, key)
        if paid:
            words.append(paid)
    words.append(say("{lucky_left} Lucky re-rolls left", lucky_left=lucky_left(state, player)))
    return state, _ruling(seq, plan, words, dice, hit, f"{seq}:lucky")
