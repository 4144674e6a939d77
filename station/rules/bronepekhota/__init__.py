"""Бронепехота (seed 000), real shooting: §3 rounds, §5 damage, §6 real shooting.

``Bronepekhota(roller)`` is a pure ruleset: ``apply(state, event)`` returns a new state and the
rulings it made, rolling dice only through the injected roller.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...events import DryFire, Hello, Impact, Node, Overflow, Shot, Tilt, hub_time, sensor_inventory
from ...measure.units import BRONEPEKHOTA, Convention
from ..base import VOID_MEANS, Event, HubLink, Input, Overriding, Ruling, RulingKind
from ..hits import HitTracker, Stamp, hub_overflow, stamp_of
from ..inputs import Inputs
from ..model_fields import ArmyFormat, ModelRuleset
from ..options import UNCONFIRMED, OptionSet
from ..text import NOTHING, Text, joined, say
from ..view import STATUS_WORDS, ElementView, UnitView
from . import ammo, army, damage, melee, missions, moving, repair, shooting, turns, virtual  # noqa: F401  (each chapter registers its inputs)
from .army import check_armies
from .reach import reach
from .state import INPUTS, OPTIONS, GameState, build_setup
from .tables import cover
from .view import BronepekhotaView, state_view


class Bronepekhota(ModelRuleset[GameState]):
    name: ClassVar[str] = "bronepekhota"
    title: ClassVar[str] = "Бронепехота"
    override_verdicts: ClassVar[Sequence[str]] = ("void", "stood", "fell", "allow")
    inputs: ClassVar[Inputs[Any, Any]] = INPUTS
    controls: ClassVar[Sequence[tuple[str, str]]] = (
        ("begin_round", "Begin round"),
        ("end_activation", "End activation"),
    )

    def inputs_now(self, state: GameState) -> list[str]:
        """§3.2: the round's initiative first; then a unit activates, acts (shots are the
        launchers', jumps and repairs the referee's) and ends its activation."""
        if state.round == 0:
            return ["begin_round", "set_order"]
        if state.active_unit is None:
            return ["activate", "begin_round"]
        return ["virtual_shot", "close_combat", "jump", "repair", "leave_vehicle", "capture", "end_activation"]

    def reach(self, state: GameState, element: str) -> dict[str, Any]:
        """Rings (mm from the base's edge) and arcs (degrees from its facing) for the dashboard."""
        return reach(state, element)

    def cover(self, hidden_fraction: float) -> dict[str, Any]:
        return cover(hidden_fraction)

    def verdicts(self, ruling: Ruling) -> list[tuple[str, str]]:
        """§6.7: a hit's result is the model's state after it, which the referee may correct; a
        real shot's legality (§6.2–§6.4, §3.2) may be reversed either way."""
        if ruling.kind == RulingKind.HIT:
            return [
                ("stood", "The model stood: the Armour Test for a hit that did not knock it over."),
                ("fell", "The model was knocked over (or leaned): the test for a fall."),
                ("void", "It was not a hit of this shot (a ricochet, a hand, another shot): no test."),
            ]
        if ruling.kind == RulingKind.SHOT and "legal" in ruling.details:  # a real shot (shooting.on_shot)
            if not ruling.details["legal"]:
                return [("allow", "The shot was legal after all: it counts, with its ammunition.")]
            return [("void", "The shot was not legal: it does not count, nor do its hits.")]
        return [("void", VOID_MEANS)]

    def sensor_nodes(self, armies: Sequence[Mapping[str, Any]]) -> list[Node]:
        """The hub inventory these armies are wired to: every launcher and tilt node."""
        setup, _, _ = build_setup(armies)
        return [Node(launcher.node, "launcher", launcher.barrels) for launcher in setup.launchers.values()] + [
            Node(n, "tilt") for n in setup.tilt_nodes
        ]

    def initial_state(
        self,
        armies: Sequence[Mapping[str, Any]],
        options: Mapping[str, Any],
        overrides: Mapping[str, Overriding] | None = None,
    ) -> GameState:
        check_armies(armies)
        setup, elements, units = build_setup(armies)
        return GameState(setup, OPTIONS.build(options), elements, units, overrides=dict(overrides or {}))

    def apply(self, state: GameState, event: Event) -> tuple[GameState, list[Ruling]]:
        body, seq = event.body, event.seq
        if isinstance(body, Input):
            if body.type == "camera_posture":
                return self._camera_posture(state, seq, body.args, event.mono)
            return self._input(state, seq, body)
        if isinstance(body, HubLink):  # a hub away may hold a shot it has not sent
            return state.evolve(hits=state.hits.linked(body)), []
        hub_t = hub_time(body)
        when = stamp_of(event, hub_t) if hub_t is not None else None
        clock = (when, event.mono) if when is not None and event.mono is not None else None  # hub and station
        if isinstance(body, (Hello, Overflow)) or when is None:
            state = state.evolve(clock=clock) if clock else state
            if isinstance(body, Hello):
                return self._hello(state, seq, body, event.clock)
            if isinstance(body, Overflow):
                return state, [hub_overflow(seq, body.lost)]
            return state, []
        state, rulings = shooting.advance_time(state, when, self.roller, clock)
        if isinstance(body, Shot):
            state, more = shooting.on_shot(state, seq, body, when, self.roller)
        elif isinstance(body, Tilt):
            state, more = shooting.on_tilt(state, seq, body, when, self.roller)
        elif isinstance(body, Impact):
            state, more = shooting.on_impact(state, seq, body, when, self.roller)
        elif isinstance(body, DryFire):
            more = [
                Ruling(
                    f"{seq}:dry",
                    seq,
                    RulingKind.STATUS,
                    say(
                        "Dry fire on {node} barrel {barrel}: no projectile left the launcher.",
                        node=body.node,
                        barrel=body.barrel,
                    ),
                    "§6",
                )
            ]
        else:
            more = []
        return state, rulings + more

    def _camera_posture(
        self, state: GameState, seq: int, args: Mapping[str, Any], mono: float | None
    ) -> tuple[GameState, list[Ruling]]:
        """What the camera saw a model do.  A model with a tilt node is judged by its node; the
        camera only raises a question when they disagree.  A model without one is judged by the
        camera, at the hub time its clock pairing gives (§6.7: a fall soon after a shot is a hit)."""
        element = state.elements.get(str(args.get("element")))
        if element is None or element.destroyed or element.aboard:
            return state, []
        fallen = bool(args.get("fallen"))
        if element.id in state.setup.tilt_nodes.values():
            if fallen and element.posture == "upright":
                return state, [
                    Ruling(
                        f"{seq}:camera",
                        seq,
                        RulingKind.WARNING,
                        say(
                            "The camera sees {get} lying, but its tilt node says upright: check the model and its node.",
                            get=state.setup.names.get(element.id, element.id),
                        ),
                        "§6.7",
                        needs_referee=True,
                        element=element.id,
                    )
                ]
            return state, []
        t = state.now
        if state.clock is not None and mono is not None:  # on the clock of the latest hub event
            paired, paired_mono = state.clock
            later = max(0.0, (mono - paired_mono) * 1000)
            t = Stamp(int(paired.t + later), paired.clock, paired.at + later, paired.err)
            if t.since(state.now)[0] < 0:
                t = state.now
        state, rulings = shooting.advance_time(state, t, self.roller)
        state, more = shooting.posture_seen(state, seq, element.id, "fallen" if fallen else "upright", t, self.roller)
        return state, rulings + more

    def _hello(self, state: GameState, seq: int, hello: Hello, clock: str) -> tuple[GameState, list[Ruling]]:
        """A hub introduced itself.  Several hubs (``clock`` "hub/boot"): a new boot is a new
        clock, which the station maps like any other, so the shots in their windows stay.  One
        hub of an older journal (``clock`` ""): its reboot restarts the only clock there is, so
        pending impacts are settled as 'stood' first."""
        if clock:
            if clock in state.boots:
                return state, []
            hub = clock.partition("/")[0]
            heard = state.hits.heard(Stamp(0, clock))  # its shots may come late to evidence on another hub
            return state.evolve(boots=state.boots | {clock}, hits=heard), self._inventory_check(state, seq, hello, hub)
        if state.boot == hello.boot:
            return state, []
        rulings = self._inventory_check(state, seq, hello, "")
        if state.boot is not None:
            later = state.now.t + state.options.settle_ms + 1
            state, rulings = shooting.advance_time(state, Stamp(later, "", float(later)), self.roller)
        return state.evolve(boot=hello.boot, now=Stamp(0), hits=HitTracker()), rulings

    @staticmethod
    def _moving(state: GameState) -> tuple[str, ...]:
        """The models whose snapshots extend their path this activation (§4): the acting unit's,
        and its side's guns, which its soldiers may move (§4.1)."""
        if state.active_unit is None:
            return ()
        unit = state.units[state.active_unit]
        guns = (
            e.id for e in state.elements.values() if e.kind == "gun" and e.player == unit.player and not e.destroyed
        )
        return unit.members + tuple(guns)

    @staticmethod
    def _inventory_check(state: GameState, seq: int, hello: Hello, hub: str) -> list[Ruling]:
        """The armies' wiring against the hub's node list: a missing node means shots or falls of
        that model will never be seen, which the referee must know before the first shot.  With
        several hubs, a hub answers for the nodes wired to it by name ("T1@3F2A"); a bare "T1"
        may be on any of them, which the pre-game check sorts out."""
        missing, unknown = sensor_inventory(set(state.setup.tilt_nodes) | set(state.setup.launchers), hello, hub)
        if not missing and not unknown:
            return []
        parts = []
        if missing:
            parts.append(
                say("not connected to the hub: {missing} (watch those models by hand)", missing=", ".join(missing))
            )
        if unknown:
            parts.append(
                say("on the hub but in no army file: {unknown} (no model's: nothing to do)", unknown=", ".join(unknown))
            )
        # a missing node is the referee's to watch; a spare one on the hub (the rehearsal hub holds
        # every army's) is only said, never a decision waiting at the top of every game
        return [
            Ruling(
                f"{seq}:inventory",
                seq,
                RulingKind.WARNING if missing else RulingKind.STATUS,
                say("Sensor nodes ") + joined(parts, "; ") + ".",
                "",  # the hub, not a rulebook: no section to cite
                needs_referee=bool(missing),
            )
        ]

    def _input(self, state: GameState, seq: int, body: Input) -> tuple[GameState, list[Ruling]]:
        return INPUTS.dispatch(self, state, seq, body, state.elements, self._moving(state))

    mm_per_unit: ClassVar[float] = BRONEPEKHOTA.unit.mm  # seed 000 digest: 1 step = 5 cm
    convention: ClassVar[Convention] = BRONEPEKHOTA  # §7: steps of 5 cm, rounded up
    options: ClassVar[OptionSet[Any]] = OPTIONS
    army_format: ClassVar[ArmyFormat] = army

    def postures(self, state: GameState) -> dict[str, str]:
        """upright / fallen per element, from the hub's tilt nodes (for the camera tracker)."""
        return {
            e.id: ("fallen" if e.posture == "fallen" else "upright") for e in state.elements.values() if not e.destroyed
        }

    def state_view(self, state: GameState) -> BronepekhotaView:
        return state_view(state)

    def active_player(self, state: GameState) -> str | None:
        return state.active_player()

    def round_of(self, state: GameState) -> int:
        return state.round

    def pending_stands(self, state: GameState) -> bool:
        return state.options.unconfirmed == UNCONFIRMED[0]

    @staticmethod
    def _unit_line(unit: UnitView) -> Text:
        """One unit as a sentence: its status, and each model's (a vehicle's armour beside its own
        status, its passengers after it), by name on the pages."""

        def armour(e: ElementView) -> Text:
            if not e.get("durability_max"):
                return NOTHING
            return say(
                ", armour {armour}/{durability_max}", armour=e.get("armour", 0), durability_max=e["durability_max"]
            )

        own = next((e for e in unit["elements"] if e["id"] == unit["id"]), None)
        head = say("{unit}: {status}", unit=unit["id"], status=STATUS_WORDS[unit["status"]])
        models = [
            say("{model} {status}", model=e["id"], status=STATUS_WORDS[e["status"]]) + armour(e)
            for e in unit["elements"]
            if e is not own
        ]
        return (head + armour(own) if own else head) + (say("; ") + joined(models) if models else NOTHING)

    def summary(self, state: GameState) -> str:
        view = state_view(state)
        lines = [
            say("Бронепехота: round {round}", round=view["round"])
            + (say(", {player} to act", player=view["active_player"]) if view["active_player"] else NOTHING)
        ]
        for player in view["players"]:
            units = [u for u in view["units"] if u["player"] == player]
            alive = [u for u in units if u["status"] != "destroyed"]
            lines.append(
                say(
                    "  {player}: {alive_count}/{units_count} units in play",
                    player=player,
                    alive_count=len(alive),
                    units_count=len(units),
                )
                + (say(" (out of the game)") if player in view["out"] else "")
            )
            lines += ["    " + self._unit_line(u) for u in units]
        if view["winner"]:
            lines.append(say("  winner: {winner}", winner=view["winner"]))
        return joined(lines, "\n")
