"""The quick rules' game state: one fighter per model, whose player-turn it is, and what each
fighter has done this turn (digest §4.3: at most one shot and one close combat, three actions)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ...dice import Roller
from ..hits import Fired, HitTracker, Stamp
from ..inputs import Inputs
from ..options import declared, flag, integer, number, table, unconfirmed_rulings
from ..table_snapshot import TableState
from .army import model_height


@dataclass(frozen=True)
class Options:
    # §5: the source lost the numbers of Manoeuvre by Armour, so the default rows are OUR placeholders
    maneuver_by_armour: tuple[tuple[int, int], ...] = table(
        {5: 4, 7: 3, 9: 2}, 0, 50, "§5", "Infantry Manoeuvre in steps by lowest Armour (sample: the source lost it)"
    )
    unconfirmed: str = unconfirmed_rulings("§15")
    step_cm: float = number(5.0, 1, 20, "§1", "The length of a step in cm (not in the surviving text)")
    simultaneous_return: bool = flag(True, "§10, §15", "The return strike is worked out from the state before combat")
    hit_window_ms: int = integer(2500, 100, 60000, "§11", "A fall this soon after a real shot is its hit (ms)")
    settle_ms: int = integer(1500, 0, 60000, "§11", "An impact with no fall this long after it: the target stood (ms)")

    def maneuver_for(self, armour: int) -> int:
        """§5: the row whose lowest Armour is at or below it; lighter kit than the table covers moves most."""
        rows = [steps for low, steps in self.maneuver_by_armour if armour >= low]
        return rows[-1] if rows else self.maneuver_by_armour[0][1]


OPTIONS = declared(Options, "Бронепехота, quick rules")


@dataclass(frozen=True, slots=True)
class Weapon:
    id: str
    name: str
    kind: str  # virtual | real
    powerful_melee: bool = False
    launcher: str | None = None
    barrels: int = 0


@dataclass(frozen=True, slots=True)
class Fighter:
    """One model: its card, its wounds and damage, and this turn's actions (§4.3)."""

    id: str
    name: str
    player: str
    kind: str  # infantry | cyborg | vehicle | gun
    armour: int
    shooting: int
    melee: int
    maneuver: int
    durability: int | None
    weapons: tuple[Weapon, ...]
    base: str
    height_mm: float
    tilt_node: str | None = None
    damage: int = 0
    wounded: bool = False
    dead: bool = False
    shot: bool = False  # the shooting action is used
    fought: bool = False  # the close-combat action is used
    fired: frozenset[str] = frozenset()  # weapons fired this turn (§6.1)
    fired_gun: bool = False  # he fired a gun, so not his own weapon (§6.1)

    @property
    def soldier(self) -> bool:
        return self.kind in ("infantry", "cyborg")


@dataclass(frozen=True)
class QuickState(TableState):
    players: tuple[str, ...]
    armies: tuple[Mapping[str, Any], ...]
    options: Options
    fighters: Mapping[str, Fighter]
    turn: int = 0  # player-turns played; 0 before the roll-off
    order: tuple[str, ...] = ()
    grenade_used: bool = False  # §6.1: one grenade a player-turn, for the whole side
    winner: str | None = None
    now: Stamp = Stamp(0)  # the latest hub event's time
    hits: HitTracker[Fired] = HitTracker()  # real shots in their hit window, impacts waiting to settle (§11)

    def with_fighter(self, fighter: Fighter) -> QuickState:
        return self.evolve(fighters={**self.fighters, fighter.id: fighter})

    @property
    def active_player(self) -> str | None:
        return self.order[(self.turn - 1) % len(self.order)] if self.turn and self.order and not self.winner else None

    @property
    def step_mm(self) -> float:
        return self.options.step_cm * 10.0


def build(armies: Sequence[Mapping[str, Any]], options: Options) -> dict[str, Fighter]:
    fighters = {}
    for army in armies:
        for u in army["units"]:
            weapons = tuple(
                Weapon(w["id"], w["name"] or w["id"], w["kind"], w["powerful_melee"], w["launcher"], w["barrels"])
                for w in u["weapons"]
            )
            maneuver = u["maneuver"] if u["maneuver"] is not None else options.maneuver_for(u["armour"])
            fighters[u["id"]] = Fighter(
                u["id"],
                u["name"] or u["id"],
                army["player"],
                u["kind"],
                u["armour"],
                u["shooting"],
                u["melee"],
                maneuver,
                u.get("durability"),
                weapons,
                u["base"],
                model_height(u),
                u["tilt_node"],
            )
    return fighters


class Rules(Protocol):
    """What the quick rules' handlers use besides the state: the injected roller."""

    roller: Roller


INPUTS: Inputs[Rules, QuickState] = Inputs()  # every operator input, registered where its rule lives
