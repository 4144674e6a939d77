"""Alpha Strike movement (seed 004 digest §5), checked against the path the camera saw.

Ground: 1" of MV an inch, +1" an inch in woods or water, +2" an inch of height climbed or
descended, wading into or out of water too (1" deep unless the map says; a step over 2" high is
impassable), less 2" a heat level (§9.2); a mobile unit may
always move 2" (§5.3).  Jump: straight, within the jump MV, ignoring terrain, never out of water.
Still: under 1" (§5.2).  No two bases may overlap at the end (§5.5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...measure.bases import MM_PER_INCH as INCH
from ...measure.movement import level_changes, movement, terrain_crossed
from ...measure.paths import Pose
from ...measure.terrain import Piece
from ..text import Text, say
from .attack import WORDS
from .cards import UnitState
from .heat import ground_move_in
from .where import WATER_DEPTH_IN

STILL_IN = 1.0  # §5.2: under 1" of path is standing still
MINIMUM_IN = 2.0  # §5.3
PER_INCH = {"woods": 1.0, "water": 1.0}  # §5.4 Movement Cost table: +1 an inch
LEVEL_COST = 2.0  # §5.4: 2" of MV per inch of height change
STEEPEST_IN = 2.0  # §5.4: at most 2" of height change per 1" moved
SLACK_IN = 0.2  # the camera's path is a few mm long or short; less than this is not a violation
HEIGHT_TYPES = ("hill",)  # what a 'Mech walks up; buildings are not in the quick-start


@dataclass(frozen=True)
class CheckedMove:
    inches: float  # the path's length, what a charge counts
    cost_in: float  # what it cost in MV
    allowed_in: float
    parts: tuple[Text, ...]  # how the cost was reached
    problems: tuple[Text, ...]


def _ground(
    unit: UnitState, path: Sequence[Pose], terrain: Sequence[Piece], inches: float, bonus_in: int
) -> CheckedMove:
    parts, problems, extra = [say('{inches}" moved', inches=f"{inches:.1f}")], [], 0.0
    for crossing in terrain_crossed(path, terrain):
        if crossing.type in PER_INCH and crossing.inside_mm:
            cost = PER_INCH[crossing.type] * crossing.inside_mm / INCH
            extra += cost
            parts.append(
                say(
                    '+{cost}" for {n}" of {type} ({piece})',
                    cost=f"{cost:.1f}",
                    n=f"{crossing.inside_mm / INCH:.1f}",
                    type=WORDS.get(crossing.type, crossing.type),
                    piece=crossing.piece,
                )
            )
        if crossing.type == "building":
            problems.append(
                say("it walked through building {piece}, which the quick-start has no rules for", piece=crossing.piece)
            )
    steps = level_changes(path, terrain, HEIGHT_TYPES, water_depth_mm=WATER_DEPTH_IN * INCH)  # wading in is a level
    if steps:
        climbed = sum(abs(s) for s in steps) / INCH
        extra += LEVEL_COST * climbed
        parts.append(
            say('+{n}" for {climbed}" of level change', n=f"{LEVEL_COST * climbed:.1f}", climbed=f"{climbed:.1f}")
        )
        steepest = max(abs(s) for s in steps) / INCH
        if steepest > STEEPEST_IN + 0.05:
            problems.append(
                say(
                    'it crossed a {steepest}" step of height; more than {steepest_in}" is impassable (§5.4)',
                    steepest=f"{steepest:.1f}",
                    steepest_in=f"{STEEPEST_IN:g}",
                )
            )
    allowed = ground_move_in(unit) + (bonus_in if ground_move_in(unit) > 0 else 0)
    cost = inches + extra
    if allowed <= 0 and inches >= STILL_IN:
        problems.append(say("it is immobile (§5.3, §9.2)"))
    elif cost > allowed + SLACK_IN and inches > MINIMUM_IN + SLACK_IN:
        problems.append(
            say('{cost}" of MV is more than its {allowed}"', cost=f"{cost:.1f}", allowed=allowed)
            + (say(" after heat") if unit.heat else "")
            + say(' (§5.4, §9.2; the 2" minimum move does not cover it, §5.3)')
        )
    return CheckedMove(inches, cost, allowed, tuple(parts), tuple(problems))


def check_move(
    unit: UnitState,
    mode: str,
    path: Sequence[Pose],
    terrain: Sequence[Piece],
    started_in_water: bool,
    overlapping: Sequence[str],
    bonus_in: int = 0,
    passed: Sequence[str] = (),
) -> CheckedMove:
    """The declared move against the measured one; ``overlapping`` lists the bases it ends on,
    ``passed`` the enemy units its path went through; ``bonus_in`` is Speed Demon's 2" (§11.3)."""
    moved = movement(path)
    inches = moved.path_mm / INCH
    problems: list[Text] = []
    if unit.shutdown and inches >= STILL_IN:
        problems.append(say("it is shut down and cannot move (§9.4)"))
    if mode == "still":
        checked = CheckedMove(inches, 0.0, 0.0, (), ())
        if inches >= STILL_IN:
            problems.append(
                say(
                    'it moved {inches}" (standing still is under {still_in}", §5.2)',
                    inches=f"{inches:.1f}",
                    still_in=f"{STILL_IN:g}",
                )
            )
    elif mode == "ground":
        checked = _ground(unit, path, terrain, inches, bonus_in)
    else:
        straight = moved.straight_mm / INCH
        jump = unit.jump_in + bonus_in if unit.jump_in else 0
        checked = CheckedMove(
            inches, straight, float(jump), (say('{straight}" straight', straight=f"{straight:.1f}"),), ()
        )
        if not unit.card.jump_in:
            problems.append(say("it cannot jump: no jump MV on its card (§5.2)"))
        elif straight > jump + SLACK_IN:
            problems.append(
                say('a {straight}" jump is more than its {jump}" (§5.2)', straight=f"{straight:.1f}", jump=jump)
            )
        if started_in_water and inches >= STILL_IN:
            problems.append(say("a unit may not jump out of water (§5.2)"))
    if passed and mode == "ground":
        problems.append(
            say(
                "it went through {passed}: a unit may not pass through enemy units at its height (§5.5)",
                passed=", ".join(passed),
            )
        )
    if overlapping:
        problems.append(say("its base ends on {overlapping} (§5.5)", overlapping=", ".join(overlapping)))
    return CheckedMove(
        checked.inches, checked.cost_in, checked.allowed_in, checked.parts, checked.problems + tuple(problems)
    )
