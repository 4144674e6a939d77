"""Dice for the rules engine, injected and journaled.

Every roll has a key that names why it was rolled and for which journal record, e.g.
``"57/armour-test/gryphon-2"``.  A ``DiceBook`` answers a key from the journal when the value is
already known, so a replay gets exactly the values the players saw; only a key never seen before
is rolled from the injected random source, and the caller journals it.  Keys, not positions, make
this robust when a referee override re-derives the game and later events need other dice.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

DIE_SIDES = (4, 6, 8, 10, 12, 20)  # every die the rulebooks use


class Roller(Protocol):
    def roll(self, sides: int, key: str) -> int: ...


class MissingDice(LookupError):
    """A replay asked for a roll the journal does not hold, so it cannot be reproduced."""


@dataclass(frozen=True, slots=True)
class Roll:
    key: str
    sides: int
    value: int
    physical: bool = False  # read off a real die at the table and entered, not rolled by the station

    def as_record(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "sides": self.sides,
            "value": self.value,
            **({"physical": True} if self.physical else {}),
        }


class DiceBook:
    """Journaled dice plus, for live play, a random source for rolls not yet journaled."""

    def __init__(self, known: Iterable[Roll] = (), source: random.Random | None = None) -> None:
        self._known: dict[str, Roll] = {}
        for roll in known:
            self.add(roll)
        self._source = source
        self.fresh: list[Roll] = []
        self._physical: dict[int, list[int]] = {}

    def add(self, roll: Roll) -> None:
        if roll.sides not in DIE_SIDES or not 1 <= roll.value <= roll.sides:
            raise ValueError(f"impossible roll {roll}")
        self._known[roll.key] = roll

    def roll(self, sides: int, key: str) -> int:
        known = self._known.get(key)
        if known is not None:
            if known.sides != sides:
                raise MissingDice(f"journal rolled D{known.sides} for {key}, the rules now ask D{sides}")
            return known.value
        waiting = self._physical.get(sides)
        if waiting:
            roll = Roll(key, sides, waiting.pop(0), physical=True)
            self._known[key] = roll
            self.fresh.append(roll)
            return roll.value
        if self._source is None:
            raise MissingDice(f"the journal holds no D{sides} roll for {key}")
        roll = Roll(key, sides, self._source.randint(1, sides))
        self._known[key] = roll
        self.fresh.append(roll)
        return roll.value

    def enter(self, sides: int, values: Iterable[int]) -> None:
        """Dice the players rolled at the table: the next rolls of a D``sides`` take these values,
        in order, instead of the station's own."""
        values = list(values)
        if (
            sides not in DIE_SIDES
            or not values
            or not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= sides for v in values)
        ):
            raise ValueError(
                f"enter whole numbers 1-{sides} for a D{sides} (dice are D{', D'.join(map(str, DIE_SIDES))})"
                if sides in DIE_SIDES
                else f"there is no D{sides} here: dice are D{', D'.join(map(str, DIE_SIDES))}"
            )
        self._physical.setdefault(sides, []).extend(values)

    def waiting(self) -> dict[int, list[int]]:
        return {sides: list(values) for sides, values in self._physical.items() if values}

    def clear_entered(self) -> None:
        self._physical.clear()

    def take_fresh(self) -> list[Roll]:
        """Rolls made since the last call, for the caller to journal."""
        fresh, self.fresh = self.fresh, []
        return fresh


@dataclass(frozen=True)
class DiceExpression:
    """A rulebook's dice expression such as ``D6+2`` or ``2D12`` (Бронепехота's Range and Power,
    seed 000 §7.4): ``count`` dice of ``sides`` plus ``modifier``."""

    count: int
    sides: int
    modifier: int = 0

    EXPRESSION = re.compile(r"^([1-9]?)[DdДд](4|6|8|10|12|20)([+-]\d{1,2})?$")

    @classmethod
    def parse(cls, text: str) -> DiceExpression:
        match = cls.EXPRESSION.match(text.strip()) if isinstance(text, str) else None
        if not match:
            raise ValueError(f"{text!r} is not a dice expression: write e.g. D6, D6+2, 2D12 or D20-1")
        return cls(int(match.group(1) or 1), int(match.group(2)), int(match.group(3) or 0))

    def __str__(self) -> str:
        return f"{self.count if self.count > 1 else ''}D{self.sides}{self.modifier:+d}".replace("+0", "")

    @property
    def lowest(self) -> int:
        return self.count + self.modifier

    @property
    def highest(self) -> int:
        return self.count * self.sides + self.modifier

    def at_least(self) -> dict[int, float]:
        """P(total >= v) for every total v the expression can make."""
        totals = {0: 1.0}
        for _ in range(self.count):
            step: dict[int, float] = {}
            for total, p in totals.items():
                for face in range(1, self.sides + 1):
                    step[total + face] = step.get(total + face, 0.0) + p / self.sides
            totals = step
        tail, out = 0.0, {}
        for total in sorted(totals, reverse=True):
            tail += totals[total]
            out[total + self.modifier] = tail
        return out
