"""The ``station`` command: run a game, the demo, a replay, or a simulated hub."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from .appliance import BOOT_FILE
from .config import ConfigError, config_path, fresh_token, load_config, save_config
from .datafile import DataFileError, data_dir, load_json_file
from .dice import DiceBook
from .exclusive import FileLock, InUse
from .fold import fold
from .game import InputError
from .journal import JournalError, read_records
from .lobby.lobby import Hardware, Lobby
from .lobby.settings import SettingsError, load_settings
from .lobby.starting import CheckFailed
from .records import Kind
from .rules.registry import RULESETS, make_ruleset
from .web.limits import WebLimits

if TYPE_CHECKING:  # loaded by the commands that use them
    from .devices.board import SimulatedBoard
    from .devices.hubsim import SimulatedHub
    from .session import SessionPlayer
    from .web.server import DashboardServer

Command = Callable[..., Any]

log = logging.getLogger("station")


LOG_BYTES = 5 * 1024 * 1024  # a log file rotates at 5 MB, keeping 5 old ones
LOG_KEEP = 5


def _setup_logging(verbose: bool, log_file: str | None = None) -> None:
    """Log to stderr (journald keeps and rotates it under systemd), and with ``--log-file`` also
    to a file that rotates by size, so a station left running never fills its card."""
    handlers: list[logging.Handler] = [logging.StreamHandler()]
    if log_file:
        from logging.handlers import RotatingFileHandler

        Path(log_file).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(RotatingFileHandler(log_file, maxBytes=LOG_BYTES, backupCount=LOG_KEEP, encoding="utf-8"))
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        handlers=handlers,
        force=True,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
        datefmt="%H:%M:%S",
    )


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
        _fail(f"--resume: no journal in {folder}/; give one with --journal")
    return journals[-1]


def _wait_for_interrupt(until: threading.Event | None = None) -> None:
    stop = until or threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass


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


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


@click.group()
@click.option("-v", "--verbose", is_flag=True, help="Log debug detail.")
@click.option("--log-file", type=click.Path(dir_okay=False), help="Also log to this file, rotated at 5 MB (5 kept).")
@click.version_option(package_name="station")
def main(verbose: bool, log_file: str | None) -> None:
    """Referee station for physical miniature wargames."""
    _setup_logging(verbose, log_file)


def _token(config: str | None) -> str:
    try:
        return str(load_config(config_path(config))["referee_token"])
    except ConfigError as exc:
        _fail(str(exc))
        raise  # unreachable: _fail exits


def _serve(lobby: Lobby, host: str, port: int, config: str | None, web: dict[str, Any]) -> DashboardServer:
    """The dashboard and the lobby on ``host:port``; prints the addresses a phone can open."""
    from .web.claim import Claim
    from .web.server import DashboardServer

    token = _token(config)
    unclaimed = Claim.of(config_path(config))
    server = DashboardServer(lobby, token, host, port, WebLimits(**web), unclaimed, config_path(config)).start()
    for address in server.addresses:
        click.echo(f"Dashboard:      {address}")
    # the password is never printed: run as a service, this output lands in the system log
    click.echo("Referee:        the referee's link is on the settings page (as a QR code), or run `station token`")
    if unclaimed is not None:  # the service's log (journalctl -u station) keeps it for a phone's first visit
        log.warning("claim this station: open %ssetup and enter the code %s", server.addresses[0], unclaimed.code)
        click.echo(f"Claim code:     {unclaimed.code}   (open {server.addresses[0]}setup on a phone and enter it)")
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo("The dashboard is reachable from the network: spectators read, only the token referees.")
    return server


def _warn_missing_port(serial_urls: tuple[str, ...]) -> None:
    """A mistyped device path says so at once, in the terminal (the link keeps retrying, and the
    dashboard's badge shows the same error); so does a port given twice."""
    if len(set(serial_urls)) != len(serial_urls):
        _fail(f"a hub port is given twice: {' '.join(serial_urls)}")
    for url in serial_urls:
        if url.startswith("/dev/") and not Path(url).exists():
            click.echo(f"Warning: {url} does not exist (yet); `station doctor` lists the serial ports.", err=True)


def _web_options(command: Command) -> Command:
    """The dashboard's limits on a club's network (docs/journal-and-api.md, "On a club's
    network"), gathered into ``web``."""
    defaults = {f.name: f.default for f in dataclasses.fields(WebLimits)}

    def gather(ctx: click.Context, param: click.Parameter, value: int) -> int:
        ctx.params.setdefault("web", {})[param.name] = value
        return value

    for name, flag, text in [
        ("spectators", "--spectators", "Dashboard streams for spectators at once; more get a 503."),
        ("connections", "--max-connections", "Open connections at most; the longest idle is closed first."),
        ("idle_timeout", "--idle-timeout", "Seconds a half-sent request or an unused keep-alive may sit."),
        ("session_hours", "--session-hours", "Hours a referee's login lasts; logging out ends it sooner."),
    ]:
        command = click.option(
            flag,
            name,
            type=click.FloatRange(min=0.01) if name == "session_hours" else click.IntRange(min=1),
            default=defaults[name],
            show_default=True,
            help=text,
            callback=gather,
            expose_value=False,
        )(command)
    return command


def _broker(mqtt: str | None, table: str | None, host: str, port: int) -> tuple[str | None, str | None, str]:
    """``--mqtt`` and ``--table`` checked at once (a bad URL or table id fails before anything
    opens), with the address the tournament screen links to."""
    if not mqtt:
        if table:
            _fail("--table names this table on the broker: give --mqtt too")
        return None, None, ""
    from .lobby.network import urls
    from .publish import BrokerUrl, MqttUnavailable, check_table_id, client

    if not table:
        _fail("--mqtt needs --table, this table's id on the broker (e.g. t7)")
    try:
        client("check", BrokerUrl.parse(mqtt))
        check_table_id(table)
    except (ValueError, MqttUnavailable) as exc:
        _fail(str(exc))
    return mqtt, table, urls(host, port)[0]


def _hardware_options(command: Command) -> Command:
    """The options every command that plays a game on a table shares: the hub, the camera."""
    for option in reversed(
        [
            click.option(
                "--serial",
                "serial_urls",
                multiple=True,
                help="A hub's port: /dev/ttyACM0, a pty path, loop://, socket://HOST:PORT. Repeat it for every hub.",
            ),
            click.option(
                "--baud",
                type=click.Choice(["1000000", "500000", "250000", "115200"]),
                default="1000000",
                show_default=True,
                help="The hub's serial rate (firmware/avr/uart.h); 115200 for bronehub/1.0.",
            ),
            click.option("--camera", help="Overhead camera: an index (0), a video file or a folder of frames."),
            click.option(
                "--camera-fps",
                type=click.FloatRange(min=0, min_open=True),
                help="Play a recorded --camera (video or folder) at this rate, looping, as a live camera would.",
            ),
            click.option(
                "--calibration",
                "cal_path",
                type=click.Path(dir_okay=False),
                default="calibration/table.json",
                show_default=True,
                help="Calibration for --camera (station calibrate table).",
            ),
            click.option("--seed", type=int, help="Seed the dice (for rehearsals); default is unpredictable."),
            click.option("--config", type=click.Path(dir_okay=False), help="Config file (holds the referee token)."),
            click.option(
                "--mqtt",
                help="Publish the game to the club's broker for the tournament screen: mqtt://user:pass@host:1883.",
            ),
            click.option("--table", help="This table's id on the broker (with --mqtt), e.g. t7."),
        ]
    ):
        command = option(command)
    return command


@main.command()
@click.option(
    "--calibration",
    "cal_path",
    type=click.Path(dir_okay=False),
    default="calibration/table.json",
    show_default=True,
    help="The table calibration to check.",
)
@click.option(
    "--journals",
    "journal_dir",
    type=click.Path(file_okay=False),
    default="journals",
    show_default=True,
    help="Where journals are written (its disk is checked).",
)
@click.option("--camera", "camera_index", type=int, default=0, show_default=True, help="Camera index to try.")
@click.option("--no-camera", is_flag=True, help="Skip the camera check.")
def doctor(cal_path: str, journal_dir: str, camera_index: int, no_camera: bool) -> None:
    """Check this machine for a game: ports, permissions, camera, calibration, disk, versions."""
    from .doctor import examine, report

    findings = examine(Path(cal_path), Path(journal_dir), None if no_camera else camera_index)
    click.echo(report(findings))
    if any(f.level == "fail" for f in findings):
        sys.exit(1)


@main.command("hub-id")
@click.argument("port")
@click.argument("hub_id", required=False)
@click.option("--baud", type=int, default=1_000_000, show_default=True, help="The hub's serial rate.")
def hub_id(port: str, hub_id: str | None, baud: str) -> None:
    """Give the hub on PORT an id (4-8 hex digits; a random one if left out), kept in its EEPROM.
    Every board makes its own at first boot; this is for two boards that drew the same."""
    import secrets

    from .devices.probe import ProbeError, set_hub_id
    from .events import HUB_ID

    wanted = (hub_id or secrets.token_hex(2)).upper()
    if not HUB_ID.fullmatch(wanted):
        _fail(f"hub id {wanted!r}: must be 4-8 hex digits, like 3F2A")
    try:
        hello = set_hub_id(port, wanted, int(baud))
    except ProbeError as exc:
        _fail(f"{port}: {exc}")
    if hello is None:
        _fail(f"no hub on {port} took the id (a hub older than bronehub/1.2 has none; flash it)")
    click.echo(f"The hub on {port} is now hub {hello.hub} ({hello.fw}, boot {hello.boot}).")


@main.command()
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
@_hardware_options
@_web_options
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
        _fail(f"--resume: {path} is empty or missing; start a new game with --game and --army")
    if resume and (game or armies):
        _fail("--resume carries on the journal's own game and armies; leave out --game and --army")
    if not resuming and (not game or len(armies) < 2):
        _fail("a new game needs --game and at least two --army files")
    _warn_missing_port(serial_urls)
    lobby = Lobby(
        path.parent if path else Path("journals"),
        data_dir() / "armies",
        Hardware(serial_urls, camera, camera_fps, Path(cal_path), seed, int(baud), *_broker(mqtt, table, host, port)),
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
        _fail("\n".join([str(failed), *fixes, "Start anyway with --force --note WHY."]))
    except (DataFileError, InputError, ValueError, InUse) as exc:
        _fail(str(exc))
    click.echo(f"{'Resuming' if resuming else 'Journal'}: {station.journal.path}")
    for message in lobby.messages:
        click.echo(message)
    server = _serve(lobby, host, port, config, web)
    _wait_for_interrupt()
    server.stop()
    lobby.close()


@main.command()
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
@_hardware_options
@_web_options
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
        serial_urls, camera, camera_fps, Path(cal_path), seed, int(baud), *_broker(mqtt, table, host, port)
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
        _fail(str(exc))
    click.echo(f"Data:           {lobby.data}")
    for message in lobby.messages:
        click.echo(message)
    _warn_missing_port(serial_urls)
    unfinished = lobby.unfinished()
    if unfinished is not None:
        click.echo(f"Unfinished game: {unfinished.name} (resume it from the lobby)")
    server = _serve(lobby, host, port, config, web)
    restart = threading.Event()  # an update installed: stop, and the service starts the new version
    server.app.config["RESTART"] = restart.set
    if updates_dir:
        from .updates import came_up

        server.app.config["UPDATES"] = Path(updates_dir)
        came_up(Path(updates_dir))
    _wait_for_interrupt(restart)
    server.stop()
    lobby.close()
    owner.release()


@main.command()
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

    from .lobby.network import token_link, urls
    from .publish import BrokerUrl, MqttUnavailable
    from .tournament.app import create_tournament_app
    from .tournament.store import Store
    from .tournament.subscriber import Subscriber
    from .web.bodies import ADJUSTMENTS as BODY_ADJUSTMENTS
    from .web.bodies import gate

    try:
        broker = BrokerUrl.parse(mqtt)
        store = Store(db)
        subscriber = Subscriber(broker, store).start()
    except (ValueError, MqttUnavailable, OSError) as exc:
        _fail(str(exc))
    token = _token(config)
    app = create_tournament_app(store, token, subscriber, config_path(config))
    server = gate(create_server(app, host=host, port=port, threads=8, **BODY_ADJUSTMENTS), app)
    threading.Thread(target=server.run, name="tournament-web", daemon=True).start()
    click.echo(f"Broker:         {broker}")
    click.echo(f"Records:        {Path(db).resolve()}")
    for address in urls(host, port):
        click.echo(f"Tournament:     {address}")
    click.echo(f"Judges' token:  {token}")
    click.echo(f"Judges' link:   {token_link(urls(host, port)[0], token)}  (opens the screen logged in)")
    _wait_for_interrupt()
    server.close()
    subscriber.stop()
    store.close()


def _service_config(user: str, config: Path | None) -> tuple[Path, str | None]:
    """The service user's config and its claim code (None once claimed).  Made here if missing,
    owned by that user, so the code is known before the service first starts.  Raises KeyError
    (no such user), ConfigError or OSError."""
    import pwd

    owner = pwd.getpwnam(user)
    path = config or Path(owner.pw_dir) / ".config" / "station" / "config.json"
    fresh = not path.exists()
    code = load_config(path).get("claim_code")
    if fresh and os.geteuid() == 0:  # made by root: the service's user must read it and replace it
        made = [path, path.parent]  # the file, and its folder (a claim replaces the file there)
        if path.parent.parent.is_relative_to(owner.pw_dir) and path.parent.parent != Path(owner.pw_dir):
            made.append(path.parent.parent)  # ~/.config, if this made it
        for item in made:
            os.chown(item, owner.pw_uid, owner.pw_gid)
    return path, code


def _print_claim_code(user: str, config: Path | None) -> None:
    """The last terminal step: the code the first phone enters at /setup to claim the station."""
    try:
        path, code = _service_config(user, config)
    except KeyError:
        click.echo(f"No user {user!r} here: the station prints its claim code in its log when it starts.")
        return
    except (ConfigError, OSError) as exc:
        click.echo(f"Could not prepare the config of {user!r} ({exc}): the station prints its claim code in its log.")
        return
    if code:
        click.echo(f"Claim code:     {code}   (open the station on a phone; /setup asks for it once)")
    else:
        click.echo("The station is already claimed: its referee token is in " + str(path))


@main.command("boot-network")
@click.option("--boot-file", type=click.Path(dir_okay=False), default=str(BOOT_FILE), show_default=True)
@click.option("--data", "data_path", type=click.Path(file_okay=False), default="/var/lib/station", show_default=True)
@click.option(
    "--user", default="station", show_default=True, help="The service's user, whose config holds the claim code."
)
@click.option("--port", default=80, show_default=True, help="The port the service serves on.")
def boot_network(boot_file: str, data_path: str, user: str, port: int) -> None:
    """At the image's boot (docs/pi.md): the name and Wi-Fi from the boot partition's station.txt,
    the station's own access point when no network comes up, and the screen's QR codes."""
    from .appliance import BootFileError, NetworkPlan, bring_up, read_boot_file, screen_text
    from .lobby.network import urls

    plan = NetworkPlan()
    try:
        plan = read_boot_file(Path(boot_file).read_text(encoding="utf-8", errors="replace"), boot_file)
    except FileNotFoundError:
        log.info("%s: not there; the station opens its own access point", boot_file)
    except (BootFileError, OSError) as exc:
        click.echo(f"{exc}; the station opens its own access point until it is fixed")
    ap = bring_up(plan, Path(data_path))
    try:
        claim = _service_config(user, Path(data_path) / "config.json")[1]
    except (KeyError, ConfigError, OSError) as exc:
        log.warning("no claim code to show: %s", exc)
        claim = None
    click.echo(screen_text(plan.hostname, port, urls("0.0.0.0", port), ap, claim))


@main.command()
@click.option("--config", type=click.Path(dir_okay=False), help="Config file (holds the referee token).")
@click.option("--url", help="The station's address (default: this machine's LAN address, port 8080).")
@click.option("--new", "renew", is_flag=True, help="Make a new token: every referee login ends (a lost phone).")
def token(config: str | None, url: str | None, renew: bool) -> None:
    """Show the referee's link, with its token, as a QR code in this terminal for a phone to scan."""
    import segno

    from .lobby.network import token_link, urls

    if renew:
        path = config_path(config)
        try:
            save_config(path, {**load_config(path), "referee_token": fresh_token()})
        except (ConfigError, OSError) as exc:
            _fail(f"cannot write a new token to {path}: {exc}")
        click.echo("A new referee token: a running station takes it within a second, and every login ends.")
    link = token_link(url or urls("0.0.0.0", 8080)[0], _token(config))
    click.echo(link)
    segno.make(link, error="m").terminal(compact=True)


@main.command()
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
    from .devices.hubsim import SimulatedHub
    from .session import SessionPlayer, load_session

    try:
        with resources.as_file(resources.files("station") / "data" / "demo" / "session.json") as bundled:
            session = load_session(session_file or bundled)
        ruleset = make_ruleset(session.game, DiceBook())
        armies = [ruleset.load_army(str(a)) for a in session.army_paths]
    except (DataFileError, ValueError) as exc:
        _fail(str(exc))
    broker, table_id, dashboard = _broker(mqtt, table, host, port)
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
        _fail(str(exc))
    click.echo(f"Demo: {session.title} ({session.duration / speed:.0f} s at {speed}x), journal {station.journal.path}")
    server = _serve(lobby, host, port, config, {})
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
    _wait_for_interrupt(
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


@main.command("install-service")
@click.option(
    "--serial",
    "serial_urls",
    multiple=True,
    help="A hub's port for every game (e.g. /dev/station-hub); repeat it for every hub; leave it out to choose them in the browser's settings.",
)
@click.option("--camera", help="Overhead camera index or source; leave it out to choose it in the browser's settings.")
@click.option(
    "--config",
    type=click.Path(dir_okay=False),
    help="The token's file (default: the service user's ~/.config/station/config.json).",
)
@click.option("--port", default=8080, show_default=True)
@click.option("--data", "data_path", type=click.Path(file_okay=False), help="Data folder (default ./data, absolute).")
@click.option("--user", help="Run as this user (default: the one who called sudo).")
@click.option(
    "--unit-dir",
    type=click.Path(file_okay=False),
    default="/etc/systemd/system",
    show_default=True,
    help="Where to write.",
)
@click.option("--no-start", is_flag=True, help="Write the unit only; do not enable and start it.")
def install_service(
    serial_urls: tuple[str, ...],
    camera: str | None,
    config: str | None,
    port: int,
    data_path: str | None,
    user: str | None,
    unit_dir: str,
    no_start: bool,
) -> None:
    """Install the systemd unit that runs `station serve` at boot (run with sudo)."""
    import getpass
    import os
    import subprocess

    from .service import UNIT_NAME, ServiceSpec, unit_text

    spec = ServiceSpec(
        user=user or os.environ.get("SUDO_USER") or getpass.getuser(),
        working_dir=Path.cwd(),
        station=Path(sys.argv[0]).resolve()
        if Path(sys.argv[0]).name == "station"
        else Path(sys.executable).parent / "station",
        data=Path(data_path).resolve() if data_path else Path.cwd() / "data",
        serial_urls=tuple(serial_urls),
        camera=camera,
        port=port,
        config=Path(config).resolve() if config else None,
    )
    path = Path(unit_dir) / UNIT_NAME
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(unit_text(spec), encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot write {path} ({exc}); run it with sudo")
    click.echo(f"Wrote {path} (runs: {' '.join(spec.command())} as {spec.user})")
    _print_claim_code(spec.user, spec.config)
    if no_start:
        return
    for command in (["systemctl", "daemon-reload"], ["systemctl", "enable", "--now", UNIT_NAME]):
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            _fail(f"{' '.join(command)} failed: {result.stderr.strip() or result.stdout.strip()}")
    click.echo("Enabled and started. Follow its log with: journalctl -u station -f")


@main.command()
@click.argument("journal", type=click.Path(exists=True, dir_okay=False))
@click.option("--state-json", type=click.Path(dir_okay=False), help="Write the canonical state JSON here.")
@click.option("--rulings", "show_rulings", is_flag=True, help="Print every ruling.")
def replay(journal: str, state_json: str | None, show_rulings: bool) -> None:
    """Rebuild a game from its journal and print a summary."""
    try:
        records = read_records(journal)
        result = fold(records)
    except (JournalError, DataFileError, ValueError, LookupError) as exc:
        _fail(f"{journal}: {exc}")
    text = result.state_json()
    journaled = {r["ruling"]["id"]: r["ruling"] for r in records if r["kind"] == Kind.RULING}
    differing = [
        r.id for r in result.rulings if r.id in journaled and journaled[r.id]["text"] != r.text and not r.overridden
    ]
    counts: dict[str, int] = {}
    for record in records:
        counts[record["kind"]] = counts.get(record["kind"], 0) + 1
    click.echo(f"{journal}: {len(records)} records ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})")
    click.echo(result.ruleset.summary(result.state))
    pending = sum(1 for r in result.rulings if result.status(r) == "pending")
    click.echo(
        f"rulings: {len(result.rulings)} ({pending} awaiting the referee); "
        f"{'all match the journal' if not differing else f'{len(differing)} differ from the journal: ' + ', '.join(differing[:5])}"
    )
    click.echo(f"state sha256: {hashlib.sha256(text.encode()).hexdigest()}")
    if show_rulings:
        for r in result.rulings:
            click.echo(f"  [{r.id}] {r.text}")
    if state_json:
        Path(state_json).write_text(text, encoding="utf-8")


@main.command()
@click.argument("game", type=click.Choice(sorted(RULESETS)), required=False)
@click.option(
    "--write-docs",
    "docs",
    type=click.Path(file_okay=False, exists=True),
    help="Rewrite every game's options and inputs tables in this manual folder (docs/).",
)
def options(game: str | None, docs: str | None) -> None:
    """Print GAME's options: each with its default, the values it takes, its rulebook section and
    what it does (pass them with --option NAME=VALUE)."""
    from .optionsdoc import options_table, write_docs

    if docs:
        changed = write_docs(Path(docs))
        click.echo(f"{len(changed)} pages rewritten: {', '.join(p.name for p in changed) or 'none needed it'}")
    elif game:
        click.echo(options_table(game))
    else:
        _fail("name a game (" + ", ".join(sorted(RULESETS)) + "), or give --write-docs")


@main.command()
@click.argument("game", type=click.Choice(sorted(RULESETS)))
def schema(game: str) -> None:
    """Print the army file format of GAME as a JSON Schema (the lobby's form is made from it)."""
    click.echo(json.dumps(make_ruleset(game, DiceBook()).army_schema(), ensure_ascii=False, indent=1))


@main.command("import-mul")
@click.argument("mul_file", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--library",
    "library_path",
    type=click.Path(dir_okay=False),
    help="The card library to add to (default: $STATION_DATA/alpha-strike-library.json, STATION_DATA=./data).",
)
def import_mul(mul_file: str, library_path: str | None) -> None:
    """Add Master Unit List records to the club's Alpha Strike card library.

    MUL_FILE is a MUL response ({"Units": [...]}), a list of records, or one record.  Force files
    then name a card by "mul_id" or by its full name.  A record with no Alpha Strike values, or
    one the station cannot read, is skipped and said why; the others are added."""
    ruleset = make_ruleset("alpha_strike", DiceBook())  # the Master Unit List is BattleTech's
    library = Path(library_path) if library_path else data_dir() / str(ruleset.card_library)
    click.echo(f"Importing {mul_file} into {library} ...")
    try:
        report = ruleset.import_cards(load_json_file(mul_file), mul_file, library)
    except (DataFileError, OSError) as exc:
        _fail(str(exc))
    for name in report.added:
        click.echo(f"  added    {name}")
    for name in report.updated:
        click.echo(f"  updated  {name}")
    for why in report.skipped:
        click.echo(f"  skipped  {why}")
    click.echo(f"{report.summary()}; the library holds {report.cards} records.")


@main.command("simulate-board")
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
    from .devices.board import BoardError, SimulatedBoard

    try:
        board = SimulatedBoard(firmware, script, link_path).start()
    except BoardError as exc:
        _fail(str(exc))
    click.echo(f"Firmware {firmware} running in simavr; UART0 on {board.path}")
    _run_simulated(board)


def _run_simulated(board: SimulatedBoard) -> None:
    """Say how to connect, and run the simulated board until its script ends or Ctrl-C."""
    from .devices.board import BoardError

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
    _wait_for_interrupt(done)
    board.stop()


@main.command("simulate-radio")
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
    from .devices.board import RADIO_NODES, BoardError, SimulatedRadioTable, firmware_images

    unknown = sorted(set(nodes) - RADIO_NODES.keys())
    if unknown:
        _fail(f"no radio node {', '.join(unknown)}: the images are {', '.join(RADIO_NODES)} (firmware/Makefile)")
    hub, images = firmware_images(Path(build), nodes or RADIO_NODES)
    try:
        table = SimulatedRadioTable(hub, list(images), script, link_path, loss).start()
    except BoardError as exc:
        _fail(str(exc))
    click.echo(f"Radio hub and {len(images)} radio nodes running in simavr; the hub's UART0 on {table.path}")
    _run_simulated(table)


@main.command("simulate-hub")
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
    from .devices.hubsim import SimulatedHub
    from .session import SessionPlayer, load_session

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
        _fail(str(exc))
    hub = SimulatedHub(link_path, nodes=nodes, boot=boot or (session.boot if session else "51A1"), speed=speed).start()
    click.echo(f"Simulated hub on {hub.path}, announcing {', '.join(n.id for n in hub.nodes)}")
    click.echo(f"Connect with:   station run --serial {hub.path} ...")
    done = None
    if session:
        done = _announce_end(
            SessionPlayer(session, hub, None, speed).start(), "Script finished.", True, lambda: _drain(hub)
        )
    _wait_for_interrupt(done)
    hub.stop()


from . import cli_vision  # noqa: E402  (registers the camera commands on `main`)

cli_vision.register(main, _fail)
