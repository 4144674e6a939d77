"""Alpha Strike unit cards (seed 004 digest §2): the project's card format and the Master Unit
List's ``BF*`` export, both checked field by field.

A card is the printed stats; a unit on the table is a card plus its pilot's Skill and the
damage, heat and critical hits it has taken (``UnitState``).  Values the source does not give
come from the card files, never from code (digest §2.3).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from ...datafile import Fields
from ..text import Text, say
from .specials import KNOWN_SPECIALS, SPECIAL, split_abilities

CARD_FORMAT = "alpha-strike-card/1"
DAMAGE = re.compile(r"^(?:\d{1,2}|0\*|-|—)$")  # a band's damage: a number, minimal 0*, or none


@dataclass(frozen=True)
class Card:
    name: str
    type: str  # TP: BM ('Mech) in the quick-start
    size: int  # SZ 1-4
    tmm: int
    move_in: int  # MV, inches on the ground
    jump_in: int  # jump MV, 0 if it cannot jump
    role: str
    damage: tuple[str, str, str]  # S, M, L: "3", "0*", "0" or "-"
    overheat: int  # OV
    armour: int  # A
    structure: int  # S
    specials: tuple[str, ...] = ()
    pv: int = 0
    sample_data: bool = True  # not checked against two published sources
    extreme: str = "-"  # E damage: printed on some cards; the quick-start has no extreme range (A17)
    threshold: int = 0  # TH: aerospace units; no quick-start rule uses it
    movement: str = ""  # the MV as printed, every mode ("10\"/6\"j", "6\"t"); empty: move_in and jump_in say it
    mode: str = "ground"  # the ground move's mode: ground ('Mechs), tracked, wheeled, hover, VTOL...
    mul_id: int | None = None  # the Master Unit List's id, for a card imported from it
    unit_type: str = "BattleMech"

    @property
    def quick_start(self) -> bool:
        """The quick-start has rules for BattleMechs only (digest, "Scope of the source")."""
        return self.type == "BM"

    def beyond_quick_start(self) -> Text | None:
        """What the referee is told when a rule meets a unit the quick-start has no rules for."""
        if self.quick_start:
            return None
        return say(
            "{name} is a {unit_type} ({type}); the quick-start has rules for BattleMechs only, so the station "
            "rules it as a 'Mech and the referee decides",
            name=self.name,
            unit_type=self.unit_type,
            type=self.type,
        )

    def has(self, special: str) -> bool:
        return any(s == special or s.startswith(special + " ") or re.match(rf"^{special}\d", s) for s in self.specials)

    def special_values(self, special: str) -> tuple[str, str, str] | None:
        """``HT 1/1/-`` or ``REAR 1/1/-`` as its three band values (an aerospace card's fourth,
        extreme, band is dropped: the quick-start has no extreme range, A17)."""
        for s in self.specials:
            m = re.match(rf"^{special}\s?([0-9*-]+)/([0-9*-]+)/([0-9*-]+)(?:/[0-9*-]+)?$", s)
            if m:
                return m.group(1), m.group(2), m.group(3)
        return None


def skill_pv(pv: int, skill: int) -> int:
    """PV for a pilot better or worse than Skill 4.  The quick-start says PV depends on Skill but
    not how (digest §2.2); this is the station's default, +20 % a level better, -10 % a level
    worse, rounded half up, and is an option to replace with the published table."""
    factor = 1 + 0.2 * (4 - skill) if skill <= 4 else 1 - 0.1 * (skill - 4)
    return max(1, math.floor(pv * factor + 0.5))


def card_damage(f: Fields, name: str) -> str:
    value = f.get(
        name,
        (str, int),
        check=lambda v: (
            None if DAMAGE.match(str(v)) else 'must be a number, "0*" (minimal damage) or "-" (no attack at that range)'
        ),
    )
    return "-" if str(value) in ("-", "—") else str(value)


def checked_specials(f: Fields, name: str, raw: Any) -> tuple[str, ...]:
    items = split_abilities(raw) if isinstance(raw, str) else raw
    if not isinstance(items, list) or not all(isinstance(s, str) for s in items):
        f.fail('must be a list of specials such as "CASE" or "REAR 1/1/-"', name)
    out = []
    for s in (x for x in items if x):
        if not SPECIAL.match(s):
            f.fail(f"unknown special {s!r}; known: {', '.join(KNOWN_SPECIALS)}", name)
        out.append(s)
    return tuple(out)


def parse_card(f: Fields) -> Card:
    """The project's card format (docs/alpha-strike.md)."""
    f.reject_unknown(
        [
            "format",
            "name",
            "type",
            "size",
            "tmm",
            "move_in",
            "jump_in",
            "role",
            "damage",
            "overheat",
            "armour",
            "structure",
            "threshold",
            "specials",
            "pv",
            "sample_data",
            "from_seed",
        ]
    )
    damage = f.child("damage")
    damage.reject_unknown(["S", "M", "L", "E"])
    return Card(
        f.get("name", str),
        f.get("type", str, "BM"),
        f.integer("size", 1, 4),
        f.integer("tmm", -4, 6),
        f.integer("move_in", 0, 40),
        f.integer("jump_in", 0, 40, 0),
        f.get("role", str, ""),
        (card_damage(damage, "S"), card_damage(damage, "M"), card_damage(damage, "L")),
        f.integer("overheat", 0, 4, 0),
        f.integer("armour", 0, 40),
        f.integer("structure", 1, 40),
        checked_specials(f, "specials", f.get("specials", list, [])),
        f.integer("pv", 0, 500, 0),
        f.get("sample_data", bool, True),
        card_damage(damage, "E") if "E" in damage.data else "-",
        f.integer("threshold", 0, 40, 0),
    )


@dataclass(frozen=True)
class UnitState:
    """A card on the table: what it has taken (digest §2.2 'Critical hits', §9)."""

    id: str
    player: str
    card: Card
    skill: int
    armour: int
    structure: int
    heat: int = 0
    engine_hits: int = 0
    fire_control_hits: int = 0
    mp_hits: int = 0
    weapon_hits: int = 0
    move_in: int = 0  # current MV after MP hits
    tmm: int = 0  # current TMM after MP hits
    jump_in: int = 0  # current jump MV after MP hits (A12: halved like MV)
    destroyed: bool = False  # marked now; removed in the End Phase (§4.3)
    shutdown: bool = False
    specials_used: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def fresh(cls, unit_id: str, player: str, card: Card, skill: int) -> UnitState:
        return cls(
            unit_id,
            player,
            card,
            skill,
            card.armour,
            card.structure,
            move_in=card.move_in,
            tmm=card.tmm,
            jump_in=card.jump_in,
        )

    def damage_at(self, band: int) -> str:
        """The card's damage at S/M/L (0/1/2) after Weapon hits (§7.5): -1 each, minimum 0;
        minimal damage 0* becomes 0 after a Weapon hit (digest A11)."""
        printed = self.card.damage[band]
        if printed == "-":
            return "-"
        if printed == "0*":
            return "0" if self.weapon_hits else "0*"
        return str(max(0, int(printed) - self.weapon_hits))
