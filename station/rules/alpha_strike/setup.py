"""Alpha Strike pre-game setup (seed 004 digest §3): the setup roll, home edges, and the
deployment zone within 10" of a side's home edge, checked from the camera when turn 1 begins."""

from __future__ import annotations

from ...measure.bases import MM_PER_INCH as INCH
from ...measure.measurement import DEFAULT_SIGMA_MM
from .. import input_args as arg
from ..base import Ruling, RulingKind
from ..inputs import Args
from ..text import joined, say
from .state import INPUTS, AlphaState, Rules
from .turns import initiative, roll_off, shown
from .where import EDGES, OPPOSITE, from_edges

ZONE_IN = 10.0  # §3.5


@INPUTS.register("setup_roll", "§3.2")
def setup_roll(rules: Rules, state: AlphaState, seq: int, args: Args) -> tuple[AlphaState, list[Ruling]]:
    """§3.2: 2D6 a side, ties again; the winner chooses its army first and then its home edge."""
    roller = rules.roller
    if state.turn or state.setup_winner:
        return state, [
            Ruling(
                f"{seq}:setup", seq, RulingKind.WARNING, say("The setup roll comes once, before the first turn."), "§3"
            )
        ]
    rolls, order = roll_off(state.players, seq, roller, "setup")
    return state.evolve(setup_winner=order[-1]), [
        Ruling(
            f"{seq}:setup",
            seq,
            RulingKind.INITIATIVE,
            say(
                "Setup roll 2D6 {shown}: {order} chooses its army first and, after the terrain is placed, its home edge (§3.2, §3.4).",
                shown=shown(rolls),
                order=order[-1],
            ),
            "§3.2",
            details={"rolls": rolls},
        )
    ]


@INPUTS.register("home_edge", "§3.4", arg.choice("edge", "the setup winner's home edge", EDGES, required=True))
def choose_home_edge(rules: Rules, state: AlphaState, seq: int, args: Args) -> tuple[AlphaState, list[Ruling]]:
    """§3.4: the setup winner's edge; the opposite edge is the other side's."""
    edge = args.get("edge")
    if not state.setup_winner or state.turn or edge not in EDGES or len(state.players) != 2:
        return state, [
            Ruling(
                f"{seq}:home",
                seq,
                RulingKind.WARNING,
                say(
                    "After the setup roll and before turn 1, the winner names its home edge: one of {edges}.",
                    edges=", ".join(EDGES),
                ),
                "§3.4",
                needs_referee=True,
            )
        ]
    other = next(p for p in state.players if p != state.setup_winner)
    edges = {state.setup_winner: str(edge), other: OPPOSITE[str(edge)]}
    return state.evolve(home_edges=edges), [
        Ruling(
            f"{seq}:home",
            seq,
            RulingKind.STATUS,
            say("Home edges: ")
            + ", ".join(f"{p} {e}" for p, e in edges.items())
            + say('. Units enter there, or start within 10" of it (§3.4-3.5).'),
            "§3.4",
        )
    ]


def check_deployment(state: AlphaState, seq: int) -> list[Ruling]:
    """§3.5: a unit that starts on the table stands within 10" of its home edge (units off the
    table are not seen, and enter in turn 1)."""
    if state.turn != 1 or not state.home_edges:
        return []
    outside = []
    for unit in sorted(state.in_play(), key=lambda u: u.id):
        edges = from_edges(state, unit.id)
        far = edges[state.home_edges[unit.player]][1] if edges else None
        if far is not None and far > ZONE_IN * INCH + 2 * state.sigmas.get(unit.id, DEFAULT_SIGMA_MM):
            outside.append(
                say(
                    '{unit} reaches {n}" from the {home_edges} edge',
                    unit=unit.id,
                    n=f"{far / INCH:.1f}",
                    home_edges=state.home_edges[unit.player],
                )
            )
    if not outside:
        return [
            Ruling(
                f"{seq}:deployment",
                seq,
                RulingKind.STATUS,
                say("Every unit on the table is in its deployment zone (§3.5)."),
                "§3.5",
            )
        ]
    return [
        Ruling(
            f"{seq}:deployment",
            seq,
            RulingKind.WARNING,
            say('Outside the deployment zone (10" from the home edge, §3.5): ') + joined(outside, "; ") + ".",
            "§3.5",
            needs_referee=True,
        )
    ]


@INPUTS.register("roll_initiative", "§4.1, §3.5")
def roll_initiative(rules: Rules, state: AlphaState, seq: int, args: Args) -> tuple[AlphaState, list[Ruling]]:
    """§4.1's initiative, and at the first one the deployment checked (§3.5)."""
    state, rulings = initiative(state, seq, rules.roller)
    return state, rulings + check_deployment(state, seq)
