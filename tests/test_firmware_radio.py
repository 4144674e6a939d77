"""The radio option's portable core (firmware/core/radio.c), built for the host and driven through
ctypes: a node's delivery (numbering, keeping, going back, backing off, OVF) and the hub's intake
(in order per node and boot, duplicates dropped, a restart seen, the node's clock mapped onto the
hub's).  The hub's lines are read with the station's own codec, so the two ends cannot drift."""

from __future__ import annotations

import ctypes
import re
import subprocess

import pytest

from station.devices import protocol as p

from .conftest import ROOT

LIB_PATH = ROOT / "firmware" / "build" / "libfwcore.so"
EV_SHOT, EV_TILT, EV_OVF = 1, 3, 5
PKT_EVENT, PKT_BEACON, PKT_POLL, PKT_ACKS = 1, 2, 3, 4
RING = 64


@pytest.fixture(scope="module")
def lib():
    lib = ctypes.CDLL(str(LIB_PATH))
    for name in ("fw_sizeof_hub", "fw_sizeof_radio_node", "fw_sizeof_radio_hub"):
        getattr(lib, name).restype = ctypes.c_uint16
    lib.fw_radio_node_init.argtypes = [ctypes.c_void_p, ctypes.c_uint8, ctypes.c_char_p, ctypes.c_uint8,
                                       ctypes.c_uint8, ctypes.c_uint16, ctypes.c_uint32]  # fmt: skip
    lib.fw_radio_node_push.argtypes = [ctypes.c_void_p] + [ctypes.c_uint8] * 3 + [ctypes.c_uint32] * 2
    lib.fw_radio_node_next.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p]
    lib.fw_radio_node_next.restype = ctypes.c_uint8
    lib.fw_radio_node_sent.argtypes = [ctypes.c_void_p, ctypes.c_uint8, ctypes.c_uint8, ctypes.c_uint32]
    lib.fw_radio_node_acks.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint8, ctypes.c_uint32]
    lib.fw_radio_node_pending.restype = ctypes.c_uint8
    lib.fw_radio_hub_packet.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint8,
                                        ctypes.c_uint32]  # fmt: skip
    lib.fw_radio_hub_acks.restype = ctypes.c_uint8
    lib.fw_radio_hub_next_line.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_char_p]
    lib.fw_radio_hub_next_line.restype = ctypes.c_uint8
    lib.fw_radio_hub_tick.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.fw_hub_tick.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    lib.fw_hub_next_line.restype = ctypes.c_uint8
    lib.fw_hub_rx_byte.argtypes = [ctypes.c_void_p, ctypes.c_uint8]
    return lib


class Air:
    """One radio hub core and its node cores, with the radio itself left out: each packet either
    reaches the hub or does not, and the hub's table comes back on its ACK."""

    def __init__(self, lib, nodes=(("RL1", 1, 0, 2),)):
        self.lib = lib
        self.hub = ctypes.create_string_buffer(lib.fw_sizeof_hub())
        self.radio = ctypes.create_string_buffer(lib.fw_sizeof_radio_hub())
        lib.fw_hub_init(self.hub, None, 0, b"test", 1)
        lib.fw_radio_hub_init(self.radio, self.hub)
        self.nodes = {}
        for name, nid, kind, barrels in nodes:
            node = ctypes.create_string_buffer(lib.fw_sizeof_radio_node())
            lib.fw_radio_node_init(node, nid, name.encode(), kind, barrels, 0x1D00 + nid, 0)
            self.nodes[name] = node
        self.lines: list[p.Message] = []

    def step(self, name, now, hub_now=None, lost=False, ack_lost=False):
        """The node's next packet, if it has one: to the hub (unless lost), then the ACK with the
        hub's table (unless lost).  Returns the packet's kind, or 0."""
        node, pkt, table = self.nodes[name], ctypes.create_string_buffer(32), ctypes.create_string_buffer(32)
        n = self.lib.fw_radio_node_next(node, now, pkt)
        if not n:
            return 0
        if lost:
            self.lib.fw_radio_node_sent(node, 0, 5, now)
            return pkt.raw[0]
        size = self.lib.fw_radio_hub_acks(self.radio, table)  # the ACK carries the table from before
        self.lib.fw_radio_hub_packet(self.radio, self.hub, pkt, n, now if hub_now is None else hub_now)
        if ack_lost:
            self.lib.fw_radio_node_sent(node, 0, 5, now)
        else:
            self.lib.fw_radio_node_acks(node, table, size, now)
            self.lib.fw_radio_node_sent(node, 1, 0, now)
        return pkt.raw[0]

    def drain(self):
        """The hub's lines so far, each event acknowledged as a station would, so its ring empties."""
        buf = ctypes.create_string_buffer(256)
        while n := self.lib.fw_hub_next_line(self.hub, buf):
            line = p.decode(buf.raw[:n])
            self.lines.append(line)
            if line.SEQUENCED:
                for byte in p.encode(p.Ack(1, line.seq)):
                    self.lib.fw_hub_rx_byte(self.hub, byte)
        return self.lines

    def events(self):
        return [m for m in self.drain() if m.SEQUENCED]

    def run(self, name, start, stop, every=1, **kw):
        for now in range(start, stop, every):
            self.step(name, now, **kw)


def _shots(events):
    return [(m.node, m.count) for m in events if isinstance(m, p.Shot)]


def test_a_node_is_introduced_by_its_beacon_before_its_events(lib):
    air = Air(lib)
    lib.fw_radio_node_push(air.nodes["RL1"], EV_SHOT, 1, 0, 1, 5)
    air.run("RL1", 10, 40, every=5)
    events = air.events()
    assert isinstance(events[0], p.Join) and events[0].node == "RL1" and events[0].boot == "1D01"
    assert _shots(events) == [("RL1", 1)]
    hello = [m for m in air.lines if isinstance(m, p.Hello)][-1]
    assert [n.encode() for n in hello.nodes] == ["RL1:launcher:2"]
    assert lib.fw_radio_node_pending(air.nodes["RL1"]) == 0  # the hub's table freed it


def test_a_lost_acknowledgement_is_a_duplicate_dropped_not_a_second_event(lib):
    air = Air(lib)
    air.step("RL1", 0)  # the beacon
    lib.fw_radio_node_push(air.nodes["RL1"], EV_SHOT, 1, 0, 1, 5)
    air.step("RL1", 10, ack_lost=True)  # the hub took it; the node never heard so
    air.run("RL1", 11, 200, every=5)  # go back after 60 ms: sent again
    assert _shots(air.events()) == [("RL1", 1)]
    status = ctypes.create_string_buffer(256)
    lib.fw_hub_tick(air.hub, 1000)
    lib.fw_radio_hub_tick(air.radio, air.hub)
    air.drain()
    n = lib.fw_radio_hub_next_line(air.radio, air.hub, 1000, status)
    radio = p.decode(status.raw[:n])
    assert isinstance(radio, p.RadioStatus) and radio.dups >= 1 and radio.taken == 1


def test_lost_packets_are_sent_again_in_order(lib):
    air = Air(lib)
    air.step("RL1", 0)
    node = air.nodes["RL1"]
    for count in range(1, 11):
        lib.fw_radio_node_push(node, EV_SHOT, 1, 0, count, count)
    for now in range(10, 3000, 3):  # every third packet lost on the way
        air.step("RL1", now, lost=now % 9 == 1)
    assert _shots(air.events()) == [("RL1", c) for c in range(1, 11)]


def test_a_full_ring_keeps_the_oldest_and_reports_what_it_lost(lib):
    air = Air(lib)
    node = air.nodes["RL1"]
    for count in range(1, RING + 11):  # out of range: 74 events made, none sent
        lib.fw_radio_node_push(node, EV_SHOT, 1, 0, count, count)
    assert lib.fw_radio_node_pending(node) == RING - 1
    for now in range(0, 20_000, 4):
        air.step("RL1", now)
        air.drain()
    events = air.events()
    assert _shots(events) == [("RL1", c) for c in range(1, RING)]
    overflow = [m for m in events if isinstance(m, p.Overflow)]
    assert [m.lost for m in overflow] == [11]  # nothing lost silently


def test_a_restart_is_a_new_boot_and_its_first_events_are_taken(lib):
    air = Air(lib)
    node = air.nodes["RL1"]
    air.step("RL1", 0)
    lib.fw_radio_node_push(node, EV_SHOT, 1, 0, 1, 5)
    air.run("RL1", 5, 100, every=5)
    lib.fw_radio_node_init(node, 1, b"RL1", 0, 2, 0x2E02, 200)  # reset: a new boot, events from 1 again
    lib.fw_radio_node_push(node, EV_SHOT, 1, 0, 2, 205)
    air.run("RL1", 200, 400, every=5)
    events = air.events()
    joins = [m.boot for m in events if isinstance(m, p.Join)]
    assert joins == ["1D01", "2E02"]
    assert _shots(events) == [("RL1", 1), ("RL1", 2)]
    assert events.index(next(m for m in events if isinstance(m, p.Join) and m.boot == "2E02")) < len(events) - 1


def test_a_table_entry_for_an_older_boot_does_not_free_the_new_boots_events(lib):
    air = Air(lib)
    node = air.nodes["RL1"]
    air.step("RL1", 0)
    for count in range(1, 4):
        lib.fw_radio_node_push(node, EV_SHOT, 1, 0, count, count)
    air.run("RL1", 5, 100, every=5)  # the hub has taken 3 of the old boot
    table = ctypes.create_string_buffer(32)
    size = lib.fw_radio_hub_acks(air.radio, table)
    lib.fw_radio_node_init(node, 1, b"RL1", 0, 2, 0x2E02, 200)
    lib.fw_radio_node_push(node, EV_SHOT, 1, 0, 4, 205)
    lib.fw_radio_node_acks(node, table, size, 210)  # "RL1: up to 3" of boot 1D01
    assert lib.fw_radio_node_pending(node) == 1


def _mapped_shots(air, lib, hub_clock, until_ms, every_ms=100):
    """The node fires every ``every_ms`` of its own clock; ``hub_clock(node_ms)`` is the hub's clock
    when a packet written at node_ms arrives.  Returns (node time, hub time it was mapped to)."""
    node, made = air.nodes["RL1"], {}
    count = 0
    for now in range(0, until_ms, 5):
        if now % every_ms == 0:
            count += 1
            made[count] = now
            lib.fw_radio_node_push(node, EV_SHOT, 1, 0, count, now)
        air.step("RL1", now, hub_now=hub_clock(now))
        air.drain()
    return [(made[m.count], m.t) for m in air.lines if isinstance(m, p.Shot)]


def test_the_nodes_clock_is_mapped_onto_the_hubs_by_its_quickest_packet(lib):
    air = Air(lib)
    offset = 50_000  # the hub has been on 50 s longer; packets take 2-6 ms to be read, one only 1 ms
    delays = [2, 6, 4, 3, 5]
    shots = _mapped_shots(air, lib, lambda now: offset + now + (1 if now == 400 else delays[now // 5 % 5]), 1000)
    assert len(shots) == 10
    assert dict(shots)[500] == 500 + offset + 1  # the quickest packet's offset, as soon as it is seen
    # never later than the quickest of the last quarter second or so (the drift allowance)
    assert all(node + offset + 1 <= hub <= node + offset + 3 for node, hub in shots)


@pytest.mark.parametrize("ppm", [-3000, 3000])
def test_a_node_whose_clock_drifts_is_followed(lib, ppm):
    """A ceramic resonator 0.3 % off, for two minutes: mapped times stay within a few ms."""
    air = Air(lib)
    shots = _mapped_shots(air, lib, lambda now: 9_000 + now + now * ppm // 1_000_000 + 2 + now // 5 % 3, 120_000, 1000)
    errors = [hub - (9_000 + node + node * ppm // 1_000_000) for node, hub in shots]
    assert len(errors) == 120 and max(abs(e) for e in errors) <= 6, errors


def test_the_hub_says_each_nodes_state_once_a_second(lib):
    air = Air(lib, (("RL1", 1, 0, 2), ("RT1", 4, 1, 0)))
    air.step("RL1", 0)
    air.step("RT1", 2)
    lib.fw_hub_tick(air.hub, 1000)
    lib.fw_radio_hub_tick(air.radio, air.hub)
    air.drain()
    buf, said = ctypes.create_string_buffer(256), []
    while n := lib.fw_radio_hub_next_line(air.radio, air.hub, 3500, buf):
        said.append(p.decode(buf.raw[:n]))
    assert [(m.node, m.age) for m in said] == [("RL1", 3500), ("RT1", 3498)]  # silent, to the station


IMAGE = re.compile(r"^(\S+\.elf)\s+flash\s+(\d+) / \d+ bytes, static RAM\s+(\d+) /", re.M)


def test_hardware_md_gives_the_images_sizes_the_build_makes():
    report = subprocess.run(["make", "-s", "-C", str(ROOT / "firmware"), "size"], capture_output=True, text=True,
                            check=True).stdout  # fmt: skip
    sizes = {m[1]: (int(m[2]), int(m[3])) for m in IMAGE.finditer(report)}
    assert {"hub.elf", "radio-hub.elf", "node-RL1.elf", "node-RT1.elf"} <= sizes.keys()
    manual = (ROOT / "hardware.md").read_text()
    for elf in ("hub.elf", "radio-hub.elf", "node-RL1.elf", "node-RT1.elf"):
        flash, ram = sizes[elf]
        assert f"| `{elf}` | {flash:,} | {ram:,} |" in manual, f"hardware.md's size of {elf}"


def test_a_radio_hub_that_has_heard_no_node_says_so_in_a_valid_hello(lib):
    air = Air(lib, ())
    hello = air.drain()[0]
    assert isinstance(hello, p.Hello) and hello.nodes == () and hello.fw == "test"
    body = p.encode(hello).split(b"*")[0].replace(b"fw=test", b"fw=")
    with pytest.raises(p.ProtocolError, match="fw is empty"):  # only the inventory may be empty
        p.decode(body + b"*%04X\n" % p.crc16(body))
