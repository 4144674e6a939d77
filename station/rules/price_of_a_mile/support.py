"""The Price of a Mile's artillery support (seed 003 digest §16.4): three markers in the enemy's
zone before deployment, a shell within d10" of each at the start of every turn, and one marker
moved 3" after each bombardment.  The markers are points on the table: a camera game's rule."""

from __future__ import annotations

from ...dice import Roller
from ...measure.templates import scatter
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..inputs import Args
from ..text import Text, joined, say
from . import turns, vehicles
from .blasts import blast_area, hit_under
from .state import INCH, INPUTS, MileState, Rules
from .turns import morale_test
from .where import placed_many

SUPPORT_MARKERS = 3  # §16.4
SUPPORT_POWER = 2
SUPPORT_DIRECT_POWER = 7
MARKER_SHIFT_IN = 3.0


@INPUTS.register(
    "artillery_markers",
    "§16.4 step 1",
    arg.points("markers", "three points in the enemy's zone, each [x, y] in mm", required=True),
)
def place_support(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    """§16.4 step 1: before deployment, three markers in the enemy's zone, each drifting 2d6"."""
    roller = rules.roller
    side = state.options.artillery_support
    points = args.get("markers")
    if side is None or state.turn or state.support_markers:
        raise Refused(
            say("the option artillery_support names the side; its markers go down once, before the first turn"), "§16.4"
        )
    if not (
        isinstance(points, list)
        and len(points) == SUPPORT_MARKERS
        and all(isinstance(p, list) and len(p) == 2 and all(isinstance(c, (int, float)) for c in p) for p in points)
    ):
        raise Refused(say('give "markers": three [x_mm, y_mm] points in the enemy deployment zone'), "§16.4")
    placed_at, words = [], []
    for k, (x, y) in enumerate(points):
        drift = roller.roll(6, f"{seq}/support/{k}/a") + roller.roll(6, f"{seq}/support/{k}/b")
        direction = roller.roll(state.options.scatter_sides, f"{seq}/support/{k}/direction")
        at = scatter((float(x), float(y)), direction, state.options.scatter_sides, drift * INCH)
        placed_at.append((round(at[0], 1), round(at[1], 1)))
        words.append(say('marker {n} drifts {drift}" towards {direction}', n=k + 1, drift=drift, direction=direction))
    state = state.evolve(support_markers=tuple(placed_at))
    return state, [
        Ruling(
            f"{seq}:support",
            seq,
            RulingKind.STATUS,
            say("Artillery support for {side}: ", side=side) + joined(words, "; ") + " (§16.4).",
            "§16.4",
            details={"markers": [list(p) for p in placed_at]},
        )
    ]


@INPUTS.register(
    "roll_initiative",
    "§4.2, §16.4 step 2",
    arg.player("first_two", "who the winner by 4 or more gives the first two activations (the winner when left out)"),
)
def roll_initiative(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    """§4.2's initiative, then §16.4 step 2: the guns open each turn once its initiative is rolled."""
    state, rulings = turns.initiative(state, seq, args, rules.roller)
    if state.turn and rulings and rulings[0].kind == RulingKind.INITIATIVE:
        state, shells = bombard(state, seq, rules.roller)
        rulings += shells
    return state, rulings


def bombard(state: MileState, seq: int, roller: Roller) -> tuple[MileState, list[Ruling]]:
    """§16.4 step 2: at the start of every turn a shell lands within d10" of each marker and hits
    everyone within 2" at Power 2 (a vehicle hit squarely at Power 7); the squads hit test Morale."""
    if not state.support_markers:
        return state, []
    rulings: list[Ruling] = []
    shaken: set[str] = set()
    for k, marker in enumerate(state.support_markers):
        distance = roller.roll(10, f"{seq}/shell/{k}/distance")
        direction = roller.roll(state.options.scatter_sides, f"{seq}/shell/{k}/direction")
        centre = scatter(marker, direction, state.options.scatter_sides, distance * INCH)
        everyone = placed_many(state, [f.id for f in state.fighters.values() if f.standing])
        under, extra, where = blast_area(state, centre, everyone)
        words: list[Text] = []
        direct = next((p.id for p in everyone if state.fighters[p.id].vehicle and p.base.contains(centre)), None)
        if direct:
            state, said = vehicles.damage(
                state,
                state.fighters[direct],
                SUPPORT_DIRECT_POWER,
                False,
                roller,
                f"{seq}/shell/{k}/direct",
                direct_hit=True,
            )
            words.append(say("direct hit: ") + said)
            under = [f for f in under if f != direct]
        shaken |= {s for f in under if (s := state.fighters[f].squad)}
        state, more, _ = hit_under(
            state, under, roller, f"{seq}/shell/{k}", SUPPORT_POWER + extra, centre, True, bool(extra)
        )
        words += more
        rulings.append(
            Ruling(
                f"{seq}:shell:{k}",
                seq,
                RulingKind.SHOT,
                say(
                    'Artillery support shell {n}: {distance}" off towards {direction}',
                    n=k + 1,
                    distance=distance,
                    direction=direction,
                )
                + (": " + joined(words, "; ") if words else say(': nobody within 2"'))
                + " (§16.4).",
                "§16.4",
                details={"template": {"circle": [round(centre[0], 1), round(centre[1], 1), round(2.0 * INCH, 1)]}},
            )
        )
    for squad in sorted(s for s in shaken if state.standing(s)):
        state, test = morale_test(state, seq, squad, roller, say("under artillery fire"))
        rulings.append(test)
    return state, rulings


@INPUTS.register(
    "move_marker",
    "§16.4 step 3",
    arg.integer("marker", "which marker, 0-2", 0, 2, required=True),
    arg.point("to", "where it goes, [x, y] in mm, at most 3 inches away", required=True),
)
def shift_marker(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    """§16.4 step 3: after the bombardment one marker may move 3" in any direction."""
    k, to = args.get("marker"), args.get("to")
    if not isinstance(k, int) or not 0 <= k < len(state.support_markers) or not (isinstance(to, list) and len(to) == 2):
        raise Refused(say('give "marker" (0-2) and "to": [x_mm, y_mm]'), "§16.4")
    old = state.support_markers[k]
    if ((to[0] - old[0]) ** 2 + (to[1] - old[1]) ** 2) ** 0.5 > MARKER_SHIFT_IN * INCH + 1.0:
        raise Refused(say('a marker moves at most 3"'), "§16.4")
    markers = list(state.support_markers)
    markers[k] = (float(to[0]), float(to[1]))
    return state.evolve(support_markers=tuple(markers)), [
        Ruling(f"{seq}:marker", seq, RulingKind.STATUS, say("Artillery marker {n} moves (§16.4).", n=k + 1), "§16.4")
    ]
