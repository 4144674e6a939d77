"""The interface every game's rules engine implements.

A ruleset is a pure fold: ``apply(state, event) -> (state, rulings)`` does no I/O and reads no
clock; its only outside input is the injected ``Roller``.  States are immutable, so an old state
stays valid after ``apply`` and a replay can be compared byte for byte through ``state_json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple, Self, TypeVar

from ..datafile import DataFileError
from ..events import Message
from .text import Text


@dataclass(frozen=True, slots=True)
class Input:
    """An operator input from the dashboard or CLI.  ``type`` names it; ``args`` are its fields."""

    type: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class HubLink:
    """A hub's link lost or connected again (a ``link`` record naming its hub).  A hub that is
    away may hold a shot it will send when it is back, so the games that attribute hits across
    hubs say so rather than rule as if no shot had been fired."""

    hub: str
    connected: bool


@dataclass(frozen=True, slots=True)
class Override:
    """The referee replaces a ruling.  ``verdict`` is ruleset-specific (e.g. "void", "fell")."""

    ruling: str
    verdict: str
    note: str = ""


class Overriding(NamedTuple):
    """An override in force, with the journal seq of the record that made it: a ruling whose
    dice are re-rolled under an override keys them by that seq, so a replay finds them."""

    seq: int
    override: Override


class Event(NamedTuple):
    """One input of the fold, stamped with the journal record it came from.  A named tuple, not
    a frozen dataclass: the fold makes one per hub event, and a tuple is built in one C call."""

    seq: int
    body: Message | Input | HubLink
    mono: float | None = None  # the station's monotonic clock when it was journaled, seconds
    # A hub event's place on the one timeline (station/hubclock.py): whose clock its ``t`` is on
    # ("hub/boot"; "" in a journal from before several hubs), that time on the station's clock in
    # ms (None: not mapped yet), and the mapping's uncertainty in ms.
    clock: str = ""
    at: float | None = None
    err: float = 0.0


class Evolving:
    """The one way a frozen game state is copied with changes: ``dataclasses.replace`` without
    re-running ``__init__`` (a fold makes thousands of these), and a typo in a field name is an
    error, never a silently ignored keyword."""

    def evolve(self, **changes: Any) -> Self:
        fields = self.__dict__
        for name in changes:  # usually one or two: cheaper than a set difference of every field
            if name not in fields:
                raise TypeError(f"{type(self).__name__} has no field {name}")
        new = object.__new__(type(self))
        copy = new.__dict__
        copy.update(fields)
        copy.update(changes)
        return new


class RulingKind(StrEnum):
    """What a ruling is about; the dashboard styles and filters by it.  The values are what the
    journal and the API have always said, so old journals and clients read the same."""

    STATUS = "status"  # a change of state the rules made: a turn, a phase, damage taken, a unit out
    WARNING = "warning"  # something the referee must look at: a refusal, a doubt, a conflict
    SHOT = "shot"  # a shot or an attack and its result
    HIT = "hit"  # a hit the sensors saw, attributed to a shot
    MELEE = "melee"  # close combat
    MOVE = "move"  # a move measured from the camera
    INITIATIVE = "initiative"  # who acts first


@dataclass(frozen=True, slots=True)
class Ruling:
    """What the engine decided, in words and numbers, for the referee to confirm or override.

    ``id`` is stable across re-derivation (it names the evidence, not the position in a list),
    so a confirmation or override journaled later still finds it.
    """

    id: str
    cause: int  # journal seq of the evidence
    kind: RulingKind
    text: Text  # English as a str; its message lets a page say it in another language (station/rules/text.py)
    section: str  # the rulebook section(s) applied, e.g. "§6.7 Table 4"
    needs_referee: bool = False
    element: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    overridden: str | None = None  # the override verdict applied instead, if any
    refused: bool = False  # the input itself was refused: it changed nothing (table dice meant for it are dropped)

    def as_dict(self, message: bool = True) -> dict[str, Any]:
        """For the API, with the text's ``message`` for a page in another language; the journal
        keeps the English only (``message=False``): a replay derives the message again."""
        said = {
            "id": self.id,
            "cause": self.cause,
            "kind": self.kind,
            "text": self.text,
            "section": self.section,
            "needs_referee": self.needs_referee,
            "element": self.element,
            "details": dict(self.details),
            "overridden": self.overridden,
            **({"refused": True} if self.refused else {}),
        }
        return {**said, "message": self.text.message()} if message else said


def refusal(
    rid: str, seq: int, text: Text, section: str, kind: RulingKind = RulingKind.WARNING, element: str | None = None
) -> Ruling:
    """An input the rules refuse: said for the referee, who may override it, and marked so that
    the station knows it changed nothing (never by the words of its text)."""
    return Ruling(rid, seq, kind, text, section, needs_referee=True, element=element, refused=True)


S = TypeVar("S")


VOID_MEANS = "It did not happen: this ruling, and what followed from it, are undone."


def voided(
    overrides: Mapping[str, Overriding],
    seq: int,
    ruling_id: str,
    text: Text,
    kind: RulingKind = RulingKind.WARNING,
    section: str = "",
    element: str | None = None,
) -> Ruling | None:
    """The ruling that stands for one the referee voided (an override of ``ruling_id`` with the
    verdict "void"), or None: every game voids an input, an attack or a hit the same way."""
    override = overrides.get(ruling_id)
    if override and override[1].verdict == "void":
        return Ruling(ruling_id, seq, kind, text, section, needs_referee=True, element=element, overridden="void")
    return None


class Refused(Exception):
    """An input the rules do not allow now, with the section that says so: the handler's way of
    answering "no" with a ruling the referee can read (and override)."""

    def __init__(self, text: Text, section: str) -> None:
        super().__init__(text)
        self.text = text
        self.section = section


class ArmyError(DataFileError):
    """A bad army (or force) file: names the file, the field and what is wrong with it."""
