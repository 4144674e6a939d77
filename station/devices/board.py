"""The real hub firmware running in simavr (``firmware/build/board-sim``), seen as a serial port;
and a radio table, a radio hub with its radio nodes on one simulated air
(``firmware/build/radio-sim``).

The harness bridges the simulated UART0 to a pty behind a stable symlink, so the station opens
it exactly as it would open /dev/ttyACM0, and it plays a stimulus script (pins, accelerometer
voltages, cable pulls, a node out of range) in real time.  Build it with ``make firmware``.
"""

from __future__ import annotations

import json
import logging
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)

# name: barrels (a launcher) or 0 (a tilt node), as firmware/Makefile builds the radio nodes
RADIO_NODES: dict[str, int] = {"RL1": 2, "RL2": 1, "RL3": 1, "RT1": 0, "RT2": 0, "RT3": 0}


def firmware_images(build: Path, nodes: Iterable[str] = RADIO_NODES) -> tuple[Path, list[Path]]:
    """The radio hub's image and the nodes' images in ``build``."""
    return build / "radio-hub.elf", [build / f"node-{name}.elf" for name in nodes]


class BoardError(RuntimeError):
    pass


class SimulatedBoard:
    def __init__(
        self,
        firmware: str | Path,
        script: str | Path | None = None,
        link_path: str | Path | None = None,
        harness: str | Path | None = None,
        hub_id: str = "",
    ) -> None:
        """``hub_id``: the board's id put in its EEPROM (4 hex digits), for several boards at once."""
        self.firmware = Path(firmware)
        self.hub_id = hub_id
        self.harness = Path(harness) if harness else self.firmware.parent / "board-sim"
        for path, what in ((self.firmware, "firmware ELF"), (self.harness, "board-sim harness")):
            if not path.exists():
                raise BoardError(f"{path}: no {what}; build it with `make firmware`")
        if script is not None and not Path(script).exists():
            raise BoardError(f"{script}: no such stimulus script")
        self.script = Path(script) if script else None
        self.link_path = Path(link_path) if link_path else Path(tempfile.mkdtemp(prefix="board-")) / "hub"
        self.ptys: list[str] = []
        self.unplugs = 0
        self.resets = 0
        self.ready_at = 0.0  # time.monotonic() at simulated time 0
        self._ready = threading.Event()
        self._proc: subprocess.Popen[str] | None = None

    @property
    def path(self) -> str:
        return str(self.link_path)

    def _command(self) -> list[str]:
        command = [str(self.harness), str(self.firmware), "--link", str(self.link_path)]
        command += ["--hub-id", self.hub_id] if self.hub_id else []
        return command + (["--script", str(self.script)] if self.script else [])

    def start(self, timeout: float = 10.0) -> SimulatedBoard:
        self._proc = subprocess.Popen(self._command(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        threading.Thread(target=self._follow, name="board-sim-out", daemon=True).start()
        if not self._ready.wait(timeout):
            self.stop()
            raise BoardError(f"{self.harness.name} did not start within {timeout:.0f} s")
        if not self.ptys:  # it exited before plugging in: a bad script or ELF
            self._proc.wait(5)
            error = self._proc.stderr.read().strip() if self._proc.stderr else ""
            raise BoardError(f"{self.harness.name} failed: {error}")
        return self

    def _follow(self) -> None:
        assert self._proc and self._proc.stdout
        for line in self._proc.stdout:
            word, _, rest = line.strip().partition(" ")
            if word == "pty":
                self.ptys.append(rest)
            elif word == "unplugged":
                self.unplugs += 1
            elif word == "reset":
                self.resets += 1
            elif word == "ready":  # simulated time 0 is now: the harness keeps real time from here
                self.ready_at = time.monotonic()
                self._ready.set()
        self._ready.set()

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the script's ``end``; returns the harness's exit code.  Its closing report
        (bytes each way, how far simulation fell behind real time) is kept in ``report``."""
        assert self._proc
        code = self._proc.wait(timeout)
        self.report = self._proc.stderr.read().strip() if self._proc.stderr else ""
        if code != 0:
            raise BoardError(f"{self.harness.name} exited with {code}: {self.report}")
        return code

    report = ""

    def stop(self) -> None:
        if self._proc and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()


class SimulatedRadioTable(SimulatedBoard):
    """A radio hub (``radio-hub.elf``) and its radio nodes (``node-NAME.elf``), the real firmware on
    every board, on one simulated air that loses ``loss`` of the packets (firmware/sim/air.c).  The
    hub's serial link is ``path``, as a wired board's.  With ``stats``, the harness writes at the
    end each board's time awake and asleep and its radio's time in each mode (``stats()``)."""

    def __init__(
        self,
        hub: str | Path,
        nodes: list[str | Path],
        script: str | Path | None = None,
        link_path: str | Path | None = None,
        loss: float = 0.0,
        seed: int = 1,
        stats: str | Path | None = None,
    ) -> None:
        super().__init__(hub, script, link_path, harness=Path(hub).parent / "radio-sim")
        self.nodes = [Path(node) for node in nodes]
        for node in self.nodes:
            if not node.exists():
                raise BoardError(f"{node}: no radio node firmware; build it with `make firmware`")
        if not 0.0 <= loss <= 1.0:
            raise BoardError(f"loss {loss} is not a fraction from 0 to 1")
        self.loss, self.seed = loss, seed
        self.stats_path = Path(stats) if stats else None

    def _command(self) -> list[str]:
        command = [str(self.harness), "--link", str(self.link_path), "--hub", str(self.firmware)]
        for node in self.nodes:
            command += ["--node", str(node)]
        command += ["--loss", str(self.loss), "--seed", str(self.seed)]
        if self.stats_path:
            command += ["--stats", str(self.stats_path)]
        return command + (["--script", str(self.script)] if self.script else [])

    def stats(self) -> dict[str, object]:
        """What the harness wrote at the end (after ``wait``)."""
        if self.stats_path is None or not self.stats_path.exists():
            raise BoardError("no stats: start the table with stats=PATH and wait for its end")
        loaded: dict[str, object] = json.loads(self.stats_path.read_text())
        return loaded
