"""Бронепехота game state: immutable dataclasses, changed only by returning new copies.

Static facts from the army files (sensor wiring, durability scales) live in ``Setup``, shared by
every state of a game and never copied.  Everything that changes lives in ``GameState``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from ...dice import Roller
from ..hits import Fired, HitTracker, Stamp
from ..inputs import Inputs
from ..options import choice, declared, flag, integer, unconfirmed_rulings
from ..table_snapshot import TableState
from .army import CHARGES_BY_LAUNCHER, model_height
from .tables import speed_for_cell

REPAIR_MARK = "repair"  # in Element.fired: it repaired (or its pilot repaired it) this activation (§9.3)


@dataclass(frozen=True, slots=True)
class Mission:
    """§1.1, §12.1: what a player has to do to win besides destroying the enemy's soldiers."""

    objective: str  # capture | command_vehicle | hold_line | other
    target: str | None = None  # the enemy command vehicle, for command_vehicle
    note: str = ""  # the scenario's words: which objective, which line, for how long


@dataclass(frozen=True, slots=True)
class Options:
    """Game options agreed before the battle."""

    ammo: str = choice(("limited", "unlimited"), "§6.5", "Limited or unlimited ammunition")
    unconfirmed: str = unconfirmed_rulings("§12.2")
    hit_window_ms: int = integer(2500, 100, 60000, "§6.7", "A fall or impact this soon after a shot is its hit (ms)")
    settle_ms: int = integer(1500, 0, 60000, "§6.7", "An impact with no fall this long after it: the target stood (ms)")
    ammo_shortfall: str = choice(("refuse", "allow"), "§Z.9", "A shot costing more than the ammunition left")
    ammo_refills: int = integer(
        1, 0, 99, "§6.5, §7.7", "How often a machine may refill its ammunition in a game (the rulebook's example: once)"
    )
    pilot_test_on_destruction: bool = flag(True, "§Z.7", "The pilot still tests when the hit destroys the machine")
    shooting: str = choice(("real", "virtual"), "§1.2", "Real shooting (spring launchers, §6) or virtual (dice, §7)")
    measure_from: str = choice(("edge", "centre"), "§Z.10", "Range from base edge to base edge, or centre to centre")
    half_visible: str = choice(
        ("less", "more"), "§Z.11", "A target exactly half visible counts as less (+3) or more (+1)"
    )
    aimed_fire: bool = flag(True, "§11.1", "Optional: infantry who only shoot double their aimed range")
    grenades: bool = flag(True, "§7.8", "Optional: every infantryman carries grenades")
    weapon_properties: bool = flag(True, "§7.4 IV", "Optional: special properties such as exploding rockets")
    blast_hits_target: bool = flag(False, "§Z.12", "The primary target also takes an exploding weapon's 1D20")
    panic: bool = flag(False, "§11.2", "Optional: a Survival Test rolled exactly at the Бр panics the soldier")
    check_deployment: bool = flag(True, "§1.5-1.6", "Check costs and deployment areas when the first round begins")
    fallen_gun_needs_repair: bool = flag(
        True, "§6.7, §9.3", "A fallen gun acts again only after a Repair, like a vehicle (false: once it is upright)"
    )


OPTIONS = declared(Options, "Бронепехота")


@dataclass(frozen=True, slots=True)
class Weapon:
    """§7.1: a weapon for virtual shooting.  Range and Power are dice expressions."""

    id: str
    name: str
    range: str
    power: str
    properties: tuple[str, ...] = ()

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Weapon:
        return cls(data["id"], data["name"] or data["id"], data["range"], data["power"], tuple(data["properties"]))


@dataclass(frozen=True, slots=True)
class Launcher:
    node: str
    element: str
    barrels: int
    kind: str

    @property
    def charges(self) -> tuple[str, ...]:
        return CHARGES_BY_LAUNCHER[self.kind]


@dataclass(frozen=True, slots=True)
class Setup:
    """What the army files fixed for the whole game."""

    players: tuple[str, ...]
    armies: tuple[Mapping[str, Any], ...]
    tilt_nodes: Mapping[str, str]  # tilt node id -> element id
    launchers: Mapping[str, Launcher]  # launcher node id -> launcher
    scales: Mapping[str, Mapping[str, Any]]  # machine element id -> durability scale
    rate_of_fire: Mapping[str, int]
    ammo_max: Mapping[str, int]
    names: Mapping[str, str]
    bases: Mapping[str, str]  # element id -> named base size (station.measure.bases)
    locomotion: Mapping[str, str] = field(default_factory=dict)  # vehicle id -> wheeled | tracked | walking | flying
    weapons: Mapping[str, tuple[Weapon, ...]] = field(default_factory=dict)  # element id -> its weapons (§7.1)
    heights: Mapping[str, float] = field(default_factory=dict)  # element id -> model height, mm (line of sight)
    melee: Mapping[str, int] = field(
        default_factory=dict
    )  # element id -> ББ: an infantryman's, or a vehicle's melee weapons summed (§8.1)
    properties: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # Св: Rm, ПрN; a vehicle's repair_platform
    mobility: Mapping[str, str] = field(default_factory=dict)  # gun id -> mobile | stationary (§2.4)
    clearance: Mapping[str, float] = field(
        default_factory=dict
    )  # vehicle id -> the tallest obstacle it crosses (Table 2)


@dataclass(frozen=True, slots=True)
class Element:
    """A combat element (§2): an infantryman, a vehicle or a gun."""

    id: str
    player: str
    kind: str  # infantry | vehicle | gun
    unit: str | None  # the unit that activates it; guns belong to none (§2)
    rank: int
    armour: int  # infantry: Бр; machines: the durability cell under the slider (§5.2)
    speed: int
    posture: str = "upright"  # upright | fallen, from its tilt sensor
    destroyed: bool = False
    ammo: int | None = None
    pilot: str | None = None  # vehicles: the infantryman driving it (§2.3)
    aboard: str | None = None  # infantrymen: the vehicle they pilot
    needs_repair: bool = False  # §6.7: a fallen vehicle or gun may not act until repaired
    fired: frozenset[str] = frozenset()  # barrels fired this round (§6.4)

    @property
    def alive(self) -> bool:
        return not self.destroyed


@dataclass(frozen=True, slots=True)
class Unit:
    """What takes a turn (§1.1): an infantry squad, or a vehicle with its pilot."""

    id: str
    player: str
    kind: str  # squad | vehicle | pilot (a pilot on foot after his vehicle was destroyed)
    members: tuple[str, ...]
    acted: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class ShotRecord(Fired):
    """A real shot in its hit window (rules/hits.py), with what §6.7 Table 4 needs of it."""

    node: str
    barrel: int
    charge: str
    legal: bool


@dataclass(frozen=True)
class GameState(TableState):
    """Everything that changes during a game, on the table state every game shares (the camera's
    positions, uncertainty and paths, the terrain, overrides, confirmations).  Not slotted:
    ``evolve`` copies ``__dict__`` in one C call, which keeps the fold above 50,000 events/s
    (bench/replay_throughput.py)."""

    setup: Setup
    options: Options
    elements: Mapping[str, Element]
    units: Mapping[str, Unit]
    round: int = 0
    initiative: Mapping[str, int] = field(default_factory=dict)
    order: tuple[str, ...] = ()
    active_unit: str | None = None
    boot: str | None = None
    now: Stamp = Stamp(0)  # the latest hub event's time
    hits: HitTracker[ShotRecord] = HitTracker()  # real shots in their hit window, impacts waiting to settle
    counters: Mapping[str, int] = field(default_factory=dict)  # "node/barrel" -> last shot count
    out: tuple[str, ...] = ()  # players whose soldiers are all destroyed (§1.1)
    last_player: str | None = None  # who finished the latest activation (§3.2)
    clock: tuple[Stamp, float] | None = None  # the latest hub event's time and the station's monotonic s then
    boots: frozenset[str] = frozenset()  # every hub clock (hub/boot) introduced so far
    missions: Mapping[str, Mission] = field(default_factory=dict)  # player -> mission (§1.1)
    mission_won: str | None = None  # the player who completed his mission first (§12.1)
    refills: Mapping[str, int] = field(default_factory=dict)  # machine id -> ammunition refills so far (§6.5)

    def element(self, element_id: str) -> Element:
        return self.elements[element_id]

    def with_element(self, element: Element) -> GameState:
        return self.evolve(elements={**self.elements, element.id: element})

    def with_unit(self, unit: Unit) -> GameState:
        return self.evolve(units={**self.units, unit.id: unit})

    def speed_of(self, element: Element) -> int:
        scale = self.setup.scales.get(element.id)
        return speed_for_cell(scale["sectors"], element.armour) if scale else element.speed

    def can_act(self, unit: Unit) -> bool:
        """A unit can still take a turn: something alive in it, and a vehicle piloted and upright."""
        if unit.kind == "vehicle":
            vehicle = self.elements[unit.members[0]]
            return vehicle.alive and vehicle.pilot is not None and not vehicle.needs_repair
        return any(self.elements[m].alive and self.elements[m].aboard is None for m in unit.members)

    def active_player(self) -> str | None:
        """§3.2: players take units in turn order; a player with no unit left to act is skipped."""
        if self.round == 0:
            return None
        if self.active_unit is not None:
            return self.units[self.active_unit].player
        waiting = [
            p for p in self.order if any(u.player == p and not u.acted and self.can_act(u) for u in self.units.values())
        ]
        if not waiting:
            return None
        if self.last_player in self.order:
            i = self.order.index(self.last_player) + 1
            for player in self.order[i:] + self.order[:i]:
                if player in waiting:
                    return player
        return waiting[0]


def build_setup(armies: Sequence[Mapping[str, Any]]) -> tuple[Setup, dict[str, Element], dict[str, Unit]]:
    tilt: dict[str, str] = {}
    launchers: dict[str, Launcher] = {}
    scales: dict[str, Mapping[str, Any]] = {}
    rof: dict[str, int] = {}
    ammo_max: dict[str, int] = {}
    names: dict[str, str] = {}
    bases: dict[str, str] = {}
    locomotion: dict[str, str] = {}
    weapons: dict[str, tuple[Weapon, ...]] = {}
    heights: dict[str, float] = {}
    melee: dict[str, int] = {}
    properties: dict[str, tuple[str, ...]] = {}
    mobility: dict[str, str] = {}
    clearance: dict[str, float] = {}
    elements: dict[str, Element] = {}
    units: dict[str, Unit] = {}
    for army in armies:
        player = army["player"]
        pilots = {u["pilot"]: u["id"] for u in army["units"] if u.get("pilot")}
        for u in army["units"]:
            names[u["id"]] = u["name"] or u["id"]
            if u["type"] == "squad":
                for m in u["members"]:
                    names[m["id"]] = m["name"] or m["id"]
                    bases[m["id"]] = m.get("base") or "round25"
                    heights[m["id"]] = model_height(m, "infantry")
                    melee[m["id"]] = m["close_combat"]
                    properties[m["id"]] = tuple(m.get("properties", ()))
                    if m.get("weapon"):
                        weapons[m["id"]] = (Weapon.of(m["weapon"]),)
                    elements[m["id"]] = Element(
                        m["id"],
                        player,
                        "infantry",
                        u["id"],
                        m["rank"],
                        m["armour"],
                        m["speed"],
                        aboard=pilots.get(m["id"]),
                    )
                    if m.get("tilt_node"):
                        tilt[m["tilt_node"]] = m["id"]
                units[u["id"]] = Unit(u["id"], player, "squad", tuple(m["id"] for m in u["members"]))
                continue
            scale = u["durability"]
            scales[u["id"]] = scale
            bases[u["id"]] = u.get("base") or ("rect50x100" if u["type"] == "vehicle" else "rect25x50")
            heights[u["id"]] = model_height(u, u["type"])
            melee[u["id"]] = sum(w["power"] for w in u.get("melee", ()))
            properties[u["id"]] = tuple(u.get("properties", ()))
            if u["type"] == "gun":
                mobility[u["id"]] = u["mobility"]
            if u.get("weapons"):
                weapons[u["id"]] = tuple(Weapon.of(w) for w in u["weapons"])
            rof[u["id"]] = u["rate_of_fire"]
            ammo_max[u["id"]] = u["ammo_max"]
            is_vehicle = u["type"] == "vehicle"
            elements[u["id"]] = Element(
                u["id"],
                player,
                u["type"],
                u["id"] if is_vehicle else None,
                u["rank"],
                scale["max"],
                speed_for_cell(scale["sectors"], scale["max"]),
                ammo=u["ammo_max"],
                pilot=u.get("pilot") if is_vehicle else None,
            )
            if is_vehicle:
                units[u["id"]] = Unit(u["id"], player, "vehicle", (u["id"],))
                locomotion[u["id"]] = u["locomotion"]
                if u.get("clearance_mm") is not None:
                    clearance[u["id"]] = u["clearance_mm"]
            if u.get("tilt_node"):
                tilt[u["tilt_node"]] = u["id"]
            for launcher in u["launchers"]:
                launchers[launcher["node"]] = Launcher(launcher["node"], u["id"], launcher["barrels"], launcher["kind"])
    setup = Setup(
        tuple(a["player"] for a in armies),
        tuple(armies),
        MappingProxyType(tilt),
        MappingProxyType(launchers),
        MappingProxyType(scales),
        MappingProxyType(rof),
        MappingProxyType(ammo_max),
        MappingProxyType(names),
        MappingProxyType(bases),
        MappingProxyType(locomotion),
        MappingProxyType(weapons),
        MappingProxyType(heights),
        MappingProxyType(melee),
        MappingProxyType(properties),
        MappingProxyType(mobility),
        MappingProxyType(clearance),
    )
    return setup, elements, units


class Rules(Protocol):
    """What Бронепехота's handlers use besides the state: the injected roller."""

    roller: Roller


INPUTS: Inputs[Rules, GameState] = Inputs()  # every operator input, registered where its rule lives


Problem = tuple[str | None, str]  # a rule an action breaks, said, and its section; (None, "") when none is
