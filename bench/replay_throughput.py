"""Replay throughput: events per second folding a 10,000-event Бронепехота journal.

The baseline in the same run is reading the file and ``json.loads`` of every line, so the
printed ratio (replay time / parse time) says how much the rules cost on top of the I/O,
whatever the machine's speed that day.  Target: at least 50,000 events/s, and a ratio of at most
4.0.  Each timing starts after a collection, with the previous replay freed, so neither pays
for the other's garbage.

    python bench/replay_throughput.py [--events 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from results import Figure, save

from station.devices import protocol as p
from station.fold import fold, record_event
from station.game import Game
from station.hubclock import Timeline
from station.journal import Journal, read_records
from station.rules.bronepekhota.army import load_army

ROOT = Path(__file__).resolve().parent.parent
LAUNCHERS = [
    ("L1", 1),
    ("L1", 2),
    ("L2", 1),
    ("L3", 1),
    ("L4", 1),
    ("L4", 2),
    ("L21", 1),
    ("L21", 2),
    ("L22", 1),
    ("L22", 2),
    ("L23", 1),
]
TILTS = ["T1", "T2", "T3", "T11", "T12", "T13", "T14", "T21", "T22", "T23", "T31", "T32", "T33", "T34"]


def make_journal(path: Path, events: int, seed: int = 1) -> int:
    """A plausible game: rounds of shots, falls, impacts and heartbeats, through a live Game."""
    rng = random.Random(seed)
    armies = [
        load_army(ROOT / "examples" / "blue-protectorate.json"),
        load_army(ROOT / "examples" / "red-polaris.json"),
    ]
    journal = Journal(path, group_window=0)
    game = Game(journal, "bronepekhota", armies, {"ammo": "unlimited"}, rng=random.Random(seed))
    seq, t, counts, applied = 0, 0, {}, 0

    def rx(message: p.Message) -> None:
        nonlocal applied
        record = journal.append("rx", line=p.encode(message).decode().strip(), verdict="event")
        game.observe(record)
        applied += 1

    while applied < events:
        game.operator_input("begin_round")
        applied += 1
        for node, barrel in rng.sample(LAUNCHERS, 6):
            seq, t = seq + 1, t + rng.randint(300, 3000)
            counts[(node, barrel)] = counts.get((node, barrel), 0) + 1
            rx(p.Shot(seq, node, barrel, rng.choice(["shell", "rocket"]), counts[(node, barrel)], t))
            for _ in range(rng.randint(0, 2)):
                seq, t = seq + 1, t + rng.randint(50, 800)
                if rng.random() < 0.5:
                    rx(p.Impact(seq, rng.choice(TILTS), round(rng.uniform(2, 9), 1), t))
                else:
                    rx(p.Tilt(seq, rng.choice(TILTS), rng.choice(["fallen", "upright", "leaning"]), 45, t))
            for _ in range(rng.randint(1, 4)):
                t += 1000
                rx(p.Heartbeat(seq, t, 0))
        game.operator_input("end_activation")
        applied += 1
    journal.close()
    return applied


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.jsonl"
        print(f"building a journal of {args.events:,} events ...", flush=True)
        make_journal(path, args.events)
        records = read_records(path)
        timeline = Timeline()
        events = sum(1 for r in records if record_event(r, timeline) is not None)
        parse_times, replay_times = [], []
        result = None
        for _ in range(args.repeat):  # interleaved, so both see the same machine load
            result = None  # the last replay is freed here, not inside the next one's timing
            gc.collect()  # and both timings start from the same heap
            start = time.perf_counter()
            for line in path.read_bytes().splitlines():
                json.loads(line)
            parse_times.append(time.perf_counter() - start)
            start = time.perf_counter()
            result = fold(read_records(path))
            replay_times.append(time.perf_counter() - start)
        parse, replay = statistics.median(parse_times), statistics.median(replay_times)
        print(
            f"journal: {len(records):,} records, {events:,} events applied by the fold, "
            f"{path.stat().st_size / 1e6:.1f} MB, {len(result.rulings):,} rulings"
        )
        print(f"json parse only : {parse * 1000:8.1f} ms  ({len(records) / parse:,.0f} records/s)")
        print(f"full replay     : {replay * 1000:8.1f} ms  ({events / replay:,.0f} events/s)  target >= 50,000")
        print(f"ratio replay/parse: {replay / parse:.2f}x  (median of {args.repeat})")
        save(
            "replay_throughput",
            f"fold of a {events:,}-event journal ({len(records):,} records, {path.stat().st_size / 1e6:.1f} MB)",
            [
                Figure(
                    "replay speed",
                    events / replay,
                    f"{events / replay:,.0f} events/s ({replay * 1000:.0f} ms)",
                    f"{replay / parse:.2f}× the time of only `json.loads` on every line",
                )
            ],
            "≥ 50,000 events/s",
        )


if __name__ == "__main__":
    main()
