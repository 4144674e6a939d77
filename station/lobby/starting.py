"""The one policy for starting a new game, whoever asks (the lobby's page and API, ``station
run``, ``station demo``): two to eight armies, the pre-game check run on the station's own hub,
camera and disk, armies the game refuses turned away as bad input, a failed check refused unless
the referee starts anyway with a note saying why, and the check and the note journaled with the
game (``precheck``), so a club can see later what was known at the start."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..doctor import Finding
from ..game import InputError
from ..rules.text import with_messages

MAX_ARMIES = 8  # the lobby's table: two players at least, eight at most


class CheckFailed(InputError):
    """The pre-game check failed and the referee did not start anyway; ``checks`` says each."""

    def __init__(self, checks: list[dict[str, Any]]) -> None:
        said = "; ".join(f"{c['check']}: {c['said']}" for c in checks if c["level"] == "fail")
        super().__init__(f"the pre-game check failed: {said}")
        self.checks = checks


def check_army_count(count: int) -> None:
    """Refused before any army is loaded: the answer does not depend on them."""
    if not 2 <= count <= MAX_ARMIES:
        raise InputError(f"armies: choose from 2 to {MAX_ARMIES} armies")


def checks_view(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    """Each finding with its words, and their messages for a page to say in its language."""
    return [with_messages({"check": f.check, "level": f.level, "said": f.said, "fix": f.fix}) for f in findings]


def refuse_unplayable(checks: Sequence[dict[str, Any]]) -> None:
    """Armies or options the game refuses are bad input (naming the field), not a check the
    referee may start past with a note."""
    unplayable = next((c for c in checks if c["check"] == "armies" and c["level"] == "fail"), None)
    if unplayable:
        raise InputError(unplayable["said"])


def judge(checks: list[dict[str, Any]], force: bool, note: str) -> bool:
    """Whether the game may start, and whether it starts despite a failed check (True: forced)."""
    refuse_unplayable(checks)
    failed = any(c["level"] == "fail" for c in checks)
    if failed and not force:
        raise CheckFailed(checks)
    if failed and not note.strip():
        raise InputError("note: starting despite a failed check needs a note saying why")
    return failed
