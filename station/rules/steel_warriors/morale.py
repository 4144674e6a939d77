"""Steel Warriors morale (seed 001 digest §10): the fragment lost the morale test's procedure
(digest §12), so the referee rolls it and records each result; the station then enforces what
the morale states forbid (turns.py)."""

from __future__ import annotations

from dataclasses import replace

from ..base import Refused, Ruling, RulingKind
from ..inputs import Args
from ..text import say
from .army import MORALE, MORALE_WORDS
from .state import INPUTS, Rules, WarState


@INPUTS.register("set_morale", "§10")
def set_morale(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§10: the morale-test procedure is lost (digest §12); the referee records each result."""
    squad = state.squads.get(str(args.get("squad")))
    morale = args.get("morale")
    if squad is None or morale not in MORALE:
        raise Refused(say("give a squad and a morale state: {morale}", morale=", ".join(MORALE)), "§10")
    state = state.with_squad(replace(squad, morale=morale))
    return state, [
        Ruling(
            f"{seq}:morale",
            seq,
            RulingKind.STATUS,
            say("{squad} is now {morale} (§10).", squad=squad.id, morale=MORALE_WORDS[morale]),
            "§10",
        )
    ]
