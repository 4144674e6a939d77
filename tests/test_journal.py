"""Journal crash safety: torn tails are dropped, nothing before them is lost."""

import json
import threading

import pytest

from station.clock import FakeClock
from station.journal import Journal, JournalError, read_records


def _write(path, n):
    with Journal(path, clock=FakeClock()) as journal:
        for i in range(n):
            journal.append("input", durable=True, type="begin_round", args={"i": i})


def test_records_are_stamped_and_numbered(tmp_path):
    clock = FakeClock(start=5.0)
    with Journal(tmp_path / "g.jsonl", clock=clock) as journal:
        first = journal.append("input", type="x")
        clock.advance(1.5)
        second = journal.append("input", type="y", durable=True)
    assert (first["seq"], second["seq"]) == (1, 2)
    assert second["mono"] - first["mono"] == pytest.approx(1.5)
    assert second["wall"].startswith("2026-01-01T00:00:06.500")
    assert [r["type"] for r in read_records(tmp_path / "g.jsonl")] == ["x", "y"]


@pytest.mark.parametrize(
    "tail",
    [
        b'{"seq": 11, "kind": "in',
        b'{"seq',
        b"\x00\x00\x00",
        b'{"seq":11,"kind":"rx","li\x00\x00\n',
        b"\x00" * 4096 + b"\n",
    ],
)
def test_torn_tail_is_dropped_and_nothing_before_it(tmp_path, tail):
    path = tmp_path / "g.jsonl"
    _write(path, 10)
    intact = path.read_bytes()
    with open(path, "ab") as f:
        f.write(tail)
    journal = Journal(path, clock=FakeClock())
    assert journal.recovery.records == 10
    assert journal.recovery.torn_bytes == len(tail)
    record = journal.append("input", durable=True, type="after-crash")
    journal.close()
    assert record["seq"] == 11
    assert path.read_bytes().startswith(intact)
    assert [r["seq"] for r in read_records(path)] == list(range(1, 12))


@pytest.mark.parametrize("content", [b"just some notes", b"just some notes\n", b'{"format": "army"}\n'])
def test_a_file_that_is_not_a_journal_is_refused_and_left_untouched(tmp_path, content):
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    with pytest.raises(JournalError):
        Journal(path)
    assert path.read_bytes() == content


def test_damage_in_the_middle_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "g.jsonl"
    _write(path, 5)
    lines = path.read_bytes().split(b"\n")
    lines[2] = b"not json"
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match="line 3"):
        Journal(path)


def test_a_gap_in_sequence_numbers_is_an_error(tmp_path):
    path = tmp_path / "g.jsonl"
    _write(path, 3)
    lines = path.read_text().splitlines()
    del lines[1]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(JournalError, match="expected 2"):
        read_records(path)


def test_durable_appends_from_many_threads_are_all_kept_in_order(tmp_path):
    path = tmp_path / "g.jsonl"
    journal = Journal(path, group_window=0.001)

    def writer(k):
        for i in range(50):
            journal.append("rx", durable=True, line=f"{k}-{i}")

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    journal.close()
    records = read_records(path)
    assert [r["seq"] for r in records] == list(range(1, 201))
    for k in range(4):
        assert [r["line"] for r in records if r["line"].startswith(f"{k}-")] == [f"{k}-{i}" for i in range(50)]
    assert all(json.loads(line) for line in path.read_text().splitlines())


def test_group_window_is_bounded_by_50_ms(tmp_path):
    with pytest.raises(ValueError):
        Journal(tmp_path / "g.jsonl", group_window=0.2)


def test_records_are_read_back_by_seq_from_the_file(tmp_path):
    """A long game keeps its records on disk: any seq is found by a binary search over the file."""
    journal = Journal(tmp_path / "g.jsonl")
    for i in range(3000):
        journal.append("rx" if i % 3 else "tx", line="x" * (i % 200), n=i)
    assert journal.read(1)["n"] == 0 and journal.read(2999)["n"] == 2998 and journal.read(3001) is None
    assert [r["seq"] for r in journal.read_since(1500, 4)] == [1501, 1502, 1503, 1504]
    assert [r["seq"] for r in journal.read_since(0, 3, keep=lambda r: r["kind"] == "tx")] == [1, 4, 7]
    assert journal.read_since(3000) == [] and len(journal.records) == 3000
    journal.close()
