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

from ..lobby.backup import BackupError, restore, write_backup
from ..lobby.settings import SETTINGS_FILE, load_settings
from ..rules.text import say
from .current import lobby
from .security import error_response, referee_only

backup_api = Blueprint("backup", __name__)

RESTORE_MAX_BYTES = 4 * 1024**3  # an upload this large is not a club's backup

log = logging.getLogger(__name__)


@backup_api.get("/api/backup")
@referee_only
def download() -> Response:
    """The data folder, the settings and the calibration as ``station-backup-<date>.tar.gz``."""
    the_lobby = lobby()
    archive = tempfile.TemporaryFile()
    write_backup(archive, the_lobby.data, the_lobby.folder, the_lobby.hardware.calibration)
    archive.seek(0)
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M")
    return send_file(
        archive, mimetype="application/gzip", as_attachment=True, download_name=f"station-backup-{stamp}.tar.gz"
    )


@backup_api.post("/api/restore")
@referee_only
def upload() -> tuple[Response, int] | Response:
    """The body is a backup archive: checked whole, then what the card lacks is written; a file
    the card has with other contents is kept and named in ``kept``."""
    the_lobby = lobby()
    if the_lobby.station is not None:
        return error_response(409, say("end the game first: a restore writes the games and armies"))
    request.max_content_length = RESTORE_MAX_BYTES
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "upload.tar.gz"
        with open(path, "wb") as out:
            while chunk := request.stream.read(1 << 20):
                out.write(chunk)
        had_settings = (the_lobby.folder / SETTINGS_FILE).exists()
        try:
            said = restore(path, the_lobby.data, the_lobby.folder, the_lobby.hardware.calibration)
        except BackupError as exc:
            return error_response(400, exc.said, "backup")
    if not had_settings and (the_lobby.folder / SETTINGS_FILE).exists():  # a fresh card: the club's settings
        the_lobby.apply_settings(load_settings(the_lobby.folder), save=False)
    return jsonify(asdict(said))
