"""The Price of a Mile's morale in play (seed 003 digest §13): a squad regrouping, and a base the
referee sends off the field.  The Morale test itself, rallying and fleeing are turns.py's, since
the turn's end runs them."""

from __future__ import annotations

from dataclasses import replace

from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..inputs import Args
from ..text import joined, say
from . import turns
from .state import INPUTS, MileState, Rules


@INPUTS.register("regroup", "§13.4", arg.unit("squad", "the squad that regroups"))
def regroup(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    """§13.4: every base of the active squad spends both actions; one fled base comes back, and a
    Disordered squad tests Morale: passing clears the Disorder."""
    roller = rules.roller
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
        second = state.options.regroup_failure == "flee"  # §13.4 says only what passing does
        state, test = turns.morale_test(state, seq, squad_id, roller, say("regroup"), second_disorder=second)
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


@INPUTS.register("flee", "§13.3", arg.model("base", "the base sent off the field", required=True))
def flee(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
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
