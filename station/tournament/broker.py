"""A Mosquitto of our own on this machine: for ``make tournament-demo``, the tests and the load
benchmark.  Debian's ``mosquitto`` (``make`` installs it) with a configuration in a folder of its
own, so it never touches a broker the machine already runs; local only, anonymous (a club's
broker has users and passwords: docs/tournament.md), persistent, so a restart keeps the
tournament's session and its queued records."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

MOSQUITTO = "/usr/sbin/mosquitto"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, seconds: float) -> bool:
    """Whether something listens on ``port`` on this machine within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
        time.sleep(0.05)
    return False


class LocalBroker:
    def __init__(self, folder: Path, port: int | None = None, autosave_s: int = 1) -> None:
        """``autosave_s``: how often it writes its store down (Mosquitto's default is 1,800 s)."""
        self.folder, self.port = folder, port or free_port()
        folder.mkdir(parents=True, exist_ok=True)
        self.config = folder / "mosquitto.conf"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
            f"persistence_location {folder}/\nautosave_interval {autosave_s}\nmax_queued_messages 0\n"
            f"log_dest file {folder}/mosquitto.log\n" + ("user root\n" if os.geteuid() == 0 else "")
        )
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self, wait_s: float = 10.0) -> LocalBroker:
        binary = shutil.which("mosquitto") or MOSQUITTO
        if not Path(binary).exists():
            raise FileNotFoundError("mosquitto is not installed: sudo apt-get install mosquitto")
        self.process = subprocess.Popen([binary, "-c", str(self.config)])
        if wait_for_port(self.port, wait_s):
            return self
        raise RuntimeError(f"mosquitto did not listen on port {self.port}; see {self.folder}/mosquitto.log")

    def crash(self) -> None:
        """Killed, as a power cut would: nothing is saved on the way out."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()  # it saves its persistence file on the way out
            self.process.wait(10)
