"""Tournament load: 40 tables at 50 events/s each for 60 s through one Mosquitto on this machine,
into the tournament screen's store.  Prints the lag from a record's journaling to its commit in
the tournament's SQLite (p50, p99), and counts records lost or kept twice (both must be 0).

Each table is the station's own publisher (station/publish.py) over a real journal (fsync'd);
the records are hub lines as a game journals them, without a rules engine, which the other
benchmarks measure.  Everything runs on this machine's two cores: the broker, the 40 tables and
the tournament, so the figure is an upper bound for a club's network of Pis.

    python bench/tournament_load.py [--tables 40] [--rate 50] [--seconds 60]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

from results import Figure, save

from station.journal import Journal, read_records
from station.publish import BrokerUrl, MqttPublisher
from station.tournament.broker import LocalBroker
from station.tournament.messages import Message
from station.tournament.store import Store
from station.tournament.subscriber import Subscriber


class TimedStore(Store):
    """The store, noting when each record is committed, against when it was journaled."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.lags: list[float] = []
        self.duplicates = 0

    def keep(self, batch):
        kept = super().keep(batch)
        now = time.monotonic()  # committed: the whole batch at once
        for taken, was_kept in zip(batch, kept, strict=True):
            if isinstance(taken, Message) and taken.what == "records":
                if was_kept:
                    self.lags.append(now - taken.body["record"]["mono"])
                else:
                    self.duplicates += 1
        return kept


def table_feed(journal: Journal, rate: float, seconds: float, stop: threading.Event) -> None:
    """A hub line every 1/rate s, journaled as the station journals it."""
    start = time.monotonic()
    n = 0
    while not stop.is_set() and time.monotonic() - start < seconds:
        n += 1
        journal.append("rx", line=f"SHOT {n} node=L1 barrel=1 charge=shell count={n} t={n * 20} *0000", verdict="event")
        delay = start + n / rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def run(tables: int, rate: float, seconds: float) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="tournament-load-"))
    broker = LocalBroker(folder / "broker").start()
    store = TimedStore(folder / "tournament.sqlite")
    subscriber = Subscriber(BrokerUrl.parse(broker.url), store).start()
    subscriber.connected.wait(10)
    journals, publishers, stop = [], [], threading.Event()
    for k in range(tables):
        journal = Journal(folder / f"t{k}.jsonl")
        journal.append("game", game="bronepekhota", armies=[{"player": f"p{2 * k}"}, {"player": f"p{2 * k + 1}"}])
        journals.append(journal)
        publishers.append(
            MqttPublisher(BrokerUrl.parse(broker.url), f"t{k}", journal, lambda: {"game": "load"}).start()
        )
    deadline = time.monotonic() + 30
    while not all(p.health()["publishing"] for p in publishers) and time.monotonic() < deadline:
        time.sleep(0.1)
    cpu_before = time.process_time()
    feeds = [threading.Thread(target=table_feed, args=(j, rate, seconds, stop)) for j in journals]
    for t in feeds:
        t.start()
    for t in feeds:
        t.join()
    expected = {(f"t{k}", j.path.name, r["seq"]) for k, j in enumerate(journals) for r in read_records(j.path)}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and store.counters().get("records", 0) < len(expected):
        time.sleep(0.2)
    held = {(f"t{k}", name, seq) for k in range(tables) for name, seq in store.records_of(f"t{k}")}
    cpu = time.process_time() - cpu_before
    for p in publishers:
        p.stop()
    subscriber.stop()
    for j in journals:
        j.close()
    broker.stop()
    lags = sorted(store.lags)
    store.close()
    shutil.rmtree(folder, ignore_errors=True)
    return {
        "records": len(expected),
        "lost": len(expected - held),
        "extra": len(held - expected),
        "duplicates_dropped": store.duplicates,
        "p50_ms": statistics.median(lags) * 1000,
        "p99_ms": lags[int(len(lags) * 0.99) - 1] * 1000,
        "max_ms": lags[-1] * 1000,
        "cpu_s": cpu,
        "seconds": seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--rate", type=float, default=50.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    r = run(args.tables, args.rate, args.seconds)
    rate = r["records"] / args.seconds
    print(
        f"{args.tables} tables x {args.rate:g} events/s for {args.seconds:g} s: {r['records']} records "
        f"({rate:.0f}/s); journal -> tournament SQLite p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, "
        f"max {r['max_ms']:.0f} ms; lost {r['lost']}, kept twice {r['extra']} "
        f"(duplicate deliveries dropped: {r['duplicates_dropped']}); this process {r['cpu_s'] / args.seconds:.0%} of a core"
    )
    save(
        "tournament_load",
        f"{args.tables} tables at {args.rate:g} events/s each for {args.seconds:g} s through one Mosquitto on this "
        "machine into the tournament's SQLite",
        [
            Figure(
                "a record's journaling → its commit in the tournament",
                r["p99_ms"],
                f"p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms",
                f"{r['records']:,} records ({rate:.0f}/s), max {r['max_ms']:.0f} ms",
            ),
            Figure(
                "records lost / kept twice",
                r["lost"] + r["extra"],
                f"{r['lost']} lost, {r['extra']} kept twice",
                f"{r['duplicates_dropped']} duplicate deliveries dropped by (table, journal, seq)",
            ),
        ],
        target="0 lost, 0 kept twice",
    )


if __name__ == "__main__":
    main()
