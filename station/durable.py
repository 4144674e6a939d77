"""What makes a write survive a pulled plug beyond the file's own fsync: the folder that names it.

A file's fsync makes its contents durable, not its name: a new file, a rename over an old one, a
new folder are entries in their folder, durable only once that folder is synced too (POSIX says
so; ext4 often commits them sooner, but not always, and a USB stick's file system may not).
tests/test_power_cut.py rebuilds the files at every point of a recorded evening under the strict
model and finds what a name without its folder's fsync loses: the claim's config, the settings.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path


def sync_folder(folder: Path) -> None:
    """``folder``'s entries made durable.  A file system that cannot sync a folder (it says
    EINVAL) keeps its names its own way; nothing more can be done there."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def make_folders(folder: Path) -> None:
    """``folder`` and any missing parents, each one's name synced in its parent."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        made.mkdir(exist_ok=True)
        sync_folder(made.parent)


def replace_synced(written: str | Path, path: Path) -> None:
    """``written`` (already fsync'd) renamed to ``path``, and the rename made durable."""
    os.replace(written, path)
    sync_folder(path.parent)
