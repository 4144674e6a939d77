"""§3 round structure: D12 initiative, player order, alternating unit activations; §9.3 repair."""

from __future__ import annotations

from dataclasses import replace

from ...dice import Roller
from .. import input_args as arg
from ..base import Ruling, RulingKind, voided
from ..inputs import Args
from ..text import Text, say
from .deployment import deployment_rulings
from .moving import movement_rulings
from .roster import name
from .state import INPUTS, GameState, Rules

_MAX_REROLLS = 50


def _warning(seq: int, text: Text, section: str) -> Ruling:
    return Ruling(f"{seq}:warning", seq, RulingKind.WARNING, text, section)


def roll_initiative(state: GameState, seq: int, roller: Roller) -> tuple[dict[str, int], str]:
    """§3.1: every player rolls D12, highest wins; tied leaders roll again (only the tied ones,
    the natural reading noted in the digest)."""
    contenders = [p for p in state.setup.players if p not in state.out]
    rolls: dict[str, int] = {}
    for attempt in range(1, _MAX_REROLLS + 1):
        for player in contenders:
            rolls[player] = roller.roll(12, f"{seq}/initiative/{player}/{attempt}")
        best = max(rolls[p] for p in contenders)
        contenders = [p for p in contenders if rolls[p] == best]
        if len(contenders) == 1:
            return rolls, contenders[0]
    return rolls, contenders[0]  # 50 ties in a row: take the first rather than loop for ever


@INPUTS.register("begin_round", "§3, §1.6")
def begin_round(rules: Rules, state: GameState, seq: int, args: Args) -> tuple[GameState, list[Ruling]]:
    """The deployment checked (§1.6), then the round begun, unless the referee keeps the old one
    going for units that have not acted (§3.2)."""
    checks = deployment_rulings(state, seq)
    state, unacted = round_not_over(state, seq)
    if unacted is not None and unacted.overridden == "void":
        return state, checks + [unacted]
    state, rulings = new_round(state, seq, rules.roller)
    return state, checks + ([unacted] if unacted else []) + rulings


def round_not_over(state: GameState, seq: int) -> tuple[GameState, Ruling | None]:
    """§3.2: «Когда все юниты на поле закончат свои действия, игровой тур заканчивается».  A new
    round asked for while units that can act have not: the referee is told which.  Confirmed,
    they pass and the round begins; voided, the round goes on and they act (the ruling stands)."""
    if state.round == 0:
        return state, None
    waiting = [
        u
        for u in state.units.values()
        if not u.acted and u.id != state.active_unit and u.player not in state.out and state.can_act(u)
    ]
    if not waiting:
        return state, None
    rid = f"{seq}:round-not-over"
    units = ", ".join(name(state, u.members[0] if u.kind == "vehicle" else u.id) for u in waiting)
    going_on = voided(
        state.overrides,
        seq,
        rid,
        say(
            "Round {round} goes on, as the referee ruled: {units} still to act (§3.2).", round=state.round, units=units
        ),
        RulingKind.WARNING,
        "§3.2",
    )
    if going_on is not None:
        return state, going_on
    text = say(
        "Round {round} ends with {units} not acted: they pass (§3.2). Void this ruling to go on with the round.",
        round=state.round,
        units=units,
    )
    return state, Ruling(
        rid, seq, RulingKind.WARNING, text, "§3.2", needs_referee=True, details={"not_acted": [u.id for u in waiting]}
    )


def new_round(state: GameState, seq: int, roller: Roller) -> tuple[GameState, list[Ruling]]:
    """§3: a new round; every unit may act again, every barrel may fire again (§6.4)."""
    if len(state.setup.players) - len(state.out) < 2 and state.round > 0:
        return state, [_warning(seq, say("The game is over; no new round."), "§1.1")]
    rolls, winner = roll_initiative(state, seq, roller)
    order = (winner,) + tuple(p for p in state.setup.players if p != winner and p not in state.out)
    elements = {k: replace(e, fired=frozenset()) if e.fired else e for k, e in state.elements.items()}
    units = {k: replace(u, acted=False) if u.acted else u for k, u in state.units.items()}
    new = state.evolve(
        round=state.round + 1,
        initiative=rolls,
        order=order,
        active_unit=None,
        last_player=None,
        elements=elements,
        units=units,
    )
    shown = ", ".join(f"{p} {r}" for p, r in rolls.items())
    text = say(
        "Round {round}: initiative D12 {shown}; {winner} wins and acts first. Order: {order}.",
        round=new.round,
        shown=shown,
        winner=winner,
        order=", ".join(order),
    )
    return new, [
        Ruling(
            f"{seq}:initiative",
            seq,
            RulingKind.INITIATIVE,
            text,
            "§3.1",
            details={"rolls": rolls, "winner": winner, "order": list(order)},
        )
    ]


@INPUTS.register(
    "set_order", "§3.2.1", arg.players("order", "the players in the order they act this round", required=True)
)
def set_order(rules: Rules, state: GameState, seq: int, args: Args) -> tuple[GameState, list[Ruling]]:
    """§3.2.1: the initiative winner announces the player order."""
    order = tuple(args.get("order", ()))
    if state.round == 0 or sorted(order) != sorted(state.order):
        return state, [
            _warning(
                seq, say("Order {list} must list exactly {list2}.", list=list(order), list2=list(state.order)), "§3.2"
            )
        ]
    return state.evolve(order=order), [
        Ruling(f"{seq}:order", seq, RulingKind.STATUS, say("Player order: {order}.", order=", ".join(order)), "§3.2")
    ]


@INPUTS.register("activate", "§3.2", arg.unit("unit", "the unit that acts now", required=True))
def activate_unit(rules: Rules, state: GameState, seq: int, args: Args) -> tuple[GameState, list[Ruling]]:
    return activate(state, seq, str(args.get("unit")))


def activate(state: GameState, seq: int, unit_id: str, implicit: bool = False) -> tuple[GameState, list[Ruling]]:
    """§3.2: the player due to act picks one unit that has not acted this round."""
    unit = state.units.get(unit_id)
    problem = None
    if unit is None:
        problem = say("No unit {unit_id}.", unit_id=repr(unit_id))
    elif state.round == 0:
        problem = say("No round has begun; roll initiative first.")
    elif state.active_unit is not None and state.active_unit != unit_id:
        problem = say("{active_unit} is still acting.", active_unit=state.active_unit)
    elif unit.acted:
        problem = say("{unit_id} has already acted this round.", unit_id=unit_id)
    elif not state.can_act(unit):
        problem = say(
            "{unit_id} cannot act (destroyed, without pilot, or fallen and unrepaired, §1.6 §6.7).", unit_id=unit_id
        )
    elif unit.player != state.active_player():
        problem = say(
            "It is {active_player}'s turn, not {player}'s.", active_player=state.active_player(), player=unit.player
        )
    if problem or unit is None:  # (an unknown unit is one of the problems)
        return state, [_warning(seq, problem or say("No unit {unit_id}.", unit_id=repr(unit_id)), "§3.2")]
    if state.active_unit == unit_id:
        return state, []
    how = say("fires, so it is activated") if implicit else say("activated")
    return state.evolve(active_unit=unit_id), [
        Ruling(
            f"{seq}:activate",
            seq,
            RulingKind.STATUS,
            say("{unit} ({player}) {how}.", unit=unit_id, player=unit.player, how=how),
            "§3.2",
        )
    ]


@INPUTS.register("end_activation", "§3.2.2, §4")
def end_activation(rules: Rules, state: GameState, seq: int, args: Args) -> tuple[GameState, list[Ruling]]:
    """The activation's moves measured (§4), then the activation ended."""
    moved = movement_rulings(state, seq)
    state, rulings = close_activation(state, seq)
    return state.evolve(paths={}), moved + rulings


def close_activation(state: GameState, seq: int) -> tuple[GameState, list[Ruling]]:
    """§3.2.2: the unit's Armlist is turned; play passes to the next player with units left."""
    if state.active_unit is None:
        return state, [_warning(seq, say("No unit is acting."), "§3.2")]
    unit = state.units[state.active_unit]
    new = state.with_unit(replace(unit, acted=True)).evolve(active_unit=None, last_player=unit.player)
    nxt = new.active_player()
    text = say("{unit} has acted. ", unit=unit.id) + (
        say("{nxt} to act.", nxt=nxt) if nxt else say("Round {round} is over.", round=new.round)
    )
    return new, [Ruling(f"{seq}:end", seq, RulingKind.STATUS, text, "§3.2")]
