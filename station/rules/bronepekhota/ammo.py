"""§6.5, §7.7 refilling ammunition: «по договорённости игроки могут пополнять боекомплект,
например, один раз за игру».  The referee enters it for a machine; its slider goes back to the top
of its scale, as often in a game as the players agreed (option ``ammo_refills``, once by
default).  With unlimited ammunition there is nothing to refill."""

from __future__ import annotations

from dataclasses import replace

from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..inputs import Args
from ..text import say
from .roster import name
from .state import INPUTS, GameState, Rules


@INPUTS.register("refill_ammo", "§6.5, §7.7", arg.model("element", "the vehicle or gun that refills", required=True))
def refill_ammo(rules: Rules, state: GameState, seq: int, args: Args) -> tuple[GameState, list[Ruling]]:
    machine = state.elements.get(str(args.get("element")))
    if machine is None or machine.kind == "infantry" or machine.destroyed:
        raise Refused(say("give a vehicle or gun in play: infantry ammunition is not counted (§7.7)"), "§7.7")
    if state.options.ammo == "unlimited" or machine.ammo is None:
        raise Refused(say("ammunition is unlimited in this game: there is nothing to refill (§6.5)"), "§6.5")
    done, agreed = state.refills.get(machine.id, 0), state.options.ammo_refills
    if done >= agreed:
        raise Refused(
            say(
                "{machine} has refilled {done} of the {agreed} times agreed for the game",
                machine=name(state, machine.id),
                done=done,
                agreed=agreed,
            ),
            "§6.5",
        )
    full = state.setup.ammo_max[machine.id]
    state = state.with_element(replace(machine, ammo=full)).evolve(refills={**state.refills, machine.id: done + 1})
    text = say(
        "{machine} refills its ammunition: {ammo}→{full} ({n} of {agreed} agreed refills).",
        machine=name(state, machine.id),
        ammo=machine.ammo,
        full=full,
        n=done + 1,
        agreed=agreed,
    )
    return state, [Ruling(f"{seq}:refill_ammo", seq, RulingKind.STATUS, text, "§6.5 §7.7", element=machine.id)]
