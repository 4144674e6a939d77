"""A seeded simulation of game night: the live game, its replay and a resumed game must agree.

In the spirit of FoundationDB's simulation tests: every actor of a club evening is played on one
real journal and one real ``Game``, and a seed decides how they interleave.

- **Hubs** (three boards, each with its own id, drifting clock and boot) journal their lines as
  the serial link does (an ``rx`` record tagged with the hub, and ``clock`` records mapping its
  clock), then hand the record to the engine's queue; a hub may reset (a new boot, unmapped until
  its next clock record), send a line the link judged bad (journaled, never applied), and be
  unplugged (its link's ``lost`` and ``connected`` records, its later lines after them).
- **The engine** takes the queue in order, later, whenever the seed lets it (``Game.observe``).
- **Two phones** tap referee inputs (begin a round, set the order, activate, end an activation),
  confirm and override rulings at once, as a web request does.
- **The camera** journals what it saw a model do.

Each actor keeps its own order; which one moves next is the seed's.  At the end, the live game's
state and rulings must equal ``fold`` of the journal (``station replay``) and those of a game
resumed from the file, every ruling must be journaled, and none may hold a non-finite number.

``python bench/game_night.py --seeds 100000`` runs many; ``tests/test_game_night.py`` 1,000.
"""

from __future__ import annotations

import copy
import json
import random
import tempfile
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from station.devices import protocol as p
from station.fold import FoldResult, fold
from station.game import Game
from station.hubclock import ClockMap
from station.journal import Journal, read_records
from station.rules.bronepekhota.army import load_army

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
HUBS = ("A1A1", "B2B2", "C3C3")
NODES = tuple(
    [p.Node(f"L{n}", "launcher", 2) for n in (1, 2, 3, 4, 21, 22, 23)]
    + [p.Node(f"T{n}", "tilt") for n in (1, 2, 3, 21, 22, 23, *range(11, 17), *range(31, 37))]
)
WINDOW_MS = 600  # the game's hit window (option hit_window_ms)


def wired_armies() -> list[dict[str, Any]]:
    """The example armies with every node on a hub: blue's launchers on A1A1, red's on B2B2, the
    infantry's tilt nodes on C3C3, each vehicle's tilt node on its own side's hub."""
    armies = [copy.deepcopy(load_army(EXAMPLES / name)) for name in ("blue-protectorate.json", "red-polaris.json")]
    for army, hub in zip(armies, ("A1A1", "B2B2"), strict=True):
        for unit in army["units"]:
            for launcher in unit.get("launchers", []):
                launcher["node"] = f"{launcher['node']}@{hub}"
            if unit.get("tilt_node"):
                unit["tilt_node"] = f"{unit['tilt_node']}@{hub}"
            for member in unit.get("members", []):
                member["tilt_node"] = f"{member['tilt_node']}@C3C3"
    return armies


@dataclass
class SimHub:
    """One board: its id, boot, drift and protocol numbering, and the station time of its boot."""

    tag: str
    drift_ppm: float
    booted_at_ms: float
    boot: str = "0001"
    seq: int = 0
    boots: int = 1

    def t_at(self, station_ms: float) -> int:
        return int((station_ms - self.booted_at_ms) * (1 + self.drift_ppm * 1e-6))

    def line(self, message_type: type[p.Message], **fields: Any) -> str:
        self.seq += 1
        return p.encode(message_type(self.seq, **fields)).decode().strip()

    def hello(self) -> str:
        return self.line(p.Hello, fw="sim", proto=p.PROTOCOL_VERSION, boot=self.boot, nodes=NODES, hub=self.tag)

    def reset(self, station_ms: float) -> None:
        self.boots += 1
        self.boot, self.seq, self.booted_at_ms = f"{self.boots:04X}", 0, station_ms

    def clock(self, station_ms: float, rng: random.Random) -> dict[str, Any]:
        """The link's mapping of this boot's clock, as honest as clocksync's: err bounds the truth."""
        h0 = self.t_at(station_ms)
        true_s0 = self.booted_at_ms + h0 / (1 + self.drift_ppm * 1e-6)
        err = rng.uniform(0.3, 2.0)
        rate = 1 / (1 + self.drift_ppm * 1e-6)
        mapping = ClockMap(self.tag, self.boot, h0, true_s0 + rng.uniform(-err, err) * 0.5, rate, err, 5e-6, 8)
        return mapping.record()


Step = Callable[[], None]


@dataclass
class Night:
    """One evening's script, per actor, made from the seed; ``play`` interleaves it."""

    seed: int
    directory: Path
    rng: random.Random = field(init=False)
    hubs: dict[str, SimHub] = field(init=False)
    actors: dict[str, deque[Step]] = field(default_factory=dict)
    engine: deque[dict[str, Any]] = field(default_factory=deque)
    game: Game = field(init=False)
    journal: Journal = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.journal = Journal(self.directory / f"night-{self.seed}.jsonl")
        options = {"hit_window_ms": WINDOW_MS}
        self.game = Game(self.journal, "bronepekhota", wired_armies(), options, rng=random.Random(self.seed))
        rng = self.rng
        self.hubs = {
            tag: SimHub(tag, rng.choice((0.0, rng.uniform(-2000, 2000))), -rng.uniform(0, 30_000)) for tag in HUBS
        }
        self._script()

    # -- the script ---------------------------------------------------------------------------------
    def _script(self) -> None:
        rng = self.rng
        lines: dict[str, deque[Step]] = {tag: deque() for tag in HUBS}
        for hub in self.hubs.values():
            lines[hub.tag].append(self._rx(hub, hub.hello(), "control"))
            lines[hub.tag].append(self._clock(hub, 0.0))
        now = 1_000.0
        counts: dict[tuple[str, int], int] = {}
        launchers = [(n.id, hub) for hub in ("A1A1", "B2B2") for n in NODES if n.kind == "launcher"]
        blue_tilts = [("T1", "A1A1"), ("T2", "A1A1"), ("T3", "A1A1")]
        red_tilts = [("T21", "B2B2"), ("T22", "B2B2"), ("T23", "B2B2")]
        infantry = [(f"T{n}", "C3C3") for n in (*range(11, 17), *range(31, 37))]
        for _ in range(rng.randint(6, 14)):
            now += rng.uniform(200, 3_000)
            what = rng.random()
            if what < 0.6:  # a shot, maybe a hit on a model of another hub
                node, tag = rng.choice(launchers)
                barrel = rng.randint(1, 2)
                counts[(node, barrel)] = counts.get((node, barrel), 0) + 1
                shooter = self.hubs[tag]
                shot = shooter.line(
                    p.Shot,
                    node=node,
                    barrel=barrel,
                    charge=rng.choice(("shell", "rocket")),
                    count=counts[(node, barrel)],
                    t=shooter.t_at(now),
                )
                lines[tag].append(self._rx(shooter, shot))
                if rng.random() < 0.8:
                    target_node, target_tag = rng.choice(red_tilts if tag == "A1A1" else blue_tilts + infantry)
                    target_tag = target_tag if rng.random() < 0.8 else "C3C3"
                    target = self.hubs[target_tag]
                    at = now + rng.choice((rng.uniform(5, WINDOW_MS + 100), rng.uniform(WINDOW_MS - 3, WINDOW_MS + 3)))
                    if rng.random() < 0.5:
                        line = target.line(p.Impact, node=target_node, g=rng.uniform(2, 40), t=target.t_at(at))
                        lines[target_tag].append(self._rx(target, line))
                        at += rng.uniform(5, 400)
                    state = rng.choice(("fallen", "fallen", "leaning"))
                    line = target.line(p.Tilt, node=target_node, state=state, angle=80, t=target.t_at(at))
                    lines[target_tag].append(self._rx(target, line))
            elif what < 0.7:  # a hub resets: a new boot, its clock unmapped until the next mapping
                hub = self.hubs[rng.choice(HUBS)]
                hub.reset(now)
                lines[hub.tag].append(self._rx(hub, hub.hello(), "control"))
                if rng.random() < 0.6:
                    lines[hub.tag].append(self._clock(hub, now + rng.uniform(100, 2_000)))
            elif what < 0.8:  # a model stood up again
                node, tag = rng.choice(blue_tilts + red_tilts + infantry)
                hub = self.hubs[tag]
                lines[tag].append(self._rx(hub, hub.line(p.Tilt, node=node, state="upright", angle=2, t=hub.t_at(now))))
            elif what < 0.9:  # a line the link judged bad: journaled for the audit, never applied
                hub = self.hubs[rng.choice(HUBS)]
                lines[hub.tag].append(self._bad(hub))
            elif what < 0.95:  # the clocks mapped again
                hub = self.hubs[rng.choice(HUBS)]
                lines[hub.tag].append(self._clock(hub, now))
            else:  # a hub unplugged: its later lines come after the replug, as its link resends them
                tag = rng.choice(HUBS)
                lines[tag].extend((self._link(tag, "lost"), self._link(tag, "connected")))
        for tag in HUBS:
            self.actors[f"hub {tag}"] = lines[tag]
        self.actors["phone 1"] = deque(self._taps(opening=True))
        self.actors["phone 2"] = deque(self._taps(opening=False))
        self.actors["camera"] = deque(self._camera_step() for _ in range(rng.randint(0, 4)))

    def _rx(self, hub: SimHub, line: str, verdict: str = "event") -> Step:
        def step() -> None:
            self.engine.append(self.journal.append("rx", line=line, verdict=verdict, hub=hub.tag))

        return step

    def _link(self, tag: str, state: str) -> Step:
        def step() -> None:  # the link's reader journals it; whoever applies next takes it in order
            self.journal.append("link", state=state, url=f"/dev/hub-{tag}", hub=tag)

        return step

    def _bad(self, hub: SimHub) -> Step:
        def step() -> None:
            self.journal.append("rx", line="SHOT 9 garbage*0000", verdict="bad", error="bad CRC", hub=hub.tag)

        return step

    def _clock(self, hub: SimHub, station_ms: float) -> Step:
        record = hub.clock(station_ms, self.rng)  # the boot in force when it was scripted

        def step() -> None:
            self.engine.append(self.journal.append("clock", **record))

        return step

    def _taps(self, opening: bool) -> Iterator[Step]:
        rng = self.rng
        if opening:
            yield lambda: self.game.operator_input("begin_round")
            yield lambda: self.game.operator_input("set_order", {"order": ["blue", "red"]})
        for _ in range(rng.randint(3, 10)):
            tap = rng.random()
            if tap < 0.2:
                unit = rng.choice(("gryphon", "t-rex", "twin-cannon", "salamander", "varan", "mortar", "clones"))
                yield lambda unit=unit: self.game.operator_input("activate", {"unit": unit})
            elif tap < 0.35:
                yield lambda: self.game.operator_input("end_activation")
            elif tap < 0.45:
                yield lambda: self.game.operator_input("begin_round")
            elif tap < 0.75:
                yield self._confirm
            else:
                yield self._override

    def _recent(self) -> list[dict[str, Any]]:
        return [r for r in self.game.snapshot(recent=30)["rulings"] if r["status"] == "pending"]

    def _confirm(self) -> None:
        pending = self._recent()
        if pending:
            self.game.confirm(self.rng.choice(pending)["id"])

    def _override(self) -> None:
        pending = self._recent()
        if not pending:
            return
        ruling = self.rng.choice(pending)["id"]
        verdicts = self.game.verdicts(ruling)
        if verdicts:
            self.game.override(ruling, self.rng.choice(verdicts)[0], note="sim")

    def _camera_step(self) -> Step:
        element = self.rng.choice(("cyber-1", "clone-2", "gryphon", "varan"))
        event = self.rng.choice(("ModelFell", "ModelUp"))
        return lambda: self.game.observe_camera({"event": event, "element": element})

    # -- the evening ------------------------------------------------------------------------------
    def play(self) -> None:
        """Every actor's steps, interleaved by the seed; the engine runs among them and drains last."""
        while True:
            ready = [name for name, steps in self.actors.items() if steps]
            if self.engine:
                ready.append("engine")
            if not ready:
                return
            name = self.rng.choice(ready)
            if name == "engine":
                self.game.observe(self.engine.popleft())
            else:
                self.actors[name].popleft()()


@dataclass(frozen=True)
class Verdict:
    """What one seed found: empty ``problems`` when live, replay and resume agree."""

    seed: int
    records: int
    rulings: int
    problems: tuple[str, ...]


def _rulings(views: list[dict[str, Any]]) -> list[str]:
    """Rulings as a screen sees them (text, details, status), comparable as strings."""
    return [json.dumps(view, sort_keys=True) for view in views]


def _folded(result: FoldResult) -> list[str]:
    return _rulings([{**r.as_dict(), "status": result.status(r)} for r in result.rulings])


def _non_finite(rulings: list[str]) -> list[str]:
    return [r for r in rulings if "Infinity" in r or "NaN" in r]


def check_night(seed: int, directory: Path | None = None) -> Verdict:
    """Play one seed's night and compare the live game with its replay and a resumed game."""
    with tempfile.TemporaryDirectory(dir=directory) as folder:
        night = Night(seed, Path(folder))
        problems: list[str] = []
        try:
            night.play()
            live_state, live_rulings = night.game.state_json(), _rulings(night.game.snapshot()["rulings"])
            errors = night.game.errors
            try:  # what the dashboard is served: strict JSON, as a browser reads it
                json.dumps(night.game.snapshot(), allow_nan=False, default=str)
            except ValueError as exc:
                problems.append(f"the game's snapshot cannot be served: {exc}")
        finally:
            night.journal.close()
        records = read_records(night.journal.path)
        replay = fold(records)
        if errors:
            problems.append(f"the rules failed on {errors} record(s) in the live game")
        if replay.state_json() != live_state:
            problems.append("the replay's state differs from the live game's")
        if _folded(replay) != live_rulings:
            problems.append("the replay's rulings differ from the live game's")
        journaled = {r["ruling"]["id"]: r["ruling"] for r in records if r["kind"] == "ruling"}  # the latest of each
        shown = [json.loads(r) for r in live_rulings]
        lost = [r["id"] for r in shown if journaled.get(r["id"]) != {k: r[k] for k in journaled.get(r["id"], r)}]
        if lost:
            problems.append(f"{len(lost)} live ruling(s) not journaled as shown: {', '.join(lost[:3])}")
        if _non_finite(live_rulings):
            problems.append(f"a ruling holds a non-finite number: {_non_finite(live_rulings)[0][:200]}")
        with Journal(night.journal.path) as journal:
            resumed = Game(journal)
            if resumed.state_json() != live_state or _rulings(resumed.snapshot()["rulings"]) != live_rulings:
                problems.append("a resumed game differs from the live game")
        return Verdict(seed, len(records), len(live_rulings), tuple(problems))
