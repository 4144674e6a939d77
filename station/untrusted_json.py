"""JSON from anyone (an MQTT topic, a request body), read without deep recursion.

Python's reader recurses once per level and gives up with ``RecursionError`` near 1,000 levels.
Catching that is not enough: while the reader is that deep, a garbage collection it triggers runs
other objects' finalizers with no stack left, and their errors surface as "exception ignored"
reports (a tournament test failed so on a busy machine, with ``[`` × 5,000 on a health topic).
So the nesting is counted first, in one flat pass, and a body deeper than ``MOST_LEVELS`` is
refused before the reader sees it.  The station's own records nest under ten levels.
"""

from __future__ import annotations

import json
import re
from typing import Any

MOST_LEVELS = 64

# A string (skipped whole, escapes included) or one bracket: brackets inside strings are not nesting.
_STRING_OR_BRACKET = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
_OPENING = frozenset(b"[{")


class TooDeep(Exception):
    """A body nested more than ``MOST_LEVELS`` deep.  Not a ``ValueError``, so Flask's
    ``get_json(silent=True)`` cannot quietly turn it into "no body"."""

    def __init__(self) -> None:
        super().__init__(f"nested more than {MOST_LEVELS} levels deep")


def check_depth(payload: str | bytes) -> None:
    """Raise ``TooDeep`` when ``payload`` opens more than ``MOST_LEVELS`` arrays or objects at once."""
    data = payload.encode("utf-8", "surrogatepass") if isinstance(payload, str) else bytes(payload)
    if data.count(b"[") + data.count(b"{") <= MOST_LEVELS:
        return  # the common case: too few brackets to be too deep, nothing to scan
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(data):
        first = match.group()[0]
        if first in _OPENING:
            depth += 1
            if depth > MOST_LEVELS:
                raise TooDeep()
        elif first != ord('"'):
            depth -= 1


def loads(payload: str | bytes, **kwargs: Any) -> Any:
    """``json.loads`` of a body no deeper than ``MOST_LEVELS``; ``TooDeep`` else."""
    check_depth(payload)
    return json.loads(payload, **kwargs)
