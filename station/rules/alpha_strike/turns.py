"""Alpha Strike's turn (seed 004 digest §4): Initiative (2D6, ties roll again, the loser moves and
fights first), Movement (alternating units; each declares still, ground or jump and the camera's
path is checked against MV, woods +1"/inch, and heat), Combat (one attack per unit, damage marked
at once but taking effect in the End Phase), and the End Phase (heat, shutdown, removal of the
destroyed, victory).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any

from ...dice import Roller
from ...measure.bases import MM_PER_INCH as INCH
from ...measure.bases import overlapping
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..inputs import Args
from ..text import Text, capitalised, joined, say
from .attack import WORDS
from .cards import UnitState
from .declared import LONGEST_TAPE_IN
from .formations import speed_demon
from .heat import TurnHeat, end_phase
from .moving import STILL_IN, check_move
from .state import INPUTS, AlphaState, Rules
from .victory import check_victory, hold_the_flag
from .where import on_terrain, passed_through, placed, water_depth_in


def roll_off(
    players: tuple[str, ...], seq: int, roller: Roller, tag: str
) -> tuple[dict[str, list[int]], tuple[str, ...]]:
    """2D6 a side, ties among the highest roll again (A1); the players from the lowest first
    roll to the winner last, and every roll made."""
    rolls: dict[str, list[int]] = {p: [] for p in players}
    tied, ranked, attempt = list(players), list(players), 0
    while len(tied) > 1:
        for p in tied:
            rolls[p].append(
                roller.roll(6, f"{seq}/{tag}/{attempt}/{p}/1") + roller.roll(6, f"{seq}/{tag}/{attempt}/{p}/2")
            )
        top = max(rolls[p][-1] for p in tied)
        if attempt == 0:
            ranked = sorted(players, key=lambda p: rolls[p][-1])
        tied = [p for p in tied if rolls[p][-1] == top]
        attempt += 1
    return rolls, tuple(p for p in ranked if p != tied[0]) + (tied[0],)


def shown(rolls: Mapping[str, list[int]]) -> str:
    return ", ".join(f"{p} {'/'.join(map(str, r))}" for p, r in rolls.items())


def initiative(state: AlphaState, seq: int, roller: Roller) -> tuple[AlphaState, list[Ruling]]:
    """§4.1: the initiative loser moves and fights first."""
    if state.phase != "initiative" or state.winner:
        return state, [
            Ruling(
                f"{seq}:initiative",
                seq,
                RulingKind.WARNING,
                say("It is the {phase} phase, not initiative.", phase=WORDS[state.phase]),
                "§4",
            )
        ]
    rolls, order = roll_off(state.players, seq, roller, "init")
    state = state.evolve(
        turn=state.turn + 1,
        phase="movement",
        order=order,
        moves={},
        moved_in={},
        attacked=frozenset(),
        special_targets=frozenset(),
        heat_turn={},
        paths={},
        rear_fired={},
        last_miss=None,
    )
    rulings = [
        Ruling(
            f"{seq}:initiative",
            seq,
            RulingKind.INITIATIVE,
            say(
                "Turn {turn}: initiative 2D6 {shown}; {order} wins and moves and fights last (§4.1).",
                turn=state.turn,
                shown=shown(rolls),
                order=order[-1],
            ),
            "§4.1",
            details={"rolls": rolls, "order": list(order)},
        )
    ]
    others = [f"{u.id} ({u.card.unit_type})" for u in state.units.values() if not u.card.quick_start]
    if state.turn == 1 and others:  # said once, when the game begins
        text = (
            say("The quick-start has rules for BattleMechs only: ")
            + ", ".join(others)
            + say(" are ruled as 'Mechs, and each of their moves and attacks goes to the referee.")
        )
        rulings.append(Ruling(f"{seq}:unit-types", seq, RulingKind.WARNING, text, "scope", needs_referee=True))
    return state, rulings


def next_player(state: AlphaState, done: Collection[str]) -> str | None:
    """§4.2 and A2: whose unit goes next.  Players alternate, the initiative loser first; a side
    with more units goes in proportion, so both sides finish together: the next player is the one
    with the smallest share of its units done (ties to the earlier in initiative order).  A unit
    that left the table after its turn is still one of its side's, done: leaving was its move
    («Так игроки по очереди двигают»)."""
    shares = []
    for k, player in enumerate(state.order):
        gone = [u for u in done if u in state.removed and state.units[u].player == player]
        units = [u.id for u in state.in_play(player)] + gone
        left = [u for u in units if u not in done]
        if left:
            shares.append((sum(1 for u in units if u in done) / len(units), k, player))
    return min(shares)[2] if shares else None


def out_of_turn(state: AlphaState, unit: UnitState, done: Collection[str], what: Text) -> Text | None:
    """A problem to show when a unit goes out of the alternation (the station does not refuse it:
    the players may have agreed an order)."""
    due = next_player(state, done)
    if due and unit.player != due and unit.id not in done:
        return say("the {due} side was due to {what} a unit (§4.2, A2)", due=due, what=what)
    return None


def _overlapping(state: AlphaState, unit_id: str) -> list[str]:
    mine = placed(state, unit_id)
    if mine is None:
        return []
    others = [(u.id, placed(state, u.id)) for u in state.in_play() if u.id != unit_id]
    return sorted(uid for uid, other in others if other is not None and overlapping(mine.base, other.base))


def _taped(inches: Any) -> float | Text | None:
    """A move's length in inches as the referee measured it (``inches``), None when not given,
    or why it cannot be read."""
    if inches is None:
        return None
    if isinstance(inches, bool) or not isinstance(inches, (int, float)) or not 0 <= inches <= LONGEST_TAPE_IN:
        return say("inches: the distance moved, from 0 to {most}", most=f"{LONGEST_TAPE_IN:g}")
    return float(inches)


@INPUTS.register(
    "move",
    "§5",
    arg.unit("unit", "the unit that moves", required=True),
    arg.choice("mode", "standing still, on the ground or jumping (ground when left out)", ("still", "ground", "jump")),
    arg.taped(
        arg.number("inches", "how far it moved, by the referee's tape when no camera sees it", 0, 200, distance=True)
    ),
)
def declare_move(rules: Rules, state: AlphaState, seq: int, args: Args) -> tuple[AlphaState, list[Ruling]]:
    """§5: the unit's declared move this turn, checked against the path the camera saw."""
    unit = state.units.get(str(args.get("unit")))
    mode = args.get("mode", "ground")
    if state.phase != "movement":
        return state, [
            Ruling(
                f"{seq}:move",
                seq,
                RulingKind.WARNING,
                say("It is the {phase} phase.", phase=WORDS[state.phase]),
                "§4.2",
                needs_referee=True,
            )
        ]
    if unit is None or unit.id in state.removed or mode not in ("still", "ground", "jump"):
        return state, [
            Ruling(
                f"{seq}:move",
                seq,
                RulingKind.WARNING,
                say("Give a unit in play and a mode: still, ground or jump."),
                "§5.2",
                needs_referee=True,
            )
        ]
    path = state.paths.get(unit.id, ())
    start = path[0] if path else state.positions.get(unit.id)
    in_water = start is not None and on_terrain(state, unit.id, ("water",), at=start)
    bonus = speed_demon(state, unit.id, unit.player) if mode == "ground" or state.options.speed_demon_jump else 0
    unseen = start is None and mode != "still"  # no camera sees it: the referee's tape, or nothing
    if unseen:
        taped = _taped(args.get("inches"))
        if isinstance(taped, Text):
            return state, [Ruling(f"{seq}:move", seq, RulingKind.WARNING, taped, "§5", needs_referee=True)]
        path = ((0.0, 0.0, 0.0), (taped * INCH, 0.0, 0.0)) if taped is not None else ()
    passed = [] if unseen else passed_through(state, unit.id, path)
    checked = check_move(
        unit, mode, path, () if unseen else state.terrain, in_water, _overlapping(state, unit.id), bonus, passed
    )
    late = out_of_turn(state, unit, state.moves, say("move")) if state.options.movement_order == "alternate" else None
    if late:
        checked = replace(checked, problems=checked.problems + (late,))
    counted = standing_still_if_short(mode, checked.inches, measured=not unseen or args.get("inches") is not None)
    state = state.evolve(moves={**state.moves, unit.id: counted}, moved_in={**state.moved_in, unit.id: checked.inches})
    did = {
        "still": say("stands still"),
        "ground": say('moves {inches}" on the ground', inches=f"{checked.inches:.1f}"),
        "jump": say('jumps {cost_in}"', cost_in=f"{checked.cost_in:.1f}"),
    }[mode]
    if unseen:  # said plainly: a distance nobody measured is not a distance of 0"
        did = (
            say("{did}, as the referee measured", did=did)
            if args.get("inches") is not None
            else {"ground": say("moves on the ground"), "jump": say("jumps")}[mode]
            + say(" (not measured: no camera sees it; its distance is the referee's to check)")
        )
    text = say("{name} ({unit}) {did}", name=unit.card.name, unit=unit.id, did=did)
    if mode == "ground" and len(checked.parts) > 1:
        text += say(
            ': {parts} = {cost_in}" of {allowed_in}"',
            parts=joined(checked.parts),
            cost_in=f"{checked.cost_in:.1f}",
            allowed_in=f"{checked.allowed_in:g}",
        )
    text += "."
    if counted != mode:
        text += say(' Under {still_in}": it counts as standing still (§5.2).', still_in=f"{STILL_IN:g}")
    if checked.problems:
        text += " " + joined((capitalised(p) for p in checked.problems), "; ") + "."
    beyond = unit.card.beyond_quick_start()
    if beyond:
        text += " " + capitalised(beyond) + "."
    return state, [
        Ruling(
            f"{seq}:move",
            seq,
            RulingKind.WARNING if checked.problems else RulingKind.MOVE,
            text,
            "§5",
            needs_referee=bool(checked.problems or beyond),
            element=unit.id,
            details={
                "mode": mode,
                **({"counted_as": counted} if counted != mode else {}),
                "inches": round(checked.inches, 2),
                "cost_in": round(checked.cost_in, 2),
                "allowed_in": checked.allowed_in,
                "problems": list(checked.problems),
            },
        )
    ]


def standing_still_if_short(mode: str, inches: float, measured: bool) -> str:
    """§5.2: «Способная к перемещению боевая единица, решившая в данный ход переместиться менее
    чем на 1 дюйм, считается стоящей на месте»: a measured move under 1", on the ground or by
    jump, is standing still for the attacks (its own −1 and its target's TMM)."""
    return "still" if measured and mode != "still" and inches < STILL_IN else mode


@INPUTS.register("end_movement", "§5")
def end_movement(rules: Rules, state: AlphaState, seq: int, args: Args) -> tuple[AlphaState, list[Ruling]]:
    if state.phase != "movement":
        return state, [
            Ruling(
                f"{seq}:phase", seq, RulingKind.WARNING, say("It is the {phase} phase.", phase=WORDS[state.phase]), "§4"
            )
        ]
    still = [u.id for u in state.in_play() if u.id not in state.moves]
    moves = {**state.moves, **{u: "still" for u in still}}
    text = (
        say("Combat phase: ")
        + (say("{order} attacks first.", order=state.order[0]) if state.order else "")
        + (say(" Counted as standing still: {still}.", still=", ".join(still)) if still else "")
    )
    return state.evolve(phase="combat", moves=moves, combat_side=0, combat_start=dict(state.units), last_miss=None), [
        Ruling(f"{seq}:phase", seq, RulingKind.STATUS, text, "§4.3")
    ]


@INPUTS.register("pass_attacks", "§4.3")
def pass_attacks(rules: Rules, state: AlphaState, seq: int, args: Args) -> tuple[AlphaState, list[Ruling]]:
    """§4.3: the side attacking now is done, its units that have not attacked passing, and the
    other side attacks.  It was only inferred from the other side's first attack."""
    if state.phase != "combat":
        raise Refused(say("It is the {phase} phase.", phase=WORDS[state.phase]), "§4.3")
    if state.combat_side >= len(state.order) - 1:
        raise Refused(
            say("the {player} side attacks last: end the turn instead (§4.4)", player=state.order[-1]), "§4.3"
        )
    side, after = state.order[state.combat_side], state.order[state.combat_side + 1]
    waiting = sorted(u.id for u in state.in_play(side) if u.id not in state.attacked)
    text = say("The {side} side passes", side=side) + (
        say(": {units} did not attack", units=", ".join(waiting)) if waiting else ""
    )
    text += say("; the {after} side attacks now (§4.3).", after=after)
    return state.evolve(combat_side=state.combat_side + 1, last_miss=None), [
        Ruling(f"{seq}:pass", seq, RulingKind.STATUS, text, "§4.3", details={"side": side, "passed": waiting})
    ]


@INPUTS.register("end_turn", "§4.4, §4.5, §12")
def end_turn(rules: Rules, state: AlphaState, seq: int, args: Args) -> tuple[AlphaState, list[Ruling]]:
    """§4.4: heat, shutdown and restart, the destroyed removed, then victory (§4.5, §12)."""
    if state.phase != "combat":
        return state, [
            Ruling(
                f"{seq}:phase", seq, RulingKind.WARNING, say("It is the {phase} phase.", phase=WORDS[state.phase]), "§4"
            )
        ]
    rulings = []
    for unit in sorted(state.in_play(), key=lambda u: u.id):
        if unit.destroyed:
            state = state.evolve(removed=state.removed | {unit.id})
            rulings.append(
                Ruling(
                    f"{seq}:removed:{unit.id}",
                    seq,
                    RulingKind.STATUS,
                    say("{name} ({unit}) is destroyed and removed (§4.4).", name=unit.card.name, unit=unit.id),
                    "§4.4",
                    element=unit.id,
                )
            )
            continue
        turn = state.heat_turn.get(unit.id, TurnHeat())
        depth = water_depth_in(state, unit.id)
        turn = replace(turn, in_water=depth is not None, water_depth_in=depth or 0.0)
        hot, said = end_phase(unit, turn, state.options.deep_water_only)
        state = state.with_unit(hot)
        if hot.heat != unit.heat or hot.shutdown != unit.shutdown:
            rulings.append(
                Ruling(
                    f"{seq}:heat:{unit.id}",
                    seq,
                    RulingKind.STATUS,
                    say("{unit}: {said} (§9.4).", unit=unit.card.name, said=said),
                    "§9.4",
                    element=unit.id,
                )
            )
    state, flag = hold_the_flag(state, seq)
    state, won = check_victory(state, seq)
    return state.evolve(phase="initiative", snipers=frozenset(), last_miss=None), rulings + flag + won
