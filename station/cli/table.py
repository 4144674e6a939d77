"""What the commands that referee a game on a table share: the hub's and camera's options, the
dashboard's limits, the club's broker, and the dashboard itself."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..config import config_path
from ..web.limits import WebLimits
from .common import fail, referee_token

if TYPE_CHECKING:
    from ..lobby.lobby import Lobby
    from ..web.server import DashboardServer

Command = Callable[..., Any]

log = logging.getLogger("station")


def serve_dashboard(lobby: Lobby, host: str, port: int, config: str | None, web: dict[str, Any]) -> DashboardServer:
    """The dashboard and the lobby on ``host:port``; prints the addresses a phone can open."""
    from ..web.claim import Claim
    from ..web.server import DashboardServer

    token = referee_token(config)
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


def warn_missing_port(serial_urls: tuple[str, ...]) -> None:
    """A mistyped device path says so at once, in the terminal (the link keeps retrying, and the
    dashboard's badge shows the same error); so does a port given twice."""
    if len(set(serial_urls)) != len(serial_urls):
        fail(f"a hub port is given twice: {' '.join(serial_urls)}")
    for url in serial_urls:
        if url.startswith("/dev/") and not Path(url).exists():
            click.echo(f"Warning: {url} does not exist (yet); `station doctor` lists the serial ports.", err=True)


def web_options(command: Command) -> Command:
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


def check_broker(mqtt: str | None, table: str | None, host: str, port: int) -> tuple[str | None, str | None, str]:
    """``--mqtt`` and ``--table`` checked at once (a bad URL or table id fails before anything
    opens), with the address the tournament screen links to."""
    if not mqtt:
        if table:
            fail("--table names this table on the broker: give --mqtt too")
        return None, None, ""
    from ..lobby.network import urls
    from ..publish import BrokerUrl, MqttUnavailable, check_table_id, client

    if not table:
        fail("--mqtt needs --table, this table's id on the broker (e.g. t7)")
    try:
        client("check", BrokerUrl.parse(mqtt))
        check_table_id(table)
    except (ValueError, MqttUnavailable) as exc:
        fail(str(exc))
    return mqtt, table, urls(host, port)[0]


def hardware_options(command: Command) -> Command:
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
