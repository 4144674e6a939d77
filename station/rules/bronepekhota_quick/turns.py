"""Quick rules' player-turns (seed 002 digest §4, §12): the roll-off for who goes first, each
player acting with all his models, the healing roll for his wounded at the end of his turn, the
action budget (three actions, at most one shot and one close combat; moves measured by the
camera against Manoeuvre), and victory when a side has no infantry left."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

from ...dice import Roller
from ...measure.movement import level_changes, movement
from ..base import Refused, Ruling, RulingKind, refusal
from ..input_args import Arg
from ..inputs import Args, refusal_text
from ..text import say
from .state import INPUTS, QuickState, Rules

ACTIONS = 3  # §4.3
HEAL_DIES, HEAL_RECOVERS = 1, 5  # §12: 1 dies, 2-4 stays wounded, 5-6 recovers
CLIMBED_TYPES = ("obstacle", "building")  # §5: what a fighter climbs onto («залезать на препятствия»)
NO_CLIMBERS = ("cyborg", "vehicle")  # §5: «Киборги и боевые машины на препятствия залезать не могут»


@INPUTS.register("roll_off", "§4.2")
def roll_off(rules: Rules, state: QuickState, seq: int, args: Args) -> tuple[QuickState, list[Ruling]]:
    """§4.2: each player rolls a die; the higher goes first; ties roll again (§15)."""
    roller = rules.roller
    if state.turn:
        return state, [
            Ruling(f"{seq}:roll-off", seq, RulingKind.WARNING, say("The game has begun; no second roll-off."), "§4.2")
        ]
    rolls: dict[str, list[int]] = {p: [] for p in state.players}
    contenders = list(state.players)
    attempt = 0
    while True:
        for player in contenders:
            rolls[player].append(roller.roll(6, f"{seq}/roll-off/{attempt}/{player}"))
        best = max(rolls[p][-1] for p in contenders)
        contenders = [p for p in contenders if rolls[p][-1] == best]
        attempt += 1
        if len(contenders) == 1:
            break
    first = contenders[0]
    order = (first,) + tuple(p for p in state.players if p != first)
    shown = ", ".join(f"{p} {'/'.join(map(str, r))}" for p, r in rolls.items())
    return state.evolve(turn=1, order=order), [
        Ruling(
            f"{seq}:roll-off",
            seq,
            RulingKind.INITIATIVE,
            say("Roll-off: {shown}; {first} goes first.", shown=shown, first=first),
            "§4.2",
            details={"rolls": rolls, "first": first},
        )
    ]


def climbed_mm(state: QuickState, fighter_id: str) -> tuple[float, float]:
    """§5: the height gone up and down along the camera's path, from the terrain's heights, for
    «1 шаг в высоту = 1 шагу»: the path is its length on the table plus its climbs."""
    changes = level_changes(state.paths.get(fighter_id, ()), state.terrain, CLIMBED_TYPES)
    return sum(c for c in changes if c > 0), -sum(c for c in changes if c < 0)


def moves_used(state: QuickState, fighter_id: str) -> int:
    """Manoeuvre actions the camera saw this turn: the path and its climbs over the fighter's
    Manoeuvre, rounded up."""
    fighter = state.fighters[fighter_id]
    length = movement(state.paths.get(fighter_id, ())).path_mm + sum(climbed_mm(state, fighter_id))
    allowance = fighter.maneuver * state.step_mm
    if length < 2.0:
        return 0
    return math.ceil((length - 5.0) / allowance) if allowance > 0 else ACTIONS + 1


def climbing_refused(state: QuickState, fighter_id: str, seq: int) -> list[Ruling]:
    """§5: a cyborg or a combat vehicle the camera saw go up onto an obstacle."""
    fighter = state.fighters[fighter_id]
    up = climbed_mm(state, fighter_id)[0] if fighter.kind in NO_CLIMBERS else 0.0
    if not up:
        return []
    return [
        Ruling(
            f"{seq}:climb:{fighter.id}",
            seq,
            RulingKind.WARNING,
            say(
                "{fighter} went {up} mm up onto an obstacle: cyborgs and combat vehicles cannot climb onto obstacles (§5).",
                fighter=fighter.name,
                up=f"{up:.0f}",
            ),
            "§5",
            needs_referee=True,
            element=fighter.id,
            details={"up_mm": round(up, 1)},
        )
    ]


@INPUTS.register("end_turn", "§4.2, §12")
def end_turn(rules: Rules, state: QuickState, seq: int, args: Args) -> tuple[QuickState, list[Ruling]]:
    """§4.2, §12: the budget check, the healing roll for each wounded fighter of the player whose
    turn ends, victory (§4.1), then the next player's turn with fresh actions."""
    roller = rules.roller
    player = state.active_player
    if player is None:
        why = (
            say("The game is over: {winner}.", winner=state.winner)
            if state.winner
            else say("Roll off first; no turn is running.")
        )
        return state, [Ruling(f"{seq}:end", seq, RulingKind.WARNING, why, "§4.2")]
    rulings = []
    for fighter in sorted(
        (f for f in state.fighters.values() if f.player == player and not f.dead), key=lambda f: f.id
    ):
        rulings += climbing_refused(state, fighter.id, seq)
        moves = moves_used(state, fighter.id)
        used = moves + fighter.shot + fighter.fought
        if used > ACTIONS or (fighter.wounded and moves):
            why = (
                say("a wounded fighter cannot move (§12)")
                if fighter.wounded and moves
                else say(
                    "{moves} manoeuvres, {what}{what2}more than the {actions} actions of a turn (§4.3)",
                    moves=moves,
                    what=say("a shot, ") if fighter.shot else "",
                    what2=say("a close combat, ") if fighter.fought else "",
                    actions=ACTIONS,
                )
            )
            rulings.append(
                Ruling(
                    f"{seq}:actions:{fighter.id}",
                    seq,
                    RulingKind.WARNING,
                    say("{fighter}: {why}.", fighter=fighter.name, why=why),
                    "§4.3 §5",
                    needs_referee=True,
                    element=fighter.id,
                    details={"moves": moves},
                )
            )
    for fighter in sorted(
        (f for f in state.fighters.values() if f.player == player and f.wounded and not f.dead), key=lambda f: f.id
    ):
        roll = roller.roll(6, f"{seq}/heal/{fighter.id}")
        if roll <= HEAL_DIES:
            state, outcome = state.with_fighter(replace(fighter, dead=True, wounded=False)), "dies"
        elif roll >= HEAL_RECOVERS:
            state, outcome = state.with_fighter(replace(fighter, wounded=False)), say("is treated and stands up")
        else:
            outcome = say("stays wounded")
        rulings.append(
            Ruling(
                f"{seq}:heal:{fighter.id}",
                seq,
                RulingKind.STATUS,
                say("Treating {name}: d6 {roll}, {outcome} (§12).", name=fighter.name, roll=roll, outcome=outcome),
                "§12",
                element=fighter.id,
                details={"roll": roll},
            )
        )
    state, won = victory(state, seq)
    fresh = {
        k: replace(f, shot=False, fought=False, fired=frozenset(), fired_gun=False) for k, f in state.fighters.items()
    }
    state = state.evolve(fighters=fresh, grenade_used=False, paths={}, turn=state.turn + (0 if state.winner else 1))
    after = say(" {active_player} to play.", active_player=state.active_player) if state.active_player else ""
    return state, rulings + won + [
        Ruling(
            f"{seq}:end",
            seq,
            RulingKind.STATUS,
            say("{player}'s turn is over.{after}", player=player, after=after),
            "§4.2",
        )
    ]


def victory(state: QuickState, seq: int) -> tuple[QuickState, list[Ruling]]:
    """§4.1: the complete destruction of the enemy's infantry (cyborgs are not infantry; a
    wounded man still counts).  Both sides at once is a draw (§15)."""
    if state.winner:
        return state, []
    standing = {
        p
        for p in state.players
        if any(f.player == p and f.kind == "infantry" and not f.dead for f in state.fighters.values())
    }
    if len(standing) == len(state.players):
        return state, []
    winner = next(iter(standing)) if len(standing) == 1 else "draw"
    text = (
        say("{winner} wins: no enemy infantry is left (§4.1).", winner=winner)
        if winner != "draw"
        else say("Draw: the last infantry of both sides fell together (§15).")
    )
    return state.evolve(winner=winner), [Ruling(f"{seq}:victory", seq, RulingKind.STATUS, text, "§4.1")]


Action = Callable[[QuickState, int, Args, Roller], tuple[QuickState, Ruling]]


def fighters_action(input_type: str, section: str, *args: Arg) -> Callable[[Action], Action]:
    """Registers a fighter's action (§4.1) with its arguments: refused once the game is over or
    by its rule, and followed by the victory check (§12)."""

    def register(act: Action) -> Action:
        @INPUTS.register(input_type, section, *args)
        def handle(rules: Rules, state: QuickState, seq: int, args: Args) -> tuple[QuickState, list[Ruling]]:
            if state.winner:
                return state, [Ruling(f"{seq}:over", seq, RulingKind.WARNING, say("The game is over."), "§4.1")]
            try:
                state, ruling = act(state, seq, args, rules.roller)
            except Refused as no:
                text = refusal_text(no, args)
                return state, [refusal(f"{seq}:refused", seq, text, no.section)]
            state, won = victory(state, seq)
            return state, [ruling] + won

        return act

    return register
