"""The dice source over emulated Bluetooth (tests/sim/bledice.py: bumble controllers, real
advertisements and GATT): Pixels read from advertisements, GoDice over a connection, pairing with
a blink, exactly one roll a throw across dropped links, and a die lost mid-roll said."""

import time

import pytest

from station.devices.dice.codec import GODICE_PULSE, PIXELS_BLINK
from station.devices.dice.source import DiceSource
from tests.conftest import wait_for
from tests.sim.bledice import BumbleRadio, DieSpec

PIXEL, GODICE = "F0:00:00:00:00:01", "F0:00:00:00:00:02"
PIXEL_ID, GODICE_ID = "pixels-00c0ffee", "godice-f00000000002"


@pytest.fixture
def table():
    radio = BumbleRadio(
        [
            DieSpec("pixels", PIXEL, "Red Pixel", battery=64, pixel_id=0xC0FFEE),
            DieSpec("godice", GODICE, "GoDice_B", 41),
        ]
    )
    source = DiceSource([radio]).start()
    rolls = []
    source.on_roll = lambda roll, player: rolls.append((roll, player)) or ""
    wait_for(lambda: len(source.nearby()) == 2, 10, "both dice heard")
    yield radio, source, rolls
    source.stop()


def _paired(radio, source):
    """Both dice blinked (the Pixels die over a short connection, during which it does not
    advertise) and the GoDice is connected: a referee sees the blink before the first throw."""
    wait_for(lambda: any(w[0] == PIXELS_BLINK for w in radio.dice[PIXEL].written), 5, "the Pixels die blinks")
    wait_for(lambda: any(w[0] == GODICE_PULSE for w in radio.dice[GODICE].written), 5, "the GoDice pulses")
    wait_for(lambda: _die(source, GODICE_ID)["link"] == "connected", 5, "the GoDice connected")
    time.sleep(0.2)  # the Pixels die advertises again once the blink's link is closed


def _die(source, die_id):
    return next(d for d in source.nearby() if d["id"] == die_id)


def test_dice_in_range_are_listed_and_a_chosen_die_blinks(table):
    radio, source, rolls = table
    pixel = _die(source, PIXEL_ID)
    assert (pixel["name"], pixel["battery"], pixel["use"], pixel["link"]) == ("Red Pixel", 64, "", "in range")
    assert _die(source, GODICE_ID)["battery"] is None  # a GoDice tells its battery once connected
    source.assign(PIXEL_ID, "red")
    source.assign(GODICE_ID, "any")
    wait_for(lambda: any(w[0] == PIXELS_BLINK for w in radio.dice[PIXEL].written), 5, "the Pixels die blinks")
    wait_for(lambda: any(w[0] == GODICE_PULSE for w in radio.dice[GODICE].written), 5, "the GoDice pulses its LEDs")
    wait_for(lambda: _die(source, GODICE_ID)["battery"] == 41, 5, "the GoDice's battery")
    godice = _die(source, GODICE_ID)
    assert (godice["link"], godice["colour"], godice["use"]) == (
        "connected",
        "red",
        "any",
    )  # the second die of the table says Col 1
    assert source.assigned() == {PIXEL_ID: "red", GODICE_ID: "any"}


def test_each_throw_is_one_roll_and_pick_ups_are_none(table):
    radio, source, rolls = table
    source.assign(PIXEL_ID, "red")
    source.assign(GODICE_ID, "blue")
    _paired(radio, source)
    for face in (3, 3, 6):
        radio.run(radio.throw(PIXEL, face))
        radio.run(radio.throw(GODICE, face))
        time.sleep(0.25)  # several advertisements of the same rest
    radio.run(radio.pick_up(PIXEL, 2, jolt_s=0.02))  # held still after a jolt: a Pixels die says "rolled"
    radio.run(radio.pick_up(GODICE, 2, b"FS"))
    radio.run(radio.pick_up(GODICE, 5, b"TS", jolt_s=0.02))
    time.sleep(0.3)
    by_die = {die: [(r.face, r.throw, player) for r, player in rolls if r.die == die] for die in (PIXEL_ID, GODICE_ID)}
    assert by_die[PIXEL_ID] == [(3, 1, "red"), (3, 2, "red"), (6, 3, "red")]
    assert by_die[GODICE_ID] == [(3, 1, "blue"), (3, 2, "blue"), (6, 3, "blue")]
    assert source.false_rests >= 1  # the GoDice's jolt at least: R, then a tilt stable


def test_a_roll_from_a_die_paired_with_nobody_is_shown_not_used(table):
    radio, source, rolls = table
    radio.run(radio.throw(PIXEL, 5))
    wait_for(lambda: _die(source, PIXEL_ID)["last_roll"] is not None, 5, "the roll shown")
    assert _die(source, PIXEL_ID)["last_roll"] == {
        "face": 5,
        "throw": 1,
        "used": False,
        "why": "this die is not paired with a player",
    }
    assert rolls == []


def test_a_godice_that_drops_mid_roll_says_so_reconnects_and_counts_each_throw_once(table):
    radio, source, rolls = table
    source.assign(GODICE_ID, "any")
    wait_for(lambda: _die(source, GODICE_ID)["link"] == "connected", 5, "connected")
    radio.run(radio.throw(GODICE, 4))
    radio.run(radio.tell(GODICE, radio.dice[GODICE].motion.ROLLING, godice=b"R"))  # thrown again…
    radio.run(radio.drop_link(GODICE))  # …and out of range mid-roll
    wait_for(lambda: _die(source, GODICE_ID)["lost_mid_roll"], 5, "lost mid-roll said")
    wait_for(lambda: _die(source, GODICE_ID)["link"] == "connected", 10, "the link remade")
    assert _die(source, GODICE_ID)["drops"] == 1
    radio.run(radio.throw(GODICE, 2))
    wait_for(lambda: len(rolls) == 2, 5, "the throw after the reconnect")
    time.sleep(0.2)
    assert [(r.face, r.throw) for r, _ in rolls] == [(4, 1), (2, 2)]
    assert not _die(source, GODICE_ID)["lost_mid_roll"]


def test_a_radio_that_cannot_start_is_said_on_the_settings_page_not_a_crash():
    from station.devices.dice.bleak_radio import NO_BLUETOOTH
    from station.devices.dice.transport import RadioUnavailable

    class NoAdapter:
        name = "bluetooth"

        async def start(self, on_advert):
            raise RadioUnavailable(NO_BLUETOOTH)

        async def stop(self):
            pass

    source = DiceSource([NoAdapter()]).start()
    try:
        wait_for(lambda: source.problem == NO_BLUETOOTH, 5, "the problem said")
        assert source.nearby() == [] and source.health()["problem"] == NO_BLUETOOTH
    finally:
        source.stop()
