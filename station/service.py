"""The systemd unit that keeps ``station serve`` running on a Pi, written by
``station install-service`` so no one has to type one.

The unit pins no journal: the lobby finds the unfinished game and offers to resume it.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

UNIT_NAME = "station.service"


@dataclass(frozen=True)
class ServiceSpec:
    user: str
    working_dir: Path
    station: Path  # the venv's station command
    data: Path
    serial_urls: tuple[str, ...] = ()
    camera: str | None = None
    port: int = 8080
    config: Path | None = None  # the token's file, when not the user's own ~/.config/station/config.json
    updates: Path | None = None  # the image's versions folder (station/updates.py)

    def command(self) -> list[str]:
        command = [str(self.station), "serve", "--data", str(self.data), "--port", str(self.port)]
        if self.config:
            command += ["--config", str(self.config)]
        if self.updates:
            command += ["--updates", str(self.updates)]
        for port in self.serial_urls:
            command += ["--serial", port]
        if self.camera:
            command += ["--camera", self.camera]
        return command


def unit_text(spec: ServiceSpec) -> str:
    return f"""[Unit]
Description=Referee station (station serve)
Wants=network-online.target
After=network-online.target

[Service]
User={spec.user}
Group={spec.user}
SupplementaryGroups=dialout video
WorkingDirectory={spec.working_dir}
ExecStart={shlex.join(spec.command())}
Restart=on-failure
RestartSec=3
# Room for the dashboard's connection cap (--max-connections, 1000 by default) and the rest;
# the daemon raises its soft limit to this and lowers the cap if it is ever less.
LimitNOFILE=8192

[Install]
WantedBy=multi-user.target
"""
