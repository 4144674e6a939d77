"""The commands that play without a table: ``demo`` (a recorded session refereed live) and the
simulated hubs and boards a developer connects ``station run`` to."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..datafile import DataFileError, data_dir
from ..dice import DiceBook
from ..exclusive import InUse
from ..game import InputError
from ..lobby.lobby import Hardware, Lobby
from ..rules.registry import make_ruleset
from .common import fail, wait_for_interrupt
from .table import check_broker, serve_dashboard

if TYPE_CHECKING:
    from ..devices.board import SimulatedBoard
    from ..devices.hubsim import SimulatedHub
    from ..session import SessionPlayer


def _announce_end(
    player: SessionPlayer, message: str, stop: bool, before: Callable[[], None] | None = None
) -> threading.Event:
    """An event set when the session player is done (if ``stop``), after printing ``message``."""
    done = threading.Event()

    def watch() -> None:
        player.done.wait()
        if before is not None:
            before()
        click.echo(message)
        if stop:
            done.set()

    threading.Thread(target=watch, name="session-watch", daemon=True).start()
    return done


def _drain(hub: SimulatedHub, timeout: float = 10.0) -> None:
    """Give the station time to ACK the last events, so none is left behind in the ring."""
    deadline = time.monotonic() + timeout
    while hub.pending() and time.monotonic() < deadline:
        time.sleep(0.1)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8080, show_default=True)
@click.option("--speed", default=1.0, show_default=True, help="Play the session this many times faster.")
@click.option(
    "--session",
    "session_file",
    type=click.Path(exists=True, dir_okay=False),
    help="Session script to play instead of the bundled one.",
)
@click.option("--journal", type=click.Path(dir_okay=False), help="Where to journal the demo game.")
@click.option("--seed", default=7, show_default=True, help="Dice seed, so every demo plays the same.")
@click.option("--exit-when-done", is_flag=True, help="Stop once the session has played (for scripts).")
@click.option("--config", type=click.Path(dir_okay=False))
@click.option("--mqtt", help="Publish the demo game to a broker (the tournament demo): mqtt://host:1883.")
@click.option("--table", help="The demo table's id on the broker (with --mqtt).")
def demo(
    host: str,
    port: int,
    speed: float,
    session_file: str | None,
    journal: str | None,
    seed: int,
    exit_when_done: bool,
    config: str | None,
    mqtt: str | None,
    table: str | None,
) -> None:
    """Referee a recorded Бронепехота session live: simulated hub, real link, real dashboard.

    The lobby is up too (/lobby): the game can be ended there, found in the history, or another
    one started once the demo game has ended."""
    from ..devices.hubsim import SimulatedHub
    from ..session import SessionPlayer, load_session

    try:
        with resources.as_file(resources.files("station") / "data" / "demo" / "session.json") as bundled:
            session = load_session(session_file or bundled)
        ruleset = make_ruleset(session.game, DiceBook())
        armies = [ruleset.load_army(str(a)) for a in session.army_paths]
    except (DataFileError, ValueError) as exc:
        fail(str(exc))
    broker, table_id, dashboard = check_broker(mqtt, table, host, port)
    hub = SimulatedHub(nodes=ruleset.sensor_nodes(armies), boot=session.boot, speed=speed).start()
    lobby = Lobby(
        Path(journal).parent if journal else Path("journals"),
        data_dir() / "armies",
        Hardware((hub.path,), seed=seed, mqtt=broker, table=table_id, dashboard_url=dashboard),
    )
    try:
        station = lobby.start(
            session.game,
            armies,
            session.options,
            Path(journal) if journal else lobby.new_journal_path(f"demo-{session.game}"),
            session.terrain,
            f"{session.path}: terrain",
            by="station demo",
        )
    except (DataFileError, InputError, ValueError, InUse) as exc:
        hub.stop()
        fail(str(exc))
    click.echo(f"Demo: {session.title} ({session.duration / speed:.0f} s at {speed}x), journal {station.journal.path}")
    server = serve_dashboard(lobby, host, port, config, {})
    player = SessionPlayer(
        session,
        hub,
        lambda t, a: station.game.operator_input(t, a, by="demo script"),
        speed,
        on_table=station.game.observe_table,
        on_dice=lambda sides, values: station.game.enter_dice(sides, values, by="demo script"),
    )
    lobby.on_end.append(lambda ended: player.stop() if ended is station else None)
    player.start()
    wait_for_interrupt(
        _announce_end(
            player,
            "Demo session finished." + ("" if exit_when_done else " The dashboard stays up (Ctrl-C to quit)."),
            exit_when_done,
            lambda: _drain(hub),
        )
    )
    player.stop()
    server.stop()
    lobby.close()
    hub.stop()


@click.command("simulate-board")
@click.option(
    "--firmware",
    type=click.Path(dir_okay=False),
    default="firmware/build/hub.elf",
    show_default=True,
    help="The hub firmware ELF (make firmware builds it).",
)
@click.option("--script", type=click.Path(exists=True, dir_okay=False), help="Stimulus script (hardware.md).")
@click.option("--link", "link_path", type=click.Path(dir_okay=False), help="Stable path for the pty (a symlink).")
def simulate_board(firmware: str, script: str | None, link_path: str | None) -> None:
    """The real hub firmware in simavr, its UART on a pty; connect `station run --serial` to it."""
    from ..devices.board import BoardError, SimulatedBoard

    try:
        board = SimulatedBoard(firmware, script, link_path).start()
    except BoardError as exc:
        fail(str(exc))
    click.echo(f"Firmware {firmware} running in simavr; UART0 on {board.path}")
    _run_simulated(board)


def _run_simulated(board: SimulatedBoard) -> None:
    """Say how to connect, and run the simulated board until its script ends or Ctrl-C."""
    from ..devices.board import BoardError

    click.echo(f"Connect with:   station run --serial {board.path} ...")
    done = threading.Event()

    def watch() -> None:
        try:
            board.wait()
            click.echo("Script finished.")
        except BoardError as exc:
            click.echo(f"error: {exc}", err=True)
        done.set()

    threading.Thread(target=watch, name="board-watch", daemon=True).start()
    wait_for_interrupt(done)
    board.stop()


@click.command("simulate-radio")
@click.option("--build", type=click.Path(file_okay=False), default="firmware/build", show_default=True,
              help="Where make firmware put radio-hub.elf and the node images.")  # fmt: skip
@click.option(
    "--node", "nodes", multiple=True, help="A radio node by name (firmware/Makefile RADIO_NODES); all by default."
)
@click.option("--script", type=click.Path(exists=True, dir_okay=False), help="Stimulus script (hardware.md).")
@click.option("--link", "link_path", type=click.Path(dir_okay=False), help="Stable path for the hub's pty (a symlink).")
@click.option("--loss", type=click.FloatRange(0, 1), default=0.0, show_default=True, help="Packets the air loses.")
def simulate_radio(build: str, nodes: tuple[str, ...], script: str | None, link_path: str | None, loss: float) -> None:
    """A radio hub and its radio nodes in simavr on one simulated air; the hub's UART on a pty."""
    from ..devices.board import RADIO_NODES, BoardError, SimulatedRadioTable, firmware_images

    unknown = sorted(set(nodes) - RADIO_NODES.keys())
    if unknown:
        fail(f"no radio node {', '.join(unknown)}: the images are {', '.join(RADIO_NODES)} (firmware/Makefile)")
    hub, images = firmware_images(Path(build), nodes or RADIO_NODES)
    try:
        table = SimulatedRadioTable(hub, list(images), script, link_path, loss).start()
    except BoardError as exc:
        fail(str(exc))
    click.echo(f"Radio hub and {len(images)} radio nodes running in simavr; the hub's UART0 on {table.path}")
    _run_simulated(table)


@click.command("simulate-hub")
@click.option("--link", "link_path", type=click.Path(dir_okay=False), help="Stable path for the pty (a symlink).")
@click.option("--script", type=click.Path(exists=True, dir_okay=False), help="Session script to play.")
@click.option("--speed", default=1.0, show_default=True)
@click.option(
    "--army",
    "armies",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Announce the nodes these armies are wired to (else the script's armies, else the demo's).",
)
@click.option("--boot", default=None, help="Boot id the hub announces.")
def simulate_hub(
    link_path: str | None, script: str | None, speed: float, armies: tuple[str, ...], boot: str | None
) -> None:
    """A protocol-v1 hub on a pseudo-terminal; point `station run --serial` at the printed path."""
    from ..devices.hubsim import SimulatedHub
    from ..session import SessionPlayer, load_session

    try:
        session = load_session(script) if script else None
        game = session.game if session else "bronepekhota"
        ruleset = make_ruleset(game, DiceBook())
        if not armies and session is None:  # the demo's armies: a hub wired as a real table would be
            with resources.as_file(resources.files("station") / "data" / "demo" / "session.json") as bundled:
                armies = tuple(str(a) for a in load_session(bundled).army_paths)
        paths = list(armies) or ([str(a) for a in session.army_paths] if session else [])
        nodes = ruleset.sensor_nodes([ruleset.load_army(a) for a in paths])
    except (DataFileError, ValueError) as exc:
        fail(str(exc))
    hub = SimulatedHub(link_path, nodes=nodes, boot=boot or (session.boot if session else "51A1"), speed=speed).start()
    click.echo(f"Simulated hub on {hub.path}, announcing {', '.join(n.id for n in hub.nodes)}")
    click.echo(f"Connect with:   station run --serial {hub.path} ...")
    done = None
    if session:
        done = _announce_end(
            SessionPlayer(session, hub, None, speed).start(), "Script finished.", True, lambda: _drain(hub)
        )
    wait_for_interrupt(done)
    hub.stop()
