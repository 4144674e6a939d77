"""Alpha Strike's game state (seed 004 digest §3-§4, §11-§12): the forces, each unit's card as
play has marked it, the turn and its phase, what each unit declared and did this turn, and the
handlers' table of operator inputs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...dice import Roller
from ..inputs import Inputs
from ..table_snapshot import TableState
from ..text import Text
from .cards import UnitState
from .heat import TurnHeat
from .options import Options

PHASES = ("initiative", "movement", "combat", "end")  # §4


@dataclass(frozen=True)
class AlphaState(TableState):
    players: tuple[str, ...]
    forces: tuple[Mapping[str, Any], ...]
    options: Options
    units: Mapping[str, UnitState]
    turn: int = 0
    setup_winner: str | None = None  # §3.2
    home_edges: Mapping[str, str] = field(default_factory=dict)  # player -> bottom | top | left | right (§3.4)
    phase: str = "initiative"  # initiative | movement | combat | end
    order: tuple[str, ...] = ()  # the initiative loser first (§4.1)
    moves: Mapping[str, str] = field(default_factory=dict)  # unit -> still | ground | jump, this turn
    moved_in: Mapping[str, float] = field(default_factory=dict)  # inches travelled, for charges
    attacked: frozenset[str] = frozenset()  # unit ids, and "id/rear" for REAR attacks (§10.3)
    special_targets: frozenset[str] = frozenset()  # declared targets of a charge or DFA this turn (§8.2)
    rear_fired: Mapping[str, int] = field(
        default_factory=dict
    )  # unit -> what its REAR attack takes off the forward one
    snipers: frozenset[str] = frozenset()  # this turn's Snipers (§11.2)
    lucky_used: Mapping[str, int] = field(default_factory=dict)  # player -> Lucky re-rolls spent (§11.1)
    last_miss: Any = None  # (seq, AttackPlan) of the attack just missed, which a Lucky use may re-roll
    combat_side: int = 0  # index in ``order`` of the side attacking now (§4.3)
    combat_start: Mapping[str, UnitState] = field(default_factory=dict)  # the units as the Combat Phase began
    heat_turn: Mapping[str, TurnHeat] = field(default_factory=dict)
    removed: frozenset[str] = frozenset()
    winner: str | None = None
    won_by: Text | None = None
    left_by: Mapping[str, str] = field(default_factory=dict)  # unit -> the table edge it left by (§4.5)
    flag_held: tuple[str, int] | None = (
        None  # the side holding the flag, End Phases in a row (§4.5)  # the victory condition that won (§4.5, §12)
    )

    def with_unit(self, unit: UnitState) -> AlphaState:
        return self.evolve(units={**self.units, unit.id: unit})

    def in_play(self, player: str | None = None) -> list[UnitState]:
        return [u for u in self.units.values() if u.id not in self.removed and (player is None or u.player == player)]


class Rules(Protocol):
    """What Alpha Strike's handlers use besides the state: the injected roller."""

    roller: Roller


INPUTS: Inputs[Rules, AlphaState] = Inputs()  # every operator input, registered where its rule lives
