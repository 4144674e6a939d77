"""The tournament's own capacity: one publisher process replays prepared records onto one
Mosquitto on this machine, at a set rate or as fast as the broker takes them, and the tournament
(its subscriber and SQLite store, in this process) keeps them.  Unlike tournament_load.py, no
simulated table shares the cores with it: the publisher is one process on its own core, so the
figure is the subscriber's limit.  Prints records committed per second, the lag from publishing
a record to its commit (p50, p99), and records lost or kept twice (both must be 0).

    python bench/tournament_subscriber.py [--tables 40] [--rate 5000] [--seconds 30]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from results import Figure, save
from tournament_load import TimedStore

from station.publish import BrokerUrl, client, topic
from station.tournament.broker import LocalBroker
from station.tournament.subscriber import Subscriber

PUBLISHER_CPU, TOURNAMENT_CPU = 1, 0


class SpanStore(TimedStore):
    """The timed store, noting its first and last commit: the rate kept is over that span, not
    over the publisher's start-up."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.first = self.last = 0.0

    def keep(self, batch):
        kept = super().keep(batch)
        self.last = time.monotonic()
        self.first = self.first or self.last
        return kept


def _pin(cpu: int) -> None:
    if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > cpu:
        os.sched_setaffinity(0, {cpu})


def publish(url: str, tables: int, rate: float, count: int, done: multiprocessing.Event) -> None:
    """Child: each table's header, then ``count`` hub-line records round the tables, each
    stamped with the monotonic time it is handed to the broker; paced at ``rate`` a second (0:
    as fast as the broker acknowledges, a window of 1,000 in flight)."""
    _pin(PUBLISHER_CPU)
    mqtt = client("bench-publisher", BrokerUrl.parse(url))
    mqtt.max_inflight_messages_set(1000)
    mqtt.connect(BrokerUrl.parse(url).host, BrokerUrl.parse(url).port)
    mqtt.loop_start()
    seqs = [1] * tables
    for k in range(tables):
        header = {
            "seq": 1,
            "kind": "game",
            "game": "bronepekhota",
            "armies": [{"player": f"p{k}"}],
            "mono": time.monotonic(),
        }
        mqtt.publish(topic(f"t{k}", "records"), json.dumps({"journal": "bench.jsonl", "record": header}), qos=1)
    start = time.monotonic()
    infos = []
    for n in range(count):
        k = n % tables
        seqs[k] += 1
        if rate:
            delay = start + n / rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        record = {"seq": seqs[k], "kind": "rx", "verdict": "event", "mono": time.monotonic(),
                  "line": f"SHOT {seqs[k]} node=L1 barrel=1 charge=shell count={seqs[k]} t={seqs[k] * 20}*0000"}  # fmt: skip
        infos.append(
            mqtt.publish(topic(f"t{k}", "records"), json.dumps({"journal": "bench.jsonl", "record": record}), qos=1)
        )
        if len(infos) >= 1000:  # as fast as the broker takes them: no more than a window unacknowledged
            infos.pop(0).wait_for_publish(10)
    for info in infos:
        info.wait_for_publish(10)
    mqtt.disconnect()
    mqtt.loop_stop()
    done.set()


def run(tables: int, rate: float, seconds: float) -> dict:
    _pin(TOURNAMENT_CPU)
    folder = Path(tempfile.mkdtemp(prefix="tournament-alone-"))
    broker = LocalBroker(folder / "broker").start()
    store = SpanStore(folder / "tournament.sqlite")
    subscriber = Subscriber(BrokerUrl.parse(broker.url), store).start()
    subscriber.connected.wait(10)
    count = int((rate or 10_000) * seconds)
    expected = count + tables
    spawn = multiprocessing.get_context("spawn")
    done = spawn.Event()
    publisher = spawn.Process(target=publish, args=(broker.url, tables, rate, count, done))
    start = time.monotonic()
    publisher.start()
    deadline = start + seconds * 4 + 60
    while time.monotonic() < deadline and store.counters().get("records", 0) < expected:
        time.sleep(0.1)
    elapsed = time.monotonic() - start
    publisher.join(30)
    held = sum(len(store.records_of(f"t{k}")) for k in range(tables))
    subscriber.stop()
    broker.stop()
    lags = sorted(store.lags)
    store.close()
    shutil.rmtree(folder, ignore_errors=True)
    return {
        "records": expected,
        "held": held,
        "lost": max(0, expected - held),
        "duplicates_dropped": store.duplicates,
        "per_s": held / max(store.last - store.first, 1e-9),
        "seconds": elapsed,
        "p50_ms": statistics.median(lags) * 1000,
        "p99_ms": lags[int(len(lags) * 0.99) - 1] * 1000,
        "max_ms": lags[-1] * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--rate", type=float, default=5000.0, help="records a second (0: as fast as it goes)")
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    paced = run(args.tables, args.rate, args.seconds)
    flat = run(args.tables, 0, args.seconds / 3)
    for name, r in (("paced", paced), ("flat out", flat)):
        print(
            f"{name}: {r['held']}/{r['records']} records kept, {r['per_s']:,.0f}/s; publish -> commit p50 "
            f"{r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, max {r['max_ms']:.0f} ms; lost {r['lost']}, "
            f"duplicate deliveries dropped {r['duplicates_dropped']}",
            flush=True,
        )
    save(
        "tournament_subscriber",
        f"the tournament alone: one publisher process ({args.tables} tables' records) on its own core into one "
        "Mosquitto, the subscriber and its SQLite on the other",
        [
            Figure(
                f"{args.rate:,.0f} records/s for {args.seconds:g} s: publish → commit",
                paced["p99_ms"],
                f"p50 {paced['p50_ms']:.1f} ms, p99 {paced['p99_ms']:.1f} ms; {paced['lost']} lost",
                f"{paced['held']:,} records kept, {paced['per_s']:,.0f}/s",
            ),
            Figure(
                "as fast as the broker takes them",
                flat["per_s"],
                f"{flat['per_s']:,.0f} records/s kept; {flat['lost']} lost",
                f"p99 {flat['p99_ms']:.0f} ms (queued in the publisher too)",
            ),
        ],
        target="≥ 5,000 records/s sustained, p99 ≤ 1 s, 0 lost, 0 kept twice",
    )


if __name__ == "__main__":
    main()
