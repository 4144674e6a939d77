"""The dashboard's Flask application factory, after Flask's own pattern: ``create_app(station,
token)`` builds an app around one running station, with no globals."""

from __future__ import annotations

from flask import Flask

from ..runtime import Station
from .api import api
from .calibrate import calibrate
from .pages import pages
from .security import harden
from .stream import Broadcaster


def create_app(station: Station, referee_token: str) -> Flask:
    app = Flask(__name__)
    app.config.update(STATION=station, REFEREE_TOKEN=referee_token)
    app.extensions["broadcaster"] = Broadcaster(station)  # one per app: frames built once for every watcher
    harden(app)
    app.register_blueprint(pages)
    app.register_blueprint(api, url_prefix="/api")
    app.register_blueprint(calibrate)
    return app
