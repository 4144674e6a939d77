"""Where the station's CPU goes at a normal game's load, all on one core, and what that would
leave of a Raspberry Pi 4's core.

The load: the simulated hub at 50 events a second (shots, falls, impacts), the camera replaying a
1920×1080 recording at 10 fps into the tracker, and 5 dashboards on the stream.  Everything runs
in this process pinned to one core (``sched_setaffinity``), so each of the station's threads can
be timed on its own from ``/proc/self/task``: the hub link (reading, judging and journaling the
lines), the journal's fsync, the rules engine (the fold), the camera's tracker, the SSE
broadcaster, and the web server's threads.  The bench's own threads (the simulated hub, the
emitter, the stream readers) are timed too and left out of the station's share.

The Pi estimate divides by the ratio of this machine's single-core ``sysbench cpu`` score to the
Raspberry Pi 4's published one (1,477.83 events/s, sysbench 1.0.20, prime limit 10,000): an
estimate, since a prime sieve is not this workload.

    python bench/pi_budget.py [--seconds 60] [--rate 50] [--fps 10] [--clients 5]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from results import Figure, save  # noqa: E402

from station.devices.hubsim import SimulatedHub  # noqa: E402
from station.dice import DiceBook  # noqa: E402
from station.lobby.lobby import Hardware, Lobby  # noqa: E402
from station.rules.bronepekhota import Bronepekhota  # noqa: E402
from station.rules.bronepekhota.army import load_army  # noqa: E402
from station.web.server import DashboardServer  # noqa: E402
from tests.faults.crash import ARMY_FILES  # noqa: E402
from tests.faults.load import StreamClient, camera_recording  # noqa: E402
from tests.faults.rig import Emitter, script  # noqa: E402

PI4_SYSBENCH = 1477.83  # events/s, one core, `sysbench cpu --threads=1 run` (leoncode.co.uk, Pi 4 at 1.5 GHz)
PARTS = {  # thread name -> the part of the station it is
    "hub-link": "hub link and journal writes",
    "journal-sync": "journal fsync",
    "engine": "rules engine (the fold)",
    "camera": "camera tracker",
    "sse-broadcast": "SSE frames",
    "dashboard": "web server",
}
WEB_REQUEST = re.compile(r"^waitress-\d+$")  # the web server's worker threads (station/web/server.py)


def _cpu(native_id: int) -> float:
    """A thread's CPU seconds so far (user + system)."""
    fields = Path(f"/proc/self/task/{native_id}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _part(thread: threading.Thread) -> str:
    if thread.name in PARTS:
        return PARTS[thread.name]
    return PARTS["dashboard"] if WEB_REQUEST.search(thread.name) else "the bench itself"


def _sample() -> dict[int, tuple[str, float]]:
    found = {}
    for thread in threading.enumerate():
        if thread.native_id is None:
            continue
        try:
            found[thread.native_id] = (_part(thread), _cpu(thread.native_id))
        except OSError:
            pass  # ended meanwhile
    return found


def sysbench_score() -> float | None:
    if not shutil.which("sysbench"):
        return None
    out = subprocess.run(["sysbench", "cpu", "--threads=1", "--time=10", "run"], capture_output=True, text=True).stdout
    match = re.search(r"events per second:\s*([\d.]+)", out)
    return float(match.group(1)) if match else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=50.0, help="hub events per second")
    parser.add_argument("--fps", type=float, default=10.0, help="camera frames per second")
    parser.add_argument("--clients", type=int, default=5, help="dashboard streams")
    args = parser.parse_args()
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core; every thread started later inherits it
    folder = Path(tempfile.mkdtemp())
    recording, calibration, blue = camera_recording(folder)
    armies = [load_army(blue), load_army(ARMY_FILES[1])]
    hub = SimulatedHub(folder / "hub", nodes=Bronepekhota(DiceBook()).sensor_nodes(armies), heartbeat=0.5).start()
    hardware = Hardware((hub.path,), str(recording), args.fps, calibration, seed=2)
    lobby = Lobby(folder / "journals", folder / "armies", hardware)
    station = lobby.start("bronepekhota", armies, {"ammo": "unlimited"})
    server = DashboardServer(lobby, "bench-token-000", port=0).start()
    for type_, arguments in (("begin_round", {}), ("set_order", {"order": ["blue", "red"]})):
        station.game.operator_input(type_, arguments)
    clients = [StreamClient(server.port) for _ in range(args.clients)]
    emitter = Emitter(hub, script(5000, seed=7), args.rate)
    emitter.start()
    time.sleep(3.0)  # warm up: the camera's first frames, the streams' first snapshots
    print(
        f"{args.seconds:g} s on one core: hub {args.rate:g} events/s, camera {args.fps:g} fps 1080p, "
        f"{args.clients} dashboards",
        flush=True,
    )
    before, start = _sample(), time.monotonic()
    time.sleep(args.seconds)
    after, seconds = _sample(), time.monotonic() - start
    emitter.stop()
    for client in clients:
        client.close()
    server.stop()
    lobby.close()
    hub.stop()
    shares: dict[str, float] = {}
    for tid, (part, cpu) in after.items():
        shares[part] = shares.get(part, 0.0) + cpu - before.get(tid, (part, 0.0))[1]
    shares = {part: 100 * cpu / seconds for part, cpu in shares.items()}
    station_share = sum(v for k, v in shares.items() if k != "the bench itself")
    score = sysbench_score()
    ratio = score / PI4_SYSBENCH if score else None
    for part in [*PARTS.values(), "the bench itself"]:
        if part in shares:
            pi = f"  ~{shares[part] * ratio:5.1f} % of a Pi 4 core" if ratio else ""
            print(f"  {part:30s} {shares[part]:5.1f} % of this core{pi}")
    print(f"  the station in all: {station_share:.1f} % of this core", end="")
    print(
        f", ~{station_share * ratio:.0f} % of a Pi 4 core (sysbench {score:.0f} here, {PI4_SYSBENCH} on a Pi 4: ×{ratio:.2f})"
        if ratio
        else ""
    )
    figures = [
        Figure(
            part,
            shares[part],
            f"{shares[part]:.1f} % of a core" + (f" (Pi 4: ~{shares[part] * ratio:.0f} %)" if ratio else ""),
        )
        for part in PARTS.values()
        if part in shares
    ]
    figures.append(
        Figure(
            "the station in all",
            station_share,
            f"{station_share:.1f} % of a core"
            + (f" (Pi 4: ~{station_share * ratio:.0f} % of one of its 4 cores)" if ratio else ""),
            f"an estimate: sysbench cpu {score:.0f} events/s here, {PI4_SYSBENCH} on a Pi 4 (×{ratio:.2f})"
            if ratio
            else "",
        )
    )
    save(
        "pi_budget",
        f"a normal game on one core for {args.seconds:g} s: hub {args.rate:g} events/s, camera {args.fps:g} fps at "
        f"1080p, {args.clients} dashboards",
        figures,
        "headroom on a Pi 4 core",
    )


if __name__ == "__main__":
    main()
