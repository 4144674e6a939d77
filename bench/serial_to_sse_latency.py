"""End-to-end latency: a serial line written on the pty to its ruling arriving on the SSE stream.

The simulated hub writes a SHOT and then a TILT "fallen" line on a real pty; the station reads
it, journals it with fsync, ACKs it, rules on it, and streams the ruling; an HTTP client reads
the stream.  The clock starts just before the TILT line is written and stops when the client
has parsed the ruling.  As a baseline in the same run, the bare pty hop (write on the master,
read on the slave) is timed too, and the ratio is printed.  Target: p99 at most 20 ms.

Shots come ``--interval`` apart (0.35 s: three a second, faster than any table fires), each with
the referee's three inputs 2 ms before it, as at a real table where a burst of changes comes
together: six changes a shot, 17 frames a second.  Back to back (``--interval 0``) the bench is a
flood instead, over the dashboards' cap of 20 frames a second, and the cap sets the latency
(about 50 ms).

    python bench/serial_to_sse_latency.py [--shots 300] [--interval 0.35] [--journal-dir DIR]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

from results import Figure, save

from station.devices.hubsim import SimulatedHub
from station.dice import DiceBook
from station.rules.bronepekhota import Bronepekhota
from station.rules.bronepekhota.army import load_army
from station.runtime import Station
from station.web.server import DashboardServer

ROOT = Path(__file__).resolve().parent.parent


class StreamWatcher:
    """Reads the SSE stream in a thread and timestamps each hit ruling as it is parsed."""

    def __init__(self, port: int) -> None:
        self.arrivals: list[float] = []
        self.cond = threading.Condition()
        self.conn = http.client.HTTPConnection("127.0.0.1", port)
        self.conn.request("GET", "/api/stream")
        self.response = self.conn.getresponse()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        buffer = b""
        while True:
            chunk = self.response.fp.read1(65536)
            if not chunk:
                return
            buffer += chunk
            while b"\n\n" in buffer:
                frame, buffer = buffer.split(b"\n\n", 1)
                now = time.perf_counter()
                lines = frame.decode().splitlines()
                if "event: update" not in lines:
                    continue
                data = json.loads(next(line[6:] for line in lines if line.startswith("data: ")))
                hits = sum(1 for r in data["rulings"] if r["kind"] == "hit")
                if hits:
                    with self.cond:
                        self.arrivals.extend([now] * hits)
                        self.cond.notify_all()

    def wait_for(self, count: int, timeout: float = 5.0) -> float:
        with self.cond:
            if not self.cond.wait_for(lambda: len(self.arrivals) >= count, timeout):
                raise TimeoutError(f"ruling {count} never arrived")
            return self.arrivals[count - 1]


def pty_baseline(samples: int) -> list[float]:
    """The bare pty hop, for the ratio: write a line on the master, read it on the slave."""
    master, slave = os.openpty()
    import tty

    tty.setraw(slave)
    line = b"TILT 1 node=T23 state=fallen angle=80 t=1*ABCD\n"
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        os.write(master, line)
        got = b""
        while not got.endswith(b"\n"):
            got += os.read(slave, 256)
        times.append(time.perf_counter() - start)
    os.close(master)
    os.close(slave)
    return times


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", type=int, default=300)
    parser.add_argument("--interval", type=float, default=0.35, help="seconds between shots")
    parser.add_argument("--journal-dir", help="Directory for the journal (default: a temp dir on this disk).")
    args = parser.parse_args()
    armies = [
        load_army(ROOT / "examples" / "blue-protectorate.json"),
        load_army(ROOT / "examples" / "red-polaris.json"),
    ]
    tmp = tempfile.mkdtemp(dir=args.journal_dir)
    hub = SimulatedHub(Path(tmp) / "hub", nodes=Bronepekhota(DiceBook()).sensor_nodes(armies), heartbeat=0.5).start()
    station = Station(
        Path(tmp) / "bench.jsonl", "bronepekhota", armies, {"ammo": "unlimited"}, hub.path, seed=1
    ).start()
    server = DashboardServer(station, "bench-token-000", port=0).start()
    deadline = time.monotonic() + 10
    while station.health()["hub_boot"] is None and time.monotonic() < deadline:
        time.sleep(0.01)
    watcher = StreamWatcher(server.port)
    game = station.game
    latencies = []
    t = 0
    print(f"{args.shots} shots; journal in {tmp} (fsync per event)", flush=True)
    for i in range(args.shots):
        # Not timed: a new round so the barrel may fire again, and the mortar repaired to full.
        game.operator_input("begin_round")
        game.operator_input("set_order", {"order": ["blue", "red"]})
        game.operator_input("repair", {"element": "mortar", "cells": 99})
        t += 5000
        hub.shot("L1", 1, "shell", t=t)
        time.sleep(0.002)
        start = time.perf_counter()
        hub.tilt("T23", "fallen", 80, t=t + 300)
        latencies.append(watcher.wait_for(i + 1) - start)
        hub.tilt("T23", "upright", 0, t=t + 2000)
        time.sleep(args.interval)
        if (i + 1) % 200 == 0:
            print(f"  {i + 1}/{args.shots}: p50 {statistics.median(latencies) * 1000:.2f} ms", flush=True)
    baseline = pty_baseline(args.shots)
    server.stop()
    station.stop()
    hub.stop()
    ms = [x * 1000 for x in latencies]
    base = [x * 1000 for x in baseline]
    print(
        f"serial line -> ruling on SSE: p50 {percentile(ms, 50):.2f} ms, p99 {percentile(ms, 99):.2f} ms, "
        f"max {max(ms):.2f} ms  (target p99 <= 20 ms)"
    )
    print(f"bare pty hop baseline       : p50 {percentile(base, 50):.3f} ms, p99 {percentile(base, 99):.3f} ms")
    print(f"ratio p50 end-to-end / pty hop: {percentile(ms, 50) / percentile(base, 50):.0f}x")
    save(
        "serial_to_sse_latency",
        f"a line written on the pty → its ruling parsed from the SSE stream, {args.shots} shots "
        f"{args.interval:g} s apart with three referee inputs just before each, fsync per event",
        [
            Figure(
                "serial line → ruling on screen",
                percentile(ms, 99),
                f"p50 {percentile(ms, 50):.2f} ms, p99 {percentile(ms, 99):.2f} ms",
                f"bare pty hop p50 {percentile(base, 50):.3f} ms",
            )
        ],
        "p99 ≤ 20 ms",
    )


if __name__ == "__main__":
    main()
