"""What an input would rule, shown before the referee commits it (issue 48's action panel).

The fold is pure, so a preview is the input applied to the current state and thrown away: no
record, no die.  Dice are not rolled: each one the rules ask for is counted and reads as its
middle face, so the preview says how many dice of which kind the input will take, and its words
in full when it takes none.  A refusal, with its reason, is what the referee most needs to see
before tapping: it is shown as the rules would say it.
"""

from __future__ import annotations

import copy
import logging
from collections import Counter
from collections.abc import Mapping
from typing import Any

from .base import Event, Input
from .text import joined, say

log = logging.getLogger(__name__)
PREVIEW_SEQ = 0  # no journal record: no override or die is ever keyed to it


class Unrolled:
    """The roller of a preview: it counts the dice asked for, rolling none."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def roll(self, sides: int, key: str) -> int:
        self.asked.append(sides)
        return (sides + 1) // 2


def dice_words(asked: list[int]) -> str:
    """``[10, 10, 6]`` as "2d10 + d6", the way the rulebooks write them."""
    counted = sorted(Counter(asked).items(), key=lambda kv: -kv[0])
    return " + ".join(f"{n if n > 1 else ''}d{sides}" for sides, n in counted)


def dry_run(ruleset: Any, state: Any, input_type: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """The input applied to ``state`` by a copy of ``ruleset`` whose dice are ``Unrolled``:
    ``{"refused": why}``, or ``{"summary", "lines", "doubts", "dice"}``."""
    ghost = copy.copy(ruleset)
    ghost.roller = Unrolled()
    try:
        _, rulings = ghost.apply(state, Event(PREVIEW_SEQ, Input(input_type, dict(args))))
    except Exception:  # a bug in a rule must not cost the referee the page: the log has it
        log.exception("preview of %s failed", input_type)
        return {"refused": say("the station cannot preview this input")}
    refused = next((r for r in rulings if r.refused), None)
    if refused is not None:
        return {"refused": say("{why} ({section})", why=refused.text, section=refused.section or "—")}
    asked = ghost.roller.asked
    doubts = [say("the referee will be asked to judge it")] if any(r.needs_referee for r in rulings) else []
    if not asked:
        return {"summary": joined([r.text for r in rulings], " "), "lines": [], "doubts": doubts, "dice": ""}
    return {
        "summary": say("Rolls {dice}", dice=dice_words(asked)),
        "lines": [say("{n} ruling(s) follow, once the dice are rolled", n=len(rulings))],
        "doubts": doubts,
        "dice": dice_words(asked),
    }
