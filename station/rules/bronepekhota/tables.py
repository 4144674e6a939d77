"""Бронепехота tables and tests as data and pure functions (seed 000 digest §5, §6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...dice import Roller
from ..text import Text, say

# §6.5 Table 3: charge power.  Also the ammunition cost of one charge.
CHARGE_POWER = {"shell": 2, "bomb": 3, "rocket": 4}
CHARGE_NAMES = {"shell": say("shell"), "bomb": say("mortar bomb"), "rocket": say("rocket")}

# Hit results as Table 4 names them.
STOOD, FELL, LYING = "stood", "fell", "lying"
RESULT_WORDS = {STOOD: say("stood"), FELL: say("fell"), LYING: say("lying")}  # as the rulings say them
# the referee's verdicts as a ruling says them, in the page's language («Судья: устояла»)
VERDICT_WORDS = {**RESULT_WORDS, "allow": say("allow"), "void": say("void")}


@dataclass(frozen=True, slots=True)
class Table4Row:
    """One row of §6.7 Table 4: what a real hit does to a target."""

    damage_multiplier: int  # x charge power; 0 = no damage track (infantry)
    destroyed: bool  # the element is removed outright
    survival_test: bool  # infantryman: Survival Test D6 (§5.3)
    armour_test_die: int | None  # vehicle: Armour Test die for the pilot (§6.6)


# §6.7 Table 4 (consequences of a real hit), keyed by (target kind, result).
# Infantry "fell" also covers "leaned against an obstacle".  Infantry cannot be "already lying" and
# hit again: a fallen infantryman is already destroyed.
TABLE_4: dict[tuple[str, str], Table4Row] = {
    ("infantry", STOOD): Table4Row(0, False, True, None),
    ("infantry", FELL): Table4Row(0, True, False, None),
    ("vehicle", STOOD): Table4Row(1, False, False, 12),
    ("vehicle", FELL): Table4Row(2, False, False, 20),
    ("vehicle", LYING): Table4Row(2, False, False, 20),
    ("gun", STOOD): Table4Row(1, False, False, None),
    ("gun", FELL): Table4Row(2, False, False, None),
    ("gun", LYING): Table4Row(2, False, False, None),
}


@dataclass(frozen=True, slots=True)
class TestResult:
    """One die test: what was rolled against what, and whether it passed."""

    name: str
    sides: int
    roll: int
    target: int
    passed: bool

    def describe(self) -> Text:
        sign = "≤" if self.passed else ">"
        return say(
            "{name} D{sides} rolled {roll} {sign} {target}: {what}",
            name=self.name,
            sides=self.sides,
            roll=self.roll,
            sign=sign,
            target=self.target,
            what=say("pass") if self.passed else say("fail"),
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "test": self.name,
            "die": f"D{self.sides}",
            "roll": self.roll,
            "target": self.target,
            "passed": self.passed,
        }


def survival_test(roller: Roller, armour: int, key: str, sides: int = 6) -> TestResult:
    """§5.3 Survival Test: survives when Бр ≥ roll."""
    roll = roller.roll(sides, key)
    return TestResult(say("survival test"), sides, roll, armour, armour >= roll)


def armour_test(roller: Roller, armour: int, sides: int, key: str) -> TestResult:
    """§6.6 Armour Test: the pilot is unhurt when the vehicle's current armour ≥ roll.  The
    armour is read after this attack's damage is marked."""
    roll = roller.roll(sides, key)
    return TestResult(say("armour test"), sides, roll, armour, armour >= roll)


def speed_for_cell(sectors: list[dict[str, Any]], cell: int) -> int:
    """§2.2: the speed printed in the coloured sector that holds the slider's cell."""
    for sector in sectors:
        if sector["to"] <= cell <= sector["from"]:
            return int(sector["speed"])
    return 0


def cover(hidden_fraction: float) -> dict[str, object]:
    """§7.3 Table 5: how much of the target the shooter sees raises its armour.  Exactly half
    visible is not in the table (digest §Z.11); the station rounds it towards more cover."""
    if hidden_fraction >= 1.0:
        return {"label": say("not visible: no shot"), "armour": None}
    if hidden_fraction >= 0.5:
        return {"label": say("less than half visible: armour +3"), "armour": 3}
    if hidden_fraction > 0.0:
        return {"label": say("more than half visible: armour +1"), "armour": 1}
    return {"label": say("fully visible"), "armour": 0}
