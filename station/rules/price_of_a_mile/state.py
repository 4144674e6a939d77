"""The Price of a Mile game state: every base and character (``Fighter``), every squad, and the
turn's activations, with the camera's evidence.  Frozen dataclasses, changed with ``evolve``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...datafile import Fields
from ...measure.bases import MM_PER_INCH
from ..base import Refused
from ..table_snapshot import TableState

INCH = MM_PER_INCH  # the game's unit, for every module of the ruleset
COMMAND_IN = 2.0  # §3.2
CONTACT_IN = 1.0  # §5.4


@dataclass(frozen=True)
class Fighter:
    """A base or a character (§3.1)."""

    id: str
    player: str
    squad: str | None  # None: a character acting alone
    type: str
    stats: Mapping[str, int]
    weapon: str
    melee_weapon: str
    cost: float
    grenades: bool = False
    hero: bool = False
    commander: bool = False
    mounted: bool = False
    status: str = "ok"  # ok | out (a casualty) | fled (§13.3)
    fuel_spent: bool = False  # a flamethrower (§9.1)
    vehicle: str | None = None  # "vehicle" or "tank" (§15)
    damage: int = 0  # §15: damage points; 10 destroys
    immobilised: bool = False
    disordered: bool = False  # a vehicle that failed its Morale test (§15.1, settled as Disorder)
    stuck: bool = False  # on barbed wire (§5.7)
    silenced: bool = False  # its weapon misfired for good (§6.10)
    insulted: bool = False  # §16.9: it must charge its insulter, rolling 2d10 and keeping the worse
    aboard: str | None = None  # the truck carrying it (§15.1): off the table until it gets down
    mounts: int = 1  # §15.2-15.3: the weapons on board (a tank fires them all at once)
    wire_cutters: bool = False  # §5.8

    @property
    def standing(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class Squad:
    id: str
    player: str
    type: str
    bases: tuple[str, ...]
    rules: tuple[str, ...] = ()
    disordered: bool = False


@dataclass(frozen=True)
class Options:
    turns: int = 5  # §4.1
    tactical_superiority: str | None = None  # §4.2: the side that has it (+2 initiative)
    melee_weapon_power: bool = True  # §19: the loser's damage Power is 1 + the winner's melee weapon Power
    scatter_sides: int = 12  # the arrow die, read as a clock face (12: straight up the table)
    gas_attack: str | None = None  # §14: the defending side, which starts at -1 Morale
    high_obstacle_mm: float = 40.0  # §5.5: obstacles taller than this are high (agreed before the game)
    random_length: bool = False  # §16.1: from the end of turn 3, d10s decide when the game ends
    random_length_wishers: int = 0  # §16.1: players who want it to end (one more die each)
    wire_penalty: int = 1  # §5.7, §19: Melee and Shooting lost while stuck on the wire
    artillery_support: str | None = None  # §16.4: the side with heavy guns behind it
    treacherous: tuple[str, ...] = ()  # §16.3: terrain pieces that are treacherous
    popular: tuple[str, ...] = ()  # §16.10: commanders whose bodies are carried off
    popularity_vp: float = 10.0  # §16.10, §18: the points for carrying one off (the source gives none)
    enthusiasm_variant: bool = False  # §16.6: an Enthusiastic squad's fled bases count as killed
    homeland_variant: bool = False  # §16.7: a Homeland squad's killed bases count double

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> Options:
        f = Fields("options", dict(data))
        f.reject_unknown(
            [
                "turns",
                "tactical_superiority",
                "melee_weapon_power",
                "scatter_sides",
                "gas_attack",
                "high_obstacle_mm",
                "random_length",
                "random_length_wishers",
                "wire_penalty",
                "artillery_support",
                "treacherous",
                "popular",
                "popularity_vp",
                "enthusiasm_variant",
                "homeland_variant",
            ]
        )
        return cls(
            f.integer("turns", 1, 30, 5),
            f.get("tactical_superiority", str, None),
            f.get("melee_weapon_power", bool, True),
            f.get("scatter_sides", int, 12, lambda v: None if v in (6, 8, 12) else "must be 6, 8 or 12"),
            f.get("gas_attack", str, None),
            float(
                f.get("high_obstacle_mm", (int, float), 40.0, lambda v: None if 0 <= v <= 500 else "must be 0 to 500")
            ),
            f.get("random_length", bool, False),
            f.integer("random_length_wishers", 0, 2, 0),
            f.integer("wire_penalty", 0, 3, 1),
            f.get("artillery_support", str, None),
            tuple(f.get("treacherous", list, [])),
            tuple(f.get("popular", list, [])),
            float(f.get("popularity_vp", (int, float), 10.0)),
            f.get("enthusiasm_variant", bool, False),
            f.get("homeland_variant", bool, False),
        )

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Activation:
    """The squad and character acting now (§4.3), what each has left, and what happened to whom."""

    player: str
    squad: str | None
    character: str | None
    actions: Mapping[str, int]  # fighter -> actions left (§4.4)
    out_of_command: bool = False  # §3.2: -1 to every stat this activation
    strength: Mapping[str, int] = field(default_factory=dict)  # squad -> bases standing when it began
    shaken: frozenset[str] = frozenset()  # squads under artillery, tank or flame fire (§13.1)
    shot_with: Mapping[str, int] = field(default_factory=dict)  # fighter -> actions spent shooting
    advanced: frozenset[str] = frozenset()  # bases whose moves took them towards the enemy
    wits_used: bool = False  # §16.9: a character's War of Wits, once an activation


@dataclass(frozen=True)
class MileState(TableState):
    players: tuple[str, ...]
    armies: tuple[Mapping[str, Any], ...]
    options: Options
    fighters: Mapping[str, Fighter]
    squads: Mapping[str, Squad]
    turn: int = 0
    order: tuple[str, ...] = ()  # who activates when: the first two may be one player's (§4.2)
    activated: frozenset[str] = frozenset()  # squads and characters that have acted this turn
    activation: Activation | None = None
    activations_made: int = 0
    over: bool = False
    gassed: bool = False  # §14 has been rolled
    cut_wire: frozenset[str] = frozenset()  # wire pieces with a gap cut (§5.8)
    support_markers: tuple[tuple[float, float], ...] = ()  # §16.4
    carried: frozenset[str] = frozenset()  # §16.10: popular commanders' bodies carried to the end
    tanks_fired: frozenset[str] = frozenset()  # §15.2: a tank fires all its weapons once a turn
    winner: str | None = None

    def acting(self) -> Activation:
        """The activation in progress; an order that needs one and finds none is refused (§4.3)."""
        if self.activation is None:
            raise Refused("no activation is running", "§4.3")
        return self.activation

    def with_fighter(self, fighter: Fighter) -> MileState:
        return self.evolve(fighters={**self.fighters, fighter.id: fighter})

    def with_squad(self, squad: Squad) -> MileState:
        return self.evolve(squads={**self.squads, squad.id: squad})

    def standing(self, squad: str) -> list[Fighter]:
        return [self.fighters[b] for b in self.squads[squad].bases if self.fighters[b].standing]

    def stat(self, fighter: Fighter, name: str) -> int:
        """A stat as it counts now: -1 to all while the acting squad is out of command (§3.2),
        -1 Morale when Disordered (§13.2) or after a gas attack (§14)."""
        value = fighter.stats[name]
        act = self.activation
        if act and act.out_of_command and fighter.squad == act.squad and fighter.squad is not None:
            value -= 1
        if name == "morale" and ((fighter.squad and self.squads[fighter.squad].disordered) or fighter.disordered):
            value -= 1
        if name == "morale" and self.options.gas_attack == fighter.player:
            value -= 1
        if fighter.stuck and name in ("melee", "shooting"):  # §5.7, §19: stuck on the wire, -1
            value -= self.options.wire_penalty
        squad = self.squads[fighter.squad] if fighter.squad else None
        rules = squad.rules if squad else ()
        if name == "morale" and "enthusiasm" in rules and squad is not None and not squad.disordered:  # §16.6
            value += 1
        if name == "speed" and "hold_the_line" in rules:  # §16.5
            value -= 1
        return value


def build(armies: tuple[Mapping[str, Any], ...]) -> tuple[dict[str, Fighter], dict[str, Squad]]:
    fighters: dict[str, Fighter] = {}
    squads: dict[str, Squad] = {}
    for army in armies:
        for s in army["squads"]:
            squads[s["id"]] = Squad(
                s["id"], army["player"], s["type"], tuple(b["id"] for b in s["bases"]), tuple(s["rules"])
            )
            for b in s["bases"]:
                fighters[b["id"]] = _fighter(b, army["player"], s["id"])
        for c in army["characters"]:
            fighters[c["id"]] = _fighter(c, army["player"], None)
    return fighters, squads


def _fighter(model: Mapping[str, Any], player: str, squad: str | None) -> Fighter:
    return Fighter(
        model["id"],
        player,
        squad,
        model["type"],
        dict(model["stats"]),
        model["weapon"],
        model["melee_weapon"],
        model["cost"],
        model["grenades"],
        model["hero"],
        model["commander"],
        model["mounted"],
        vehicle=model.get("vehicle"),
        wire_cutters=model["wire_cutters"],
        mounts=model.get("mounts", 1),
    )
