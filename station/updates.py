"""Updates from the settings page, on the station image (docs/pi.md "Updates"): a file the
referee uploads is checked, installed beside the running version, and run at the next start;
a version that does not come up is rolled back to the one before.

An update file (``make update-file``) is a gzipped tar of wheels with ``MANIFEST.json``: the
format, the station's version, and every wheel's size and SHA-256.  It holds the station's wheel
and any wheel of a package that changed; the rest comes from the image's own environment
(``/opt/station``), which a new version sees after its own.

Under ``versions/`` (on the data partition, beside the data folder, so a backup does not carry
it): each installed version in its own folder, ``current`` and ``previous`` links, and ``trial``
while a new version has not yet come up.  The image's service starts the station through
``station-launch`` (image/rootfs/usr/local/bin), which runs ``current`` (the image's own version
when there is none) and counts the starts in ``trial``: a version that has not come up after
three starts is rolled back, and ``rolled-back`` says which.  The station clears ``trial`` once
its pages answer (``came_up``).
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

from . import manifested
from .durable import make_folders, sync_folder
from .manifested import MANIFEST, ManifestUnreadable
from .rules.text import Text, say

log = logging.getLogger(__name__)

FORMAT = "station-update/1"
VERSION = re.compile(r"^[0-9][0-9A-Za-z.+-]{0,40}$")
MAX_BYTES = 1024**3  # every wheel the station needs is about 60 MB

Run = Callable[[Sequence[str]], subprocess.CompletedProcess[str]]


class UpdateError(ValueError):
    """An update file that cannot be installed, and why (said so the settings page shows it in
    its language); nothing has changed."""

    def __init__(self, said: Text) -> None:
        super().__init__(said)
        self.said = said


@dataclass(frozen=True)
class Versions:
    """What runs, what ran before, and whether a new version is on trial."""

    current: str | None  # None: the image's own
    previous: str | None
    trial: bool
    rolled_back: str | None  # the version a failed start went back from


def write_update(out: IO[bytes], wheels: Iterable[Path], version: str) -> dict[str, Any]:
    """The update file of ``version`` with ``wheels`` (the station's among them)."""
    return manifested.write_manifested(
        out, ((f"wheels/{w.name}", w) for w in wheels), {"format": FORMAT, "version": version}
    )


def _link(folder: Path, name: str) -> str | None:
    path = folder / name
    return os.readlink(path) if path.is_symlink() else None


def _set_link(folder: Path, name: str, target: str | None) -> None:
    if target is None:
        (folder / name).unlink(missing_ok=True)
        return
    aside = folder / f".{name}.new"
    aside.unlink(missing_ok=True)
    aside.symlink_to(target)
    os.replace(aside, folder / name)


def versions(folder: Path) -> Versions:
    rolled = folder / "rolled-back"
    return Versions(
        _link(folder, "current"),
        _link(folder, "previous"),
        (folder / "trial").exists(),
        rolled.read_text(encoding="utf-8").strip() if rolled.exists() else None,
    )


def _checked(archive: tarfile.TarFile, scratch: Path) -> tuple[str, list[Path]]:
    """The update's version and its wheels, extracted into ``scratch`` and each checked against
    the manifest."""
    try:
        manifest = manifested.read_manifest(archive)
    except ManifestUnreadable:
        raise UpdateError(say("{file}: missing or unreadable; is this a station update file?", file=MANIFEST)) from None
    version = manifest.get("version")
    if manifest.get("format") != FORMAT or not isinstance(version, str) or not VERSION.match(version):
        raise UpdateError(say("{file}: not a {format} file", file=MANIFEST, format=FORMAT))
    listed = manifested.listed_files(manifest)
    members = manifested.contents(archive)
    if sum(m.size for m in members) > MAX_BYTES or manifested.first_unlisted(members, listed) is not None:
        raise UpdateError(say("the update file's contents are not what its manifest lists; download it again"))
    wheels = []
    for member in members:
        name = PurePosixPath(member.name)
        if not member.isreg() or name.parent != PurePosixPath("wheels") or name.suffix != ".whl":
            raise UpdateError(say("{file}: not a wheel; this is not a station update file", file=member.name))
        aside = scratch / name.name
        if not manifested.extract_checked(archive, member, listed[member.name], aside):
            raise UpdateError(
                say("{file}: damaged (its checksum is wrong); download the update again", file=member.name)
            )
        wheels.append(aside)
    if not any(w.name.startswith(f"station-{version}-") for w in wheels):
        raise UpdateError(say("the update file holds no wheel of the station {version}", version=version))
    return version, wheels


def _run(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(command), capture_output=True, text=True, timeout=600, check=False)


def install(upload: IO[bytes], folder: Path, base: Path = Path(sys.prefix), run: Run = _run) -> str:
    """Check the update file whole, install its version beside the others and make it the one
    the next start runs (on trial); returns the version.  UpdateError says what is wrong, and
    then the running version is still the one that starts."""
    make_folders(folder)
    with tempfile.TemporaryDirectory(dir=folder, prefix=".incoming-") as scratch:
        try:
            with tarfile.open(fileobj=upload, mode="r:gz") as archive:
                version, wheels = _checked(archive, Path(scratch))
        except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
            raise UpdateError(say("the update file is cut short or damaged ({why})", why=str(exc))) from None
        if version == versions(folder).current:
            raise UpdateError(say("the station {version} is the one installed already", version=version))
        target = folder / version
        if target.exists():  # a version tried before and gone back from: made again
            shutil.rmtree(target)
        for command in (
            [str(base / "bin" / "python"), "-m", "venv", "--without-pip", str(target)],
            [str(target / "bin" / "python"), "-c", _SEE_BASE, str(base)],
            [
                str(base / "bin" / "python"),
                "-m",
                "pip",
                "--python",
                str(target / "bin" / "python"),
                "install",
                "--quiet",
                "--no-index",
                "--no-deps",
                *map(str, wheels),
            ],
            [str(target / "bin" / "station"), "--version"],
        ):
            done = run(command)
            if done.returncode != 0 or (command[-1] == "--version" and version not in done.stdout):
                shutil.rmtree(target, ignore_errors=True)
                why = (done.stderr or done.stdout).strip().splitlines()[-1:] or [f"exit {done.returncode}"]
                raise UpdateError(say("the station {version} does not start here: {why}", version=version, why=why[0]))
    now = versions(folder)
    _set_link(folder, "previous", now.current)
    _set_link(folder, "current", version)
    (folder / "rolled-back").unlink(missing_ok=True)
    (folder / "trial").write_text("0\n", encoding="utf-8")
    sync_folder(folder)
    log.info("update: the station %s installed; it runs from the next start (previous: %s)", version, now.current)
    return version


# A new version's environment sees the image's own packages after its own: a .pth file in its
# site-packages naming the image's (what it does not bring, it takes from there).
_SEE_BASE = (
    "import sys, sysconfig, pathlib; base = pathlib.Path(sys.argv[1]);"
    "site = next(base.glob('lib/python*/site-packages'));"
    "pathlib.Path(sysconfig.get_paths()['purelib'], 'station-image.pth').write_text(str(site) + '\\n')"
)


def go_back(folder: Path) -> str | None:
    """The version before runs at the next start (None: the image's own); returns it."""
    now = versions(folder)
    _set_link(folder, "current", now.previous)
    _set_link(folder, "previous", now.current)
    (folder / "trial").unlink(missing_ok=True)
    sync_folder(folder)
    log.info("update: back to %s from %s", now.previous or "the image's own version", now.current)
    return now.previous


def came_up(folder: Path) -> None:
    """The running version answers: it is kept (its trial ends)."""
    trial = folder / "trial"
    if trial.exists():
        trial.unlink()
        sync_folder(folder)
        log.info("update: the station %s came up; kept", _link(folder, "current"))
