"""``make tournament-demo``: a Mosquitto broker (broker.py), tables playing the bundled demo
session with simulated hubs, and the tournament screen, all on this machine, until Ctrl-C.  Every
port can be chosen (``--help``), so the demo runs beside a station already on 8080 or 8090."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import click

from ..scratch import remove, scratch_folder
from .broker import LocalBroker, wait_for_port


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--tables", default=3, show_default=True, type=click.IntRange(1, 9), help="How many tables play.")
@click.option(
    "--table-port",
    default=8081,
    show_default=True,
    type=click.IntRange(1024, 65000),
    help="The first table's dashboard port; the next tables take the ports after it.",
)
@click.option(
    "--tournament-port",
    default=8090,
    show_default=True,
    type=click.IntRange(1024, 65535),
    help="The tournament screen's port.",
)
@click.option(
    "--broker-port",
    default=18830,
    show_default=True,
    type=click.IntRange(1024, 65535),
    help="The demo's own Mosquitto broker's port.",
)
def main(tables: int, table_port: int, tournament_port: int, broker_port: int) -> None:
    """A tournament evening on this machine: a broker, the tables playing the demo session with
    simulated hubs, and the tournament screen.  Ctrl-C stops everything."""
    ports = {f"t{k}": table_port + k - 1 for k in range(1, tables + 1)}
    if len({*ports.values(), tournament_port, broker_port}) < tables + 2:
        raise click.UsageError("the tables, the tournament screen and the broker need a port each")
    wanted = [(port, f"table {table}", "--table-port") for table, port in ports.items()]
    wanted += [
        (tournament_port, "the tournament screen", "--tournament-port"),
        (broker_port, "the broker", "--broker-port"),
    ]
    for port, name, option in wanted:
        if wait_for_port(port, 0.05):  # something already answers there: another station, another demo
            raise click.UsageError(f"port {port} for {name} is in use on this machine; choose another with {option}")
    folder = scratch_folder("tournament-demo")
    broker = LocalBroker(folder / "broker", broker_port).start()
    url = broker.url
    station = [sys.executable, "-m", "station"]
    running: list[subprocess.Popen[bytes]] = []
    try:
        for table, port in ports.items():
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
                    str(tournament_port),
                    "--db",
                    str(folder / "t.sqlite"),
                ]
            )
        )
        if not wait_for_port(tournament_port, 15.0):
            raise SystemExit(f"the tournament screen did not start on port {tournament_port}")
        click.echo(f"\nTournament: http://127.0.0.1:{tournament_port}/   (standings: /standings)")
        for table, port in ports.items():
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
