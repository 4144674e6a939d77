"""The real firmware in simavr, its UART at 1 Mbaud, and the station, end to end.

1. Sustained events per second with none lost: three barrels fire at a fixed rate for a few
   seconds, at several rates; each run checks that every shot arrived exactly once (sequence
   numbers contiguous, per-barrel counters complete, no OVF).  Printed beside it, from the same
   run: the UART's own ceiling for lines of that length, so the ratio says how close we got.
2. Latency from a trigger press in the simulation to the shot's ruling on the SSE stream: p50
   and p99.  Sim time maps to wall time because the harness runs in real time from "ready" (it
   reports how far it ever lagged).  Each press reaches the gate 10 ms later and blocks it 3 ms,
   so 13 ms of every latency is the launcher itself; that part is printed too.

    python bench/firmware_in_the_loop.py [--seconds 5] [--rates 30,60,90] [--presses 200]
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import statistics
import tempfile
import threading
import time
from pathlib import Path

from results import Figure, save

from station.devices import protocol as p
from station.devices.board import SimulatedBoard
from station.devices.link import BAUD
from station.journal import read_records
from station.rules.bronepekhota.army import load_army
from station.runtime import Station
from station.web.server import DashboardServer

ROOT = Path(__file__).resolve().parent.parent
ELF = ROOT / "firmware" / "build" / "hub.elf"
STRESS_ELF = ROOT / "firmware" / "build" / "hub-stress.elf"
BARRELS = [("D2", "D3"), ("D4", "D5"), ("D6", "D7")]
PRESS_TO_GATE_MS, BLOCK_MS = 10, 3


def armies():
    return [
        load_army(ROOT / "tests" / "data" / "hil" / "blue.json"),
        load_army(ROOT / "tests" / "data" / "hil" / "red.json"),
    ]


def shots_script(path: Path, rate_per_barrel: float, seconds: float, start: float = 1.0) -> int:
    lines, n, period = [], 0, 1.0 / rate_per_barrel
    for i, (trigger, gate) in enumerate(BARRELS):
        t = start + i * period / len(BARRELS)
        while t < start + seconds:
            lines.append(f"t={t:.4f} pin {trigger} low 8ms")
            lines.append(f"t={t + 0.002:.4f} pin {gate} low {BLOCK_MS}ms")
            n += 1
            t += period
    lines.append(f"t={start + seconds + 2.0:.3f} end")
    path.write_text("\n".join(lines) + "\n")
    return n


def run_throughput(rate: float, seconds: float) -> dict:
    tmp = Path(tempfile.mkdtemp())
    expected = shots_script(tmp / "s.txt", rate, seconds)
    board = SimulatedBoard(ELF, tmp / "s.txt", tmp / "hub").start()
    station = Station(tmp / "g.jsonl", "bronepekhota", armies(), {}, board.path).start()
    board.wait(timeout=seconds + 30)
    deadline = time.monotonic() + 10
    while station.health()["events"] < expected and time.monotonic() < deadline:
        time.sleep(0.05)
    station.stop()
    records = read_records(tmp / "g.jsonl")
    events = [p.decode(r["line"]) for r in records if r["kind"] == "rx" and r["verdict"] == "event"]
    shots = [e for e in events if isinstance(e, p.Shot)]
    lines = [r["line"] for r in records if r["kind"] == "rx" and r["line"].startswith("SHOT")]
    avg_line = statistics.mean(len(line) + 1 for line in lines) if lines else 60
    contiguous = [e.seq for e in events] == list(range(1, len(events) + 1))
    complete = all(
        sorted(s.count for s in shots if (s.node, s.barrel) == key)
        == list(range(1, 1 + sum(1 for s in shots if (s.node, s.barrel) == key)))
        for key in {(s.node, s.barrel) for s in shots}
    )
    return {
        "offered": expected / seconds,
        "received": len(shots),
        "expected": expected,
        "lost": expected - len(shots),
        "overflow": any(isinstance(e, p.Overflow) for e in events),
        "in_order": contiguous and complete,
        "ceiling": BAUD / 10 / avg_line,  # 10 bits a byte on the wire (8N1)
        "report": board.report,
    }


def run_stress(seconds: float) -> dict:
    """The stress build: 1,000 dry-fire events a second from the firmware itself for ``seconds``,
    through the UART, the ring and the station's journal; every one must arrive, once, in order."""
    tmp = Path(tempfile.mkdtemp())
    (tmp / "s.txt").write_text(f"t={seconds + 1.0:.3f} end\n")
    board = SimulatedBoard(STRESS_ELF, tmp / "s.txt", tmp / "hub").start()
    station = Station(tmp / "g.jsonl", "bronepekhota", armies(), {}, board.path).start()
    board.wait(timeout=seconds + 60)
    time.sleep(1.0)
    station.stop()
    records = read_records(tmp / "g.jsonl")
    events = [(r, p.decode(r["line"])) for r in records if r["kind"] == "rx" and r["verdict"] == "event"]
    dry = [e for _, e in events if isinstance(e, p.DryFire)]
    first = next((r["mono"] for r, e in events if isinstance(e, p.DryFire)), 0.0)
    last = next((r["mono"] for r, e in reversed(events) if isinstance(e, p.DryFire)), 0.0)
    return {
        "events": len(dry),
        "rate": (len(dry) - 1) / (last - first) if last > first else 0.0,
        "contiguous": [e.seq for _, e in events] == list(range(1, len(events) + 1)),
        "overflow": any(isinstance(e, p.Overflow) for _, e in events),
        "report": board.report,
    }


class ShotWatcher:
    def __init__(self, port: int) -> None:
        self.arrivals: list[float] = []
        self.cond = threading.Condition()
        conn = http.client.HTTPConnection("127.0.0.1", port)
        conn.request("GET", "/api/stream")
        self.response = conn.getresponse()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        buffer = b""
        while chunk := self.response.fp.read1(65536):
            buffer += chunk
            while b"\n\n" in buffer:
                frame, buffer = buffer.split(b"\n\n", 1)
                now = time.monotonic()
                text = frame.decode()
                if "event: update" in text:
                    data = json.loads(text.split("data: ", 1)[1])
                    with self.cond:
                        self.arrivals += [now for r in data["rulings"] if r["kind"] == "shot"]
                        self.cond.notify_all()


def run_latency(presses: int) -> dict:
    tmp = Path(tempfile.mkdtemp())
    times = [2.0 + 0.25 * i for i in range(presses)]
    script = [f"t={t:.3f} pin D2 low 8ms\nt={t + PRESS_TO_GATE_MS / 1000:.3f} pin D3 low {BLOCK_MS}ms" for t in times]
    (tmp / "s.txt").write_text("\n".join(script) + f"\nt={times[-1] + 2:.3f} end\n")
    board = SimulatedBoard(ELF, tmp / "s.txt", tmp / "hub")
    board.start()
    ready_at = time.monotonic()  # sim time 0, within the time it takes to read "ready"
    station = Station(tmp / "g.jsonl", "bronepekhota", armies(), {}, board.path).start()
    server = DashboardServer(station, "bench-token-000", port=0).start()
    watcher = ShotWatcher(server.port)
    board.wait(timeout=times[-1] + 30)
    with watcher.cond:
        watcher.cond.wait_for(lambda: len(watcher.arrivals) >= presses, timeout=10)
    server.stop()
    station.stop()
    in_order = [(arrival - (ready_at + t)) * 1000 for arrival, t in zip(watcher.arrivals, times)]
    latencies = sorted(in_order)
    worst = max(range(len(in_order)), key=in_order.__getitem__)
    return {
        "p50": statistics.median(latencies),
        "p99": latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
        "max": latencies[-1],
        "worst_press": worst,
        "n": len(latencies),
        "report": board.report,
    }


def _back_and_forth(report: str) -> str:
    """What the station sent the hub in the same run, against what the hub sent: its ACKs are what
    the hub's CPU parses between lines (batched: at most one per 5 ms or per 8 events)."""
    found = re.search(r"(\d+) bytes out, (\d+) in", report)
    if not found:
        return "–"
    out, back = (int(v) for v in found.groups())
    return f"the station's ACKs: {back:,} bytes to the hub for its {out:,} ({back / out:.0%})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rates", default="30,60,90", help="shots per second per barrel (3 barrels)")
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--latency-only", action="store_true")
    parser.add_argument("--stress-seconds", type=float, default=10.0, help="how long the stress build runs")
    args = parser.parse_args()
    print(f"sustained throughput (3 barrels, real firmware, {BAUD} baud, station journaling with fsync):")
    figures = []
    for rate in [] if args.latency_only else (float(r) for r in args.rates.split(",")):
        r = run_throughput(rate, args.seconds)
        intact = r["in_order"] and not r["overflow"]  # every shot the hub made arrived, once, in order
        figures.append(
            Figure(
                f"offered {r['offered']:.0f} shots/s for {args.seconds:g} s",
                r["received"],
                f"{r['received']}/{r['expected']} arrived"
                + (", none lost on the link" if intact else f", {r['lost']} lost")
                + (" (OVF reported)" if r["overflow"] else "")
                + (f"; {r['lost']} shots the firmware never made" if intact and r["lost"] else ""),
                f"the wire's own ceiling for these lines: {r['ceiling']:.0f} lines/s",
            )
        )
        verdict = (
            "none lost"
            if r["lost"] == 0 and r["in_order"] and not r["overflow"]
            else f"LOST {r['lost']}{' (OVF reported)' if r['overflow'] else ''}"
        )
        print(
            f"  offered {r['offered']:6.1f} events/s: received {r['received']}/{r['expected']}, {verdict}; "
            f"UART ceiling for these lines {r['ceiling']:.0f} lines/s -> {r['offered'] / r['ceiling']:.0%} of it"
        )
        print(f"    {r['report']}")
    if not args.latency_only:
        stress = run_stress(args.stress_seconds)
        intact = stress["contiguous"] and not stress["overflow"]
        said = (
            "every one arrived once, in order"
            if intact
            else "the rest reported by the hub's OVF, none lost silently"
            if stress["contiguous"]
            else "EVENTS LOST SILENTLY"
        )
        print(f"stress build: {stress['events']} events at {stress['rate']:.0f}/s sustained, {said}")
        print(f"    {stress['report']}")
        figures.append(
            Figure(
                f"the stress build: 1,000 events/s from the firmware for {args.stress_seconds:g} s",
                stress["rate"],
                f"{stress['events']} events at {stress['rate']:.0f}/s sustained; {said}",
                _back_and_forth(stress["report"]),
            )
        )
    r = run_latency(args.presses)
    print(
        f"trigger press -> shot ruling on SSE ({r['n']} presses): p50 {r['p50']:.1f} ms, p99 {r['p99']:.1f} ms, "
        f"max {r['max']:.1f} ms (press #{r['worst_press']});"
        f" of which {PRESS_TO_GATE_MS + BLOCK_MS} ms is the projectile reaching and leaving the gate"
    )
    print(f"  {r['report']}")
    figures.append(
        Figure(
            f"trigger press → the shot's ruling on SSE, {r['n']} presses",
            r["p99"],
            f"p50 {r['p50']:.1f} ms, p99 {r['p99']:.1f} ms",
            f"{PRESS_TO_GATE_MS + BLOCK_MS} ms of it is the projectile reaching and leaving the gate",
        )
    )
    if not args.latency_only:
        save(
            "firmware_in_the_loop",
            "real firmware in simavr, 3 barrels firing, station journaling with fsync",
            figures,
            "no event lost",
        )


if __name__ == "__main__":
    main()
