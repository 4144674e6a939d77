"""The cyclic collector paused while a journal is read and folded, and always switched back."""

import gc

import pytest

from station.fold import fold
from station.gcpause import without_cycle_collection
from station.journal import JournalError, read_records

from .conftest import ROOT

SESSIONS = ROOT / "tests" / "data" / "sessions"


def test_the_collector_comes_back_on_after_the_block_even_when_it_fails():
    assert gc.isenabled()
    with without_cycle_collection():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), without_cycle_collection():
        raise RuntimeError("a bad record")
    assert gc.isenabled()


def test_a_collector_switched_off_before_stays_off():
    gc.disable()
    try:
        with without_cycle_collection():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_fold_that_meets_a_damaged_record_leaves_the_collector_on():
    header = read_records(SESSIONS / "quick.jsonl")[0]
    records = [header, {"seq": 2, "kind": "rx", "verdict": "event", "line": "SHOT 2 node=L1*0000"}]
    with pytest.raises(JournalError, match="record 2: line marked valid does not decode"):
        fold(records)
    assert gc.isenabled()
