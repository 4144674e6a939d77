"""Temporary folders that do not pile up: each names the process that made it, which removes it
when done, and the next one to start removes any whose process is gone (killed, or crashed).

``station demo`` left an empty ``hubsim-*`` folder in the temporary folder at every run.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def scratch_folder(prefix: str) -> Path:
    """A new temporary folder ``<prefix>-<pid>-…``, after removing the ones of ``prefix`` whose
    process no longer runs."""
    root = Path(tempfile.gettempdir())
    for old in root.glob(f"{prefix}-*-*"):
        pid = old.name[len(prefix) + 1 :].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)) and old.is_dir() and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)
            log.info("removed %s, left by a process that is gone", old)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}-{os.getpid()}-"))


def remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
