"""The dashboard's Flask application factory, after Flask's own pattern: ``create_app(lobby,
token)`` builds an app around one lobby (or one running station), with no globals."""

from __future__ import annotations

from pathlib import Path

from flask import Flask, Response

from ..lobby.lobby import Lobby
from ..runtime import Station
from .api import api
from .backup import backup_api
from .calibrate import calibrate
from .claim import Claim
from .claim import claim as claim_pages
from .current import NoGame
from .dice import dice_api
from .i18n import install as install_i18n
from .limits import Seats, WebLimits
from .lobby import lobby_api, lobby_pages
from .pages import pages
from .review import review
from .security import error_response, harden
from .settings import settings_pages
from .stream import Broadcasters
from .updates import updates_api


def create_app(
    station: Lobby | Station,
    referee_token: str,
    limits: WebLimits | None = None,
    claim: Claim | None = None,
    config: Path | None = None,
) -> Flask:
    """``claim``: a station not claimed yet (its config's one-time code; web/claim.py);
    ``config``: the file the token came from, followed for a new one (web/sessions.py)."""
    lobby = station if isinstance(station, Lobby) else Lobby.around(station)
    limits = limits or WebLimits()
    app = Flask(__name__)
    app.config.update(LOBBY=lobby, CLAIM=claim)
    app.extensions["seats"] = Seats(limits)  # the dashboard streams' caps
    broadcasters = Broadcasters()  # one per game: frames built once for every watcher
    app.extensions["broadcasters"] = broadcasters
    lobby.on_end.append(broadcasters.close)
    harden(app, referee_token, config, limits.session_hours)
    install_i18n(app)

    @app.errorhandler(NoGame)
    def _no_game(exc: NoGame) -> tuple[Response, int]:
        return error_response(409, str(exc))

    app.register_blueprint(pages)
    app.register_blueprint(lobby_pages)
    app.register_blueprint(api, url_prefix="/api")
    app.register_blueprint(lobby_api, url_prefix="/api")
    app.register_blueprint(calibrate)
    app.register_blueprint(review)
    app.register_blueprint(claim_pages)
    app.register_blueprint(settings_pages)
    app.register_blueprint(dice_api)
    app.register_blueprint(backup_api)
    app.register_blueprint(updates_api)
    return app
