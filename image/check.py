"""The station image booted in qemu (docs/pi.md "The station image"; make image-test, make
image-powercut): a Raspberry Pi's arm64 emulated as qemu's ``virt`` machine, with the image's own
kernel, root and data partitions, the station's port 80 forwarded to this machine.

One boot (``--cuts 0``): the lobby answers; the console shows the claim code, the read-only root
and the grown data partition; the station is claimed with that code, a backup restored onto it
(armies, settings, calibration), the rehearsal hub switched on and a game started.

Power cuts (``--cuts N``): N times, qemu is killed (SIGKILL: no shutdown, no sync, as a pulled
plug) at a random moment while a game runs: the rehearsal hub fires shots and the referee enters
table dice, each acknowledged only once journaled.  After each cut the image boots again and:

* the game's journal replays (this machine folds it with the station's own code);
* every table die the station acknowledged is in it, in order;
* the settings, the armies and the calibration restored at the first boot are all there, byte
  for byte (a backup downloaded from the station holds them);
* the game resumes, and play goes on.

It prints each boot's time and each cut's counts, and exits non-zero naming what was lost.
``--machines 2`` runs two machines at once, each its own disk and game: a boot is mostly one
emulated CPU's work, so two machines on two cores cut more often than one (measured on the build
before the lazily loaded commands: a cut every 75 s or so, against 85 to 95 s; now every 50 to
60 s); three do not (each boot took 250 to 270 s).
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import logging
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from station.fold import fold  # noqa: E402  # the repo's own station, not the image's
from station.journal import read_records  # noqa: E402
from station.lobby.backup import write_backup  # noqa: E402
from station.lobby.settings import Settings, save_settings  # noqa: E402

log = logging.getLogger("image-check")
PASSWORD = "Судья на стенде 🎲"
ARMIES = ["sample:blue-protectorate.json", "sample:red-polaris.json"]
BOOT_SECONDS = 900.0  # emulated on another CPU, a boot takes minutes, not seconds


class Lost(AssertionError):
    """Something the station acknowledged, or wrote, is not there after a boot."""


class Machine:
    """The image in qemu: its disk a copy-on-write layer over the image (the image is never
    changed), grown past the image's size so the data partition's growth is seen."""

    def __init__(self, out: Path, work: Path, port: int, disk_gb: int = 2) -> None:
        self.out, self.work, self.port = out, work, port
        self.disk = work / "card.qcow2"
        self.console = work / "console-0.log"
        subprocess.run(
            [
                "qemu-img",
                "create",
                "-q",
                "-f",
                "qcow2",
                "-F",
                "raw",
                "-b",
                str(out / "station.img"),
                str(self.disk),
                f"{disk_gb}G",
            ],
            check=True,
        )
        self.process: subprocess.Popen[bytes] | None = None
        self.boots = 0

    def start(self) -> float:
        """Power on; returns the seconds until the lobby answered."""
        self.boots += 1
        self.console = self.work / f"console-{self.boots}.log"
        command = [
            "qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a72", "-smp", "2", "-m", "1536",
            "-kernel", str(self.out / "vmlinuz"), "-initrd", str(self.out / "initrd.img"),
            "-append", "root=LABEL=station-root ro console=ttyAMA0 net.ifnames=0 rootwait",
            "-drive", f"if=virtio,format=qcow2,file={self.disk},cache=unsafe",
            "-netdev", f"user,id=net0,hostfwd=tcp:127.0.0.1:{self.port}-:80", "-device", "virtio-net-pci,netdev=net0",
            "-nographic", "-monitor", "none", "-serial", f"file:{self.console}",
        ]  # fmt: skip
        started = time.monotonic()
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        while time.monotonic() - started < BOOT_SECONDS:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"qemu stopped: {self.process.stderr.read().decode() if self.process.stderr else ''}"
                )
            try:
                urllib.request.urlopen(self.url("/api/lobby"), timeout=5).read()
                return time.monotonic() - started
            except (OSError, urllib.error.URLError):
                time.sleep(2)
        raise RuntimeError(f"no lobby after {BOOT_SECONDS:.0f} s; the console is in {self.console}")

    def boot_text(self) -> str:
        """What this boot's console said so far."""
        return self.console.read_text(errors="replace")

    def pull_the_plug(self) -> None:
        """SIGKILL: qemu stops at once; what the guest had not written to its disk is gone (the
        disk's cache=unsafe drops nothing the guest flushed, and writes back nothing it did not)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def shut(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.pull_the_plug()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


class Referee:
    """The referee's phone, as a browser does it: the password once in the login's JSON body (any
    letters), then the session cookie and its CSRF token."""

    def __init__(self, machine: Machine) -> None:
        self.machine, self.csrf = machine, ""
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())

    def call(
        self, path: str, body: object = None, method: str = "POST", raw: bytes | None = None, timeout: float = 60
    ) -> Any:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        headers = {
            "Content-Type": "application/gzip" if raw is not None else "application/json",
            "X-CSRF-Token": self.csrf,
        }
        request = urllib.request.Request(self.machine.url(path), data=data, method=method, headers=headers)
        with self.opener.open(request, timeout=timeout) as answer:
            return json.loads(answer.read())

    def fetch(self, path: str) -> bytes:
        """A file the station serves (a journal, a backup), as it is."""
        request = urllib.request.Request(self.machine.url(path), headers={"X-CSRF-Token": self.csrf})
        with self.opener.open(request, timeout=60) as answer:
            return bytes(answer.read())

    def claim(self, console: str) -> None:
        found = re.findall(r"Claim code: (\d+)", console)
        if not found:
            raise Lost("no claim code on the console")
        self.call("/api/claim", {"code": found[-1], "password": PASSWORD})

    def log_in(self) -> None:
        self.csrf = self.call("/api/login", {"token": PASSWORD})["csrf"]


def club_backup(folder: Path) -> bytes:
    """A backup as a club's station would make it: a saved army, the settings, a calibration."""
    data, calibration = folder / "data", folder / "calibration" / "table.json"
    (data / "armies" / "bronepekhota").mkdir(parents=True)
    shutil.copy(
        REPO / "station" / "data" / "demo" / "blue-protectorate.json",
        data / "armies" / "bronepekhota" / "армия-ивана.json",
    )
    save_settings(data, Settings().changed({"rehearsal": True}))  # in force at once on a fresh card
    calibration.parent.mkdir(parents=True)
    calibration.write_text(json.dumps({"table_mm": [1219.2, 1219.2], "note": "стол клуба"}), encoding="utf-8")
    out = io.BytesIO()
    write_backup(out, data, data, calibration)
    return out.getvalue()


def backup_files(archive: bytes) -> dict[str, bytes]:
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as opened:
        return {m.name: opened.extractfile(m).read() for m in opened.getmembers() if m.isreg()}  # type: ignore[union-attr]


class Table:
    """A game under way: the rehearsal hub's shots and the referee's table dice, each die
    numbered by its values (three D20s: 8,000 entries before one repeats)."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.acknowledged: list[list[int]] = []  # every table-dice entry the station answered 200 to
        self.shots = 0

    def play_until_cut(self, machine: Machine, seconds: float, rng: random.Random) -> None:
        """Play, and pull the plug after ``seconds`` from another thread, wherever the game is then:
        mid-request, mid-write, between shots.  Returns once the machine is gone."""
        nodes = [
            n["id"] for n in self.referee.call("/api/rehearsal", method="GET")["nodes"] if n.get("kind") == "launcher"
        ]
        cut = threading.Timer(seconds, machine.pull_the_plug)
        cut.start()
        try:
            self._play(nodes, rng)
        finally:
            cut.join()

    def _play(self, nodes: list[str], rng: random.Random) -> None:
        """Shots and table dice until the station stops answering."""
        while True:
            try:
                if nodes and rng.random() < 0.3:
                    self.referee.call("/api/rehearsal", {"node": rng.choice(nodes), "event": "shot"}, timeout=10)
                    self.shots += 1
                k = len(self.acknowledged)
                values = [k // 400 + 1, (k // 20) % 20 + 1, k % 20 + 1]
                self.referee.call("/api/dice", {"sides": 20, "values": values}, timeout=10)
                self.acknowledged.append(values)
            except (OSError, urllib.error.URLError, http.client.HTTPException):
                return  # the plug is pulled (before the answer, or mid-answer): that entry was never acknowledged


def check_journal(referee: Referee, name: str, acknowledged: list[list[int]], work: Path) -> tuple[int, int, int]:
    """The game's journal, downloaded (before the game resumes) and folded here; every
    acknowledged entry in it, in order.  Returns how many records it holds; how many entries it
    holds that were never acknowledged (journaled while the plug was pulled, before the answer
    left: the next one after the boot enters the same values again, as a referee whose phone got
    no answer would); and the bytes of a torn tail the cut left after the last whole line (the
    station's reader drops them, and the resumed game cuts them off)."""
    path = work / name
    text = referee.fetch(f"/api/games/{name}/journal")
    path.write_bytes(text)
    records = read_records(str(path))
    fold(records)  # raises if the journal does not replay
    entered = [r["values"] for r in records if r.get("kind") == "dice_entry" and r.get("sides") == 20]
    missing = [v for v in acknowledged if v not in entered]
    if missing:
        raise Lost(f"{len(missing)} acknowledged table dice are not in {name}, the first {missing[0]}")
    remaining = iter(entered)
    if not all(any(seen == values for seen in remaining) for values in acknowledged):
        raise Lost(f"{name}: the acknowledged table dice are out of order")
    return len(records), len(entered) - len(acknowledged), len(text) - (text.rfind(b"\n") + 1)


def check_kept(referee: Referee, restored: dict[str, bytes]) -> None:
    """What the first boot restored (an army, the settings, the calibration) is there, byte for byte."""
    now = backup_files(referee.fetch("/api/backup"))
    for name, content in restored.items():
        if name != "MANIFEST.json" and now.get(name) != content:
            raise Lost(f"{name} is {'gone' if name not in now else 'changed'} after the power cut")


@dataclass
class Run:
    """One machine's cuts: what it found, for the summary over every machine."""

    cuts: int = 0
    boots: list[float] = field(default_factory=list)
    records: int = 0
    acknowledged: int = 0
    unanswered: int = 0
    torn_tails: int = 0  # cuts that left part of a line (zeros, as often as not) after the last whole one
    shots: int = 0
    lost: str = ""


def run_machine(out: Path, cuts: int, seed: int, play: float) -> Run:
    """Boot, claim, restore and start a game on one machine, then ``cuts`` power cuts, each
    checked after the boot that follows.  Stops at the first loss."""
    rng = random.Random(seed)
    work = Path(tempfile.mkdtemp(prefix="station-image-"))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    machine = Machine(out, work, port)
    referee = Referee(machine)
    run = Run()
    try:
        took = machine.start()
        console = machine.boot_text()
        log.info("boot 1: the lobby answered after %.0f s", took)
        for said in ("station: root read-only under an overlay", "station: data partition", "Claim code:"):
            if said not in console:
                raise Lost(f"the console does not say {said!r}; see {machine.console}")
        referee.claim(console)
        referee.log_in()
        backup = club_backup(work / "club")
        restored = backup_files(backup)
        said = referee.call("/api/restore", raw=backup)
        log.info("restored a club's backup: %s written", said["written"])
        game = referee.call(
            "/api/games", {"game": "bronepekhota", "armies": ARMIES, "force": True, "note": "power cuts"}
        )
        name = game["journal"]
        table = Table(referee)
        for cut in range(1, cuts + 1):
            seconds = rng.uniform(0.5, play)
            table.play_until_cut(machine, seconds, rng)
            took = machine.start()
            referee.log_in()
            run.records, run.unanswered, torn = check_journal(referee, name, table.acknowledged, work)
            run.torn_tails += torn > 0
            check_kept(referee, restored)
            referee.call(f"/api/games/{name}/resume")
            run.cuts, run.acknowledged, run.shots = cut, len(table.acknowledged), table.shots
            run.boots.append(took)
            log.info(
                "cut %d after %.1f s of play: boot %.0f s; %d records replay, all %d acknowledged dice there "
                "(%d more journaled, their answers cut off), %d shots fired; a torn tail of %d bytes",
                cut, seconds, took, run.records, run.acknowledged, run.unanswered, run.shots, torn,
            )  # fmt: skip
    except Lost as lost:
        log.error("LOST: %s", lost)
        run.lost = str(lost)
    finally:
        machine.shut()
        if os.environ.get("KEEP_IMAGE_CHECK") is None:
            shutil.rmtree(work, ignore_errors=True)
        else:
            log.info("kept %s", work)
    return run


def _machine(number: int, out: Path, cuts: int, seed: int, play: float) -> Run:
    """One machine of several, in its own process: its log lines say which."""
    logging.basicConfig(
        level=logging.INFO, format=f"%(asctime)s [{number}] %(message)s", datefmt="%H:%M:%S", force=True
    )
    return run_machine(out, cuts, seed, play)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "build" / "image", help="where make image wrote the image")
    parser.add_argument(
        "--cuts", type=int, default=1, help="power cuts during a game, over all machines (0: boot once)"
    )
    parser.add_argument("--machines", type=int, default=1, help="machines at once, each its own game and disk")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--play", type=float, default=8.0, help="the longest a game runs before a cut, seconds")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    shares = [args.cuts // args.machines + (k < args.cuts % args.machines) for k in range(args.machines)]
    if args.machines == 1:
        runs = [run_machine(args.out, args.cuts, args.seed, args.play)]
    else:
        with ProcessPoolExecutor(args.machines) as pool:
            jobs = [
                pool.submit(_machine, k + 1, args.out, share, args.seed + k, args.play)
                for k, share in enumerate(shares)
            ]
            runs = [job.result() for job in jobs]
    boots = [b for r in runs for b in r.boots]
    done = sum(r.cuts for r in runs)
    if boots:
        log.info(
            "%d power cuts on %d machine(s): %s (%d records, %d acknowledged dice, %d more journaled as the plug "
            "was pulled, %d shots, %d torn tails dropped); boots %.0f s median, %.0f to %.0f s",
            done, args.machines, "nothing acknowledged was lost" if done == args.cuts else "LOST",
            sum(r.records for r in runs), sum(r.acknowledged for r in runs), sum(r.unanswered for r in runs),
            sum(r.shots for r in runs), sum(r.torn_tails for r in runs),
            statistics.median(boots), min(boots), max(boots),
        )  # fmt: skip
    return 1 if any(r.lost for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
