"""An archive with a manifest: a gzipped tar whose files are listed, each with its size and
SHA-256, in ``MANIFEST.json`` written last.  The backup (lobby/backup.py) and the update file
(updates.py) are both such archives.  What each holds and how it refuses a wrong one are its own
(a referee reads "download the backup again" or "not a station update file"), so these helpers
say what they found and leave the words to their callers.
"""

from __future__ import annotations

import io
import json
import shutil
import tarfile
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from .datafile import file_sha256

MANIFEST = "MANIFEST.json"


class ManifestUnreadable(ValueError):
    """No ``MANIFEST.json``, or not a JSON object: why, in the parser's words."""


def write_manifested(
    out: IO[bytes], files: Iterable[tuple[str, Path]], fields: dict[str, Any], mtime: int = 0
) -> dict[str, Any]:
    """The archive of ``files`` (their names in it, and where they are) written to ``out``, with
    the manifest last: ``fields`` and the files' list.  Returns the manifest."""
    listed = []
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, path in files:
            listed.append({"path": name, "bytes": path.stat().st_size, "sha256": file_sha256(path)})
            archive.add(path, arcname=name, recursive=False)
        manifest = {**fields, "files": listed}
        text = json.dumps(manifest, ensure_ascii=False, indent=1).encode()
        info = tarfile.TarInfo(MANIFEST)
        info.size, info.mtime = len(text), mtime
        archive.addfile(info, io.BytesIO(text))
    return manifest


def read_manifest(archive: tarfile.TarFile) -> dict[str, Any]:
    """The archive's manifest; ManifestUnreadable when it is missing or not a JSON object."""
    try:
        handle = archive.extractfile(archive.getmember(MANIFEST))
        manifest = json.loads(handle.read() if handle else b"")
    except (KeyError, ValueError) as exc:
        raise ManifestUnreadable(str(exc)) from None
    if not isinstance(manifest, dict):
        raise ManifestUnreadable(f"a JSON {type(manifest).__name__}, not an object")
    return manifest


def listed_files(manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The manifest's entries by their path in the archive (none where ``files`` is not a list)."""
    files = manifest.get("files")
    return {str(f.get("path")): f for f in files if isinstance(f, dict)} if isinstance(files, list) else {}


def contents(archive: tarfile.TarFile) -> list[tarfile.TarInfo]:
    """Every member but the manifest."""
    return [m for m in archive.getmembers() if m.name != MANIFEST]


def first_unlisted(members: list[tarfile.TarInfo], listed: dict[str, dict[str, Any]]) -> str | None:
    """A name in the archive but not its manifest, or listed but not there; None when they agree."""
    names = {m.name for m in members}
    odd = sorted(set(listed) - names) or sorted(names - set(listed))
    return odd[0] if odd else None


def extract_checked(archive: tarfile.TarFile, member: tarfile.TarInfo, entry: dict[str, Any], aside: Path) -> bool:
    """``member`` copied to ``aside``; True when its size and SHA-256 are the ones ``entry`` lists."""
    source = archive.extractfile(member)
    with open(aside, "wb") as out:
        if source is not None:
            shutil.copyfileobj(source, out)
    return aside.stat().st_size == entry.get("bytes") and file_sha256(aside) == entry.get("sha256")
