"""The commands that referee: ``run`` (one game, for scripts), ``serve`` (the always-on lobby) and
``tournament`` (every table of a club on one screen)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import click

from ..config import config_path
from ..datafile import DataFileError, data_dir, load_json_file
from ..dice import DiceBook
from ..exclusive import FileLock, InUse
from ..game import InputError
from ..lobby.lobby import Hardware, Lobby
from ..lobby.settings import SettingsError, load_settings
from ..lobby.starting import CheckFailed
from ..rules.registry import RULESETS, make_ruleset
from .common import fail, referee_token, wait_for_interrupt
from .table import check_broker, hardware_options, serve_dashboard, warn_missing_port, web_options


def _parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--option")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def _newest_journal(folder: Path = Path("journals")) -> Path:
    """The journal written most recently, for ``run --resume`` after a power cut."""
    journals = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime) if folder.is_dir() else []
    if not journals:
        fail(f"--resume: no journal in {folder}/; give one with --journal")
    return journals[-1]


@click.command()
@click.option("--game", type=click.Choice(sorted(RULESETS)), help="Rules to referee (new journals).")
@click.option(
    "--army", "armies", multiple=True, type=click.Path(dir_okay=False), help="Army file; give one per player."
)
@click.option("--journal", type=click.Path(dir_okay=False), help="Journal file; an existing one is resumed.")
@click.option(
    "--resume",
    is_flag=True,
    help="Carry on a game after a crash or power cut: --journal's, else the newest in journals/.",
)
@click.option("--option", "options", multiple=True, help="Game option KEY=VALUE (docs/options.md).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Dashboard address; 0.0.0.0 exposes it.")
@click.option("--port", default=8080, show_default=True)
@click.option(
    "--terrain",
    "terrain_path",
    type=click.Path(exists=True, dir_okay=False),
    help="Terrain file (station-terrain/1); the dashboard can edit it later.",
)
@click.option("--force", is_flag=True, help="Start although the pre-game check failed (needs --note).")
@click.option("--note", default="", help="Why the game starts despite a failed check; journaled with it.")
@hardware_options
@web_options
def run(
    game: str | None,
    armies: tuple[str, ...],
    journal: str | None,
    resume: bool,
    options: tuple[str, ...],
    host: str,
    port: int,
    terrain_path: str | None,
    force: bool,
    note: str,
    serial_urls: tuple[str, ...],
    baud: str,
    camera: str | None,
    camera_fps: float | None,
    cal_path: str,
    seed: int | None,
    config: str | None,
    mqtt: str | None,
    table: str | None,
    web: dict[str, Any],
) -> None:
    """Referee one game live from the hub and the dashboard (for scripts; `serve` is the lobby)."""
    path = Path(journal) if journal else (_newest_journal() if resume else None)
    resuming = path is not None and path.exists() and path.stat().st_size > 0
    if resume and not resuming:
        fail(f"--resume: {path} is empty or missing; start a new game with --game and --army")
    if resume and (game or armies):
        fail("--resume carries on the journal's own game and armies; leave out --game and --army")
    if not resuming and (not game or len(armies) < 2):
        fail("a new game needs --game and at least two --army files")
    warn_missing_port(serial_urls)
    lobby = Lobby(
        path.parent if path else Path("journals"),
        data_dir() / "armies",
        Hardware(
            serial_urls, camera, camera_fps, Path(cal_path), seed, int(baud), *check_broker(mqtt, table, host, port)
        ),
    )
    try:
        loaded = [make_ruleset(game, DiceBook()).load_army(a) for a in armies] if game and not resuming else []
        terrain = load_json_file(terrain_path) if terrain_path else None
        station = lobby.start(
            None if resuming else game,
            loaded,
            _parse_options(options),
            path,
            terrain,
            terrain_path or "terrain",
            force=force,
            note=note,
            by="station run",
        )
    except CheckFailed as failed:
        fixes = [f"  {c['check']}: {c['fix']}" for c in failed.checks if c["level"] == "fail" and c["fix"]]
        fail("\n".join([str(failed), *fixes, "Start anyway with --force --note WHY."]))
    except (DataFileError, InputError, ValueError, InUse) as exc:
        fail(str(exc))
    click.echo(f"{'Resuming' if resuming else 'Journal'}: {station.journal.path}")
    for message in lobby.messages:
        click.echo(message)
    server = serve_dashboard(lobby, host, port, config, web)
    wait_for_interrupt()
    server.stop()
    lobby.close()


@click.command()
@click.option(
    "--data",
    "data_path",
    type=click.Path(file_okay=False),
    help="The station's data: journals/, armies/ and the card library (default $STATION_DATA, else ./data).",
)
@click.option(
    "--host",
    default="0.0.0.0",
    show_default=True,
    help="Listen on every interface, so phones on the club's network can watch; 127.0.0.1 keeps it local.",
)
@click.option("--port", default=8080, show_default=True)
@click.option(
    "--updates",
    "updates_dir",
    type=click.Path(file_okay=False),
    help="The station image's versions folder: the settings page installs updates there (docs/pi.md).",
)
@hardware_options
@web_options
def serve(
    data_path: str | None,
    host: str,
    port: int,
    updates_dir: str | None,
    serial_urls: tuple[str, ...],
    baud: str,
    camera: str | None,
    camera_fps: float | None,
    cal_path: str,
    seed: int | None,
    config: str | None,
    mqtt: str | None,
    table: str | None,
    web: dict[str, Any],
) -> None:
    """The always-on station: a lobby in the browser to start, resume, end and review games."""
    data = Path(data_path) if data_path else data_dir()
    os.environ["STATION_DATA"] = str(data)  # the card library and every loader read the same folder
    hardware = Hardware(
        serial_urls, camera, camera_fps, Path(cal_path), seed, int(baud), *check_broker(mqtt, table, host, port)
    )
    try:
        data.mkdir(parents=True, exist_ok=True)
        owner = FileLock(data, f"data folder {data}")  # one lobby per folder, held till exit
        lobby = Lobby(data / "journals", data / "armies", hardware)
        settings = load_settings(data)
        if not serial_urls and camera is None:  # no hardware flags: what the browser set last time
            lobby.apply_settings(settings, save=False)
        else:
            lobby.return_to_data_folder(settings.data)
            lobby.dice.configure(settings.dice, False, settings.dice_pairs)  # no flag sets the dice
        lobby.watch(required=True)
    except (InUse, SettingsError) as exc:
        fail(str(exc))
    click.echo(f"Data:           {lobby.data}")
    for message in lobby.messages:
        click.echo(message)
    warn_missing_port(serial_urls)
    unfinished = lobby.unfinished()
    if unfinished is not None:
        click.echo(f"Unfinished game: {unfinished.name} (resume it from the lobby)")
    server = serve_dashboard(lobby, host, port, config, web)
    restart = threading.Event()  # an update installed: stop, and the service starts the new version
    server.app.config["RESTART"] = restart.set
    if updates_dir:
        from ..updates import came_up

        server.app.config["UPDATES"] = Path(updates_dir)
        came_up(Path(updates_dir))
    wait_for_interrupt(restart)
    server.stop()
    lobby.close()
    owner.release()


@click.command()
@click.option("--mqtt", required=True, help="The club's broker the tables publish to: mqtt://user:pass@host:1883.")
@click.option(
    "--db",
    type=click.Path(dir_okay=False),
    default="tournament.sqlite",
    show_default=True,
    help="The tournament's own records (SQLite); a restart carries on from it.",
)
@click.option("--host", default="0.0.0.0", show_default=True)
@click.option("--port", default=8090, show_default=True)
@click.option("--config", type=click.Path(dir_okay=False), help="Config file (its token is the judges' token).")
def tournament(mqtt: str, db: str, host: str, port: int, config: str | None) -> None:
    """Every table of a tournament on one screen, with judge calls and Swiss standings."""
    from waitress import create_server

    from ..lobby.network import token_link, urls
    from ..publish import BrokerUrl, MqttUnavailable
    from ..tournament.app import create_tournament_app
    from ..tournament.store import Store
    from ..tournament.subscriber import Subscriber
    from ..web.bodies import ADJUSTMENTS as BODY_ADJUSTMENTS
    from ..web.bodies import gate

    try:
        broker = BrokerUrl.parse(mqtt)
        store = Store(db)
        subscriber = Subscriber(broker, store).start()
    except (ValueError, MqttUnavailable, OSError) as exc:
        fail(str(exc))
    token = referee_token(config)
    app = create_tournament_app(store, token, subscriber, config_path(config))
    server = gate(create_server(app, host=host, port=port, threads=8, **BODY_ADJUSTMENTS), app)
    threading.Thread(target=server.run, name="tournament-web", daemon=True).start()
    click.echo(f"Broker:         {broker}")
    click.echo(f"Records:        {Path(db).resolve()}")
    for address in urls(host, port):
        click.echo(f"Tournament:     {address}")
    click.echo(f"Judges' token:  {token}")
    click.echo(f"Judges' link:   {token_link(urls(host, port)[0], token)}  (opens the screen logged in)")
    wait_for_interrupt()
    server.close()
    subscriber.stop()
    store.close()
