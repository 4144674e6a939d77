"""§8 close combat, in both shooting modes.

The model that moved into contact attacks (§8.1).  Table 6 gives the strengths: an infantryman
D6 + ББ against D6 + Бр; a vehicle D6 + Armour + ББ (its melee weapons' Power summed) both ways;
a gun or an unpiloted vehicle defends with its Armour alone and never attacks.  From behind the
defender's field of view (§8.3, measured on the camera's positions) the attacker rolls two D6 and
keeps the higher, and a defending vehicle's ББ does not count.  The higher attacker wins; Table 7:
an infantryman dies, a vehicle or gun takes the difference as damage and its pilot tests (§5.3).
A tie or less is repelled, nobody hurt (§8.2).  Once per activation for each model (§3.2).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...dice import Roller
from ...measure.measurement import measure
from ...measure.relations import bearing_deg
from ...measure.units import BRONEPEKHOTA
from .. import input_args as arg
from ..base import Ruling, RulingKind, voided
from ..inputs import Args
from ..text import Text, joined, say
from . import contact
from .damage import take_damage
from .moving import AIMED_MARK
from .panic import PANIC_MARK
from .roster import name
from .shooting import _check_players_out, _whose_turn
from .state import INPUTS, REPAIR_MARK, Element, GameState, Rules

MELEE_MARK = "melee"  # in Element.fired: this model has fought this activation


@INPUTS.register(
    "close_combat",
    "§8",
    arg.model("attacker", "the model that attacks", required=True),
    arg.model("defender", "the model attacked", required=True),
)
def close_combat(rules: Rules, state: GameState, seq: int, args: Args) -> tuple[GameState, list[Ruling]]:
    roller = rules.roller
    rid = f"{seq}:melee"
    attacker, defender = state.elements.get(str(args.get("attacker"))), state.elements.get(str(args.get("defender")))
    problem, section = _problem(state, attacker, defender)
    turn_rulings: list[Ruling] = []
    if problem is None and attacker is not None:
        state, turn_rulings, refused = _whose_turn(state, seq, attacker)
        if refused:
            problem, section = refused, "§3.2"
    if problem or attacker is None or defender is None:  # (missing models are among the problems)
        return state, [
            Ruling(
                rid,
                seq,
                RulingKind.MELEE,
                say("Close combat refused: {problem}.", problem=problem),
                section,
                needs_referee=True,
                refused=True,
                element=attacker.id if attacker else None,
            )
        ]
    attacker = state.elements[attacker.id]
    override = state.overrides.get(rid)
    head = say(
        "{attacker} attacks {defender} in close combat",
        attacker=name(state, attacker.id),
        defender=name(state, defender.id),
    )
    void = voided(
        state.overrides, seq, rid, say("{head}: voided by the referee.", head=head), RulingKind.MELEE, "§8", attacker.id
    )
    if void:
        return state, turn_rulings + [void]
    key = f"{override[0] if override else seq}/melee"
    details: dict[str, Any] = {"attacker": attacker.id, "defender": defender.id}
    doubts: list[Text] = []
    surprise = _surprise(state, attacker, defender, details, doubts)
    state = state.with_element(replace(attacker, fired=attacker.fired | {MELEE_MARK}))
    attack, attack_words = _strength(state, attacker, roller, f"{key}/attack", attacking=True, surprise=surprise)
    defence, defence_words = _strength(state, defender, roller, f"{key}/defence", attacking=False, surprise=surprise)
    details.update(surprise=surprise, attack=attack, defence=defence)
    words = [
        f"{head}"
        + (say(" from behind (§8.3)") if surprise else "")
        + say(
            ": attack {attack_words} = {attack}, defence {defence_words} = {defence} (Table 6)",
            attack_words=attack_words,
            attack=attack,
            defence_words=defence_words,
            defence=defence,
        )
    ]
    if attack <= defence:
        words.append(say("repelled, nobody is hurt (§8.2)"))
        details["won"] = False
    else:
        details["won"] = True
        state, effect = take_damage(state, defender, attack - defence, roller, f"{key}/{defender.id}")
        details["effect"] = effect
        words.append(
            say("the attacker wins (Table 7): ")
            + (say("{n} damage, ", n=attack - defence) if defender.kind != "infantry" else "")
            + effect["text"]
        )
    text = joined(words, "; ") + "."
    if doubts:
        text += say(" Too close to call: ") + joined(doubts, "; ") + "."
    state, out = _check_players_out(state, seq)
    return state, turn_rulings + [
        Ruling(
            rid,
            seq,
            RulingKind.MELEE,
            text,
            "§8.1 §8.2 Tables 6-7" + (" §8.3" if surprise else ""),
            needs_referee=bool(doubts),
            element=attacker.id,
            details=details,
        )
    ] + out


def _problem(state: GameState, attacker: Element | None, defender: Element | None) -> tuple[str | None, str]:
    if attacker is None or defender is None:
        return say("give an attacker and a defender among the armies' models"), "§8.1"
    if state.round == 0:
        return say("no round has begun"), "§3"
    if attacker.player == defender.player:
        return say("both models are on the same side"), "§8"
    if attacker.destroyed or defender.destroyed or attacker.aboard or defender.aboard:
        return say("both models must be on the table"), "§8"
    if attacker.kind == "gun" or (attacker.kind == "vehicle" and attacker.pilot is None):
        return say(
            "{attacker} does not attack (a gun, or a vehicle without a pilot)", attacker=name(state, attacker.id)
        ), "§8.1 Table 6"
    if attacker.posture == "fallen" or attacker.needs_repair:
        return say("{attacker} is lying on its side", attacker=name(state, attacker.id)), "§6.7"
    for model in (attacker, defender):
        if state.setup.locomotion.get(model.id) == "flying" and model.pilot is not None:
            return say(
                "{model} is a flyer, and flyers never fight in close combat", model=name(state, model.id)
            ), "§3.2 §4.2"
    if PANIC_MARK in attacker.fired:
        return say("{attacker} is fleeing in panic until the next round", attacker=name(state, attacker.id)), "§11.2"
    if REPAIR_MARK in attacker.fired:
        return say(
            "{attacker} is repairing this round, which takes all its actions", attacker=name(state, attacker.id)
        ), "§9.3"
    if AIMED_MARK in attacker.fired:
        return say(
            "{attacker} took aimed fire this round and may not fight", attacker=name(state, attacker.id)
        ), "§11.1"
    if MELEE_MARK in attacker.fired:
        return say("{attacker} has already fought this activation", attacker=name(state, attacker.id)), "§3.2"
    me, them = contact.placed(state, attacker.id), contact.placed(state, defender.id)
    if me is not None and them is not None and defender.id not in contact.touching_enemies(state, attacker):
        gap = measure(me, them, BRONEPEKHOTA)
        if not gap.too_close_to_call(BRONEPEKHOTA.unit.from_mm(contact.CONTACT_MM)):
            return say("the camera sees them {mm} mm apart, not touching", mm=f"{gap.mm:.0f}"), "§8"
    return None, ""


def _surprise(
    state: GameState, attacker: Element, defender: Element, details: dict[str, Any], doubts: list[Text]
) -> bool:
    """§8.3: the attacker is outside the defender's field of view (its rear half)."""
    me, them = contact.placed(state, attacker.id), contact.placed(state, defender.id)
    if me is None or them is None:
        doubts.append(say("the camera has not placed both models, so whether it came from behind was not measured"))
        return False
    offset = abs(bearing_deg(them, me))
    details["bearing_from_defender"] = round(offset, 1)
    details["measured"] = {**measure(me, them, BRONEPEKHOTA).as_dict(), "table_seq": state.table_seq}
    if abs(offset - 90.0) < 5.0:
        doubts.append(
            say(
                "the attacker is {offset}° from the defender's front, at the edge of its field of view",
                offset=f"{offset:.0f}",
            )
        )
    return offset > 90.0


def _strength(
    state: GameState, model: Element, roller: Roller, key: str, attacking: bool, surprise: bool
) -> tuple[int, str]:
    """Table 6, with §8.3 applied: (strength, how it was made)."""
    skill = state.setup.melee.get(model.id, 0)
    if model.kind == "infantry":
        base, label = (skill, f"ББ {skill}") if attacking else (model.armour, f"Бр {model.armour}")
    elif model.kind == "gun" or model.pilot is None:
        return model.armour, say("armour {armour}, no die", armour=model.armour)  # defends with Armour alone
    elif surprise and not attacking:
        base, label = model.armour, say("armour {armour} (its ББ does not count, §8.3)", armour=model.armour)
    else:
        base, label = model.armour + skill, say("armour {armour} + ББ {skill}", armour=model.armour, skill=skill)
    if attacking and surprise:
        rolls = [roller.roll(6, f"{key}/1"), roller.roll(6, f"{key}/2")]
        return max(rolls) + base, say(
            "D6 best of {rolls}, {rolls2} + {label}", rolls=rolls[0], rolls2=rolls[1], label=label
        )
    roll = roller.roll(6, key)
    return roll + base, f"D6 {roll} + {label}"
