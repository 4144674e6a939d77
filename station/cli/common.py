"""What every command shares: an error that exits, waiting for Ctrl-C or the service's stop, and
the referee's token from the config."""

from __future__ import annotations

import signal
import sys
import threading
from typing import NoReturn

import click

from ..config import ConfigError, config_path, load_config


def wait_for_interrupt(until: threading.Event | None = None) -> None:
    """Block until Ctrl-C, the service's stop (SIGTERM) or ``until`` is set: the command's
    threads do the work, and it then closes what it opened."""
    stop = until or threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass


def fail(message: str) -> NoReturn:
    """Say what is wrong on stderr and exit 2, as click does for a bad option."""
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def referee_token(config: str | None) -> str:
    """The referee's token from the config (made with one on a first start), or exit saying why."""
    try:
        return str(load_config(config_path(config))["referee_token"])
    except ConfigError as exc:
        fail(str(exc))
        raise  # unreachable: fail exits
