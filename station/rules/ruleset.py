"""The interface every game's rules engine implements, and all the station may use of a game.

A ruleset is a pure fold: ``apply(state, event) -> (state, rulings)`` does no I/O and reads no
clock; its only outside input is the injected ``Roller``.  The events, rulings and overrides it
folds are base.py's; what it shows is view.py's; its options are options.py's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar

from ..events import Node
from ..measure.units import Convention
from .base import Event, Overriding, Ruling
from .input_args import Declared
from .options import OptionSet
from .view import StateView

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


class Ruleset(Protocol[S]):
    """What the station needs from a game, and all it may use: the CLI, the lobby, the camera and
    the dashboard reach a game through these names only.  ``S`` is the game's state type.
    Implementations live in ``station.rules.<game>``; tests/toy_duel.py is the smallest."""

    name: ClassVar[str]
    title: ClassVar[str]
    options: ClassVar[OptionSet[Any]]  # the options, each with its type, default and rulebook section
    override_verdicts: ClassVar[Sequence[str]]
    input_types: ClassVar[Sequence[str]]  # the operator inputs it takes
    declared_inputs: ClassVar[Mapping[str, Declared]]  # each operator input's section and arguments (input_args.py)
    controls: ClassVar[Sequence[tuple[str, str]]]  # (input, label): the dashboard's buttons for the referee
    mm_per_unit: ClassVar[float]  # the game's unit of distance (an inch, a 5 cm step), for the camera's snapshots
    convention: ClassVar[Convention]  # how the game measures: its unit, the points measured from, rounding
    dashboard: ClassVar[DashboardParts]  # the game's own parts of the dashboard
    card_library: ClassVar[str | None]  # the file of the club's card library in the data folder, if it keeps one
    table_die: ClassVar[int]  # the sides of the die the game rolls most: the table dice the page offers first

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

    def round_of(self, state: S) -> int:
        """The round (or turn) being played: a ruling still pending from an earlier one stands
        unchallenged unless the game's option ``unconfirmed`` says it waits (station/fold.py)."""

    def active_player(self, state: S) -> str | None:
        """The player to act now (their clock runs: station/playerclock.py), or None."""

    def pending_stands(self, state: S) -> bool:
        """Whether a ruling still pending when its round ended stands unchallenged (the game's
        option ``unconfirmed``), or keeps waiting for the referee (station/fold.py)."""

    def postures(self, state: S) -> dict[str, str]:
        """Each model's posture as the hub's tilt nodes last reported it (the camera defers to it)."""

    def verdicts(self, ruling: Ruling) -> list[tuple[str, str]]:
        """The overrides that fit this ruling, each with one line saying what it does: the
        referee is offered these, not every verdict the game knows."""

    def inputs_now(self, state: S) -> list[str]:
        """The inputs that fit the game as it stands, the likeliest first (the action panel
        offers these before the rest); none named: the panel keeps the declared order."""

    def preview(self, state: S, input_type: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """What an operator input would rule if made now, without making it (Alpha Strike's
        attack: the target number and why), so a picker can show it before the referee commits;
        ``{"refused": why}`` when it would be refused or the game has no preview for it."""


def state_json(ruleset: Ruleset[Any], state: Any) -> str:
    """Canonical JSON: sorted keys, no spaces; equal states give identical bytes."""
    return json.dumps(ruleset.state_view(state), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
