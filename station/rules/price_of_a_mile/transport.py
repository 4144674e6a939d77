"""The Price of a Mile's trucks carrying squads (seed 003 digest §15.1)."""

from __future__ import annotations

from dataclasses import replace

from ...measure.relations import in_contact
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..inputs import Args
from ..text import say
from .shooting import spend
from .state import INCH, INPUTS, MileState, Rules
from .where import placed


@INPUTS.register(
    "embark",
    "§15.1",
    arg.unit("squad", "the squad acting now", required=True),
    arg.model("truck", "the truck it gets into", required=True),
    arg.taped(
        arg.flag(
            "contact",
            "the referee's word that every base is within 1\" of the truck, when the camera has not placed them",
        )
    ),
)
def embark(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    return _board(state, seq, args, True, bool(args.get("contact")))


@INPUTS.register(
    "disembark",
    "§15.1",
    arg.unit("squad", "the squad acting now", required=True),
    arg.model("truck", "the truck it gets out of"),
)
def disembark(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    return _board(state, seq, args, False, False)


def _board(
    state: MileState, seq: int, args: Args, getting_on: bool, said_contact: bool
) -> tuple[MileState, list[Ruling]]:
    """§15.1: a squad gets into (or out of) a truck, an action for each base; getting in needs
    every base within 1" of the truck (the camera's, or ``said_contact``, the referee's word)."""
    act = state.activation
    truck_id = args.get("truck")
    if act is None or act.squad is None or act.squad != args.get("squad"):
        raise Refused(say("the squad acting now gets in or out"), "§15.1")
    squad_id = act.squad
    bases = state.standing(squad_id)
    if getting_on:
        truck = state.fighters.get(str(truck_id))
        if (
            truck is None
            or truck.type != "truck"
            or truck.player != state.squads[squad_id].player
            or not truck.standing
        ):
            raise Refused(say("give one of your trucks"), "§15.1")
        lorry = placed(state, truck.id)
        for f in bases:
            mine = placed(state, f.id)
            if lorry is not None and mine is not None and not in_contact(mine, lorry, INCH):
                raise Refused(say('{f} is not within 1" of {truck}', f=f.id, truck=truck.id), "§15.1")
            if (lorry is None or mine is None) and not said_contact:
                raise Refused(
                    say(
                        'the camera has not placed {f} and {truck}: say contact if it is within 1"',
                        f=f.id,
                        truck=truck.id,
                    ),
                    "§15.1",
                )
    for f in bases:
        state = spend(state, f, 1, "§15.1")
        state = state.with_fighter(replace(state.fighters[f.id], aboard=str(truck_id) if getting_on else None))
    text = (
        say(
            "Squad {squad_id} gets into {truck_id}: off the table until it gets down (§15.1).",
            squad_id=squad_id,
            truck_id=truck_id,
        )
        if getting_on
        else say("Squad {squad_id} gets down: place its bases by the truck (§15.1).", squad_id=squad_id)
    )
    return state, [Ruling(f"{seq}:{'embark' if getting_on else 'disembark'}", seq, RulingKind.STATUS, text, "§15.1")]
