"""Which readings of a die are a roll: pure, with the time passed in.

A roll is a tumble that ends at rest: the die says it is rolling for at least ``MIN_TUMBLE_S``,
then that it rolled, with a face up.  Everything else is not a roll, whatever face it shows:
picked up and put down, picked up and held still (Pixels DiceFirmware #78 counted that), nudged
(GoDice's fake, tilt and move stables), caught mid-roll, or at rest on an edge.  Each tumble ends
in at most one roll, so a die that says "rolled, 4" in every advertisement, or a reconnect that
repeats the last message, never counts twice (a VTT took each GoDice roll twice).
"""

from __future__ import annotations

from dataclasses import dataclass

from .codec import Motion, Reading

ANY_PLAYER = "any"  # a die paired with no one player: any roll of the game may use it
MIN_TUMBLE_S = 0.2  # a throw tumbles for half a second or more; a pick-up's jolt for a few tens of ms


@dataclass(frozen=True)
class Roll:
    """One throw of one die: its face, and the battery when last heard."""

    die: str
    sides: int
    face: int
    battery: int | None
    throw: int  # this die's throws since the station started: one roll each, never two


class RollWatch:
    """One die's readings in, its rolls out, and what it is doing for the screens."""

    def __init__(self, die: str, sides: int) -> None:
        self.die, self.sides = die, sides
        self.battery: int | None = None
        self.motion = Motion.UNKNOWN
        self.face: int | None = None
        self.tumbling_since: float | None = None  # a tumble under way, not yet ended
        self.throws = 0
        self.lost_mid_roll = False
        self.not_rolls = 0  # rests that were not rolls: pick-ups, nudges, short jolts, edges

    def read(self, reading: Reading, now: float) -> Roll | None:
        if reading.battery is not None:
            self.battery = reading.battery
        if reading.motion is Motion.UNKNOWN:
            return None
        if reading.face is not None:
            self.face = reading.face
        self.motion = reading.motion
        if reading.motion is Motion.ROLLING:
            self.lost_mid_roll = False
            if self.tumbling_since is None:
                self.tumbling_since = now
            return None
        if reading.motion is Motion.HANDLING:
            if self.tumbling_since is not None:  # caught in the air: the tumble is void
                self.not_rolls += 1
            self.tumbling_since = None
            return None
        began, self.tumbling_since = self.tumbling_since, None
        if began is None:
            return None  # at rest again, or the same rest told again
        if reading.motion is Motion.ROLLED and reading.face is not None and now - began >= MIN_TUMBLE_S:
            self.throws += 1
            return Roll(self.die, self.sides, reading.face, self.battery, self.throws)
        self.not_rolls += 1
        return None

    def link_lost(self) -> bool:
        """The link dropped: a tumble under way cannot end in a roll we saw.  True when it did
        (the screens say "lost mid-roll": throw again, or type the value)."""
        lost, self.tumbling_since = self.tumbling_since is not None, None
        self.lost_mid_roll = self.lost_mid_roll or lost
        return lost
