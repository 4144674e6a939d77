"""Steel Warriors game state: figures, squads with their Quality, Leadership, morale state,
suppression and prone flag, and the activation running (seed 001 digest §4-§5)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ...dice import Roller
from ...measure.bases import MM_PER_INCH
from ..base import Refused
from ..inputs import Inputs
from ..options import choice, declared, unconfirmed_rulings
from ..table_snapshot import TableState
from ..text import Text, say

ACTIONS = 2  # §5.0
MAX_SUPPRESSION = 3  # §6.7


@dataclass(frozen=True)
class Figure:
    id: str
    player: str
    squad: str
    weapon: str
    armour: str
    role: str
    flak_vest: bool = False
    ammo: int | None = None  # §6.10: shots left for limited weapons
    status: str = (
        "ok"  # ok | unverified (wounded) | stabilised | left (in a safe place) | killed | destroyed | prisoner
    )
    immobile: bool = False  # a robot that took its first wound (§6.9)
    melee_weapon: bool = False  # a fixed bayonet, sword or axe: +1 step in close combat (§8.1 step 9)
    android: bool = False  # no medic or surgeon bonus at reorganisation (§9)
    on_foot: bool = False  # a cavalryman who lost his horse (§6.9)

    @property
    def fighting(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class Squad:
    id: str
    player: str
    quality: int
    leadership: int
    morale: str
    movement: str
    figures: tuple[str, ...]
    terrifying: bool = False
    blades: bool = False  # cavalry charging «в клинки» (§8.1 step 6)
    medical_vehicle: bool = False  # +1 at reorganisation within 6" (§9)
    evasion_die: int | None = None  # §6.2: the die it rolls against guided missiles (the army file's)
    suppression: int = 0
    prone: bool = False
    march: bool = False  # §5.4: march order
    towing: str | None = None  # §5.2: trailer, slightly_overloaded, heavily_overloaded or manhandled


@dataclass(frozen=True)
class Activation:
    squad: str
    actions: int = ACTIONS
    unsuppressed: int = 0  # §6.7: at most 2
    reorganised: bool = False  # §9: at most 1
    fired: Mapping[str, int] = field(default_factory=dict)  # figure -> shots this activation (§6.3)
    dash_in: float | None = None  # §5.3: a combat move rolled and not yet made
    free_fire_losses: int = 0  # §8.1 step 5: casualties the defenders' free fire caused this squad


@dataclass(frozen=True)
class Options:
    distance_unit: str = choice(("inch", "cm"), "§2", "Measure in inches, or in centimetres read as inches")
    unconfirmed: str = unconfirmed_rulings("§13")
    cover_rule: str = choice(("all", "majority"), "§13.7", "A squad has cover if every figure has it, or most do")
    mixed_power: str = choice(("lowest", "highest"), "§13.6", "A fire group's Power when its small arms differ")
    vehicle_pivot: str = choice(
        ("action", "alone"),
        "§5.1",
        "A vehicle's turn in place costs an action of its own, or only when it does not also drive",
    )
    inspiration_test: str = choice(
        ("referee", "command"),
        "§10",
        "The inspiration test, whose procedure is lost: the referee's result, or the command test (Quality > Leadership)",
    )


OPTIONS = declared(Options, "Steel Warriors")


@dataclass(frozen=True)
class WarState(TableState):
    players: tuple[str, ...]
    armies: tuple[Mapping[str, Any], ...]
    options: Options
    figures: Mapping[str, Figure]
    squads: Mapping[str, Squad]
    turn: int = 0
    activated: frozenset[str] = frozenset()
    activation: Activation | None = None
    fired_on: Mapping[str, frozenset[str]] = field(default_factory=dict)  # squad -> squads that shot at it this turn

    def acting(self) -> Activation:
        """The activation in progress; an input that needs one and finds none is refused (§5.0)."""
        if self.activation is None:
            raise Refused(say("no activation is running"), "§5.0")
        return self.activation

    @property
    def unit_mm(self) -> float:
        """§2: the rules' inch, or a centimetre read as an inch (the allowed variant)."""
        return 10.0 if self.options.distance_unit == "cm" else MM_PER_INCH

    def with_figure(self, figure: Figure) -> WarState:
        return self.evolve(figures={**self.figures, figure.id: figure})

    def with_squad(self, squad: Squad) -> WarState:
        return self.evolve(squads={**self.squads, squad.id: squad})

    def fighting(self, squad: str) -> list[Figure]:
        return [self.figures[f] for f in self.squads[squad].figures if self.figures[f].fighting]

    def suppress(self, squad: str) -> WarState:
        s = self.squads[squad]
        return self.with_squad(replace(s, suppression=min(MAX_SUPPRESSION, s.suppression + 1)))


def build(armies: tuple[Mapping[str, Any], ...]) -> tuple[dict[str, Figure], dict[str, Squad]]:
    figures: dict[str, Figure] = {}
    squads: dict[str, Squad] = {}
    for army in armies:
        for s in army["squads"]:
            squads[s["id"]] = Squad(
                s["id"],
                army["player"],
                s["quality"],
                s["leadership"],
                s["morale"],
                s["movement"],
                tuple(x["id"] for x in s["figures"]),
                s["terrifying"],
                s.get("blades", False),
                s.get("medical_vehicle", False),
                s.get("evasion_die"),
            )
            for x in s["figures"]:
                figures[x["id"]] = Figure(
                    x["id"], army["player"], s["id"], x["weapon"], x["armour"], x["role"], x["flak_vest"], x["ammo"],
                    melee_weapon=x.get("melee_weapon", False), android=x.get("android", False),
                )  # fmt: skip
    return figures, squads


class Rules(Protocol):
    """What Steel Warriors' handlers use besides the state: the injected roller and the rules
    data (army.rules_data: weapons, armour, movement rates, towing)."""

    roller: Roller
    data: dict[str, Any]


INPUTS: Inputs[Rules, WarState] = Inputs()  # every operator input, registered where its rule lives


def named_become(
    state: WarState,
    named: Any,
    allowed: tuple[str, ...],
    status: str,
    not_allowed: Callable[[Any], Text],
    none_named: Text,
    section: str,
) -> tuple[WarState, list[str]]:
    """The figures the referee names (``named``, a JSON list) take ``status``; each must be in one
    of the ``allowed`` statuses, else the refusal says ``not_allowed(its id)``."""
    changed = []
    for fid in named or []:
        f = state.figures.get(str(fid))
        if f is None or f.status not in allowed:
            raise Refused(not_allowed(fid), section)
        state = state.with_figure(replace(f, status=status))
        changed.append(f.id)
    if not changed:
        raise Refused(none_named, section)
    return state, changed
