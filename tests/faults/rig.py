"""The whole station against the simulated hub, and a scripted game to play through it.

A fault test plays ``SCRIPT`` with some fault, then checks the three things the issue asks of every
fault: nothing lost or doubled (``applied`` equals the script), the same rulings a clean pass gives
(``reference_rulings``), and a clear status on the dashboard's own API.
"""

from __future__ import annotations

import random
import tempfile
import threading
import time
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

from station.devices import protocol as p
from station.devices.hubsim import SimulatedHub
from station.dice import DiceBook
from station.game import Game
from station.journal import Journal, read_records
from station.rules.bronepekhota import Bronepekhota
from station.runtime import Station
from station.web.app import create_app

from ..conftest import REFEREE, REFEREE_TOKEN
from ..test_link import wait_for

SEED = 2
OPENING = (("begin_round", {}), ("set_order", {"order": ["blue", "red"]}))
BLUE_LAUNCHERS = (("L1", 2), ("L2", 1), ("L3", 1), ("L4", 2))
RED_TILTS = ("T31", "T32", "T33", "T34", "T35", "T36", "T21", "T22", "T23")


def script(events: int = 30, seed: int = 11) -> list[tuple]:
    """Blue shoots at red: shots, then (mostly) a fall or an impact on a red model 300 ms later,
    sometimes a model set upright again.  Hub times are explicit, so rulings do not depend on
    when a line happened to arrive."""
    rng = random.Random(seed)
    steps: list[tuple] = []
    t = 1000
    while len(steps) < events:
        node, barrels = rng.choice(BLUE_LAUNCHERS)
        steps.append(("shot", node, rng.randint(1, barrels), rng.choice(("shell", "shell", "rocket")), t))
        roll = rng.random()
        if roll < 0.5:
            steps.append(("tilt", rng.choice(RED_TILTS), "fallen", 80, t + 300))
        elif roll < 0.7:
            steps.append(("impact", rng.choice(RED_TILTS), 6.5, t + 250))
        elif roll < 0.8:
            steps.append(("tilt", rng.choice(RED_TILTS), "upright", 2, t + 400))
        t += 4000
    return steps[:events]


def send(hub: SimulatedHub, step: tuple) -> int:
    kind, node, *rest = step
    if kind == "shot":
        barrel, charge, t = rest
        return hub.shot(node, barrel, charge, t=t)
    if kind == "tilt":
        state, angle, t = rest
        return hub.tilt(node, state, angle, t=t)
    g, t = rest
    return hub.impact(node, g, t=t)


class Emitter:
    """The table: fires ``steps`` at ``rate`` events a second, whatever the station is doing (in
    5 ms batches), going round again later in hub time when they run out, as a real hub's clock
    would; notes when each hub SEQ was written."""

    def __init__(self, hub: SimulatedHub, steps: list[tuple], rate: float) -> None:
        self.hub, self.steps, self.rate = hub, steps, rate
        self.span = steps[-1][-1] + 4000  # hub ms one round of the script takes
        self.sent_at = array("d", [0.0])  # indexed by hub SEQ
        self.sent = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def step(self, index: int) -> tuple:
        """The ``index``-th event fired: the script's, shifted by the rounds gone before."""
        step = self.steps[index % len(self.steps)]
        return step[:-1] + (step[-1] + index // len(self.steps) * self.span,)

    def fired(self) -> list[tuple]:
        return [self.step(i) for i in range(self.sent)]

    def _run(self) -> None:
        start = time.perf_counter()
        while not self._stop.is_set():
            due = int((time.perf_counter() - start) * self.rate)
            while self.sent < due:
                now = time.perf_counter()
                seq = send(self.hub, self.step(self.sent))
                if seq:
                    self.sent_at.extend([0.0] * (seq + 1 - len(self.sent_at)))
                    self.sent_at[seq] = now
                self.sent += 1
            time.sleep(0.005)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def same_event(step: tuple, message: p.Message) -> bool:
    """The script's step and an applied hub line are the same event (SEQ and counters aside)."""
    kind, node, *rest = step
    if kind == "shot":
        return isinstance(message, p.Shot) and (message.node, message.barrel, message.charge, message.t) == (
            node,
            *rest,
        )
    if kind == "tilt":
        return isinstance(message, p.Tilt) and (message.node, message.state, message.angle, message.t) == (node, *rest)
    return isinstance(message, p.Impact) and (message.node, message.g, message.t) == (node, *rest)


def applied(path: Path) -> list[p.Message]:
    """The hub events the journal says were applied, in order."""
    return [
        p.decode(r["line"])
        for r in read_records(path)
        if r["kind"] == "rx" and r["verdict"] == "event" and not r["line"].startswith("OVF")
    ]


def ruling_keys(rulings: list[dict[str, Any]]) -> list[tuple]:
    """Rulings as they read, without the ids (which count journal records, faults included)."""
    return [(r["kind"], r["element"], r["text"], r["needs_referee"]) for r in rulings]


def reference_rulings(armies, lines: list[str]) -> list[tuple]:
    """What a clean pass makes of the same hub lines: no link, no faults, the same dice seed."""
    with tempfile.TemporaryDirectory() as folder:
        journal = Journal(Path(folder) / "clean.jsonl")
        game = Game(journal, "bronepekhota", armies, {}, rng=random.Random(SEED))
        for type_, args in OPENING:
            game.operator_input(type_, args)
        for line in lines:
            game.observe(journal.append("rx", line=line, verdict="event"))
        keys = ruling_keys([r.as_dict() for r in game._result.rulings])
        journal.close()
    return keys


class Rig:
    """Hub, station and the dashboard's API client, ready to play ``SCRIPT``."""

    def __init__(
        self,
        folder: Path,
        armies,
        journal: Path | None = None,
        fault_seed: int = 0,
        heartbeat: float = 0.2,
        **station_args: Any,
    ) -> None:
        self.armies = armies
        self.path = journal or folder / "game.jsonl"
        nodes = Bronepekhota(DiceBook()).sensor_nodes(armies)
        self.hub = SimulatedHub(folder / "hub", nodes=nodes, heartbeat=heartbeat, fault_seed=fault_seed).start()
        self.station = Station(self.path, "bronepekhota", armies, {}, self.hub.path, seed=SEED, **station_args).start()
        self.client = create_app(self.station, REFEREE_TOKEN).test_client()
        wait_for(lambda: self.health()["state"] == "connected" and self.health()["hub_boot"], what="the hub's HELLO")
        for type_, args in OPENING:
            assert (
                self.client.post("/api/input", json={"type": type_, "args": args}, headers=REFEREE).status_code == 200
            )

    def health(self) -> dict[str, Any]:
        return self.client.get("/api/health").get_json()

    def play(self, steps: list[tuple], before: Callable[[int], None] | None = None, pace: float = 0.005) -> None:
        for index, step in enumerate(steps):
            if before:
                before(index)
            send(self.hub, step)
            time.sleep(pace)

    def settle(self, steps: list[tuple], timeout: float = 20.0) -> None:
        """Wait until every step is applied and the hub holds nothing unacknowledged."""
        wait_for(
            lambda: len(applied(self.path)) >= len(steps) and self.hub.pending() == 0,
            timeout,
            what=f"{len(steps)} events applied and ACKed (have {len(applied(self.path))})",
        )
        wait_for(lambda: self.station._inbox.empty(), what="the engine to catch up")
        time.sleep(0.05)

    def check(self, steps: list[tuple]) -> dict[str, Any]:
        """No event lost or applied twice, the rulings of a clean pass, and a replay that agrees."""
        events = applied(self.path)
        assert len(events) == len(steps), f"{len(events)} events applied for {len(steps)} sent"
        assert all(same_event(s, m) for s, m in zip(steps, events)), "events applied out of order or altered"
        live = self.client.get("/api/state?rulings=all").get_json()
        lines = [r["line"] for r in read_records(self.path) if r["kind"] == "rx" and r["verdict"] == "event"]
        assert ruling_keys(live["rulings"]) == reference_rulings(self.armies, lines)
        from station.fold import fold

        assert ruling_keys([r.as_dict() for r in fold(read_records(self.path)).rulings]) == ruling_keys(live["rulings"])
        return live

    def close(self) -> None:
        self.station.stop()
        self.hub.stop()
