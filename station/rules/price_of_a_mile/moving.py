"""The Price of a Mile movement (seed 003 digest §5), checked against the camera's path: a Move
order goes up to Speed; entering, leaving or crossing difficult terrain or a low obstacle costs
1" (Difficult-Terrain Mode, which a squad in close order cannot enter); a high obstacle takes a
whole Move; coming within 1" of an enemy ends the base's actions and starts a melee."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from ...measure.movement import movement, terrain_crossed
from ...measure.relations import coherent, in_contact
from ..base import Ruling
from .shooting import Refused, spend
from .state import CONTACT_IN, INCH, MileState
from .where import placed, placed_many

DIFFICULT = ("woods", "water")  # §5.2: difficult terrain (a terrain-piece property agreed before the game)
DTM_IN = 1.0  # §5.2
SLACK_IN = 0.2  # the camera's path may run a few mm long
VEHICLE_DTM_IN = {"vehicle": 3.0, "tank": 2.0}  # §5.2
TANK_OBSTACLE_IN = 3.0  # §15.2


def _high(piece, options) -> bool:
    """§5.5: which obstacles are high is agreed before the game: here, by height."""
    return piece.type == "obstacle" and piece.height_mm > options.high_obstacle_mm


def move(state: MileState, seq: int, args: Mapping[str, Any]) -> tuple[MileState, Ruling]:
    fighter = state.fighters.get(str(args.get("base")))
    if fighter is None or not fighter.standing:
        raise Refused("give a standing base", "§5.1")
    before = state
    state = spend(state, fighter, 1, "§5.1")
    path = state.paths.get(fighter.id, ())
    inches = movement(path).path_mm / INCH
    crossed = terrain_crossed(path, state.terrain)
    problems, notes = [], []
    rough = [c.piece for c in crossed if c.type in DIFFICULT or (c.type == "obstacle" and not _high(_piece(state, c.piece),
                                                                                                      state.options))]
    high = [c.piece for c in crossed if c.type == "obstacle" and _high(_piece(state, c.piece), state.options)]
    allowed = float(state.stat(fighter, "speed"))
    if fighter.immobilised:
        problems.append("it is immobilised (§15)")
    if fighter.vehicle == "vehicle" and any(c.type == "obstacle" for c in crossed):
        problems.append("a vehicle cannot cross obstacles (§15.1)")
    if rough:
        dtm = VEHICLE_DTM_IN.get(fighter.vehicle or "", DTM_IN)
        allowed -= dtm
        notes.append(f"Difficult-Terrain Mode through {', '.join(rough)} (-{dtm:g}\", §5.2)")
        if fighter.squad and _close_order(before, fighter.squad):
            problems.append("a squad in close order cannot enter difficult terrain (§5.3)")
    climbing = bool(high) and fighter.vehicle != "tank"
    if high and not climbing:  # §15.2: a tank pays 3" of its Speed
        allowed -= TANK_OBSTACLE_IN
        notes.append(f"crossed {', '.join(high)} for 3\" (§15.2)")
    elif climbing:
        allowed = _high_crossing_in(state, high)
        notes.append(f"crossed {', '.join(high)}: a high obstacle takes the whole Move, begun in contact with it (§5.5)")
    if inches > allowed + SLACK_IN:
        problems.append(f'{inches:.1f}" is more than the crossing: a high obstacle is only climbed over (§5.5)' if climbing
                        else f'{inches:.1f}" is more than its {max(allowed, 0):g}" (§5.1)')
    state = state.evolve(paths={**state.paths, fighter.id: path[-1:]})  # the next Move starts here
    enemy = _contact(state, fighter)
    if enemy:
        act = state.activation
        state = state.evolve(activation=replace(act, actions={**act.actions, fighter.id: 0}))
        notes.append(f"in contact with {', '.join(enemy)}: its actions end and a melee follows the activation (§5.4)")
    text = f"{fighter.id} moves {inches:.1f}\"" + (": " + "; ".join(notes) if notes else "") + "."
    if problems:
        text += " " + "; ".join(p[0].upper() + p[1:] for p in problems) + "."
    return state, Ruling(f"{seq}:move", seq, "warning" if problems else "move", text, "§5", needs_referee=bool(problems),
                         element=fighter.id, details={"inches": round(inches, 2), "allowed": allowed, "contact": enemy})


def _piece(state: MileState, piece_id: str):
    return next(p for p in state.terrain if p.id == piece_id)


def _high_crossing_in(state: MileState, pieces: list[str]) -> float:
    """A high obstacle's Move puts the base on the far side: its depth plus a base, in inches."""
    def depth(poly) -> float:
        return min(float(poly[:, k].max() - poly[:, k].min()) for k in (0, 1))
    return sum(depth(_piece(state, p).polygon) for p in pieces) / INCH + 3.0


def _close_order(state: MileState, squad: str) -> bool:
    bases = placed_many(state, [f.id for f in state.standing(squad)])
    return len(bases) > 1 and len(coherent(bases, 1.0)) == 1


def _contact(state: MileState, fighter) -> list[str]:
    me = placed(state, fighter.id)
    if me is None:
        return []
    enemies = placed_many(state, [f.id for f in state.fighters.values() if f.player != fighter.player and f.standing])
    return [e.id for e in enemies if in_contact(me, e, CONTACT_IN * INCH)]
