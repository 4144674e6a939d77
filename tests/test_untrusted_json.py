"""Bodies from anyone are read without deep recursion (a 5,000-level health message once made the
tournament's reader run out of stack inside a garbage collection: 'exception ignored' reports)."""

from __future__ import annotations

import inspect
import json
import sys

import pytest

from station import untrusted_json
from station.tournament.messages import Rejected, check
from station.untrusted_json import MOST_LEVELS, TooDeep


def nested(levels: int, inner: str = "1") -> str:
    return '{"a": ' * levels + inner + "}" * levels


def test_as_deep_as_allowed_reads_one_more_is_refused():
    assert untrusted_json.loads(nested(MOST_LEVELS)) == json.loads(nested(MOST_LEVELS))
    with pytest.raises(TooDeep, match=f"more than {MOST_LEVELS} levels"):
        untrusted_json.loads(nested(MOST_LEVELS + 1))
    with pytest.raises(TooDeep):
        untrusted_json.loads(b"[" * (MOST_LEVELS + 1) + b"]" * (MOST_LEVELS + 1))


def test_brackets_inside_text_are_not_nesting():
    text = json.dumps({"note": "[" * 500 + '\\" {{{ "' + "{" * 500, "list": [["x"]]})
    assert untrusted_json.loads(text)["list"] == [["x"]]
    assert untrusted_json.loads(text.encode())["note"].startswith("[[[")
    sibling_lists = "[" + ",".join(["[[1]]"] * 500) + "]"  # many brackets, shallow
    assert len(untrusted_json.loads(sibling_lists)) == 500


def test_a_deep_body_never_takes_the_reader_deep():
    """Under a recursion limit only a little above MOST_LEVELS, a 5,000-level body is refused by
    name: the plain reader would have run into the limit (RecursionError) on the way down."""
    here = len(inspect.stack(0))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(here + MOST_LEVELS + 60)
    try:
        with pytest.raises(RecursionError):
            json.loads("[" * 5000 + "]" * 5000)
        with pytest.raises(TooDeep):
            untrusted_json.loads("[" * 5000 + "]" * 5000)
    finally:
        sys.setrecursionlimit(limit)


def test_the_tournament_sets_a_deep_message_aside_by_name():
    with pytest.raises(Rejected, match="levels deep: too deep to read"):
        check("station/t1/health", nested(MOST_LEVELS + 1).encode())
    assert check("station/t1/health", nested(3).encode()).body == {"a": {"a": {"a": 1}}}
