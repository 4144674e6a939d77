"""A whole table on ten hubs, as hardware.md wires the example armies board by board: the
boards, the game's pace (every barrel fires at a model on another board) and the flood, shared by
``bench/many_hubs.py`` (its docstring says what each measures) and tests/test_many_hubs.py."""

from __future__ import annotations

import copy
import multiprocessing
import random
import statistics
import tempfile
import time
from pathlib import Path

from station.devices import protocol as p
from station.devices.board import SimulatedBoard
from station.devices.hubsim import SimulatedHub
from station.devices.probe import set_hub_id
from station.hubclock import ClockMap
from station.journal import read_records
from station.rules.bronepekhota.army import load_army
from station.runtime import Station

ROOT = Path(__file__).resolve().parent.parent.parent
ELF = ROOT / "firmware" / "build" / "hub.elf"
DEFAULT_NODES = (p.Node("L1", "launcher", 2), p.Node("L2", "launcher", 1), p.Node("T1", "tilt"), p.Node("T2", "tilt"))
REAL_BOARD = "B001"
# hardware.md "Wiring a real table": army node -> (board id, the board's own node)
WIRING = {
    "L1": ("B001", "L1"), "L2": ("B001", "L2"), "T1": ("B001", "T1"), "T2": ("B001", "T2"),
    "L4": ("B002", "L1"), "L3": ("B002", "L2"), "T3": ("B002", "T1"), "T11": ("B002", "T2"),
    "T12": ("B003", "T1"), "T13": ("B003", "T2"), "T14": ("B004", "T1"), "T15": ("B004", "T2"),
    "T16": ("B005", "T1"),
    "L21": ("A001", "L1"), "L23": ("A001", "L2"), "T21": ("A001", "T1"), "T23": ("A001", "T2"),
    "L22": ("A002", "L1"), "T22": ("A002", "T1"), "T31": ("A002", "T2"),
    "T32": ("A003", "T1"), "T33": ("A003", "T2"), "T34": ("A004", "T1"), "T35": ("A004", "T2"),
    "T36": ("A005", "T1"),
}  # fmt: skip
BOARDS = sorted({board for board, _ in WIRING.values()})
# The real board's script (sim seconds from its start): its three barrels, then its two falls.
# (army node, barrel, trigger pin, gate pin) and (tilt node, its ADC pin): the real board's parts
REAL_SHOTS = (("L1", 1, "D2", "D3"), ("L1", 2, "D4", "D5"), ("L2", 1, "D6", "D7"))
REAL_FALLS = (("T1", "A0"), ("T2", "A3"))
WINDOW_MS = 2500  # the game's hit window (Бронепехота's default)
# Which model each shot hits, always on another board (models riding in a vehicle are left out:
# a fall of theirs is a hit on the vehicle's pilot figure): launcher, barrel -> target tilt node
TARGETS = {
    ("L1", 1): "T21", ("L1", 2): "T22", ("L2", 1): "T23", ("L3", 1): "T33", ("L4", 1): "T34", ("L4", 2): "T35",
    ("L21", 1): "T3", ("L21", 2): "T11", ("L22", 1): "T12", ("L22", 2): "T13", ("L23", 1): "T1",
}  # fmt: skip
LATE_SHOT_AT = {"T1": ("L23", 1)}  # the real board's T1 falls first; red's mortar line is sent after it
NO_SHOT_FALLS = ("T2", "T14", "T15", "T16", "T31", "T32", "T36")
NO_SHOT_ALONE = 3  # of them, T2, T14 and T36 are models on their own (the rest ride in vehicles)


def armies() -> list[dict]:
    """The example armies with every node named with its board."""
    out = []
    for name in ("blue-protectorate.json", "red-polaris.json"):
        army = copy.deepcopy(load_army(ROOT / "examples" / name))
        for unit in army["units"]:
            for launcher in unit.get("launchers", []):
                board, node = WIRING[launcher["node"]]
                launcher["node"] = f"{node}@{board}"
            for model in [unit, *unit.get("members", [])]:
                if model.get("tilt_node"):
                    board, node = WIRING[model["tilt_node"]]
                    model["tilt_node"] = f"{node}@{board}"
        out.append(army)
    return out


def spacing_s(window_ms: int) -> float:
    """Time between one shot and the next: its window closes first, so one shot is in any window."""
    return window_ms / 1000 + 0.5


FIRST_REAL_SHOT_S = 12.0  # simulated time, after every hub's clock is mapped


def real_board_script(path: Path, window_ms: int) -> None:
    """The real board fires its three barrels from 12 s on, one window apart (its clock is mapped
    within 5.5-7.5 s on a 2-core machine: a shot before that raced the mapping); its two tilt
    nodes fall once every simulated hub's shot is over (the simulated pairs take one window each)."""
    gap, lines = spacing_s(window_ms), []
    for k, (_, _, trigger, gate) in enumerate(REAL_SHOTS):
        at = FIRST_REAL_SHOT_S + k * gap
        lines += [f"t={at:.3f} pin {trigger} low 30ms", f"t={at + 0.010:.3f} pin {gate} low 3ms"]
    first_fall = FIRST_REAL_SHOT_S + (len(REAL_SHOTS) + len(TARGETS) + 4) * gap
    for k, (_, adc) in enumerate(REAL_FALLS):
        lines.append(f"t={first_fall + 2 * k * gap:.3f} adc {adc} x=0.95 y=0 z=0.3")
    lines.append("t=600 end")
    path.write_text("\n".join(lines) + "\n")


class Table:
    def __init__(self, folder: Path, rng: random.Random, window_ms: int = WINDOW_MS) -> None:
        self.window_ms = window_ms
        real_board_script(folder / "real.txt", window_ms)
        self.board = SimulatedBoard(ELF, folder / "real.txt", folder / "real").start()
        if not any(set_hub_id(self.board.path, REAL_BOARD) for _ in range(3)):  # once it has booted
            raise SystemExit("the real board did not take its id: is firmware/build/hub.elf bronehub/1.2?")
        self.hubs = {
            board: SimulatedHub(
                folder / board,
                DEFAULT_NODES,
                boot=f"{i:04X}",
                hub_id=board,
                drift_ppm=rng.uniform(-150, 150),
                uptime_ms=rng.uniform(0, 20_000),
            ).start()
            for i, board in enumerate(BOARDS)
            if board != REAL_BOARD
        }
        ports = [self.board.path] + [hub.path for hub in self.hubs.values()]
        options = {"hit_window_ms": window_ms}
        self.station = Station(folder / "game.jsonl", "bronepekhota", armies(), options, ports, seed=3).start()

    def stop(self) -> None:
        self.station.stop()
        for hub in self.hubs.values():
            hub.stop()
        self.board.stop()

    def mapped(self) -> bool:
        hubs = self.station.health()["hubs"]
        # 200 ppm: the rate error runs to the farther end of the rates that fit (clocksync), and a
        # 0-8 ms link narrows it below this in 5 s (median), below 100 ppm only in 7 s
        return len(hubs) == len(BOARDS) and all(h["clock"] and h["clock"]["rate_err"] < 2e-4 for h in hubs)

    def station_ms(self, board: str, t: int) -> float:
        """Where hub time ``t`` of ``board`` is on the station's clock, by its current mapping."""
        for hub in self.station.health()["hubs"]:
            if hub["hub"] == board:
                return ClockMap.from_record(hub["clock"]).at(t)
        raise KeyError(board)

    def hub_line(self, node: str, type_: str, after_seq: int) -> dict | None:
        """The first journaled event line of this army node after journal seq ``after_seq`` (not a
        tilt node's report of how it lies when it starts: bronehub/1.3's ``first=1``)."""
        board, own = WIRING[node]

        def wanted(record: dict) -> bool:
            return (
                record["kind"] == "rx"
                and record.get("verdict") == "event"
                and record.get("hub") == board
                and record["line"].startswith(f"{type_} ")
                and f" node={own} " in record["line"]
                and " first=1" not in record["line"]
            )

        found = self.station.journal.read_since(after_seq, limit=1, keep=wanted)
        return found[0] if found else None

    def fall(self, node: str, t_station_ms: float) -> None:
        board, own = WIRING[node]
        hub = self.hubs[board]
        hub.tilt(own, "fallen", 85, t=int(hub.hub_ms_at(t_station_ms)))

    def shoot(self, launcher: str, barrel: int, t_station_ms: float) -> None:
        board, own = WIRING[launcher]
        hub = self.hubs[board]
        hub.shot(own, barrel, "shell", t=int(hub.hub_ms_at(t_station_ms)))


def wait(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.01)
    raise SystemExit(f"timed out waiting for {what}")


def game_pace(table: Table) -> dict:
    """Every barrel fires at a model on another board; every tilt node falls.  Which shot each
    hit names, against the one a single clock would name."""
    start = time.monotonic()
    table.station.game.operator_input("begin_round")  # the game is under way before the first shot
    table.station.game.operator_input("set_order", {"order": ["blue", "red"]})
    wait(table.mapped, FIRST_REAL_SHOT_S, "every hub's clock mapped before the real board fires")
    expected: dict[str, tuple[str, int]] = {}  # target army node -> (launcher, barrel)
    journal = table.station.journal
    for launcher, barrel, *_ in REAL_SHOTS:  # the real board fires by its script; its targets fall 40 ms on
        line = wait(lambda launcher=launcher: table.hub_line(launcher, "SHOT", 0), 40, f"{launcher} firing")
        shot = p.decode(line["line"])
        while shot.barrel != barrel:
            line = wait(lambda s=line["seq"], n=launcher: table.hub_line(n, "SHOT", s), 10, f"{launcher}/{barrel}")
            shot = p.decode(line["line"])
        target = TARGETS[(launcher, barrel)]
        table.fall(target, table.station_ms(REAL_BOARD, shot.t) + 40)
        expected[target] = (launcher, barrel)
    gap = spacing_s(table.window_ms)
    time.sleep(gap)  # the real board's last window closes: one shot in any window, as on a table
    for (launcher, barrel), target in TARGETS.items():
        if WIRING[launcher][0] == REAL_BOARD or target in LATE_SHOT_AT:
            continue
        now = time.monotonic() * 1000
        table.shoot(launcher, barrel, now)
        table.fall(target, now + 40)
        expected[target] = (launcher, barrel)
        time.sleep(gap)  # the window closes before the next shot
    for node, (launcher, barrel) in LATE_SHOT_AT.items():  # the real board's T1 falls by its script
        line = wait(lambda node=node: table.hub_line(node, "TILT", 0), 60, f"{node} falling")
        fell = table.station_ms(REAL_BOARD, p.decode(line["line"]).t)
        table.shoot(launcher, barrel, fell - 40)  # sent after the fall's line arrived
        expected[node] = (launcher, barrel)
    time.sleep(gap)
    for node in NO_SHOT_FALLS:
        if WIRING[node][0] != REAL_BOARD:
            table.fall(node, time.monotonic() * 1000)
    wait(lambda: table.hub_line("T2", "TILT", 0), 30, "the real board's T2 falling")
    time.sleep(1.5)
    records = read_records(journal.path)
    army_nodes = {(board, own): node for node, (board, own) in WIRING.items()}
    shots, falls = {}, {}  # journal seq -> (launcher, barrel); fall's army node -> its journal seq
    for record in records:
        if record["kind"] == "rx" and record.get("verdict") == "event" and record["line"][:4] in ("SHOT", "TILT"):
            message = p.decode(record["line"])
            node = army_nodes[(record["hub"], message.node)]
            if isinstance(message, p.Shot):
                shots[record["seq"]] = (node, message.barrel)
            else:
                falls[node] = record["seq"]
    hits = {}  # the fall's journal seq -> the shot its hit names
    for ruling in (r["ruling"] for r in records if r["kind"] == "ruling" and r["ruling"]["kind"] == "hit"):
        hits[ruling["cause"]] = shots.get(ruling["details"]["shot"])
    agreed = 0
    for node, shot in expected.items():
        ruled = hits.get(falls.get(node))
        agreed += ruled == shot
        if ruled != shot:
            print(f"  {node}: a single clock names {shot}, the station {ruled}")
    no_shot = sum(1 for r in records if r["kind"] == "ruling" and r["ruling"]["id"].endswith(":fall"))
    return {
        "pairs": len(expected),
        "agreed": agreed,
        "no_shot": no_shot,
        "doubt": sum(1 for r in records if r["kind"] == "ruling" and "clock_doubt_ms" in r["ruling"]["details"]),
        "seconds": time.monotonic() - start,
    }


def _flood_hubs(folder: str, ids: list[str], rate: float, seconds: float, ready, go, done, made) -> None:
    """In a process of its own (as boards are): the hubs, and ``rate`` dry fires a second summed
    over them for ``seconds``; ``made`` gets how many each made."""
    hubs = [SimulatedHub(Path(folder) / hub_id, DEFAULT_NODES, hub_id=hub_id, boot="0F01").start() for hub_id in ids]
    ready.set()
    go.wait()
    counts = dict.fromkeys(ids, 0)
    start, per_hub = time.monotonic(), rate / len(hubs)
    while (elapsed := time.monotonic() - start) < seconds:
        for hub in hubs:
            while counts[hub.hub_id] < elapsed * per_hub:
                hub.dry_fire("L1", 1)
                counts[hub.hub_id] += 1
        time.sleep(0.001)
    deadline = time.monotonic() + 60
    while any(hub.pending() for hub in hubs) and time.monotonic() < deadline:
        time.sleep(0.05)
    made.put(counts)
    done.wait()
    for hub in hubs:
        hub.stop()


def flood(ids: list[str], rate: float, seconds: float, board: SimulatedBoard | None = None) -> dict:
    """A station on hubs ``ids`` (simulated in another process) and ``board`` (simavr): ``rate``
    events a second over the simulated hubs, journaled once and in order per hub, and how soon
    each line's ruling follows its record."""
    context = multiprocessing.get_context("spawn")
    ready, go, done, made = context.Event(), context.Event(), context.Event(), context.Queue()
    with tempfile.TemporaryDirectory() as folder:
        child = context.Process(target=_flood_hubs, args=(folder, ids, rate, seconds, ready, go, done, made))
        child.start()
        if not ready.wait(30):
            raise SystemExit("the hubs' process did not start")
        ports = ([board.path] if board else []) + [str(Path(folder) / hub_id) for hub_id in ids]
        station = Station(Path(folder) / "flood.jsonl", "bronepekhota", armies(), {}, ports, seed=3).start()
        try:
            wait(lambda: station.health()["state"] == "connected", 20, "every hub connected")
            time.sleep(2.0)
            first = station.journal.written
            go.set()
            backlog = []
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                backlog.append(station.health()["engine_backlog"])
                time.sleep(0.1)
            counts = made.get(timeout=90)
            time.sleep(1.0)
        finally:
            station.stop()
            done.set()
            child.join(30)
        records = [r for r in read_records(Path(folder) / "flood.jsonl") if r["seq"] > first]
    lines, in_order, latency, journaled = {}, True, [], {}
    for record in records:
        if record["kind"] == "rx" and record.get("verdict") == "event" and record.get("hub") in ids:
            message = p.decode(record["line"])
            seqs = lines.setdefault(record["hub"], [])
            in_order &= not seqs or message.seq == seqs[-1] + 1
            seqs.append(message.seq)
            journaled[record["seq"]] = record["mono"]
        elif record["kind"] == "ruling" and record["ruling"]["id"].endswith(":dry"):
            cause = record["ruling"]["cause"]
            if cause in journaled:
                latency.append((record["mono"] - journaled[cause]) * 1000)
    latency.sort()
    return {
        "made": sum(counts.values()),
        "journaled": sum(len(v) for v in lines.values()),
        "once": all(len(v) == len(set(v)) for v in lines.values()),
        "in_order": in_order,
        "p50": statistics.median(latency),
        "p99": latency[int(0.99 * (len(latency) - 1))],
        "engine_backlog_max": max(backlog, default=0),
    }
