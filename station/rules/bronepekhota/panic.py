"""§11.2 panic (an optional rule): a Survival Test whose die equals the soldier's Бр is passed, but
he panics.  A pilot first leaves his vehicle, which can then be captured (§9.1).  He flees his
Ск in steps towards the nearest table edge; the players move him, the station says where.  If
that takes him off the table he deserts and is out of the game; otherwise he regains control at
the start of the next round (the "panic" mark clears with the round's other marks).
"""

from __future__ import annotations

from dataclasses import replace

from ..text import Text, say
from .roster import dismount, name
from .state import GameState
from .tables import TestResult

STEP_MM = 50.0
PANIC_MARK = "panic"
EDGES = ("west", "east", "south", "north")


def after_survival(state: GameState, element_id: str, test: TestResult) -> tuple[GameState, list[Text]]:
    if not state.options.panic or not test.passed or test.roll != test.target:
        return state, []
    soldier = state.elements[element_id]
    words = []
    if soldier.aboard:
        vehicle = state.elements[soldier.aboard]
        state, _ = dismount(state, vehicle)
        words.append(
            say(
                "{element_id} panics and jumps out of {vehicle}, which has no pilot now (§11.2, §9.1)",
                element_id=name(state, element_id),
                vehicle=name(state, vehicle.id),
            )
        )
        soldier = state.elements[element_id]
    else:
        words.append(say("{element_id} panics (§11.2)", element_id=name(state, element_id)))
    flight = soldier.speed * STEP_MM
    where = state.positions.get(soldier.aboard or element_id) or state.positions.get(element_id)
    if where is None or not state.table_mm:
        words.append(say("he flees {speed} steps towards the nearest table edge", speed=soldier.speed))
        return state.with_element(replace(soldier, fired=soldier.fired | {PANIC_MARK})), words
    width, depth = state.table_mm
    edge, gap = min(zip(EDGES, (where[0], width - where[0], where[1], depth - where[1])), key=lambda e: e[1])
    if gap <= flight:
        words.append(
            say(
                "he flees off the {edge} edge ({n} steps away): a deserter, out of the game",
                edge=edge,
                n=f"{gap / STEP_MM:.1f}",
            )
        )
        return state.with_element(replace(soldier, destroyed=True, aboard=None)), words
    words.append(
        say(
            "he flees {speed} steps towards the {edge} edge; he regains control next round",
            speed=soldier.speed,
            edge=edge,
        )
    )
    return state.with_element(replace(soldier, fired=soldier.fired | {PANIC_MARK})), words
