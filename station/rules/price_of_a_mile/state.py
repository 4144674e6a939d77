"""The Price of a Mile game state: every base and character (``Fighter``), every squad, and the
turn's activations, with the camera's evidence.  Frozen dataclasses, changed with ``evolve``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ...dice import Roller
from ...measure.bases import MM_PER_INCH
from ..base import Refused
from ..inputs import Inputs
from ..options import choice, declared, flag, integer, names, number, one_of, side, unconfirmed_rulings
from ..table_snapshot import TableState
from ..text import Text, say

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
    name: str = ""  # the army's name for it, if it gives one (the pages say it instead of the id)

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
    neutral: bool = False  # §16.8 «Я с тобой говорю!»: does nothing; whoever attacks it sends it over


@dataclass(frozen=True)
class Options:
    turns: int = integer(5, 1, 30, "§4.1", "How many turns the game lasts")
    unconfirmed: str = unconfirmed_rulings("§19")
    tactical_superiority: str | None = side("§4.2", "The side with tactical superiority (+2 initiative)")
    melee_weapon_power: bool = flag(True, "§19", "The loser's damage Power is 1 + the winner's melee weapon Power")
    scatter_sides: int = one_of(
        12, (6, 8, 12), "§9.2", "The arrow die, read as a clock face (12: straight up the table)"
    )
    gas_attack: str | None = side("§14", "The defending side under a gas attack (starts at -1 Morale)")
    high_obstacle_mm: float = number(40.0, 0, 500, "§5.5", "Obstacles taller than this are high (mm, agreed before)")
    random_length: bool = flag(False, "§16.1", "From the end of turn 3, d10s decide when the game ends")
    random_length_wishers: int = integer(0, 0, 2, "§16.1", "Players who want the game to end (one more die each)")
    wire_penalty: int = integer(1, 0, 3, "§5.7, §19", "Melee and Shooting lost while stuck on the wire")
    artillery_support: str | None = side("§16.4", "The side with heavy guns behind it")
    treacherous: tuple[str, ...] = names("§16.3", "Terrain pieces that are treacherous")
    popular: tuple[str, ...] = names("§16.10", "Commanders whose bodies are carried off")
    popularity_vp: float = number(10.0, 0, 1000, "§16.10, §18", "Points for carrying one off (the source gives none)")
    enthusiasm_variant: bool = flag(False, "§16.6", "An Enthusiastic squad's fled bases count as killed")
    homeland_variant: bool = flag(False, "§16.7", "A Homeland squad's killed bases count double")
    hero_morale: str = choice(
        ("hero", "squad"),
        "§12.1",
        "A Hero «автоматически проходит» Morale tests: he alone (his squad tests, he never flees), or his whole squad",
    )
    regroup_failure: str = choice(
        ("flee", "stay"),
        "§13.4",
        "A Disordered squad failing its regroup test: bases flee as on any second Disorder (§13.2), or it only stays Disordered",
    )
    vehicle_melee_hand_held: bool = flag(
        False,
        "§15.1",
        "The Power 3 blow to a vehicle that loses a melee counts as hand-held small arms (never immobilises)",
    )


OPTIONS = declared(Options, "The Price of a Mile")


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
    moved: frozenset[str] = frozenset()  # bases that made a Move this activation (§6.7: a heavy MG may not fire)
    wits_used: bool = False  # §16.9: a character's War of Wits, once an activation
    threw: frozenset[str] = frozenset()  # bases that threw grenades: pistols only from then on (§8.1)
    unreliable: str = ""  # §16.8: "shoot_once" («Сам иди тудой!») or "go_home" («Айда по домам!»)


@dataclass(frozen=True)
class Landing:
    """A template the dice have scattered with no camera to lay it (§8.1, §9.2, §9.3): the referee
    lays it on the table and names the bases under it (the ``blast`` input)."""

    seq: int  # the order that threw or fired it
    what: str  # "grenade", "mortar", "field_gun"
    thrower: str
    power: int
    morale: bool  # artillery: every squad under it tests Morale (§9.2, §13.1)


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
    landing: Landing | None = None  # a template scattered, waiting for the referee to name who is under it
    standing_orders: Mapping[str, str] = field(default_factory=dict)  # base -> an order to break command (§3.2)
    may_follow: Mapping[str, str] = field(default_factory=dict)  # melee winner -> hero | cavalry | storm
    followed: Mapping[str, str] = field(default_factory=dict)  # followed up: its next melee's bonus (§10.4, §12)
    deceived: Mapping[str, tuple[float, float] | None] = field(default_factory=dict)  # §16.9: where it stood

    def acting(self) -> Activation:
        """The activation in progress; an order that needs one and finds none is refused (§4.3)."""
        if self.activation is None:
            raise Refused(say("no activation is running"), "§4.3")
        return self.activation

    def await_template(self, landing: Landing) -> tuple[MileState, Text]:
        """A scattered template waits for the referee to lay it: what to ask them.  A template
        never laid is dropped by the next one, and the ruling says so."""
        ask = say('Lay the 2" template there and name the bases under it (Blast).')
        if self.landing is not None:
            ask += say(" The template of order {seq} was never laid: it is dropped.", seq=self.landing.seq)
        return self.evolve(landing=landing), ask

    def with_fighter(self, fighter: Fighter) -> MileState:
        return self.evolve(fighters={**self.fighters, fighter.id: fighter})

    def with_squad(self, squad: Squad) -> MileState:
        return self.evolve(squads={**self.squads, squad.id: squad})

    def with_side(self, squad_id: str, player: str, unreliable: bool = True) -> MileState:
        """A squad gone over to ``player`` (§16.8), no longer neutral; Unreliable still unless not."""
        squad = self.squads[squad_id]
        rules = squad.rules if unreliable else tuple(r for r in squad.rules if r != "unreliable")
        state = self.with_squad(replace(squad, player=player, rules=rules, neutral=False))
        for fid in squad.bases:
            state = state.with_fighter(replace(state.fighters[fid], player=player))
        return state

    def neutral(self, fighter: Fighter) -> bool:
        """Its squad turned neutral (§16.8 «Я с тобой говорю!»): either side may attack it."""
        return fighter.squad is not None and self.squads[fighter.squad].neutral

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
        name=model["name"],
    )


RulesOf = Callable[[Fighter], tuple[str, ...]]  # a base's special rules: its troop type's and its squad's


class Rules(Protocol):
    """What The Price of a Mile's handlers use besides the state: the injected roller, the rules
    data (army.rules_data: weapons, melee weapons, troop types) and each base's special rules."""

    roller: Roller
    data: dict[str, Any]

    def rules_of(self, state: MileState) -> RulesOf: ...


INPUTS: Inputs[Rules, MileState] = Inputs()  # every operator input, registered where its rule lives
