"""Station configuration: a small JSON file that keeps the referee token between runs.

Looked up at ``--config``, else ``$STATION_CONFIG``, else ``~/.config/station/config.json``.
A missing file is created with a fresh token and a one-time claim code (mode 0600); a broken one
is an error naming it.  A config with no claim code is a claimed station.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

from .datafile import DataFileError, Fields, create_text_synced, load_json_file, write_text_atomic

KNOWN = ("referee_token", "claim_code")
CLAIM_DIGITS = 6


class ConfigError(ValueError):
    pass


def config_path(explicit: str | None = None) -> Path:
    if explicit:
        return Path(explicit)
    if os.environ.get("STATION_CONFIG"):
        return Path(os.environ["STATION_CONFIG"])
    return Path.home() / ".config" / "station" / "config.json"


def fresh_token() -> str:
    """A new referee token: 16 random bytes, as URL-safe text (22 characters)."""
    return secrets.token_urlsafe(16)


def load_config(path: Path) -> dict[str, Any]:
    """The config; a missing file is created with a fresh token and a one-time claim code (the
    station is unclaimed until a referee enters that code in the browser, see web/claim.py)."""
    if not path.exists():
        config = {
            "referee_token": fresh_token(),
            "claim_code": "".join(secrets.choice("0123456789") for _ in range(CLAIM_DIGITS)),
        }
        if create_text_synced(path, json.dumps(config, indent=2)):
            return config  # else another process made it first: its code is the one on the screen
    try:
        fields = Fields(str(path), load_json_file(path))
        fields.reject_unknown(KNOWN)
        token = fields.get(
            "referee_token", str, check=lambda v: None if len(v) >= 8 else "must be 8 characters or more"
        )
        code = fields.get("claim_code", str, None, check=lambda v: None if v.isdigit() else "must be digits")
    except DataFileError as exc:
        raise ConfigError(str(exc)) from None
    return {"referee_token": token, **({"claim_code": code} if code else {})}


def save_config(path: Path, config: dict[str, Any]) -> None:
    """Replace the config whole: a power cut leaves the old file or the new one, and the new one
    is the owner's alone (mode 0600, as the temporary file is made)."""
    write_text_atomic(path, json.dumps(config, indent=2))
