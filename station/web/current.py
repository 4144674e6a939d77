"""The running game a request is about: the lobby's station, or a JSON 409 when none runs."""

from __future__ import annotations

from typing import cast

from flask import current_app

from ..lobby.lobby import Lobby
from ..runtime import Station


class NoGame(LookupError):
    """The request needs a running game and the lobby has none."""


def lobby() -> Lobby:
    return cast(Lobby, current_app.config["LOBBY"])


def station() -> Station:
    running = lobby().station
    if running is None:
        raise NoGame("no game is running; start or resume one in the lobby (/lobby)")
    return running
