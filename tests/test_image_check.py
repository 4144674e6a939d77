"""The image's power-cut bench (image/check.py) judges a journal rightly, so its count means
something: every acknowledged table die must be there, in order; a die journaled as the plug was
pulled, whose answer never left, is no loss; and a torn tail after the last whole line is
counted, not taken for a record.  The emulated boots themselves are `make image-powercut`'s."""

import importlib.util
import shutil
import sys

import pytest

from station.journal import Journal
from station.records import Kind
from tests.conftest import ROOT

spec = importlib.util.spec_from_file_location("image_check", ROOT / "image" / "check.py")
check = sys.modules.setdefault("image_check", importlib.util.module_from_spec(spec))
spec.loader.exec_module(check)


def die(k: int) -> list[int]:
    """The bench's k-th table entry: three D20s numbered by k."""
    return [k // 400 + 1, (k // 20) % 20 + 1, k % 20 + 1]


class Station:
    """The station's journal download, as the bench fetches it after a boot."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def fetch(self, path: str) -> bytes:
        assert path == "/api/games/game.jsonl/journal"
        return self.data


def _journal(tmp_path, entered: list[int], tail: bytes = b"") -> bytes:
    """A real game's journal (the recorded demo) with the bench's dice ``entered``, then ``tail``."""
    path = tmp_path / "played.jsonl"
    shutil.copy(ROOT / "tests" / "data" / "sessions" / "demo.jsonl", path)
    journal = Journal(path, group_window=0.0)
    for k in entered:
        journal.append(Kind.DICE_ENTRY, durable=True, sides=20, values=die(k), by="power-cut bench")
    journal.close()
    return path.read_bytes() + tail


def _judge(tmp_path, data: bytes, acknowledged: list[int]):
    return check.check_journal(Station(data), "game.jsonl", [die(k) for k in acknowledged], tmp_path)


def test_a_die_journaled_as_the_plug_was_pulled_is_no_loss_and_a_torn_tail_is_counted(tmp_path):
    # die 3 reached the journal, then the plug: no answer, so the referee entered it again
    data = _journal(tmp_path, [0, 1, 2, 3, 3, 4], tail=b"\0" * 158)
    records, unanswered, torn = _judge(tmp_path, data, [0, 1, 2, 3, 4])
    demo = len((ROOT / "tests" / "data" / "sessions" / "demo.jsonl").read_bytes().splitlines())
    assert (unanswered, torn, records) == (1, 158, demo + 6)


def test_an_acknowledged_die_missing_after_the_boot_is_a_loss(tmp_path):
    data = _journal(tmp_path, [0, 1, 3])
    with pytest.raises(check.Lost, match=r"1 acknowledged table dice are not in game.jsonl, the first \[1, 1, 3\]"):
        _judge(tmp_path, data, [0, 1, 2, 3])


def test_acknowledged_dice_out_of_order_are_a_loss(tmp_path):
    data = _journal(tmp_path, [0, 2, 1])
    with pytest.raises(check.Lost, match="out of order"):
        _judge(tmp_path, data, [0, 1, 2])


def test_a_journal_that_does_not_replay_is_not_counted_as_held(tmp_path):
    data = _journal(tmp_path, [0])
    broken = data.replace(b'"kind":"game"', b'"kind":"gaem"', 1)
    with pytest.raises(Exception):  # noqa: B017, PT011 - the station's own fold or reader refuses it, as it would at a resume
        _judge(tmp_path, broken, [0])
