"""Station configuration: a small JSON file that keeps the referee token between runs.

Looked up at ``--config``, else ``$STATION_CONFIG``, else ``~/.config/station/config.json``.
A missing file is created with a fresh token (mode 0600); a broken one is an error naming it.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

from .datafile import DataFileError, Fields, load_json_file

KNOWN = ("referee_token",)


class ConfigError(ValueError):
    pass


def config_path(explicit: str | None = None) -> Path:
    if explicit:
        return Path(explicit)
    if os.environ.get("STATION_CONFIG"):
        return Path(os.environ["STATION_CONFIG"])
    return Path.home() / ".config" / "station" / "config.json"


def load_config(path: Path) -> dict[str, Any]:
    if not path.exists():
        config = {"referee_token": secrets.token_urlsafe(16)}
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(config, f, indent=2)
        return config
    try:
        f = Fields(str(path), load_json_file(path))
        f.reject_unknown(KNOWN)
        token = f.get("referee_token", str, check=lambda v: None if len(v) >= 8 else "must be 8 characters or more")
    except DataFileError as exc:
        raise ConfigError(str(exc)) from None
    return {"referee_token": token}
