"""The makes' bytes and which readings are a roll (station/devices/dice/codec.py, rolls.py):
issue 52's "only real rolls count", without a radio."""

import random
import struct

import pytest

from station.devices.dice.codec import (
    D6_AXES,
    D20_AXES,
    DiceBytesError,
    Motion,
    Reading,
    godice_colour,
    godice_face,
    godice_message,
    godice_pulse,
    godice_stable,
    pixels_advert,
    pixels_blink,
    pixels_manufacturer,
    pixels_message,
)
from station.devices.dice.rolls import MIN_TUMBLE_S, RollWatch


def test_a_pixels_advertisement_reads_as_the_protocol_lays_it_out():
    # LED count 6 and colourway 1 (the "company id" a BLE stack splits off), rolled, face index 3,
    # battery 90 % and charging; the service data's Pixel id
    advert = pixels_advert(6 | 1 << 8, bytes([1, 3, 0x80 | 90]), struct.pack("<II", 0xCAFE, 1_700_000_000))
    assert (advert.pixel_id, advert.sides, advert.colourway) == (0xCAFE, 6, 1)
    assert advert.reading == Reading(Motion.ROLLED, 4, 90, True)
    assert pixels_advert(20, bytes([3, 19, 50])).reading.motion is Motion.ROLLING  # a D20 tumbling


@pytest.mark.parametrize(
    "company, payload, said",
    [
        (6, b"\x01\x03", "5 bytes"),
        (7, b"\x01\x03\x50", "7 LEDs"),
        (6, b"\x09\x03\x50", "roll state 9"),
        (6, b"\x01\x06\x50", "face index 6 on a D6"),
    ],
)
def test_a_pixels_advertisement_that_is_not_a_die_is_named_never_a_roll(company, payload, said):
    with pytest.raises(DiceBytesError, match=said):
        pixels_advert(company, payload)


def test_the_simulated_dice_speak_what_the_station_reads():
    for motion in (Motion.ROLLED, Motion.ROLLING, Motion.HANDLING, Motion.RESTING, Motion.CROOKED):
        for face in range(1, 7):
            company, payload = pixels_manufacturer(6, motion, face, 42)
            assert pixels_advert(company, payload).reading == Reading(motion, face, 42)
    for face in range(1, 7):
        assert godice_message(godice_stable(face)) == Reading(Motion.ROLLED, face)
        assert godice_message(godice_stable(face, kind=b"MS")).motion is Motion.RESTING
    for face in range(1, 21):
        assert godice_face(godice_stable(face, 20)[1:], 20) == face


def test_a_godice_face_is_the_nearest_axis_even_tilted():
    rng = random.Random(5)
    for _ in range(500):
        face = rng.randint(1, 6)
        x, y, z = (max(-127, min(127, a + rng.randint(-25, 25))) for a in D6_AXES[face])
        assert godice_face(struct.pack(">bbb", x, y, z)) == face
    assert len(D20_AXES) == 20
    with pytest.raises(DiceBytesError, match="D12 shell"):
        godice_face(b"\x00\x00\x40", 12)


def test_godice_messages():
    assert godice_message(b"R") == Reading(Motion.ROLLING)
    assert godice_message(b"Bat" + bytes([77])) == Reading(Motion.UNKNOWN, None, 77)
    assert godice_message(b"Col\x01") is None and godice_colour(b"Col\x01") == "red"
    assert godice_message(b"TS\x40\x00\x00").detail == "tilt stable"
    with pytest.raises(DiceBytesError, match="not one the station knows"):
        godice_message(b"Z12")
    assert godice_pulse()[0] == 16 and len(godice_pulse()) == 9


def test_pixels_messages_and_blink():
    assert pixels_message(bytes([3, 1, 4]), 6) == Reading(Motion.ROLLED, 5)
    assert pixels_message(bytes([34, 55, 2]), 6) == Reading(Motion.UNKNOWN, None, 55, True)
    assert pixels_message(bytes([2, 6, 0]), 6) is None  # IAmADie: not about a roll
    blink = pixels_blink()
    assert blink[0] == 29 and len(blink) == 14


def _watch_sequence(watch, steps, start=0.0):
    """Feed (motion, face, seconds after the last) readings; return the rolls."""
    now, rolls = start, []
    for motion, face, gap in steps:
        now += gap
        roll = watch.read(Reading(motion, face), now)
        if roll is not None:
            rolls.append(roll)
    return rolls


def test_a_throw_is_one_roll_however_often_its_rest_is_told():
    watch = RollWatch("d", 6)
    rolls = _watch_sequence(
        watch,
        [(Motion.HANDLING, None, 0), (Motion.ROLLING, None, 0.2), (Motion.ROLLING, None, 0.1)]
        + [(Motion.ROLLED, 4, 0.3)] * 20,  # a Pixels die says "rolled, 4" in every advertisement
    )
    assert [(r.face, r.throw) for r in rolls] == [(4, 1)]
    assert (
        _watch_sequence(watch, [(Motion.ROLLING, None, 1), (Motion.ROLLED, 4, 0.5)])[0].throw == 2
    )  # same face, new throw


@pytest.mark.parametrize(
    "steps",
    [
        [(Motion.HANDLING, None, 0), (Motion.RESTING, 3, 0.5)],  # picked up, put down
        [(Motion.HANDLING, None, 0), (Motion.ROLLED, 3, 2.0)],  # held still: "rolled" (DiceFirmware #78)
        [(Motion.ROLLING, None, 0), (Motion.ROLLED, 3, MIN_TUMBLE_S / 2)],  # a jolt, not a tumble
        [(Motion.ROLLING, None, 0), (Motion.HANDLING, None, 0.4), (Motion.ROLLED, 3, 0.3)],  # caught
        [(Motion.ROLLING, None, 0), (Motion.CROOKED, 3, 0.6)],  # at rest on an edge
        [(Motion.ROLLING, None, 0), (Motion.RESTING, 3, 0.6)],  # a GoDice's move stable after a push
    ],
    ids=["put-down", "held-still", "jolt", "caught", "crooked", "pushed"],
)
def test_what_is_not_a_roll(steps):
    watch = RollWatch("d", 6)
    assert _watch_sequence(watch, steps) == []
    assert watch.throws == 0


def test_a_thousand_random_pick_ups_and_nudges_make_no_roll_and_throws_between_each_count_once():
    rng, watch, now, thrown = random.Random(52), RollWatch("d", 6), 0.0, 0
    for k in range(1000):
        face = rng.randint(1, 6)
        handling = [(Motion.HANDLING, None, rng.uniform(0.0, 0.3)) for _ in range(rng.randint(0, 3))]
        jolt = [(Motion.ROLLING, None, 0.01)] if rng.random() < 0.4 else []
        rest = rng.choice([Motion.RESTING, Motion.CROOKED, Motion.ROLLED])
        settle = rng.uniform(0.0, MIN_TUMBLE_S * 0.9) if jolt else rng.uniform(0.0, 2.0)
        rolls = _watch_sequence(watch, handling + jolt + [(rest, face, settle)] * rng.randint(1, 4), now)
        now += 10
        assert rolls == [], k
        if k % 10 == 0:  # a real throw now and then, which counts once
            rolls = _watch_sequence(watch, [(Motion.ROLLING, None, 0), (Motion.ROLLED, face, 0.6)], now)
            thrown += 1
            assert [r.throw for r in rolls] == [thrown]
            now += 10
    assert watch.not_rolls > 300


def test_a_link_lost_mid_roll_is_said_and_the_next_throw_clears_it():
    watch = RollWatch("d", 6)
    _watch_sequence(watch, [(Motion.ROLLING, None, 0)])
    assert watch.link_lost() and watch.lost_mid_roll
    assert _watch_sequence(watch, [(Motion.ROLLED, 2, 0.5)], 1.0) == []  # the rest told after: not seen whole
    assert _watch_sequence(watch, [(Motion.ROLLING, None, 0), (Motion.ROLLED, 2, 0.5)], 5.0)[0].face == 2
    assert not watch.lost_mid_roll
    assert not watch.link_lost()  # nothing was tumbling
