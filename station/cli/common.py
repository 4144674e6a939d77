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
    stop = until or threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass


def fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def referee_token(config: str | None) -> str:
    try:
        return str(load_config(config_path(config))["referee_token"])
    except ConfigError as exc:
        fail(str(exc))
        raise  # unreachable: _fail exits
