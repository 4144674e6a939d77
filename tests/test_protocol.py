"""Protocol v1 codec (docs/protocol.md): round trips, garbage, truncation."""

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from station.devices import protocol as p
from station.devices.hubsim import SimulatedHub

node_ids = st.from_regex(r"[A-Za-z0-9_-]{1,16}", fullmatch=True)
seqs = st.integers(0, 2**31 - 1)
times = st.integers(0, 2**31 - 1)

messages = st.one_of(
    st.builds(
        p.Shot,
        seq=seqs,
        node=node_ids,
        barrel=st.integers(1, 9),
        charge=st.sampled_from(p.CHARGES),
        count=st.integers(0, 10**9),
        t=times,
    ),
    st.builds(
        p.Tilt,
        seq=seqs,
        node=node_ids,
        state=st.sampled_from(p.TILT_STATES),
        angle=st.integers(0, 180),
        t=times,
        first=st.integers(0, 1),
    ),
    st.builds(p.Impact, seq=seqs, node=node_ids, g=st.integers(0, 9999).map(lambda v: v / 10), t=times),
    st.builds(p.DryFire, seq=seqs, node=node_ids, barrel=st.integers(1, 9), t=times),
    st.builds(p.Heartbeat, seq=seqs, up=times, pend=st.integers(0, 255)),
    st.builds(p.Overflow, seq=seqs, lost=st.integers(1, 10**6)),
    st.builds(p.Ack, seq=seqs, upto=seqs),
    st.builds(p.Nak, seq=seqs, start=seqs),
    st.builds(p.Sync, seq=seqs, proto=st.just(1)),
    st.builds(
        p.Hello,
        seq=seqs,
        fw=st.from_regex(r"[a-z]{1,8}/[0-9]\.[0-9]", fullmatch=True),
        proto=st.just(1),
        boot=st.from_regex(r"[0-9A-F]{4}", fullmatch=True),
        nodes=st.lists(
            st.one_of(
                st.builds(p.Node, id=node_ids, kind=st.just("tilt")),
                st.builds(p.Node, id=node_ids, kind=st.just("launcher"), barrels=st.integers(1, 9)),
            ),
            min_size=1,
            max_size=4,
        ).map(tuple),
    ),
)


@given(messages)
def test_every_message_round_trips(message):
    line = p.encode(message)
    assert line.endswith(b"\n") and len(line) <= p.MAX_LINE_BYTES
    assert p.decode(line) == message


@given(messages)
def test_a_verified_line_reads_back_the_same_without_its_checks(message):
    """The fold's reading of a journaled line (decode_verified) gives what decode gave the link,
    and a node field takes its board's name when asked."""
    line = p.encode(message).decode().strip()
    assert p.decode_verified(line) == p.decode(line)
    if hasattr(message, "node"):
        assert p.decode_verified(line, "@A1B2").node == message.node + "@A1B2"


@pytest.mark.parametrize("line", ["", "SHOT 1*0000", "SHOT x node=L1 barrel=1 charge=shell count=1 t=5*0000",
                                  "NOPE 1 a=b*0000", "SHOT 1 node=L1 barrel=one charge=shell count=1 t=5*0000"])  # fmt: skip
def test_a_line_that_is_not_a_verified_one_still_fails(line):
    with pytest.raises(p.ProtocolError):
        p.decode_verified(line)


@given(messages, st.data())
def test_any_single_byte_change_is_caught(message, data):
    line = bytearray(p.encode(message).rstrip(b"\n"))
    index = data.draw(st.integers(0, len(line) - 1))
    replacement = data.draw(st.integers(0x20, 0x7E).filter(lambda b: b != line[index]))
    line[index] = replacement
    with pytest.raises(p.ProtocolError):
        p.decode(bytes(line))


@given(messages, st.data())
def test_truncated_lines_are_rejected(message, data):
    line = p.encode(message).rstrip(b"\n")
    cut = data.draw(st.integers(0, len(line) - 1))
    with pytest.raises(p.ProtocolError):
        p.decode(line[:cut])


@given(st.binary(max_size=200))
def test_garbage_never_decodes_silently(raw):
    try:
        message = p.decode(raw)
    except p.ProtocolError:
        return
    assert p.encode(message).rstrip(b"\n") == raw.rstrip(b"\r\n")


def test_crc_check_value_is_ccitt_false():
    assert p.crc16(b"123456789") == 0x29B1


def test_human_readable_line():
    line = p.encode(p.Shot(17, "L1", 2, "rocket", 5, 123456))
    assert line.startswith(b"SHOT 17 node=L1 barrel=2 charge=rocket count=5 t=123456*")


@pytest.mark.parametrize(
    "line, reason",
    [
        (b"SHOT 1 node=L1 barrel=1 charge=shell count=1 t=0", "syntax"),
        (b"BOGUS 1 x=1*0000", "checksum"),
        (b"", "syntax"),
    ],
)
def test_reasons_are_named(line, reason):
    with pytest.raises(p.ProtocolError) as err:
        p.decode(line)
    assert err.value.reason == reason


def _signed(body: bytes) -> bytes:
    return body + b"*%04X" % p.crc16(body)


def test_unknown_type_and_bad_fields_with_valid_crc():
    with pytest.raises(p.ProtocolError) as err:
        p.decode(_signed(b"LASER 3 node=L1"))
    assert err.value.reason == "unknown_type"
    with pytest.raises(p.ProtocolError) as err:
        p.decode(_signed(b"SHOT 3 node=L1 barrel=1 charge=grenade count=1 t=5"))
    assert err.value.reason == "field" and "charge" in str(err.value)
    with pytest.raises(p.ProtocolError) as err:
        p.decode(_signed(b"TILT 3 node=T1 state=fallen t=5"))
    assert "angle" in str(err.value)


def test_extra_fields_from_a_newer_hub_are_tolerated():
    message = p.decode(_signed(b"IMPACT 4 node=T1 g=5.5 t=10 axis=z"))
    assert message == p.Impact(4, "T1", 5.5, 10)


def test_a_first_posture_report_says_so_and_a_change_stays_as_a_v1_0_hub_wrote_it():
    """bronehub/1.3 marks a tilt node's first settled posture since it started with first=1."""
    assert p.decode(_signed(b"TILT 4 node=T1 state=upright angle=2 t=10 first=1")).first == 1
    assert p.encode(p.Tilt(4, "T1", "fallen", 84, 10)).startswith(b"TILT 4 node=T1 state=fallen angle=84 t=10*")
    with pytest.raises(p.ProtocolError, match="first"):
        p.decode(_signed(b"TILT 4 node=T1 state=upright angle=2 t=10 first=2"))


def test_example_lines_in_the_protocol_page_are_valid():
    """The spec's examples are real lines: each decodes and re-encodes to itself."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()
    lines = [line.split("  ")[0] for line in text.splitlines() if line.split(" ")[0] in p.MESSAGE_TYPES and "*" in line]
    assert len(lines) >= 5
    for line in lines:
        assert p.encode(p.decode(line.encode())).decode().strip() == line


def test_checksum_must_be_upper_case_hex_as_specified():
    lines = (p.encode(p.Ack(seq, 2)).rstrip(b"\n") for seq in range(100))
    line = next(line for line in lines if any(c in b"ABCDEF" for c in line[-4:]))
    with pytest.raises(p.ProtocolError, match="upper-case"):
        p.decode(line[:-4] + line[-4:].lower())


def test_a_simulated_hub_leaves_no_folder_behind_and_sweeps_those_of_dead_processes():
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    left = Path(tempfile.gettempdir()) / f"hubsim-{int(gone.stdout)}-crashed"
    left.mkdir()  # what a killed `station demo` leaves
    hub = SimulatedHub().start()
    folder = Path(hub.path).parent
    assert folder.is_dir() and not left.exists()
    hub.stop()
    assert not folder.exists()
