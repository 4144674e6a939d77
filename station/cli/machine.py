"""The commands that set up a machine: ``doctor``, ``hub-id``, ``token``, ``install-service`` and
the image's ``boot-network``.  None loads a ruleset, the camera or the web: ``boot-network`` runs
on every boot of the image before the lobby starts."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import click

from ..appliance import BOOT_FILE
from ..config import ConfigError, config_path, fresh_token, load_config, save_config
from .common import fail, referee_token

log = logging.getLogger("station")


@click.command()
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
    from ..doctor import examine, report

    findings = examine(Path(cal_path), Path(journal_dir), None if no_camera else camera_index)
    click.echo(report(findings))
    if any(f.level == "fail" for f in findings):
        sys.exit(1)


@click.command("hub-id")
@click.argument("port")
@click.argument("hub_id", required=False)
@click.option("--baud", type=int, default=1_000_000, show_default=True, help="The hub's serial rate.")
def hub_id(port: str, hub_id: str | None, baud: str) -> None:
    """Give the hub on PORT an id (4-8 hex digits; a random one if left out), kept in its EEPROM.
    Every board makes its own at first boot; this is for two boards that drew the same."""
    import secrets

    from ..devices.probe import ProbeError, set_hub_id
    from ..events import HUB_ID

    wanted = (hub_id or secrets.token_hex(2)).upper()
    if not HUB_ID.fullmatch(wanted):
        fail(f"hub id {wanted!r}: must be 4-8 hex digits, like 3F2A")
    try:
        hello = set_hub_id(port, wanted, int(baud))
    except ProbeError as exc:
        fail(f"{port}: {exc}")
    if hello is None:
        fail(f"no hub on {port} took the id (a hub older than bronehub/1.2 has none; flash it)")
    click.echo(f"The hub on {port} is now hub {hello.hub} ({hello.fw}, boot {hello.boot}).")


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


@click.command("boot-network")
@click.option("--boot-file", type=click.Path(dir_okay=False), default=str(BOOT_FILE), show_default=True)
@click.option("--data", "data_path", type=click.Path(file_okay=False), default="/var/lib/station", show_default=True)
@click.option(
    "--user", default="station", show_default=True, help="The service's user, whose config holds the claim code."
)
@click.option("--port", default=80, show_default=True, help="The port the service serves on.")
def boot_network(boot_file: str, data_path: str, user: str, port: int) -> None:
    """At the image's boot (docs/pi.md): the name and Wi-Fi from the boot partition's station.txt,
    the station's own access point when no network comes up, and the screen's QR codes."""
    from ..appliance import BootFileError, NetworkPlan, bring_up, read_boot_file, screen_text
    from ..lobby.network import urls

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


@click.command()
@click.option("--config", type=click.Path(dir_okay=False), help="Config file (holds the referee token).")
@click.option("--url", help="The station's address (default: this machine's LAN address, port 8080).")
@click.option("--new", "renew", is_flag=True, help="Make a new token: every referee login ends (a lost phone).")
def token(config: str | None, url: str | None, renew: bool) -> None:
    """Show the referee's link, with its token, as a QR code in this terminal for a phone to scan."""
    import segno

    from ..lobby.network import token_link, urls

    if renew:
        path = config_path(config)
        try:
            save_config(path, {**load_config(path), "referee_token": fresh_token()})
        except (ConfigError, OSError) as exc:
            fail(f"cannot write a new token to {path}: {exc}")
        click.echo("A new referee token: a running station takes it within a second, and every login ends.")
    link = token_link(url or urls("0.0.0.0", 8080)[0], referee_token(config))
    click.echo(link)
    segno.make(link, error="m").terminal(compact=True)


@click.command("install-service")
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
    import subprocess

    from ..service import UNIT_NAME, ServiceSpec, unit_text

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
        fail(f"cannot write {path} ({exc}); run it with sudo")
    click.echo(f"Wrote {path} (runs: {' '.join(spec.command())} as {spec.user})")
    _print_claim_code(spec.user, spec.config)
    if no_start:
        return
    for command in (["systemctl", "daemon-reload"], ["systemctl", "enable", "--now", UNIT_NAME]):
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            fail(f"{' '.join(command)} failed: {result.stderr.strip() or result.stdout.strip()}")
    click.echo("Enabled and started. Follow its log with: journalctl -u station -f")
