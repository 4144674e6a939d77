"""Load and soak (issue 9): the simulated hub at 1,000 events/s, 20 dashboard streams, and the
camera replaying a recording at 30 fps, all at once against one `station run` daemon on loopback.

Measured: the daemon's RSS every second, the queues (the engine's inbox, the longest stream
queue, the hub's unacknowledged ring), events lost or doubled, and the latency from the hub
writing a line to each dashboard stream showing an update that includes it (the update's
``seq`` is the last journal record applied; the journal maps each hub line to its record).
Used by tests/faults/test_load.py (seconds) and bench/soak.py (10 minutes).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import tempfile
import threading
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from station.devices import protocol as p
from station.devices.hubsim import RING_SIZE, SimulatedHub
from station.dice import DiceBook
from station.journal import read_records
from station.rules.bronepekhota import Bronepekhota
from station.rules.bronepekhota.army import load_army

from .crash import ARMY_FILES, TOKEN, Daemon
from .rig import Emitter, script

SEQ_FIELD = re.compile(rb'"seq":(\d+)')
# The real hub's 64-event ring holds 385 ms of events at its wire's ceiling of 166 lines/s.  At
# 1,000 events/s the simulator gets a ring holding at least as long (a fsync on a shared disk can
# take tens of milliseconds), else the soak would test the ring, not the station.
SLACK_SECONDS = 0.5


@dataclass
class LoadReport:
    seconds: float = 0.0
    events_sent: int = 0
    events_applied: int = 0
    lost_in_hub: int = 0
    ring: int = RING_SIZE
    rss_kb: list[tuple[float, int]] = field(default_factory=list)
    engine_backlog: list[int] = field(default_factory=list)
    stream_backlog: list[int] = field(default_factory=list)
    hub_pending: list[int] = field(default_factory=list)
    camera_fps: float = 0.0
    cpu_percent: float = 0.0  # the daemon's, of one core
    sync_max_ms: float = 0.0  # the journal's slowest fsync
    slow_syncs: int = 0  # fsyncs over 100 ms
    snapshots: int = 0
    updates_per_client: list[int] = field(default_factory=list)
    unseen: int = 0  # (event, stream) pairs where the stream never showed the event
    latency_ms: dict[str, float] = field(default_factory=dict)

    def rss_growth_kb(self) -> int:
        """RSS at the end minus RSS once warm (after 2 s or a tenth of the run, whichever is later:
        the camera's recording is decoded and kept in the first second)."""
        settled = self.rss_kb[min(len(self.rss_kb) - 1, max(2, len(self.rss_kb) // 10))][1]
        return self.rss_kb[-1][1] - settled

    def lines(self) -> list[str]:
        step = max(1, len(self.rss_kb) // 10)
        curve = ", ".join(f"{t:.0f}s {kb / 1024:.0f}" for t, kb in self.rss_kb[::step] + self.rss_kb[-1:])
        lat = self.latency_ms
        return [
            f"{self.seconds:.0f} s: {self.events_sent} events fired ({self.events_sent / self.seconds:.0f}/s), "
            f"{self.events_applied} applied once each, {self.lost_in_hub} lost in the hub's full ring "
            f"(reported by OVF)",
            f"RSS MB: {curve}  (growth after warm-up {self.rss_growth_kb() / 1024:+.1f} MB)",
            f"queues, max (last): engine {max(self.engine_backlog)} ({self.engine_backlog[-1]}), "
            f"streams {max(self.stream_backlog)} ({self.stream_backlog[-1]}), "
            f"hub unACKed {max(self.hub_pending)} ({self.hub_pending[-1]}) of its ring of {self.ring}",
            f"camera {self.camera_fps:.1f} fps, {self.snapshots} table snapshots journaled; "
            f"daemon CPU {self.cpu_percent:.0f}% of one core; slowest fsync {self.sync_max_ms:.0f} ms, "
            f"{self.slow_syncs} over 100 ms",
            f"streams: {len(self.updates_per_client)} clients, updates each: min {min(self.updates_per_client)}, "
            f"max {max(self.updates_per_client)}; events a stream never showed: {self.unseen}",
            f"hub line -> update on every stream: p50 {lat['p50']:.1f} ms, p90 {lat['p90']:.1f} ms, "
            f"p99 {lat['p99']:.1f} ms, max {lat['max']:.1f} ms ({lat['samples']} samples)",
        ]


class StreamClient:
    """One dashboard: reads /api/stream and notes when each update arrived and what seq it had."""

    def __init__(self, port: int) -> None:
        self.times, self.seqs = array("d"), array("q")
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.conn.request("GET", "/api/stream")
        self.response = self.conn.getresponse()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        buffer = b""
        try:
            while chunk := self.response.read1(1 << 16):
                buffer += chunk
                *frames, buffer = buffer.split(b"\n\n")
                now = time.perf_counter()
                for frame in frames:
                    if b"event: update" in frame[:40]:
                        match = SEQ_FIELD.search(frame, 0, 200)
                        if match:
                            self.times.append(now)
                            self.seqs.append(int(match.group(1)))
        except (OSError, http.client.HTTPException):
            pass

    def close(self) -> None:
        self.conn.close()


def camera_recording(folder: Path, frames: int = 12) -> tuple[Path, Path, Path]:
    """A recording of the example table with two marked bases, its calibration, and the blue
    army file with those markers."""
    from tests.sim.synthetic import SceneMarker, render

    from ..test_vision import _army_with_markers, _scene, _truth_calibration

    markers = [SceneMarker(20, 500.0, 500.0, 40.0, 0.0), SceneMarker(22, 700.0, 300.0, 25.0, 45.0)]
    rng = np.random.default_rng(1)
    recording = folder / "frames"
    recording.mkdir()
    for k in range(frames):
        cv2.imwrite(str(recording / f"{k:03d}.png"), render(_scene(markers), rng)[0])
    calibration = folder / "table.json"
    _truth_calibration().save(calibration)
    return recording, calibration, _army_with_markers(folder)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def soak(
    folder: Path,
    seconds: float,
    rate: float = 1000.0,
    clients: int = 20,
    fps: float = 30.0,
    progress: Callable[[str], None] = lambda line: None,
    slack_s: float = SLACK_SECONDS,
    progress_every: float = 30.0,
) -> LoadReport:
    report = LoadReport()
    recording, calibration, blue = camera_recording(folder)
    armies = [load_army(blue), load_army(ARMY_FILES[1])]
    journal, config = folder / "game.jsonl", folder / "config.json"
    config.write_text(json.dumps({"referee_token": TOKEN}))
    ring = max(RING_SIZE, int(rate * slack_s))
    hub = SimulatedHub(
        folder / "hub", nodes=Bronepekhota(DiceBook()).sensor_nodes(armies), heartbeat=0.5, ring_size=ring
    ).start()
    report.ring = ring
    daemon = Daemon(
        [
            "run",
            "--game",
            "bronepekhota",
            "--army",
            str(blue),
            "--army",
            str(ARMY_FILES[1]),
            "--serial",
            hub.path,
            "--journal",
            str(journal),
            "--port",
            "0",
            "--config",
            str(config),
            "--seed",
            "2",
            "--option",
            "ammo=unlimited",
        ]
        + (["--camera", str(recording), "--camera-fps", str(fps), "--calibration", str(calibration)] if fps else []),
        folder / "daemon.log",
    )
    emitter = Emitter(hub, script(5000, seed=7), rate)
    streams: list[StreamClient] = []
    try:
        url = daemon.url()
        port = int(url.rsplit(":", 1)[1])
        for type_, args in (("begin_round", {}), ("set_order", {"order": ["blue", "red"]})):
            daemon.post(url, "/api/input", {"type": type_, "args": args})
        streams = [StreamClient(port) for _ in range(clients)]
        start, cpu_start = time.monotonic(), _cpu_seconds(daemon.proc.pid)
        emitter.start()
        next_report = start + progress_every
        while (now := time.monotonic()) - start < seconds:
            health = daemon.get(url, "/api/health")
            report.rss_kb.append((now - start, _rss_kb(daemon.proc.pid)))
            report.engine_backlog.append(health["engine_backlog"])
            report.stream_backlog.append(health["stream_backlog"])
            report.hub_pending.append(hub.pending())
            report.camera_fps = (health.get("camera") or {}).get("fps", 0.0)
            report.sync_max_ms, report.slow_syncs = health["journal"]["sync_max_ms"], health["journal"]["slow_syncs"]
            if now >= next_report:
                next_report += progress_every
                progress(
                    f"  {now - start:.0f} s: RSS {report.rss_kb[-1][1] / 1024:.0f} MB, "
                    f"engine queue {health['engine_backlog']}, hub unACKed {hub.pending()}, "
                    f"events {health['events']}, camera {report.camera_fps:.1f} fps, "
                    f"slowest fsync {report.sync_max_ms:.0f} ms"
                )
            time.sleep(max(0.0, 1.0 - (time.monotonic() - now)))
        report.seconds = time.monotonic() - start
        report.cpu_percent = 100 * (_cpu_seconds(daemon.proc.pid) - cpu_start) / report.seconds
        emitter.stop()
        report.events_sent = emitter.sent
        deadline = time.monotonic() + 60
        while (hub.pending() or daemon.get(url, "/api/health")["engine_backlog"]) and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1.0)  # the last updates reach every stream
        report.lost_in_hub = hub.lost_total
        if daemon.terminate() != 0:
            raise AssertionError("the daemon did not stop cleanly on SIGTERM")
    finally:
        emitter.stop()
        for stream in streams:
            stream.close()
        if daemon.proc.poll() is None:
            daemon.kill()
        hub.stop()
    _read_journal(report, journal, emitter, streams)
    return report


def _read_journal(report: LoadReport, journal: Path, emitter: Emitter, streams: list[StreamClient]) -> None:
    """Events applied (each once), and each one's latency to every stream."""
    hub_seqs, journal_seqs = [], []
    ovf = set()
    for record in read_records(journal):
        if record["kind"] == "rx" and record["verdict"] == "event":
            hub_seqs.append(p.decode(record["line"]).seq)
            journal_seqs.append(record["seq"])
            if record["line"].startswith("OVF"):
                ovf.add(len(hub_seqs) - 1)
        elif record["kind"] == "snapshot":
            report.snapshots += 1
    if hub_seqs != list(range(1, len(hub_seqs) + 1)):
        raise AssertionError("hub events were applied out of order, twice, or with gaps")
    report.events_applied = len(hub_seqs) - len(ovf)
    timed = np.array([i not in ovf for i in range(len(hub_seqs))], dtype=bool)  # OVF is the hub's own
    sent = np.frombuffer(emitter.sent_at, dtype=np.float64)[1 : len(hub_seqs) + 1][timed]
    wanted = np.asarray(journal_seqs, dtype=np.int64)[timed]
    latencies = []
    for stream in streams:
        report.updates_per_client.append(len(stream.seqs))
        seqs = np.maximum.accumulate(np.frombuffer(stream.seqs, dtype=np.int64))
        times = np.frombuffer(stream.times, dtype=np.float64)
        index = np.searchsorted(seqs, wanted, side="left")
        seen = index < len(seqs)
        report.unseen += int((~seen).sum())
        latencies.append((times[index[seen]] - sent[seen]) * 1000)
    every = np.concatenate(latencies) if latencies else np.zeros(1)
    report.latency_ms = {
        "p50": float(np.percentile(every, 50)),
        "p90": float(np.percentile(every, 90)),
        "p99": float(np.percentile(every, 99)),
        "max": float(every.max()),
        "samples": int(every.size),
    }


def run_in_temp(seconds: float, **kwargs) -> LoadReport:
    with tempfile.TemporaryDirectory() as folder:
        return soak(Path(folder), seconds, **kwargs)
