"""Backup and restore of the station's data from the settings page (issue 53): one archive a
referee downloads, and uploads onto a fresh card.

The archive is a gzipped tar of the data folder (the journals, the armies on the shelf, the card
library), the home's ``settings.json`` and the table calibration, with ``MANIFEST.json`` last: the
format, the station's version, and every file's size and SHA-256.  A restore checks the whole
archive before it writes anything (every file listed, every checksum right, no path outside its
folder, no link, nothing but regular files), then writes each file aside and renames it, synced,
so a pulled plug leaves a file whole or absent.  It never overwrites: a file the card already has
with other contents is kept and named, so a restore onto a used card cannot lose a game.
"""

from __future__ import annotations

import datetime as _dt
import logging
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO, Any

from .. import __version__, manifested
from ..datafile import copy_file_atomic, file_sha256
from ..durable import make_folders
from ..manifested import MANIFEST, ManifestUnreadable
from ..rules.text import Text, say
from .datafolder import STAYS_HOME
from .settings import SETTINGS_FILE

log = logging.getLogger(__name__)

FORMAT = "station-backup/1"
TOPS = ("data", "home", "calibration")  # where each archived file came from
MAX_FILES = 100_000
MAX_BYTES = 8 * 1024**3  # a club's years of games are a few hundred MB; this refuses a bomb


class BackupError(ValueError):
    """An archive that cannot be restored, and why: which file, and what is wrong with it (said
    with ``say``, so the settings page shows it in its language)."""

    def __init__(self, said: Text) -> None:
        super().__init__(said)
        self.said = said


@dataclass
class Restored:
    """What a restore did: files written, files the card already had the same, and files it
    kept because its own differ (never overwritten)."""

    written: int = 0
    same: int = 0
    kept: list[str] = field(default_factory=list)
    station: str = ""  # the version that made the backup
    created: str = ""


def backed_up(data: Path, home: Path, calibration: Path) -> Iterator[tuple[str, Path]]:
    """Every file a backup holds, as (its name in the archive, where it is now)."""
    for path in sorted(data.rglob("*")) if data.is_dir() else []:
        relative = path.relative_to(data)
        if not path.is_file() or relative.parts[0] in STAYS_HOME or any(p.startswith(".") for p in relative.parts):
            continue
        yield f"data/{relative.as_posix()}", path
    if (home / SETTINGS_FILE).is_file():
        yield f"home/{SETTINGS_FILE}", home / SETTINGS_FILE
    if calibration.is_file():
        yield f"calibration/{calibration.name}", calibration


def write_backup(out: IO[bytes], data: Path, home: Path, calibration: Path) -> dict[str, Any]:
    """The archive, written to ``out``; returns its manifest."""
    now = _dt.datetime.now(_dt.UTC)
    fields = {"format": FORMAT, "station": __version__, "created": now.isoformat(timespec="seconds")}
    manifest = manifested.write_manifested(out, backed_up(data, home, calibration), fields, int(now.timestamp()))
    log.info("backup: %d files", len(manifest["files"]))
    return manifest


def _manifest(archive: tarfile.TarFile) -> dict[str, Any]:
    try:
        manifest = manifested.read_manifest(archive)
    except ManifestUnreadable as exc:
        raise BackupError(
            say("{file}: missing or unreadable ({why}); is this a station backup?", file=MANIFEST, why=str(exc))
        ) from None
    if manifest.get("format") != FORMAT or not isinstance(manifest.get("files"), list):
        raise BackupError(say("{file}: not a {format} archive", file=MANIFEST, format=FORMAT))
    return manifest


def _safe_name(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or len(path.parts) < 2 or path.parts[0] not in TOPS:
        raise BackupError(
            say("{file}: a file outside the station's folders; this archive was not made by a station", file=name)
        )
    return path


def restore(upload: Path | IO[bytes], data: Path, home: Path, calibration: Path) -> Restored:
    """Check the archive (a path, or a seekable file) whole, then write what the card lacks;
    raises BackupError naming the file that is wrong, and then nothing has been written."""
    try:
        if isinstance(upload, Path):
            archive = tarfile.open(upload, mode="r:gz")
        else:
            archive = tarfile.open(fileobj=upload, mode="r:gz")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise BackupError(say("the file is not a station backup (a .tar.gz): {why}", why=str(exc))) from None
    make_folders(data)  # a fresh card's folder may not be there yet; its name kept
    with archive, tempfile.TemporaryDirectory(dir=data, prefix=".restore-") as scratch:
        try:
            checked, said = _checked(archive, Path(scratch))
        except (tarfile.TarError, EOFError, zlib.error) as exc:
            raise BackupError(
                say("the archive is cut short or damaged ({why}); download the backup again", why=str(exc))
            ) from None
        for name, aside in checked:
            _place(aside, _destination(name, data, home, calibration), name, said)
    log.info("restore: %d written, %d the same, %d kept", said.written, said.same, len(said.kept))
    return said


def _checked(archive: tarfile.TarFile, scratch: Path) -> tuple[list[tuple[PurePosixPath, Path]], Restored]:
    """Every file of the archive extracted aside into ``scratch`` and checked against the
    manifest; BackupError names the first that is wrong."""
    members = manifested.contents(archive)
    if len(members) > MAX_FILES or sum(m.size for m in members) > MAX_BYTES:
        raise BackupError(
            say("the archive holds more than {files} files or {gb} GB", files=MAX_FILES, gb=MAX_BYTES // 1024**3)
        )
    for member in members:  # a hostile name or a link is named first, whatever else is wrong
        _safe_name(member.name)
        if not member.isreg():
            raise BackupError(say("{file}: not a plain file (a link or a device); refused", file=member.name))
    manifest = _manifest(archive)
    listed = manifested.listed_files(manifest)
    unlisted = manifested.first_unlisted(members, listed)
    if unlisted is not None:
        raise BackupError(
            say("{file}: in the archive or its manifest, not both; the archive is damaged", file=unlisted)
        )
    checked: list[tuple[PurePosixPath, Path]] = []
    for member in members:
        name = _safe_name(member.name)
        aside = scratch / str(len(checked))
        if not manifested.extract_checked(archive, member, listed[member.name], aside):
            raise BackupError(
                say("{file}: its contents are not what the backup wrote (damaged in transit?)", file=member.name)
            )
        checked.append((name, aside))
    said = Restored(station=str(manifest.get("station", "")), created=str(manifest.get("created", "")))
    return checked, said


def _destination(name: PurePosixPath, data: Path, home: Path, calibration: Path) -> Path:
    top, rest = name.parts[0], Path(*name.parts[1:])
    if top == "data":
        return data / rest
    if top == "home":
        return home / rest
    return calibration


def _place(aside: Path, destination: Path, name: PurePosixPath, said: Restored) -> None:
    if destination.exists():
        if destination.is_file() and file_sha256(destination) == file_sha256(aside):
            said.same += 1
        else:
            said.kept.append(str(name))
        return
    copy_file_atomic(aside, destination)
    said.written += 1
