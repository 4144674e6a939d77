"""The disk fills up under the journal in the middle of a game (issue 9), on a real, small tmpfs:
the half-written line is cut off, inputs are refused with a 503 that says why, hub events wait in
the hub's ring, the dashboard shows it, and once there is room again everything arrives, once."""

import pytest

from station.journal import Journal, JournalFull, read_records

from ..conftest import REFEREE, fill
from ..test_link import wait_for
from .rig import Rig, script

STEPS = script(24)
RESERVE = 64 * 1024


def test_a_full_disk_cuts_off_the_torn_line_and_gives_up_the_reserve(small_disk):
    journal = Journal(small_disk / "j.jsonl", reserve_bytes=RESERVE)
    journal.append("game", durable=True, game="x")
    filler = fill(small_disk)
    record = journal.append("input", durable=True, note="x" * 9000)  # needs new pages: lands on the reserve
    assert journal.health()["state"] == "full" and not journal.accepting()
    with pytest.raises(JournalFull, match="j.jsonl"):
        journal.append("input", note="y" * (RESERVE * 2))
    assert [r["seq"] for r in read_records(journal.path)] == [1, 2] and record["seq"] == 2
    filler.unlink()
    wait_for(journal.accepting, what="the reserve to be taken back")
    assert journal.append("input", durable=True)["seq"] == 3 and journal.health()["state"] == "ok"
    journal.close()
    assert [r["seq"] for r in read_records(journal.path)] == [1, 2, 3]


def test_disk_fills_under_a_running_game(tmp_path, small_disk, armies):
    rig = Rig(tmp_path, armies, journal=small_disk / "game.jsonl", journal_reserve=RESERVE)
    try:
        rig.play(STEPS[:8])
        rig.settle(STEPS[:8])
        filler = fill(small_disk)
        rig.play(STEPS[8:16])
        wait_for(lambda: rig.health()["journal"]["state"] == "full", what="the dashboard to show the journal full")
        wait_for(lambda: rig.health()["held"] >= 1 and rig.hub.pending() >= 1, what="events held in the hub")
        assert "journal not writable" in rig.health()["last_error"]
        refused = rig.client.post("/api/input", json={"type": "end_activation", "args": {}}, headers=REFEREE)
        assert refused.status_code == 503 and "not recorded" in refused.get_json()["error"]
        page = rig.client.get("/")
        assert b'id="journal-alert"' in page.data
        filler.unlink()  # the referee frees space
        rig.play(STEPS[16:])
        rig.settle(STEPS, timeout=30)
        rig.check(STEPS)
        health = rig.health()
        assert health["journal"]["state"] == "ok" and health["journal"]["write_failures"] >= 1
        assert health["state"] == "connected"
        # Recovered: the error is history, with its time, and no longer the current one.
        assert health["last_error"] is None and "journal not writable" in health["resolved_error"]
        assert health["resolved_at"]
    finally:
        rig.close()
    records = read_records(rig.path)  # the whole file reads: no torn or half line anywhere
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
