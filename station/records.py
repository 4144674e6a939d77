"""The kinds of journal record: one name for each, so a reader that mistypes one is an error
(mypy, and an AttributeError at once), never a silent miss.  A ``StrEnum``: each member is the
very string the journal holds, so old journals read the same and JSON writes it as it is.
docs/journal-and-api.md says what each holds."""

from __future__ import annotations

from enum import StrEnum


class Kind(StrEnum):
    GAME = "game"  # the header: the game, its armies and options
    RX = "rx"  # a serial line received, with its verdict and hub
    TX = "tx"  # a serial line sent
    LINK = "link"  # a hub's link connected or lost
    CLOCK = "clock"  # a hub's clock mapped onto the station's (or taken away: unmapped)
    INPUT = "input"  # an operator input
    DICE = "dice"  # a roll, with its key and value
    DICE_ENTRY = "dice_entry"  # dice entered from the table, or cleared
    RULING = "ruling"  # what the engine ruled, as the screens showed it
    CONFIRM = "confirm"  # the referee confirmed a ruling
    OVERRIDE = "override"  # the referee overrode a ruling
    SNAPSHOT = "snapshot"  # where the camera saw every base
    CAMERA = "camera"  # what the camera saw a model do
    TERRAIN = "terrain"  # the table's terrain pieces
    PRECHECK = "precheck"  # the pre-game check and the note of a start past it
    JUDGE = "judge"  # a table's call to the tournament's judges
    END = "end"  # the referee ended the game
    TIMER = "timer"  # the referee paused or resumed the players' clocks (playerclock.py)
