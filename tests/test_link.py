"""The hub link over a real pty with the simulated hub: faults, unplug and replug, and no event
lost or duplicated (docs/protocol.md "Delivery")."""

import contextlib
import os
import random
import threading
import time
import tty

import pytest

from station.devices import protocol as p
from station.devices.hubsim import SimulatedHub
from station.devices.link import HubLink, LineAssembler
from station.journal import Journal, read_records

from .conftest import wait_for


class Harness:
    def __init__(self, tmp_path, **hub_args):
        self.hub = SimulatedHub(tmp_path / "hub", heartbeat=0.2, **hub_args).start()
        self.journal = Journal(tmp_path / "game.jsonl")
        self.delivered = []
        self._lock = threading.Lock()
        self.link = HubLink(self.hub.path, self.journal, self._deliver, silence_timeout=1.0)
        self.link.start()
        wait_for(lambda: self.link.snapshot()["hub_boot"] is not None, what="HELLO")

    def _deliver(self, record):
        with self._lock:
            self.delivered.append(record)

    def events(self):
        with self._lock:
            return [p.decode(r["line"]) for r in self.delivered if r.get("verdict") == "event"]

    def close(self):
        self.link.stop()
        self.hub.stop()
        self.journal.close()


@pytest.fixture
def harness(tmp_path):
    h = Harness(tmp_path)
    yield h
    h.close()


def test_events_arrive_in_order_and_are_acknowledged(harness):
    for i in range(20):
        harness.hub.shot("L1", t=i)
    wait_for(lambda: len(harness.events()) == 20, what="20 events")
    assert [e.seq for e in harness.events()] == list(range(1, 21))
    wait_for(lambda: harness.hub.pending() == 0, what="all ACKed")


def test_a_flood_is_acknowledged_in_batches_and_the_last_event_still_is(harness):
    """An ACK per event costs a small hub its time parsing them (the stress build sustained 780
    events/s so, 1,000 with batched ACKs): at most one ACK per ACK_INTERVAL unless ACK_EVERY
    events wait, and the last ones are ACKed once the wire goes quiet."""
    from station.devices.link import ACK_EVERY

    for i in range(400):
        harness.hub.shot("L1", t=i)
        if i % 3 == 0:
            time.sleep(0.0005)  # many small reads, as a real flood arrives
    wait_for(lambda: len(harness.events()) == 400, what="400 events")
    wait_for(lambda: harness.hub.pending() == 0, what="the last event ACKed after the flood")
    acks = [r for r in read_records(harness.journal.path) if r["kind"] == "tx" and r["line"].startswith("ACK")]
    assert 400 / ACK_EVERY / 2 <= len(acks) <= 400 / ACK_EVERY * 2, len(acks)


def test_dropped_corrupted_and_duplicated_lines_lose_nothing_and_double_nothing(harness):
    hub, angle = harness.hub, iter(range(1000))
    expected = 0
    for fault, counter in (("duplicate", "duplicates"), ("corrupt", "checksum_errors"), ("drop", "out_of_order")):
        for i in range(10):
            if i % 3 == 1:
                hub.inject(fault)
            hub.tilt("T1", "fallen" if i % 2 else "upright", angle=next(angle), t=i)
        expected += 10
        wait_for(lambda want=expected: len(harness.events()) == want, what=f"{expected} events after {fault}s")
        assert harness.link.snapshot()[counter] >= 3, (fault, harness.link.snapshot())
    events = harness.events()
    assert [e.seq for e in events] == list(range(1, 31))
    assert [e.angle for e in events] == list(range(30))
    assert harness.link.snapshot()["resends_requested"] >= 1  # go-back-N: one NAK can cover a burst


def test_dropped_last_event_is_recovered_through_the_heartbeat(harness):
    harness.hub.inject("drop")
    harness.hub.impact("T1", t=5)
    wait_for(lambda: len(harness.events()) == 1, what="the lost tail event")


def test_unplug_and_replug_loses_and_duplicates_nothing(harness):
    hub = harness.hub
    for i in range(5):
        hub.shot("L1", t=i)
    wait_for(lambda: len(harness.events()) == 5, what="first 5")
    hub.unplug()
    wait_for(lambda: harness.link.snapshot()["state"] == "lost", what="link lost")
    for i in range(5, 12):  # happen while unplugged: kept in the hub's ring
        hub.shot("L1", t=i)
    hub.replug()
    wait_for(lambda: len(harness.events()) == 12, what="12 events after replug")
    assert [e.seq for e in harness.events()] == list(range(1, 13))
    assert [e.count for e in harness.events()] == list(range(1, 13))
    health = harness.link.snapshot()
    assert health["state"] == "connected" and health["reconnects"] >= 1
    kinds = [r["state"] for r in read_records(harness.journal.path) if r["kind"] == "link"]
    assert kinds[:3] == ["connected", "lost", "connected"]


def test_a_resend_after_reconnect_is_a_duplicate_not_a_new_event(harness):
    hub = harness.hub
    hub.shot("L1", t=1)
    wait_for(lambda: len(harness.events()) == 1)
    with hub._lock:  # the ACK was lost in the cable: the hub still holds event 1
        hub.ring[1] = p.encode(p.Shot(1, "L1", 1, "shell", 1, 1))
    hub.disconnect(0.2)
    wait_for(lambda: harness.link.snapshot()["duplicates"] >= 1, what="duplicate seen")
    hub.shot("L1", t=2)
    wait_for(lambda: len(harness.events()) == 2)
    assert [e.seq for e in harness.events()] == [1, 2]


def test_garbage_on_the_wire_is_counted_and_journaled_never_delivered(harness):
    import os

    os.write(
        harness.hub.port.master, b"\x00\xffnoise\r\nSHOT 1 node=L1*ZZZZ\n" + b"X" * (p.MAX_LINE_BYTES + 100) + b"\n"
    )
    harness.hub.shot("L1", t=1)
    wait_for(lambda: len(harness.events()) == 1)
    rejected = [
        r for r in read_records(harness.journal.path) if r["kind"] == "rx" and r["verdict"] not in ("event", "control")
    ]
    assert len(rejected) == 3
    assert {r["verdict"] for r in rejected} == {"syntax", "too_long"}
    assert all(r["verdict"] != "event" for r in harness.delivered if "noise" in r.get("line", ""))


def test_hub_reboot_restarts_sequence_numbers(tmp_path):
    h = Harness(tmp_path)
    try:
        h.hub.shot("L1", t=1)
        wait_for(lambda: len(h.events()) == 1)
        with h.hub._lock:
            h.hub.boot, h.hub.last_seq, h.hub.ring = "B007", 0, type(h.hub.ring)()
        h.hub.disconnect(0.1)
        wait_for(lambda: h.link.snapshot()["hub_boot"] == "B007", what="new boot")
        h.hub.shot("L1", t=2)
        wait_for(lambda: len(h.events()) == 2)
        assert [e.seq for e in h.events()] == [1, 1]
    finally:
        h.close()


def test_ring_overflow_is_reported_not_silent(tmp_path):
    hub = SimulatedHub(tmp_path / "hub", ring_size=4, heartbeat=0.2).start()
    try:
        for i in range(6):  # nobody is reading: the ring fills
            hub.shot("L1", t=i)
        assert hub.lost == 2
        journal = Journal(tmp_path / "g.jsonl")
        got = []
        link = HubLink(hub.path, journal, got.append)
        link.start()
        wait_for(lambda: hub.pending() == 0 and len([r for r in got if r.get("verdict") == "event"]) == 4)
        hub.shot("L1", t=9)
        wait_for(lambda: any(r.get("line", "").startswith("OVF") for r in got), what="OVF")
        assert link.snapshot()["overflows"] == 1
        link.stop()
        journal.close()
    finally:
        hub.stop()


def test_line_assembler_cuts_overlong_lines():
    assembler = LineAssembler(limit=10)
    assert assembler.feed(b"abc") == []
    assert assembler.feed(b"def\nghi") == [b"abcdef"]
    assert assembler.feed(b"x" * 30) == []
    assert assembler.feed(b"yy\nok\n") == [b"ghi" + b"x" * 7, b"ok"]


def test_a_port_that_never_opened_reports_connecting_with_the_reason(tmp_path):
    journal = Journal(tmp_path / "g.jsonl")
    link = HubLink(str(tmp_path / "no-such-port"), journal, lambda r: None, backoff=(0.01,))
    link.start()
    try:
        wait_for(lambda: link.snapshot()["last_error"] is not None)
        time.sleep(0.05)
        health = link.snapshot()
        assert health["state"] == "connecting" and "no-such-port" in health["last_error"]
    finally:
        link.stop()
        journal.close()


def test_the_next_game_on_a_hub_that_stayed_on_takes_its_events(harness, tmp_path):
    """A hub powered through two games (or the lobby between them) has issued and had ACKed
    events the new journal never saw: the new link starts at the hub's oldest unacknowledged
    event, which its heartbeat tells, instead of asking for event 1 forever."""
    for i in range(3):
        harness.hub.shot("L1", t=i)
    wait_for(lambda: harness.hub.pending() == 0, what="the first game's events ACKed")
    harness.link.stop()
    harness.hub.shot("L2", t=10)  # fired while no station listened: it waits in the ring
    second = Journal(tmp_path / "second.jsonl")
    delivered = []
    link = HubLink(harness.hub.path, second, delivered.append, silence_timeout=1.0)
    link.start()
    try:
        harness.hub.shot("L1", t=11)
        wait_for(lambda: sum(r.get("verdict") == "event" for r in delivered) == 2, what="the second game's events")
        assert [p.decode(r["line"]).seq for r in delivered if r.get("verdict") == "event"] == [4, 5]
        wait_for(lambda: harness.hub.pending() == 0, what="ACKed")
    finally:
        link.stop()
        second.close()


@contextlib.contextmanager
def _device_sending(chunks, tmp_path, delay=0.0):
    """A pty whose far end writes ``chunks`` (bytes) after ``delay``: a device the link reads, at
    the path yielded; closed afterwards."""
    master, slave = os.openpty()
    tty.setraw(slave)
    path = tmp_path / "device"
    path.symlink_to(os.ttyname(slave))

    def write():
        time.sleep(delay)
        for chunk in chunks:
            os.write(master, chunk)
            time.sleep(0.01)

    threading.Thread(target=write, daemon=True).start()
    journal = Journal(tmp_path / "game.jsonl")
    link = HubLink(str(path), journal, lambda record: None)
    link.start()
    try:
        yield link
    finally:
        link.stop()
        journal.close()
        os.close(master)
        os.close(slave)


def test_a_hub_at_another_rate_is_named_not_counted_as_checksum_errors(tmp_path):
    """Bytes that never make a line are a wrong baud rate (or no hub): the link says which rates
    to try, instead of a stream of checksum errors."""
    noise = random.Random(3)
    chunks = [bytes(noise.randrange(0x80, 0x100) for _ in range(64)) for _ in range(20)]
    with _device_sending(chunks, tmp_path) as link:
        wait_for(lambda: link.snapshot()["state"] == "wrong baud", what="the wrong rate named")
        health = link.snapshot()
        assert "no hub at 1000000 baud" in health["last_error"] and "try --baud 500000" in health["last_error"]


def test_the_tail_of_a_line_begun_before_the_port_opened_is_not_a_fault(tmp_path):
    """Opening a port drops what it had received: a line the hub was in the middle of arrives
    without its head.  It is journaled as partial, not counted as a checksum error."""
    hello = p.encode(p.Hello(0, "bronehub/1.1", 1, "51A1", (p.Node("L1", "launcher", 2),), 1_000_000))
    with _device_sending([hello[9:], hello], tmp_path, delay=0.5) as link:  # the head cut, then whole
        wait_for(lambda: link.snapshot()["hub_boot"] == "51A1", what="the whole HELLO")
        health = link.snapshot()
        assert health["checksum_errors"] == 0 and health["syntax_errors"] == 0 and health["hub_baud"] == 1_000_000
    assert [r["verdict"] for r in read_records(tmp_path / "game.jsonl") if r["kind"] == "rx"][0] == "partial"
