"""``make tournament-demo``: a Mosquitto broker (broker.py) on port 18830, three tables playing
the bundled demo session with simulated hubs, and the tournament screen, all on this machine,
until Ctrl-C."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import click

from ..scratch import remove, scratch_folder
from .broker import LocalBroker, wait_for_port

BROKER_PORT = 18830
TABLES = {"t1": 8081, "t2": 8082, "t3": 8083}
TOURNAMENT_PORT = 8090


def main() -> None:
    folder = scratch_folder("tournament-demo")
    broker = LocalBroker(folder / "broker", BROKER_PORT).start()
    url = broker.url
    station = [sys.executable, "-m", "station"]
    running: list[subprocess.Popen[bytes]] = []
    try:
        for table, port in TABLES.items():
            journal = folder / table / "demo.jsonl"
            journal.parent.mkdir()
            running.append(
                subprocess.Popen(
                    [*station, "demo", "--mqtt", url, "--table", table, "--port", str(port), "--journal", str(journal)]
                )
            )
        running.append(
            subprocess.Popen(
                [
                    *station,
                    "tournament",
                    "--mqtt",
                    url,
                    "--port",
                    str(TOURNAMENT_PORT),
                    "--db",
                    str(folder / "t.sqlite"),
                ]
            )
        )
        if not wait_for_port(TOURNAMENT_PORT, 15.0):
            raise SystemExit(f"the tournament screen did not start on port {TOURNAMENT_PORT}")
        click.echo(f"\nTournament: http://127.0.0.1:{TOURNAMENT_PORT}/   (standings: /standings)")
        for table, port in TABLES.items():
            click.echo(f"Table {table}:   http://127.0.0.1:{port}/")
        click.echo("Ctrl-C stops everything.\n")
        signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
        while all(p.poll() is None for p in running):
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        for process in reversed(running):
            process.terminate()
        broker.stop()
        for process in running:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
        remove(folder)


if __name__ == "__main__":
    main()
