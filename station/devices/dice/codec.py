"""The bytes smart dice send and take, as readings: pure functions, no radio.

**Pixels** (GameWithPixels, "Pixels Communications Protocol"): a die advertises its state, so a
station reads many dice by scanning alone.  Its manufacturer data is five bytes (LED count, design
and colour, roll state, face index, battery with the charging bit on top); a BLE stack splits the
first two off as a "company id", so ``pixels_advert`` takes them as such.  The service data holds
the die's 32-bit Pixel id.  Connected, a die sends ``RollState`` (3) and ``BatteryLevel`` (34) and
takes ``Blink`` (29).

**GoDice** (Particula's API): connected, a die notifies ``R`` while rolling, ``S`` + x, y, z when
it comes to rest, and ``FS``, ``TS``, ``MS`` (fake, tilt and move stable) when it was only moved;
``Bat`` and ``Col`` answer the battery (3) and colour (23) requests; 16 pulses its LEDs.  The face
is the shell's axis nearest the accelerometer's vector.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import StrEnum

PIXELS_SERVICE = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
PIXELS_NOTIFY = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
PIXELS_WRITE = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"
GODICE_WRITE = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"
GODICE_NOTIFY = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"
GODICE_NAME_PREFIX = "GoDice"


class Motion(StrEnum):
    """What a die says it is doing, the two makes' states in one vocabulary."""

    ROLLING = "rolling"
    ROLLED = "rolled"  # came to rest after a roll: the only state that can end a roll
    HANDLING = "handling"  # picked up, carried, nudged: never a roll
    CROOKED = "crooked"  # at rest on an edge: no face to read
    RESTING = "resting"  # at rest, not after a roll (a Pixels die's "on face", GoDice's FS/TS/MS)
    UNKNOWN = "unknown"


# Pixels roll states (firmware since 2023): unknown, rolled, handling, rolling, crooked, on face
PIXELS_MOTION = {
    0: Motion.UNKNOWN,
    1: Motion.ROLLED,
    2: Motion.HANDLING,
    3: Motion.ROLLING,
    4: Motion.CROOKED,
    5: Motion.RESTING,
}
PIXELS_SIDES = {4: 4, 6: 6, 8: 8, 10: 10, 12: 12, 20: 20, 21: 6}  # LED count: a pipped D6 has 21
PIXELS_ROLL_STATE, PIXELS_BATTERY, PIXELS_BLINK, PIXELS_WHO = 3, 34, 29, 1

GODICE_BATTERY, GODICE_COLOUR, GODICE_PULSE = 3, 23, 16
GODICE_COLOURS = ("black", "red", "green", "blue", "yellow", "orange")
GODICE_MOVED = {b"FS": "fake stable", b"TS": "tilt stable", b"MS": "move stable"}

# The shells' axes as the die's accelerometer reads them with that face up (GoDice's tables)
D6_AXES = {1: (-64, 0, 0), 2: (0, 0, 64), 3: (0, 64, 0), 4: (0, -64, 0), 5: (0, 0, -64), 6: (64, 0, 0)}
D20_AXES = {
    1: (-64, 0, -22), 2: (42, -42, 40), 3: (0, 22, -64), 4: (0, 22, 64), 5: (-42, -42, 42),
    6: (22, 64, 0), 7: (-42, -42, -42), 8: (64, 0, -22), 9: (-22, 64, 0), 10: (42, -42, -42),
    11: (-42, 42, 42), 12: (22, -64, 0), 13: (-64, 0, 22), 14: (42, 42, 42), 15: (-22, -64, 0),
    16: (42, 42, -42), 17: (0, -22, -64), 18: (0, -22, 64), 19: (-42, 42, -42), 20: (64, 0, 22),
}  # fmt: skip
SHELLS = {6: D6_AXES, 20: D20_AXES}


class DiceBytesError(ValueError):
    """Bytes that are not what the make sends: named, counted, never a roll."""


@dataclass(frozen=True)
class Reading:
    """One thing a die said: its motion, the face up (None while it has none) and, when the
    message carried it, the battery in percent."""

    motion: Motion
    face: int | None = None
    battery: int | None = None
    charging: bool = False
    detail: str = ""  # GoDice's kind of false stable, for the log


@dataclass(frozen=True)
class PixelsAdvert:
    pixel_id: int | None
    sides: int
    colourway: int
    reading: Reading


def pixels_advert(company_id: int, payload: bytes, service_data: bytes | None = None) -> PixelsAdvert:
    """A Pixels die's advertisement: ``company_id`` and ``payload`` as a BLE stack splits the five
    bytes of manufacturer data; ``service_data`` its eight (Pixel id, build time)."""
    if len(payload) != 3 or not 0 <= company_id <= 0xFFFF:
        raise DiceBytesError(f"Pixels manufacturer data is 5 bytes, got {2 + len(payload)}")
    leds, colourway = company_id & 0xFF, company_id >> 8
    if leds not in PIXELS_SIDES:
        raise DiceBytesError(f"Pixels die with {leds} LEDs: not a die the station knows")
    state, face_index, battery = payload
    sides = PIXELS_SIDES[leds]
    pixel_id = struct.unpack_from("<I", service_data)[0] if service_data and len(service_data) >= 4 else None
    return PixelsAdvert(pixel_id, sides, colourway, _pixels_reading(state, face_index, sides, battery))


def _pixels_reading(state: int, face_index: int, sides: int, battery: int | None) -> Reading:
    motion = PIXELS_MOTION.get(state)
    if motion is None:
        raise DiceBytesError(f"Pixels roll state {state} is not one of 0-5")
    if not 0 <= face_index < sides:
        raise DiceBytesError(f"Pixels face index {face_index} on a D{sides}")
    charge = None if battery is None else battery & 0x7F
    return Reading(motion, face_index + 1, charge, bool(battery and battery & 0x80))


def pixels_message(data: bytes, sides: int) -> Reading | None:
    """A message a connected Pixels die notified: a reading, or None for one that is not about
    rolls or the battery."""
    if not data:
        raise DiceBytesError("an empty Pixels message")
    if data[0] == PIXELS_ROLL_STATE:
        if len(data) < 3:
            raise DiceBytesError("a Pixels RollState is 3 bytes")
        return _pixels_reading(data[1], data[2], sides, None)
    if data[0] == PIXELS_BATTERY:
        if len(data) < 3:
            raise DiceBytesError("a Pixels BatteryLevel is 3 bytes")
        return Reading(Motion.UNKNOWN, None, data[1] & 0x7F, data[2] in (2, 3))
    return None


def pixels_blink(count: int = 3, duration_ms: int = 1000, rgb: tuple[int, int, int] = (0, 160, 255)) -> bytes:
    """``Blink``: ``count`` flashes of every face over ``duration_ms``, a little faded."""
    colour = (rgb[0] << 16) | (rgb[1] << 8) | rgb[2]
    return struct.pack("<BBHIIBB", PIXELS_BLINK, count, duration_ms, colour, 0xFFFFFFFF, 64, 0)


def godice_message(data: bytes, sides: int = 6) -> Reading | None:
    """A GoDice notification as a reading (None for the colour answer, ``godice_colour`` reads
    it).  ``sides`` is the shell on the die: its face comes from the nearest axis."""
    if not data:
        raise DiceBytesError("an empty GoDice message")
    if data[:1] == b"R":
        return Reading(Motion.ROLLING)
    if data[:3] == b"Bat":
        if len(data) < 4:
            raise DiceBytesError("a GoDice battery answer is 4 bytes")
        return Reading(Motion.UNKNOWN, None, min(100, data[3]))
    if data[:3] == b"Col":
        return None
    if data[:1] == b"S" and len(data) >= 4:
        return Reading(Motion.ROLLED, godice_face(data[1:4], sides))
    if data[:2] in GODICE_MOVED and len(data) >= 5:
        return Reading(Motion.RESTING, godice_face(data[2:5], sides), detail=GODICE_MOVED[data[:2]])
    raise DiceBytesError(f"GoDice message {data[:8].hex()} is not one the station knows")


def godice_face(xyz: bytes, sides: int = 6) -> int:
    """The face up: the shell axis nearest the accelerometer's (x, y, z), signed bytes."""
    axes = SHELLS.get(sides)
    if axes is None:
        raise DiceBytesError(f"a GoDice D{sides} shell is not one the station reads (D6, D20)")
    vector = struct.unpack(">bbb", bytes(xyz[:3]))
    return max(axes, key=lambda face: sum(a * v for a, v in zip(axes[face], vector)))


def godice_colour(data: bytes) -> str | None:
    if data[:3] == b"Col" and len(data) >= 4 and data[3] < len(GODICE_COLOURS):
        return GODICE_COLOURS[data[3]]
    return None


def godice_pulse(
    count: int = 3, on_10ms: int = 20, off_10ms: int = 20, rgb: tuple[int, int, int] = (0, 160, 255)
) -> bytes:
    return bytes([GODICE_PULSE, count, on_10ms, off_10ms, *rgb, 1, 0])


def godice_stable(face: int, sides: int = 6, kind: bytes = b"S") -> bytes:
    """What a GoDice sends at rest on ``face`` (``kind`` S, or FS/TS/MS): the simulated dice
    speak it, so the station's reading of real bytes is what the tests exercise."""
    axis = SHELLS[sides][face]
    return kind + struct.pack(">bbb", *axis)


def pixels_manufacturer(sides: int, motion: Motion, face: int, battery: int, colourway: int = 1) -> tuple[int, bytes]:
    """A Pixels die's manufacturer data as a BLE stack hands it over (company id, payload): the
    simulated dice advertise it."""
    leds = next(leds for leds, s in PIXELS_SIDES.items() if s == sides)
    state = next(code for code, m in PIXELS_MOTION.items() if m == motion)
    return leds | (colourway << 8), bytes([state, face - 1, battery & 0x7F])
