"""The ``station`` command.  Each command lives in the module of its job and is imported only
when it runs (or when ``--help`` lists them): the image runs ``station boot-network`` at every
boot before the lobby, and loading every ruleset, OpenCV and the web for it took a second here
and several on a Pi."""

from __future__ import annotations

import importlib
import logging
from pathlib import Path

import click

LOG_BYTES = 5 * 1024 * 1024  # a log file rotates at 5 MB, keeping 5 old ones
LOG_KEEP = 5

# Each command, by the module that holds it (its function is the name with "_" for "-").
COMMANDS = {
    **dict.fromkeys(["run", "serve", "tournament"], "play"),
    **dict.fromkeys(["doctor", "hub-id", "token", "install-service", "boot-network"], "machine"),
    **dict.fromkeys(["replay", "options", "schema", "import-mul"], "files"),
    **dict.fromkeys(["demo", "simulate-hub", "simulate-board", "simulate-radio"], "simulate"),
    **dict.fromkeys(["markers", "calibrate", "locate"], "vision"),
}


class Commands(click.Group):
    """A click group that finds a command in its module on first use (click's documented way to
    load subcommands lazily: list_commands and get_command)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMANDS.get(cmd_name)
        if module is None:
            return None
        command = getattr(importlib.import_module(f"{__name__}.{module}"), cmd_name.replace("-", "_"))
        if not isinstance(command, click.Command):
            raise TypeError(f"station.cli.{module}.{cmd_name} is not a click command")
        return command


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


@click.group(cls=Commands)
@click.option("-v", "--verbose", is_flag=True, help="Log debug detail.")
@click.option("--log-file", type=click.Path(dir_okay=False), help="Also log to this file, rotated at 5 MB (5 kept).")
@click.version_option(package_name="station")
def main(verbose: bool, log_file: str | None) -> None:
    """Referee station for physical miniature wargames."""
    _setup_logging(verbose, log_file)
