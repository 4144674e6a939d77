"""The firmware's portable C core, built for the host (firmware/build/libfwcore.so) and driven
through ctypes.  Its protocol lines are checked with the station's own codec, so the two ends
cannot drift apart."""

import ctypes
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from station.devices import protocol as p

from .conftest import ROOT

LIB_PATH = ROOT / "firmware" / "build" / "libfwcore.so"
EV_SHOT, EV_DRY, EV_TILT, EV_IMPACT, EV_OVF = 1, 2, 3, 4, 5
RING_SIZE = 64


@pytest.fixture(scope="module")
def lib():
    assert LIB_PATH.exists(), "build it with `make firmware` (make test does)"
    lib = ctypes.CDLL(str(LIB_PATH))
    lib.fw_crc16.restype = ctypes.c_uint16
    lib.fw_crc16.argtypes = [ctypes.c_char_p, ctypes.c_uint16]
    for name in ("fw_sizeof_hub", "fw_sizeof_barrel", "fw_sizeof_tilt"):
        getattr(lib, name).restype = ctypes.c_uint16
    lib.fw_hub_push_event.argtypes = [ctypes.c_void_p] + [ctypes.c_uint8] * 4 + [ctypes.c_uint32] * 2
    lib.fw_hub_push_event.restype = ctypes.c_uint8
    lib.fw_hub_next_line.restype = ctypes.c_uint8
    lib.fw_hub_tick.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    lib.fw_hub_set_time.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint16]
    lib.fw_hub_set_id.argtypes = [ctypes.c_void_p, ctypes.c_uint16]
    lib.fw_hub_new_id.argtypes = [ctypes.c_uint16]
    lib.fw_hub_new_id.restype = ctypes.c_uint16
    lib.fw_shot_value.restype = ctypes.c_uint32
    lib.fw_shot_value.argtypes = [ctypes.c_uint32, ctypes.c_uint32]
    lib.fw_tilt_angle.restype = ctypes.c_uint8
    lib.fw_tilt_angle.argtypes = [ctypes.c_int32] * 3
    lib.fw_barrel_update.argtypes = [
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_uint8,
        ctypes.c_uint8,
        ctypes.c_uint8,
        ctypes.c_uint32,
        ctypes.c_uint32,
        ctypes.c_void_p,
    ]
    lib.fw_tilt_update.argtypes = [
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_int16),
        ctypes.c_uint32,
        ctypes.POINTER(ctypes.c_uint8),
        ctypes.POINTER(ctypes.c_uint8),
        ctypes.POINTER(ctypes.c_uint16),
    ]
    return lib


# ---- CRC --------------------------------------------------------------------------------------


def test_crc16_check_value(lib):
    assert lib.fw_crc16(b"123456789", 9) == 0x29B1


@given(st.binary(max_size=120))
def test_crc16_matches_the_station(lib, data):
    assert lib.fw_crc16(data, len(data)) == p.crc16(data)


# ---- the hub ------------------------------------------------------------------------------------


class NodeT(ctypes.Structure):
    _fields_ = [("id", ctypes.c_char * 8), ("kind", ctypes.c_uint8), ("barrels", ctypes.c_uint8)]


class Hub:
    """A hub core with the default board's node table."""

    def __init__(self, lib, boot=0x1A2B):
        self.lib = lib
        self.nodes = (NodeT * 4)(NodeT(b"L1", 0, 2), NodeT(b"L2", 0, 1), NodeT(b"T1", 1, 0), NodeT(b"T2", 1, 0))
        self.state = ctypes.create_string_buffer(lib.fw_sizeof_hub())
        self.name = ctypes.c_char_p(b"testhub/1.0")
        lib.fw_hub_init(self.state, self.nodes, 4, self.name, ctypes.c_uint16(boot))
        self.tx_seq = 0
        self.boot_lines = self.lines()  # what a power-up says unasked

    def push(self, type_, node=0, barrel=1, code=0, value=0, t=0):
        return self.lib.fw_hub_push_event(self.state, type_, node, barrel, code, value, t)

    def lines(self):
        out, buf = [], ctypes.create_string_buffer(200)
        while n := self.lib.fw_hub_next_line(self.state, buf):
            assert n <= 128
            out.append(p.decode(buf.raw[:n]))
        return out

    def send(self, message):
        self.tx_seq += 1
        for byte in p.encode(type(message)(self.tx_seq, *message.fields().values())):
            self.lib.fw_hub_rx_byte(self.state, byte)

    def tick(self, ms):
        self.lib.fw_hub_tick(self.state, ms)


def test_hub_lines_decode_with_the_station_codec(lib):
    hub = Hub(lib)
    hub.push(EV_SHOT, node=0, barrel=2, code=2, value=lib.fw_shot_value(7, 9140), t=1234)
    hub.push(EV_DRY, node=1, barrel=1, t=1500)
    hub.push(EV_TILT, node=2, code=2, value=84, t=1700)
    hub.push(EV_IMPACT, node=3, value=65, t=1800)
    lines = hub.lines()
    assert lines == [
        p.Shot(1, "L1", 2, "rocket", 7, 1234),
        p.DryFire(2, "L2", 1, 1500),
        p.Tilt(3, "T1", "fallen", 84, 1700),
        p.Impact(4, "T2", 6.5, 1800),
    ]


def test_every_power_up_introduces_itself_so_a_reset_mid_game_is_noticed(lib):
    """docs/protocol.md "Delivery": a HELLO with a new boot id tells the station SEQ restarts at 1."""
    assert [(type(m).__name__, m.seq, m.boot) for m in Hub(lib, boot=0x0BEE).boot_lines] == [("Hello", 0, "0BEE")]


def test_shot_lines_carry_the_gate_time_for_calibration(lib):
    hub = Hub(lib)
    hub.push(EV_SHOT, barrel=1, code=0, value=lib.fw_shot_value(123456, 4260), t=9)
    buf = ctypes.create_string_buffer(200)
    n = lib.fw_hub_next_line(hub.state, buf)
    line = buf.raw[:n]
    assert b" count=123456 t=9 gate=4.3*" in line and p.decode(line).count == 123456


def test_sync_gets_hello_with_inventory_and_a_resend(lib):
    hub = Hub(lib)
    hub.push(EV_SHOT, value=1, t=10)
    assert len(hub.lines()) == 1
    hub.send(p.Sync(0, 1))
    hello, resent = hub.lines()
    assert hello == p.Hello(
        1,
        "testhub/1.0",
        1,
        "1A2B",
        (p.Node("L1", "launcher", 2), p.Node("L2", "launcher", 1), p.Node("T1", "tilt"), p.Node("T2", "tilt")),
    )
    assert resent.seq == 1


def test_ack_frees_and_nak_goes_back(lib):
    hub = Hub(lib)
    for i in range(5):
        hub.push(EV_SHOT, value=i + 1, t=i)
    assert [m.seq for m in hub.lines()] == [1, 2, 3, 4, 5]
    hub.send(p.Ack(0, 2))
    hub.send(p.Nak(0, 4))
    assert [m.seq for m in hub.lines()] == [4, 5]
    hub.send(p.Nak(0, 1))  # already ACKed: resend from the oldest held
    assert [m.seq for m in hub.lines()] == [3, 4, 5]
    hub.send(p.Sync(0, 1))
    assert [m.seq for m in hub.lines()][1:] == [3, 4, 5]


def test_corrupt_station_lines_are_ignored(lib):
    hub = Hub(lib)
    hub.push(EV_SHOT, value=1)
    hub.lines()
    line = bytearray(p.encode(p.Ack(1, 1)))
    line[5] ^= 1
    for byte in bytes(line) + b"garbage without newline" * 3 + b"\n":
        lib.fw_hub_rx_byte(hub.state, byte)
    hub.send(p.Sync(0, 1))
    assert [m.seq for m in hub.lines()][1:] == [1]  # not ACKed by the corrupt line


def test_heartbeat_every_second_reports_pending(lib):
    hub = Hub(lib)
    hub.tick(999)
    assert hub.lines() == []
    hub.push(EV_TILT, node=2, code=1, value=30, t=999)
    hub.tick(1000)
    assert hub.lines()[-1] == p.Heartbeat(1, 1000, 1)


def test_full_ring_loses_nothing_silently(lib):
    hub = Hub(lib)
    stored = [hub.push(EV_SHOT, value=i + 1, t=i) for i in range(RING_SIZE + 3)]
    assert stored.count(1) == RING_SIZE and stored.count(0) == 3
    assert len(hub.lines()) == RING_SIZE
    hub.send(p.Ack(0, 10))
    hub.tick(5000)
    messages = hub.lines()
    assert isinstance(messages[0], p.Overflow) and messages[0].lost == 3 and messages[0].seq == RING_SIZE + 1


# ---- launcher barrel ---------------------------------------------------------------------------


class BarrelOut(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_uint8),
        ("charge", ctypes.c_uint8),
        ("count", ctypes.c_uint32),
        ("t_ms", ctypes.c_uint32),
        ("block_us", ctypes.c_uint32),
    ]


class Barrel:
    def __init__(self, lib, count=0):
        self.lib, self.state = lib, ctypes.create_string_buffer(lib.fw_sizeof_barrel())
        self.cfg = ctypes.addressof(ctypes.c_uint8.in_dll(lib, "FW_LAUNCHER_DEFAULTS"))
        lib.fw_barrel_init(self.state, ctypes.c_uint32(count))
        self.trigger = self.gate = 0
        self.events = []

    def run(self, until_us, breech=0xFF):
        """Advance time in 50 us steps (a main-loop pass) to ``until_us``."""
        while self.now_us < until_us:
            self.now_us += 50
            out = BarrelOut()
            kind = self.lib.fw_barrel_update(
                self.state,
                self.cfg,
                self.trigger,
                self.gate,
                breech,
                self.now_us // 1000,
                self.now_us,
                ctypes.byref(out),
            )
            if kind:
                self.events.append((kind, out.charge, out.count, out.t_ms, out.block_us))

    now_us = 0


def _fire(barrel, press_ms, block_ms, gate_after_ms=20, breech=0xFF):
    start = barrel.now_us
    barrel.trigger = 1
    barrel.run(start + gate_after_ms * 1000, breech)
    barrel.gate = 1
    barrel.run(start + gate_after_ms * 1000 + int(block_ms * 1000), breech)
    barrel.gate = 0
    barrel.run(start + press_ms * 1000, breech)
    barrel.trigger = 0
    barrel.run(start + 600_000, breech)


@pytest.mark.parametrize("block_ms, charge", [(3.0, 0), (4.9, 0), (5.2, 1), (7.0, 1), (7.6, 2), (12.0, 2)])
def test_gate_time_gives_the_charge(lib, block_ms, charge):
    """hardware.md "Charge detection": under 5 ms shell, 5 to 7.5 ms bomb, from 7.5 ms rocket."""
    barrel = Barrel(lib)
    _fire(barrel, press_ms=40, block_ms=block_ms)
    assert [(e[0], e[1], e[2]) for e in barrel.events] == [(1, charge, 1)]
    assert abs(barrel.events[0][4] - block_ms * 1000) <= 100


def test_breech_switch_overrides_gate_timing(lib):
    barrel = Barrel(lib)
    _fire(barrel, press_ms=40, block_ms=3.0, breech=2)
    assert barrel.events[0][1] == 2


def test_counter_only_increases_from_its_saved_value(lib):
    barrel = Barrel(lib, count=41)
    for _ in range(3):
        _fire(barrel, press_ms=40, block_ms=4)
    assert [e[2] for e in barrel.events] == [42, 43, 44]


def test_press_without_projectile_is_a_dry_fire(lib):
    barrel = Barrel(lib)
    barrel.trigger = 1
    barrel.run(30_000)
    barrel.trigger = 0
    barrel.run(1_000_000)
    assert [e[0] for e in barrel.events] == [2]


def test_bouncing_trigger_and_gate_flicker_are_not_shots(lib):
    barrel = Barrel(lib)
    for i in range(6):  # 1 ms bounces, shorter than the 5 ms debounce
        barrel.trigger = i % 2
        barrel.run(barrel.now_us + 1000)
    barrel.trigger = 0
    barrel.gate = 1
    barrel.run(barrel.now_us + 300)  # a 300 us flicker
    barrel.gate = 0
    barrel.run(barrel.now_us + 1_000_000)
    assert barrel.events == []


def test_jammed_projectile_is_a_dry_fire_not_a_shot(lib):
    barrel = Barrel(lib)
    barrel.trigger = 1
    barrel.run(20_000)
    barrel.gate = 1
    barrel.run(400_000)
    assert [e[0] for e in barrel.events] == [2]


# ---- tilt node -----------------------------------------------------------------------------------


@given(st.floats(0, 180), st.floats(0, 360))
@settings(max_examples=300)
def test_tilt_angle_within_a_degree(lib, theta, phi):
    t, f = math.radians(theta), math.radians(phi)
    x, y, z = (round(1000 * v) for v in (math.sin(t) * math.cos(f), math.sin(t) * math.sin(f), math.cos(t)))
    expected = math.degrees(math.acos(max(-1, min(1, z / math.sqrt(x * x + y * y + z * z)))))
    assert abs(lib.fw_tilt_angle(x, y, z) - expected) <= 1.0


class Tilt:
    def __init__(self, lib):
        self.lib, self.state = lib, ctypes.create_string_buffer(lib.fw_sizeof_tilt())
        self.cfg = ctypes.addressof(ctypes.c_uint8.in_dll(lib, "FW_TILT_DEFAULTS"))
        lib.fw_tilt_init(self.state)
        self.now = 0
        self.reports = []

    def hold(self, degrees, ms, g=1.0):
        t = math.radians(degrees)
        raw = (ctypes.c_int16 * 3)(*(round(512 + 102 * g * v) for v in (math.sin(t), 0.0, math.cos(t))))
        for _ in range(0, ms, 5):  # sampled every 5 ms, as on the board
            self.now += 5
            state, angle, g10 = ctypes.c_uint8(), ctypes.c_uint8(), ctypes.c_uint16()
            what = self.lib.fw_tilt_update(
                self.state, self.cfg, raw, self.now, ctypes.byref(state), ctypes.byref(angle), ctypes.byref(g10)
            )
            if what & 1:
                self.reports.append(("tilt", state.value, angle.value))
            if what & 2:
                self.reports.append(("impact", g10.value))


FIRST = 4  # or'ed into the state of a node's first report (FW_TILT_FIRST)


def test_tilt_states_at_the_documented_thresholds(lib):
    """hardware.md "Tilt thresholds": under 20 upright, 20-60 leaning, 60 and over fallen."""
    tilt = Tilt(lib)
    tilt.hold(15, 1000)
    tilt.hold(35, 1000)
    tilt.hold(75, 1000)
    tilt.hold(5, 1000)
    assert [(r[1], r[2]) for r in tilt.reports] == [(0 | FIRST, 15), (1, 35), (2, 75), (0, 5)]


@pytest.mark.parametrize("degrees, state", [(0, 0), (35, 1), (85, 2)])
def test_a_node_reports_how_it_lies_once_settled_after_it_starts(lib, degrees, state):
    """bronehub/1.3: whatever the posture at power-up, the first settled one is reported, marked
    first (a model stood up while its node was off was believed lying); only once."""
    tilt = Tilt(lib)
    tilt.hold(degrees, 295)
    assert tilt.reports == []  # not settled yet
    tilt.hold(degrees, 2000)
    assert tilt.reports == [("tilt", state | FIRST, degrees)]


def test_tilt_hysteresis_and_settle_time(lib):
    tilt = Tilt(lib)
    tilt.hold(25, 1000)  # leaning
    tilt.hold(17, 1000)  # under 20 but not under 15: still leaning
    assert [r[1] for r in tilt.reports] == [1 | FIRST]
    tilt.hold(70, 200)  # a wobble shorter than the 300 ms settle time
    tilt.hold(25, 1000)
    assert [r[1] for r in tilt.reports] == [1 | FIRST]
    tilt.hold(12, 1000)
    assert [r[1] for r in tilt.reports] == [1 | FIRST, 0]


def test_impact_reports_its_peak_and_a_standing_model_stays_upright(lib):
    tilt = Tilt(lib)
    tilt.hold(0, 400)
    assert tilt.reports == [("tilt", FIRST, 0)]  # how it stood at power-up
    tilt.hold(3, 10, g=2.6)
    tilt.hold(2, 10, g=3.1)
    tilt.hold(0, 500)
    assert tilt.reports == [("tilt", FIRST, 0), ("impact", 31)]


def test_a_first_report_goes_out_as_a_tilt_line_saying_first(lib):
    """The hub writes a first report with ``first=1`` after ``t``; a change without it."""
    hub = Hub(lib)
    hub.push(EV_TILT, node=2, code=0 | FIRST, value=3, t=400)
    hub.push(EV_TILT, node=2, code=2, value=84, t=900)
    first, change = hub.lines()
    assert first == p.Tilt(1, "T1", "upright", 3, 400, first=1)
    assert change == p.Tilt(2, "T1", "fallen", 84, 900) and change.first == 0


def test_hello_tells_the_serial_rate_the_board_runs_at(lib):
    """bronehub/1.1 says its baud rate in HELLO (a v1.0 station ignores the extra field); the
    longest HELLO of the default board still fits the line buffer."""
    hub = Hub(lib)
    lib.fw_hub_set_baud(hub.state, ctypes.c_uint32(1_000_000))
    hub.send(p.Sync(0, 1))
    buf = ctypes.create_string_buffer(200)
    n = lib.fw_hub_next_line(hub.state, buf)
    line = buf.raw[:n]
    hello = p.decode(line)
    assert hello.baud == 1_000_000 and b" baud=1000000*" in line and len(line) <= 128
    assert Hub(lib).boot_lines[0].baud == 0  # a board that does not set it does not say it


def test_hello_says_the_boards_id_and_the_station_can_change_it(lib):
    """bronehub/1.2: the board's id (EEPROM) in HELLO; ID gives it another, said at once."""
    hub = Hub(lib)
    assert hub.boot_lines[0].hub == ""  # no id set: an older board's HELLO
    lib.fw_hub_set_baud(hub.state, ctypes.c_uint32(1_000_000))
    lib.fw_hub_set_id(hub.state, ctypes.c_uint16(0x3F2A))
    hub.send(p.Sync(0, 1))
    buf = ctypes.create_string_buffer(200)
    n = lib.fw_hub_next_line(hub.state, buf)
    assert p.decode(buf.raw[:n]).hub == "3F2A" and n <= 128  # the longest default HELLO still fits
    hub.send(p.SetHubId(0, "77C1"))
    (hello,) = hub.lines()
    assert hello.hub == "77C1"
    for bad in (b"ID 9 hub=0000", b"ID 9 hub=FFFF", b"ID 9 hub=12"):  # never an erased or short id
        body = bad
        for byte in body + b"*%04X\n" % lib.fw_crc16(body, len(body)):
            lib.fw_hub_rx_byte(hub.state, byte)
        assert hub.lines() == []


def test_a_time_question_is_answered_with_the_clock_it_was_read_at(lib):
    """TIME: the hub answers CLK with the question's SEQ and its clock (ms and us) when the
    platform fed the question's bytes, before any waiting event."""
    hub = Hub(lib)
    hub.push(EV_DRY, node=1, barrel=1, t=5)
    lib.fw_hub_set_time(hub.state, ctypes.c_uint32(123456), ctypes.c_uint16(788))
    hub.send(p.TimeQuery(0))
    lib.fw_hub_set_time(hub.state, ctypes.c_uint32(123460), ctypes.c_uint16(4))  # later: not what it read
    answer, event = hub.lines()
    assert answer == p.ClockReading(1, hub.tx_seq, 123456, 788) and isinstance(event, p.DryFire)  # seq: the last event
    assert lib.fw_hub_new_id(0) not in (0, 0xFFFF) and lib.fw_hub_new_id(1) != lib.fw_hub_new_id(2)


def test_an_edge_stamped_after_the_loop_read_its_clock_is_a_shot_not_a_jam(lib):
    """The shots lost at 270 shots/s (docs/performance.md): the gate's edge, stamped in the
    interrupt a millisecond after the main loop read its clock, was fed before an update with
    that older clock; unsigned, "now - block" was a 49-day jam and the shot became a dry fire."""
    barrel = Barrel(lib)
    out = BarrelOut()
    update = lib.fw_barrel_update
    assert update(barrel.state, barrel.cfg, 0, 1, 0xFF, 1001, 1_001_000, ctypes.byref(out)) == 0  # gate on at 1001 ms
    assert (
        update(barrel.state, barrel.cfg, 0, 1, 0xFF, 1000, 1_001_050, ctypes.byref(out)) == 0
    )  # the loop's older clock
    assert update(barrel.state, barrel.cfg, 0, 0, 0xFF, 1004, 1_004_000, ctypes.byref(out)) == 1  # gate off: the shot
    assert (out.kind, out.t_ms, out.block_us) == (1, 1001, 3000)
