"""Alpha Strike victory (seed 004 digest §4.5, §12): every enemy unit destroyed by default, or
Training Day's size-3 'Mech, or the two alternatives the quick-start names: the breakthrough
(«прорыв»: a set number of units taken across to the opposite edge) and capture the flag
(«захват флага»: a pre-agreed point held for a set number of turns).  The numbers and the point
are the scenario's, so they are options."""

from __future__ import annotations

import numpy as np

from ...measure.bases import MM_PER_INCH as INCH
from ...measure.measurement import CALL_SIGMAS, DEFAULT_SIGMA_MM
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..inputs import Args
from ..text import Text, joined, say
from .state import INPUTS, AlphaState, Rules
from .where import EDGES, OPPOSITE, from_edges, placed

EDGE_SLACK_IN = 1.0  # a base leaving the table is at most this far from the edge it leaves by


@INPUTS.register(
    "leave_table",
    "§3.4, §4.5",
    arg.unit("unit", "the unit that leaves the table", required=True),
    arg.taped(arg.choice("edge", "the edge it leaves by, when no camera sees it", EDGES)),
)
def leave_table(rules: Rules, state: AlphaState, seq: int, args: Args) -> tuple[AlphaState, list[Ruling]]:
    """A unit taken off the table by an edge: the edge nearest where the camera last saw it, or
    the referee's ``edge`` for a unit no camera sees.  It is out of the battle; off the enemy's
    home edge it has broken through (§4.5)."""
    unit = state.units.get(str(args.get("unit")))
    if unit is None or unit.id in state.removed:
        raise Refused(say("give a unit in play"), "§4.5")
    extents = from_edges(state, unit.id)
    gaps = {edge: near for edge, (near, _) in extents.items()} if extents else None
    edge = args.get("edge")
    if edge is None and gaps is not None:
        edge = min(gaps, key=lambda e: gaps[e])
    if edge not in EDGES:
        raise Refused(say("edge: one of {edges} (no camera sees the unit)", edges=", ".join(EDGES)), "§4.5")
    edge = str(edge)
    problems: list[Text] = []
    if gaps is not None and gaps[edge] > EDGE_SLACK_IN * INCH + CALL_SIGMAS * state.sigmas.get(
        unit.id, DEFAULT_SIGMA_MM
    ):
        problems.append(
            say('its base was {n}" from that edge when the camera last saw it', n=f"{gaps[edge] / INCH:.1f}")
        )
    state = state.evolve(removed=state.removed | {unit.id}, left_by={**state.left_by, unit.id: edge})
    if state.phase == "movement" and unit.id not in state.moves:  # off the table is its move (§4.2)
        state = state.evolve(moves={**state.moves, unit.id: "ground"})
    home = state.home_edges.get(unit.player)
    if home is None:
        how = say("the home edges are not set, so it is not known whose edge this is")
    elif edge == home:
        how = say("its own home edge: it leaves the battle safely (§3.4)")
    elif edge == OPPOSITE[home]:
        how = say("the enemy's home edge: it has broken through (§4.5)")
    else:
        how = say("a side edge: it leaves the battle (§3.4)")
    text = say(
        "{name} ({unit}) leaves the table by the {edge} edge, {how}.",
        name=unit.card.name,
        unit=unit.id,
        edge=edge,
        how=how,
    )
    if problems:
        text += " " + joined(problems, "; ") + "."
    rulings = [
        Ruling(
            f"{seq}:left:{unit.id}",
            seq,
            RulingKind.WARNING if problems else RulingKind.STATUS,
            text,
            "§4.5",
            needs_referee=bool(problems),
            element=unit.id,
            details={"edge": edge},
        )
    ]
    state, won = check_victory(state, seq)
    return state, rulings + won


def broke_through(state: AlphaState, player: str) -> list[str]:
    """The player's units that left the table by the edge opposite its own home edge."""
    home = state.home_edges.get(player)
    if home is None:
        return []
    return sorted(u for u, edge in state.left_by.items() if state.units[u].player == player and edge == OPPOSITE[home])


def _flag_holders(state: AlphaState) -> tuple[set[str], list[str]]:
    """The sides with a unit on the flag (its base within the radius of the point), and the units
    within the camera's doubt of that radius."""
    options = state.options
    point = np.array([[options.flag_x_mm, options.flag_y_mm]])
    radius = options.flag_radius_in * INCH
    sides, doubtful = set(), []
    for unit in state.in_play():
        where = placed(state, unit.id)
        if where is None or unit.destroyed:
            continue
        inside = bool(where.base.contains_many(point)[0])
        gap = 0.0 if inside else float(np.min(np.hypot(*(where.base.outline(64) - point[0]).T)))
        if gap <= radius:
            sides.add(unit.player)
        if abs(gap - radius) <= CALL_SIGMAS * where.sigma_mm and not inside:
            doubtful.append(unit.id)
    return sides, sorted(doubtful)


def hold_the_flag(state: AlphaState, seq: int) -> tuple[AlphaState, list[Ruling]]:
    """§4.5 «захват флага», at each End Phase: one side alone on the point adds a turn held in a
    row; contested or empty, the count starts again."""
    if state.options.victory != "flag" or state.winner:
        return state, []
    sides, doubtful = _flag_holders(state)
    holder = next(iter(sides)) if len(sides) == 1 else None
    turns = (state.flag_held[1] + 1 if state.flag_held and state.flag_held[0] == holder else 1) if holder else 0
    state = state.evolve(flag_held=(holder, turns) if holder else None)
    if holder:
        text = say(
            "{player} holds the flag: {turns} of {needed} turns (§4.5).",
            player=holder,
            turns=turns,
            needed=state.options.flag_turns,
        )
    elif sides:
        text = say("The flag is contested by {sides}; nobody holds it (§4.5).", sides=", ".join(sorted(sides)))
    else:
        text = say("Nobody holds the flag (§4.5).")
    if doubtful:
        text += " " + say(
            "Too close to call: {units} within the camera's doubt of the {radius}\" radius.",
            units=", ".join(doubtful),
            radius=f"{state.options.flag_radius_in:g}",
        )
    return state, [
        Ruling(
            f"{seq}:flag",
            seq,
            RulingKind.STATUS,
            text,
            "§4.5",
            needs_referee=bool(doubtful),
            details={"holder": holder, "turns": turns, "doubtful": doubtful},
        )
    ]


def check_victory(state: AlphaState, seq: int) -> tuple[AlphaState, list[Ruling]]:
    """§4.5: every enemy unit destroyed, or the scenario's condition (§12 Training Day: the
    enemy's size-3 'Mech destroyed; a breakthrough; the flag held)."""
    if state.winner:
        return state, []
    victory = state.options.victory
    if victory == "breakthrough":
        through = {p: broke_through(state, p) for p in state.players}
        done = [p for p, units in through.items() if len(units) >= state.options.breakthrough_units]
        if len(done) == 1:
            player = done[0]
            lost = sum(1 for u in state.units.values() if u.player == player and u.destroyed)
            why = say(
                "{n} units broke through the enemy's home edge, {lost} lost (§4.5)", n=len(through[player]), lost=lost
            )
            return _won(state, seq, player, why)
        return state, []
    if victory == "flag":
        held = state.flag_held
        if held and held[1] >= state.options.flag_turns:
            return _won(state, seq, held[0], say("held the flag for {turns} turns (§4.5)", turns=held[1]))
        return state, []
    return _destroyed(state, seq, victory)


def _destroyed(state: AlphaState, seq: int, victory: str) -> tuple[AlphaState, list[Ruling]]:
    standing = {}
    for player in state.players:
        units = [u for u in state.units.values() if u.player == player]
        if victory == "size3":
            units = [u for u in units if u.card.size == 3] or units
        standing[player] = any(not u.destroyed and u.id not in state.removed for u in units)
    alive = [p for p, ok in standing.items() if ok]
    if len(alive) == len(state.players):
        return state, []
    if len(alive) != 1:
        return state.evolve(winner="draw"), [
            Ruling(f"{seq}:victory", seq, RulingKind.STATUS, say("Draw: both sides lost at once."), "§4.5 §12")
        ]
    why = (
        say("destroyed the enemy's size-3 'Mech (§12)")
        if victory == "size3"
        else say("destroyed every enemy unit (§4.5)")
    )
    return _won(state, seq, alive[0], why)


def _won(state: AlphaState, seq: int, winner: str, why: Text) -> tuple[AlphaState, list[Ruling]]:
    text = say("{winner} wins: {why}.", winner=winner, why=why)
    return state.evolve(winner=winner, won_by=why), [Ruling(f"{seq}:victory", seq, RulingKind.STATUS, text, "§4.5 §12")]
