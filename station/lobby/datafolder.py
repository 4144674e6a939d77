"""Moving the station's data folder from the settings page: to a bigger disk or a USB stick.

The folder the station was started with (``station serve --data``, the *home*) keeps the settings,
and with them the folder in use, so the systemd unit never changes.  Moving copies what the new
folder lacks (the journals, the armies on the shelf, the card library: all but the home's settings
and the hub's own records), file by file and never
over a file that is already there, so the history follows and nothing is lost: the old folder
is left as it was, a backup.  The new folder is locked like the home, so two stations never
write one.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

from ..datafile import copy_file_atomic
from ..exclusive import FileLock, InUse
from .rehearsal import LINK_NAME
from .settings import SETTINGS_FILE

log = logging.getLogger(__name__)

STAYS_HOME = {SETTINGS_FILE, "setup", LINK_NAME}  # the home's own: its settings and the hub's


class FolderError(ValueError):
    """A folder the station cannot keep its data in, and why."""


def take(folder: Path, current: Path, create: bool = True) -> tuple[FileLock, int]:
    """``folder`` made ready to be the data folder: created if ``create`` (the folder itself,
    never its parents: a USB stick that is not mounted must not become a folder on the SD card),
    written to once, locked, and given copies of what ``current`` holds that it lacks.  Returns
    its lock and how many files were copied."""
    if not folder.is_absolute():
        raise FolderError(f"{folder}: give the whole path, from / (for example /media/usb/station)")
    if not folder.parent.is_dir() or not (create or folder.is_dir()):
        raise FolderError(f"{folder}: there is no such folder (is the disk plugged in and mounted?)")
    try:
        folder.mkdir(exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise FolderError(f"{folder}: the station cannot write there ({exc.strerror or exc})") from None
    try:
        lock = FileLock(folder, f"data folder {folder}")
    except InUse as exc:
        raise FolderError(str(exc)) from None
    try:
        copied = copy_missing(current, folder)
    except OSError as exc:
        lock.release()
        raise FolderError(
            f"{folder}: copying the data there failed ({exc.strerror or exc}); nothing was moved"
        ) from None
    return lock, copied


def copy_missing(source: Path, target: Path) -> int:
    """Copy each file of ``source``'s data that ``target`` does not have; a half-copied file never
    takes a real name (it is written aside, then renamed).  Returns how many were copied."""
    copied = 0
    for top in sorted(source.iterdir()) if source.is_dir() else []:
        if top.name in STAYS_HOME or top.name.startswith("."):
            continue
        files = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
        for path in files:
            destination = target / path.relative_to(source)
            if destination.exists() or any(part.startswith(".") for part in path.relative_to(source).parts):
                continue
            copy_file_atomic(path, destination)
            copied += 1
    log.info("data folder %s: %d files copied from %s", target, copied, source)
    return copied
