"""Backup and restore from the settings page (station/lobby/backup.py): the referee downloads the
station's data as one archive, and uploads one onto a fresh card.  Both need the referee (a
backup holds every game and the settings); a restore is refused during a game, and an archive
that is not whole is refused by name with nothing written."""

from __future__ import annotations

import datetime as _dt
import logging
import tempfile
from dataclasses import asdict
from pathlib import Path

from flask import Blueprint, Response, jsonify, request, send_file
from flask.blueprints import BlueprintSetupState

from ..lobby.backup import BackupError, restore, write_backup
from ..lobby.settings import SETTINGS_FILE, load_settings
from ..rules.text import say
from .current import lobby
from .security import error_response, referee_only

backup_api = Blueprint("backup", __name__)

RESTORE_MAX_BYTES = 4 * 1024**3  # an upload this large is not a club's backup
RESTORE_PATH = "/api/restore"

log = logging.getLogger(__name__)


@backup_api.record_once
def _large_upload(state: BlueprintSetupState) -> None:
    """The server's parser (bodies.py) lets the referee's restore past the 1 MiB of other bodies
    and spools it to the station's own folder (the data disk): a Pi's temporary folder may be
    memory, too small for a club's years of games."""
    config = state.app.config
    config.setdefault("LARGE_BODIES", {})[RESTORE_PATH] = RESTORE_MAX_BYTES
    config["SPOOL"] = lambda: config["LOBBY"].folder


@backup_api.get("/api/backup")
@referee_only
def download() -> Response:
    """The data folder, the settings and the calibration as ``station-backup-<date>.tar.gz``."""
    the_lobby = lobby()
    archive = tempfile.TemporaryFile(dir=_spool(the_lobby.folder))
    write_backup(archive, the_lobby.data, the_lobby.folder, the_lobby.hardware.calibration)
    archive.seek(0)
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M")
    return send_file(
        archive, mimetype="application/gzip", as_attachment=True, download_name=f"station-backup-{stamp}.tar.gz"
    )


@backup_api.post(RESTORE_PATH)
@referee_only
def upload() -> tuple[Response, int] | Response:
    """The body is a backup archive: checked whole, then what the card lacks is written; a file
    the card has with other contents is kept and named in ``kept``."""
    the_lobby = lobby()
    if the_lobby.station is not None:
        return error_response(409, say("end the game first: a restore writes the games and armies"))
    request.max_content_length = RESTORE_MAX_BYTES
    had_settings = (the_lobby.folder / SETTINGS_FILE).exists()
    with tempfile.TemporaryFile(dir=_spool(the_lobby.folder)) as upload:  # gone with the process
        while chunk := request.stream.read(1 << 20):
            upload.write(chunk)
        upload.seek(0)
        try:
            said = restore(upload, the_lobby.data, the_lobby.folder, the_lobby.hardware.calibration)
        except BackupError as exc:
            return error_response(400, exc.said, "backup")
    if not had_settings and (the_lobby.folder / SETTINGS_FILE).exists():  # a fresh card: the club's settings
        the_lobby.apply_settings(load_settings(the_lobby.folder), save=False)
    return jsonify(asdict(said))


def _spool(folder: Path) -> Path:
    """Where a backup is built or an upload is kept while it is checked: the station's own folder,
    on the data disk, not the temporary folder (memory on many a Pi)."""
    folder.mkdir(parents=True, exist_ok=True)
    return folder
