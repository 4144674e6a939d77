"""Updates from the settings page (station/updates.py): the referee uploads an update file
between games; it is checked and installed beside the running version, and the station restarts
into it (on the station image, whose service starts it again at once).  Only where the station was
started with ``--updates`` (the image's service is): anywhere else the page says how to update."""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable
from functools import wraps
from pathlib import Path

from flask import Blueprint, Response, current_app, jsonify, request
from flask.blueprints import BlueprintSetupState

from .. import __version__
from ..rules.text import say
from ..updates import MAX_BYTES, UpdateError, go_back, install, versions
from .current import lobby
from .security import error_response, referee_only

updates_api = Blueprint("updates", __name__)
UPDATE_PATH = "/api/update"
RESTART_AFTER_S = 1.0  # the answer reaches the phone first
ViewAnswer = tuple[Response, int] | Response


@updates_api.record_once
def _large_upload(state: BlueprintSetupState) -> None:
    """An update file (up to 1 GB) goes past the 1 MiB of other bodies, spooled to the data disk."""
    state.app.config.setdefault("LARGE_BODIES", {})[UPDATE_PATH] = MAX_BYTES


def _folder() -> Path | None:
    folder = current_app.config.get("UPDATES")
    return Path(folder) if folder else None


def _restart() -> None:
    """Stop the station after the answer; its service starts it again, into the new version."""
    threading.Timer(RESTART_AFTER_S, current_app.config["RESTART"]).start()


@updates_api.get(UPDATE_PATH)
def state() -> Response:
    folder = _folder()
    said = {"available": folder is not None, "running": __version__}
    if folder is not None:
        now = versions(folder)
        said.update(current=now.current, previous=now.previous, trial=now.trial, rolled_back=now.rolled_back)
    return jsonify(said)


def _between_games(view: Callable[[Path], ViewAnswer]) -> Callable[[], ViewAnswer]:
    """``view`` given the update folder, where updates are this station's way and no game runs
    (an update restarts the station); anywhere else a 409 saying which."""

    @wraps(view)
    def guarded() -> ViewAnswer:
        folder = _folder()
        if folder is None or "RESTART" not in current_app.config:
            return error_response(409, say("updates are installed this way only on the station image"))
        if lobby().station is not None:
            return error_response(409, say("end the game first: an update restarts the station"))
        return view(folder)

    return guarded


@updates_api.post(UPDATE_PATH)
@referee_only
@_between_games
def upload(folder: Path) -> ViewAnswer:
    """The body is an update file: checked whole, installed, then the station restarts into it."""
    request.max_content_length = MAX_BYTES
    with tempfile.TemporaryFile(dir=folder.parent) as upload:  # on the data disk, gone with the process
        while chunk := request.stream.read(1 << 20):
            upload.write(chunk)
        upload.seek(0)
        try:
            version = install(upload, folder)
        except UpdateError as exc:
            return error_response(400, exc.said, "update")
    _restart()
    return jsonify({"version": version, "restarting": True})


@updates_api.post(UPDATE_PATH + "/back")
@referee_only
@_between_games
def back(folder: Path) -> ViewAnswer:
    """The version before runs again: the station restarts into it."""
    if versions(folder).current is None:
        return error_response(409, say("this is the image's own version: there is none before it"))
    returned = go_back(folder)
    _restart()
    return jsonify({"version": returned, "restarting": True})
