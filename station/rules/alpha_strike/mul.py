"""Master Unit List records as Alpha Strike cards: what the MUL gives, read as the MUL writes it.

Two layouts are met in the wild, and both are read: the MUL's QuickList response (``Name``
already holds the variant, ``Type.Name``, ``BFThreshold``) and the newer MUL-derived one (``Name``
without the variant, ``Class`` the unit type, the threshold as a ``TH`` ability).  Either way:

- movement is every mode the MUL prints (``10"``, ``10"j``, ``10"/6"j``, ``6"t``, ``20"h``,
  ``18"v``, ``4"m``, ``4"f``, ``5a``...): the ground move, the jump move, and the mode;
- a TMM of 0 or none is the MUL leaving it out: it comes from the move (``tmm_for_move``);
- abilities are split on commas outside brackets (``TUR(3/3/-,AC3/3/-)`` is one);
- extreme damage is ``-`` unless the record gives some;
- a record is real data, never sample data;
- a record with no Alpha Strike values (a move of ``—``, size 0) is refused by name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...datafile import Fields
from .cards import Card, card_damage, checked_specials

# The MUL's movement codes (Alpha Strike: Commander's Edition), by the letter after the inches.
MOVE_MODES = {
    "": "ground",
    "j": "jump",
    "t": "tracked",
    "w": "wheeled",
    "h": "hover",
    "v": "VTOL",
    "g": "WiGE",
    "n": "naval",
    "s": "submarine",
    "r": "rail",
    "m": "motorised infantry (a monocycle for a wheeled vehicle)",
    "b": "bicycle",
    "f": "foot",
    "qt": "QuadVee tracked",
    "qw": "QuadVee wheeled",
    "a": "aerospace thrust",
    "p": "aerospace thrust",
    "k": "station keeping",
}
SEGMENT = re.compile(r'^(\d+)"?([a-z]*)$')
# TMM by the move in inches (AS:CE's table; the quick-start prints TMM on the card and gives no
# table): up to 4" 0, 5-8" 1, 9-12" 2, 13-18" 3, 19-34" 4, 35" and more 5.  Every real record that
# carries its own TMM agrees with it (tests/test_mul.py).
TMM_STEPS = ((4, 0), (8, 1), (12, 2), (18, 3), (34, 4))
# Unit types (BFType) and what the quick-start, which has rules for BattleMechs only, says of them.
UNIT_TYPES = {
    "BM": "BattleMech",
    "IM": "IndustrialMech",
    "PM": "ProtoMech",
    "CV": "combat vehicle",
    "SV": "support vehicle",
    "CI": "conventional infantry",
    "BA": "battle armour",
    "AF": "aerospace fighter",
    "CF": "conventional fighter",
    "SC": "small craft",
    "DS": "DropShip",
    "DA": "DropShip",
    "MS": "mobile structure",
}


@dataclass(frozen=True)
class Movement:
    """A MUL move: the ground move in inches, the jump move, and the ground mode's name."""

    move_in: int
    jump_in: int
    mode: str
    modes: tuple[tuple[int, str], ...]  # every (inches, mode) the record prints

    @property
    def airborne(self) -> bool:
        return any(code in ("a", "p", "k") for _, code in self.modes)


def parse_movement(text: str) -> Movement:
    """``10"/6"j`` and the rest; a ValueError names what is not understood."""
    modes = []
    for part in text.replace(" ", "").split("/"):
        m = SEGMENT.match(part)
        if m is None or m.group(2) not in MOVE_MODES:
            known = ", ".join(f'"{k}" {v}' if k else "none (ground)" for k, v in MOVE_MODES.items())
            raise ValueError(f"{part!r} is not a move: inches and a mode letter, one of {known}")
        modes.append((int(m.group(1)), m.group(2)))
    jump = next((n for n, code in modes if code == "j"), 0)
    ground = [(n, code) for n, code in modes if code != "j"]
    inches, code = ground[0] if ground else (jump, "")  # "10"j": it walks as far as it jumps
    return Movement(inches, jump, MOVE_MODES[code], tuple(modes))


def tmm_for_move(inches: int) -> int:
    return next((tmm for top, tmm in TMM_STEPS if inches <= top), 5)


def card_name(name: Any, variant: Any) -> str:
    """The QuickList ``Name`` already holds the variant ("Atlas AS7-D"); the newer layout's does
    not ("Black Knight" + "BL-7-KNT").  A missing variant adds nothing, never "None"."""
    base = str(name or "").strip()
    extra = str(variant or "").strip()
    already = base == extra or base.endswith(" " + extra)
    return f"{base} {extra}" if extra and not already else base


def _band(f: Fields, band: str, minimal_key: str) -> str:
    value = card_damage(f, f"BFDamage{band}")
    return "0*" if value == "0" and f.data.get(minimal_key) is True else value


def _type_name(data: Mapping[str, Any]) -> str:
    kind = data.get("Type")
    return str(kind.get("Name", "")) if isinstance(kind, Mapping) else str(data.get("Class") or "")


def parse_mul(f: Fields) -> Card:
    """One MUL record as a card; the error names the field and what is wrong with it."""
    raw_move = f.get("BFMove", str)
    if raw_move.strip() in ("", "—", "-") or f.data.get("BFSize") == 0:
        f.fail("this MUL record has no Alpha Strike values (no move, size 0): pick another variant", "BFMove")
    try:
        movement = parse_movement(raw_move)
    except ValueError as exc:
        f.fail(str(exc), "BFMove")
    kind = f.get("BFType", str, "BM")
    if kind not in UNIT_TYPES:
        f.fail(f"is {kind!r}; Alpha Strike unit types are {', '.join(UNIT_TYPES)}", "BFType")
    given_tmm = f.integer("BFTMM", 0, 6, 0)
    role = f.data.get("Role")
    abilities = f.get("BFAbilities", (str, list, type(None)), "") or ""
    specials = checked_specials(f, "BFAbilities", abilities)
    threshold = f.integer("BFThreshold", 0, 40, 0) or next(
        (int(s[2:].strip()) for s in specials if re.fullmatch(r"TH\s?\d+", s)), 0
    )
    extreme = _band(f, "Extreme", "BFDamageExtremeMin") if "BFDamageExtreme" in f.data else "-"
    if extreme == "0" and f.data.get("BFDamageExtemeMin") is True:  # (the QuickList's own spelling)
        extreme = "0*"
    return Card(
        card_name(f.data.get("Name") or f.data.get("Class"), f.data.get("Variant")),
        kind,
        f.integer("BFSize", 1, 4),
        0 if movement.airborne else (given_tmm or tmm_for_move(movement.move_in)),
        movement.move_in,
        movement.jump_in,
        str(role.get("Name", "")) if isinstance(role, Mapping) else str(role or ""),
        (
            _band(f, "Short", "BFDamageShortMin"),
            _band(f, "Medium", "BFDamageMediumMin"),
            _band(f, "Long", "BFDamageLongMin"),
        ),  # fmt: skip
        f.integer("BFOverheat", 0, 4, 0),
        f.integer("BFArmor", 0, 40),
        f.integer("BFStructure", 0, 40),
        specials,
        f.integer("BFPointValue", 0, 500, 0),
        False,  # a real record, not sample data
        "-" if extreme == "0" else extreme,
        threshold,
        movement=raw_move.strip(),
        mode=movement.mode,
        mul_id=f.data.get("Id") if isinstance(f.data.get("Id"), int) else None,
        unit_type=_type_name(f.data) or UNIT_TYPES[kind],
    )
