"""The interface every game's rules engine implements.

A ruleset is a pure fold: ``apply(state, event) -> (state, rulings)`` does no I/O and reads no
clock; its only outside input is the injected ``Roller``.  States are immutable, so an old state
stays valid after ``apply`` and a replay can be compared byte for byte through ``state_json``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol, Self, TypeVar

from ..datafile import DataFileError
from ..events import Message, Node
from ..measure.units import Convention
from .text import Text

if TYPE_CHECKING:
    from .options import OptionSet
    from .view import StateView


@dataclass(frozen=True, slots=True)
class Input:
    """An operator input from the dashboard or CLI.  ``type`` names it; ``args`` are its fields."""

    type: str
    args: Mapping[str, Any] = field(default_factory=dict)


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


@dataclass(frozen=True, slots=True)
class Event:
    """One input of the fold, stamped with the journal record it came from."""

    seq: int
    body: Message | Input
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
        unknown = changes.keys() - self.__dict__.keys()
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {', '.join(sorted(unknown))}")
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__, **changes)
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
        }
        return {**said, "message": self.text.message()} if message else said


S = TypeVar("S")


@dataclass(frozen=True)
class DashboardParts:
    """What a game adds to the dashboard of its own: the layout of its unit cards (``"unit"``, the
    common one, or a name its script registers), a script from the station's static folder that
    draws it, and whether it has an attack wizard (a picker that previews an attack before the
    referee makes it).  The page asks the ruleset, so the web layer names no game."""

    card: str = "unit"
    script: str | None = None
    attack_wizard: bool = False


@dataclass
class ImportReport:
    """What adding cards to a game's club library did: each card added or updated by name, each
    record skipped with why, for the referee to read; ``cards`` is the library's size after."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "<record>: <why>"
    cards: int = 0

    def summary(self) -> str:
        return f"{len(self.added)} added, {len(self.updated)} updated, {len(self.skipped)} skipped"


VOID_MEANS = "It did not happen: this ruling, and what followed from it, are undone."


class Ruleset(Protocol[S]):
    """What the station needs from a game, and all it may use: the CLI, the lobby, the camera and
    the dashboard reach a game through these names only.  ``S`` is the game's state type.
    Implementations live in ``station.rules.<game>``; tests/toy_duel.py is the smallest."""

    name: ClassVar[str]
    title: ClassVar[str]
    options: ClassVar[OptionSet[Any]]  # the options, each with its type, default and rulebook section
    override_verdicts: ClassVar[Sequence[str]]
    input_types: ClassVar[Sequence[str]]  # the operator inputs it takes
    controls: ClassVar[Sequence[tuple[str, str]]]  # (input, label): the dashboard's buttons for the referee
    mm_per_unit: ClassVar[float]  # the game's unit of distance (an inch, a 5 cm step), for the camera's snapshots
    convention: ClassVar[Convention]  # how the game measures: its unit, the points measured from, rounding
    dashboard: ClassVar[DashboardParts]  # the game's own parts of the dashboard
    card_library: ClassVar[str | None]  # the file of the club's card library in the data folder, if it keeps one

    def load_army(self, path: str) -> dict[str, Any]:
        """Read and validate one army file; errors name the file, the field and the problem."""

    def army_schema(self) -> dict[str, Any]:
        """The army file's format as a JSON Schema (for the lobby's upload and editors)."""

    def import_cards(self, pasted: Any, source: str, library_file: Path) -> ImportReport:
        """Add pasted unit cards (Alpha Strike's Master Unit List records) to the club's library
        file ``library_file``; a bad record is skipped and said why.  ArmyError for a game without one."""

    def marker_specs(self, armies: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Camera markers: id, size_mm, height_mm, offset_mm, element, unit, player."""

    def model_specs(self, armies: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Every model: ``element``, ``unit``, ``player``, ``kind``, ``base`` (a named size) and ``marker``."""

    def reach(self, state: S, element: str) -> dict[str, Any]:
        """For the dashboard: ``rings`` [{label, mm}] measured from the model's edge (move
        allowance, weapon ranges) and ``arcs`` [{label, centre_deg, half_width_deg}] from its facing."""

    def cover(self, hidden_fraction: float) -> dict[str, Any]:
        """What the share of a target hidden behind terrain means in this game's cover rules."""

    def sensor_nodes(self, armies: Sequence[Mapping[str, Any]]) -> list[Node]:
        """The hub's node inventory that these armies are wired to (none without launchers)."""

    def initial_state(
        self,
        armies: Sequence[Mapping[str, Any]],
        options: Mapping[str, Any],
        overrides: Mapping[str, Overriding] | None = None,
    ) -> S:
        """The state before the first event; ``overrides`` maps a ruling id to the override in
        force and the seq of its record (overrides act retroactively, so a replay starts with them)."""

    def apply(self, state: S, event: Event) -> tuple[S, list[Ruling]]: ...

    def state_view(self, state: S) -> StateView:
        """Plain JSON-able view of the state, for the API, the dashboard and replay checks."""

    def summary(self, state: S) -> str: ...

    def postures(self, state: S) -> dict[str, str]:
        """Each model's posture as the hub's tilt nodes last reported it (the camera defers to it)."""

    def verdicts(self, ruling: Ruling) -> list[tuple[str, str]]:
        """The overrides that fit this ruling, each with one line saying what it does: the
        referee is offered these, not every verdict the game knows."""

    def preview(self, state: S, input_type: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """What an operator input would rule if made now, without making it (Alpha Strike's
        attack: the target number and why), so a picker can show it before the referee commits;
        ``{"refused": why}`` when it would be refused or the game has no preview for it."""


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


def state_json(ruleset: Ruleset[Any], state: Any) -> str:
    """Canonical JSON: sorted keys, no spaces; equal states give identical bytes."""
    return json.dumps(ruleset.state_view(state), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Refused(Exception):
    """An input the rules do not allow now, with the section that says so: the handler's way of
    answering "no" with a ruling the referee can read (and override)."""

    def __init__(self, text: Text, section: str) -> None:
        super().__init__(text)
        self.text = text
        self.section = section


class ArmyError(DataFileError):
    """A bad army (or force) file: names the file, the field and what is wrong with it."""
