"""The station on a club's network, with waitress (what the station ships) side by side with
cheroot and werkzeug's development server, each serving the same app in its own process:

1. **Spectators late in a game.**  A game of 4,000 rulings; 500 spectators open the dashboard
   stream at once while the referee polls ``/api/state``.  The referee's p50/p99 during the join,
   and the server's RSS: before, its peak, and 5 s after the spectators leave.
   Target: p99 ≤ 100 ms; RSS +≤ 100 MB, back within 20 MB.
2. **Idle connections.**  2,000 connections that send half a request and wait, under the
   systemd unit's open-file limit (LimitNOFILE=8192).  How long a fresh client waits for its
   answer, and how many of the 2,000 the server has closed 15 s later (the header timeout).
   Target: answered within 1 s; every idle one closed.
   The same with a neglected table, every ruling pending: the size of a screen's first snapshot
   too (target ≤ 150 kB).
3. **A second daemon** on the live journal: how long until it is refused, and whether the
   journal's bytes changed.  Target: under 2 s, unchanged.

    python bench/club_network.py [--spectators 500] [--idle 2000] [--servers waitress,cheroot,werkzeug]
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import multiprocessing
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from results import Figure, save

ROOT = Path(__file__).resolve().parent.parent
ARMIES = [ROOT / "examples" / "blue-protectorate.json", ROOT / "examples" / "red-polaris.json"]
TOKEN = "bench-token-000"
UNIT_NOFILE = 8192  # what `station install-service` writes as LimitNOFILE
RULINGS = 4000
REFEREE_TIMEOUT = 10  # seconds the referee's poll waits before counting a request as unanswered


SERVER_CPU, CLIENT_CPU = 0, 1  # the server on one core (a Pi 4 has four), the clients on the other


def _pin(cpu: int) -> None:
    """Keep the server and the 500 simulated phones off each other's core: on a 2-core machine
    they would otherwise share both, and the bench would time the phones as much as the station."""
    if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > cpu:
        os.sched_setaffinity(0, {cpu})


# -- the server process ------------------------------------------------------------------------
def serve(kind: str, journal: str, port_file: str, spectators: int) -> None:
    """Child: resume the game in ``journal`` and serve it with ``kind``; write the port."""
    from station.runtime import Station
    from station.web.app import create_app
    from station.web.limits import WebLimits

    resource.setrlimit(resource.RLIMIT_NOFILE, (UNIT_NOFILE, UNIT_NOFILE))
    from station.web.server import SWITCH_INTERVAL

    sys.setswitchinterval(SWITCH_INTERVAL)  # what the station sets, for every server alike
    _pin(SERVER_CPU)
    station = Station(journal).start()
    limits = WebLimits(spectators=spectators)
    if kind == "waitress":
        from station.web.server import DashboardServer

        server = DashboardServer(station, TOKEN, port=0, limits=limits)
        server.start()
        port = server.port
    else:
        app = create_app(station, TOKEN, limits)
        if kind == "cheroot":
            from cheroot.wsgi import Server

            threads = limits.workers + limits.spectators + limits.referee_streams  # a fixed pool: room for every screen
            cheroot = Server(("127.0.0.1", 0), app, numthreads=threads, timeout=limits.idle_timeout)
            cheroot.prepare()
            port = cheroot.bind_addr[1]
            threading.Thread(target=cheroot.serve, daemon=True).start()
        else:
            from werkzeug.serving import make_server

            werkzeug = make_server("127.0.0.1", 0, app, threaded=True)
            port = werkzeug.server_port
            threading.Thread(target=werkzeug.serve_forever, daemon=True).start()
    Path(port_file).write_text(str(port))
    threading.Event().wait()


class Server:
    def __init__(self, kind: str, journal: Path, spectators: int) -> None:
        port_file = journal.with_suffix(f".{kind}.port")
        port_file.unlink(missing_ok=True)
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", kind, "--journal", str(journal), "--port-file", str(port_file)]
            + ["--spectators", str(spectators)],
            stderr=open(journal.with_suffix(f".{kind}.log"), "wb"),
        )
        deadline = time.monotonic() + 30
        while not port_file.exists() or not port_file.read_text():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{kind} did not start: {journal.with_suffix(f'.{kind}.log').read_text()[-2000:]}")
            time.sleep(0.1)
        self.port = int(port_file.read_text())
        self.url = f"http://127.0.0.1:{self.port}"

    def rss_mb(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


# -- scenario 1: spectators ----------------------------------------------------------------------
async def _spectator(port: int, joined: list[int], leave: asyncio.Event) -> None:
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 22)
    except OSError:
        return
    writer.write(b"GET /api/stream HTTP/1.1\r\nHost: station\r\n\r\n")
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 60)
        if b" 200 " in head.split(b"\r\n", 1)[0]:
            await asyncio.wait_for(reader.readuntil(b"\n\n"), 60)  # the whole snapshot frame
            joined.append(1)
            await leave.wait()
    except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError):
        pass
    writer.close()


def _referee_poll(url: str, stop, times) -> None:
    """In its own process, so that it measures the server and not the GIL of the process that
    plays 500 phones; over one kept-alive connection, as the referee's browser does."""
    _pin(CLIENT_CPU)
    os.nice(-10)  # the referee's phone is a device of its own, not one of the 500 the bench plays
    connection = http.client.HTTPConnection(url.split("//")[1], timeout=REFEREE_TIMEOUT)
    while not stop.is_set():
        began = time.monotonic()
        try:
            connection.request("GET", "/api/state", headers={"X-Referee-Token": TOKEN})
            connection.getresponse().read()
        except (OSError, http.client.HTTPException):  # not answered: counted at what it cost
            connection.close()
        times.append((time.monotonic() - began) * 1000)
        time.sleep(0.02)


def spectators(server: Server, count: int) -> dict[str, float]:
    before = server.rss_mb()
    spawn = multiprocessing.get_context("spawn")
    manager = spawn.Manager()
    shared_times, stop_polling = manager.list(), manager.Event()
    stop = threading.Event()
    poller = spawn.Process(target=_referee_poll, args=(server.url, stop_polling, shared_times))
    peak = [before]

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], server.rss_mb())
            time.sleep(0.05)

    async def join() -> int:
        leave, joined = asyncio.Event(), []
        tasks = [asyncio.create_task(_spectator(server.port, joined, leave)) for _ in range(count)]
        deadline = time.monotonic() + 60
        while len(joined) < count and time.monotonic() < deadline and not all(t.done() for t in tasks):
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)  # the referee keeps polling with everyone watching
        leave.set()
        await asyncio.gather(*tasks)
        return len(joined)

    sampler = threading.Thread(target=sample)
    poller.start()
    sampler.start()
    time.sleep(0.3)
    joined = asyncio.run(join())
    stop.set()
    stop_polling.set()
    poller.join()
    sampler.join()
    times = list(shared_times)
    manager.shutdown()
    time.sleep(5)
    after = server.rss_mb()
    times.sort()
    return {
        "joined": joined,
        "p50": statistics.median(times),
        "p99": times[min(len(times) - 1, int(len(times) * 0.99))],
        "rss_before": before,
        "rss_peak": peak[0],
        "rss_after": after,
    }


# -- scenario 2: idle connections ----------------------------------------------------------------
def idle_connections(server: Server, count: int) -> dict[str, float]:
    held = []
    for _ in range(count):
        try:
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: station\r\nX-Slow: ")
            held.append(sock)
        except OSError:
            break
    time.sleep(0.5)
    began = time.monotonic()
    try:
        with urllib.request.urlopen(server.url + "/api/state", timeout=30) as answer:
            status = answer.status
    except Exception as exc:  # noqa: BLE001 (what the server did is the result)
        status = getattr(exc, "code", 0)
    fresh_ms = (time.monotonic() - began) * 1000
    time.sleep(15)
    closed = 0
    for sock in held:
        sock.settimeout(0)
        try:
            closed += sock.recv(1) == b""
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        sock.close()
    return {"held": len(held), "fresh_ms": fresh_ms, "fresh_status": status, "closed": closed}


# -- scenario 3: a second daemon -----------------------------------------------------------------
def second_daemon(journal: Path) -> dict[str, float]:
    config = journal.with_name("config.json")
    config.write_text(json.dumps({"referee_token": TOKEN}))
    first = subprocess.Popen(
        [sys.executable, "-m", "station", "run", "--journal", str(journal), "--resume", "--port", "0"]
        + ["--config", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    for raw in first.stdout:
        if raw.startswith(b"Dashboard:"):
            break
    before = journal.read_bytes()
    began = time.monotonic()
    second = subprocess.run(
        [sys.executable, "-m", "station", "run", "--journal", str(journal), "--resume", "--port", "0"]
        + ["--config", str(config)],
        capture_output=True,
    )
    took = time.monotonic() - began
    unchanged = journal.read_bytes() == before
    first.terminate()
    first.wait()
    return {"seconds": took, "exit": second.returncode, "unchanged": unchanged}


def make_game(folder: Path, pending: bool = False) -> Path:
    """A game of RULINGS rulings: warnings the referee need not confirm, or (``pending``) ones
    that each wait for him and that he never confirms: a neglected table."""
    from station.rules.bronepekhota.army import load_army
    from station.runtime import Station

    journal = folder / ("neglected-game.jsonl" if pending else "long-game.jsonl")
    station = Station(journal, "bronepekhota", [load_army(str(a)) for a in ARMIES]).start()
    station.game.operator_input("begin_round", {})
    for _ in range(RULINGS - 1):
        if pending:
            station.game.operator_input("jump", {"element": "nobody"})  # refused: for the referee
        else:
            station.game.operator_input("activate", {"unit": "nobody"})
    station.stop()
    return journal


def first_snapshot_bytes(server: Server) -> int:
    """What a screen opening the game is sent: the size of /api/state's answer."""
    with urllib.request.urlopen(server.url + "/api/state", timeout=REFEREE_TIMEOUT) as answer:
        return len(answer.read())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spectators", type=int, default=500)
    parser.add_argument("--idle", type=int, default=2000)
    parser.add_argument("--servers", default="waitress,cheroot,werkzeug")
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--journal", help=argparse.SUPPRESS)
    parser.add_argument("--port-file", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.journal, args.port_file, args.spectators)
        return
    resource.setrlimit(
        resource.RLIMIT_NOFILE, (UNIT_NOFILE * 2, max(UNIT_NOFILE * 2, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    )
    folder = Path(tempfile.mkdtemp(prefix="club-"))
    journal = make_game(folder)
    _pin(CLIENT_CPU)
    print(f"a game of {RULINGS} rulings: {journal.stat().st_size / 1e6:.1f} MB of journal")
    results: dict[str, dict] = {}
    for kind in args.servers.split(","):
        server = Server(kind, journal, args.spectators)
        try:
            watch = spectators(server, args.spectators)
            print(
                f"{kind:9} {watch['joined']}/{args.spectators} spectators joined; referee /api/state "
                f"p50 {watch['p50']:.1f} ms, p99 {watch['p99']:.1f} ms; RSS {watch['rss_before']:.0f} → "
                f"peak {watch['rss_peak']:.0f} → {watch['rss_after']:.0f} MB after they left",
                flush=True,
            )
            idle = idle_connections(server, args.idle)
            print(
                f"{kind:9} {idle['held']} half-sent connections held: a fresh client answered "
                f"{idle['fresh_status']} in {idle['fresh_ms']:.0f} ms; {idle['closed']} closed by the server 15 s later",
                flush=True,
            )
            results[kind] = {**{f"watch_{k}": v for k, v in watch.items()}, **{f"idle_{k}": v for k, v in idle.items()}}
        finally:
            server.stop()
    neglected = make_game(folder, pending=True)
    server = Server("waitress", neglected, args.spectators)
    try:
        snapshot_bytes = first_snapshot_bytes(server)
        all_pending = spectators(server, args.spectators)
    finally:
        server.stop()
    print(
        f"all {RULINGS} pending: a screen's first snapshot {snapshot_bytes / 1000:.0f} kB; "
        f"{all_pending['joined']}/{args.spectators} joined; referee /api/state p50 {all_pending['p50']:.1f} ms, "
        f"p99 {all_pending['p99']:.1f} ms; RSS {all_pending['rss_before']:.0f} → peak {all_pending['rss_peak']:.0f} "
        f"→ {all_pending['rss_after']:.0f} MB",
        flush=True,
    )
    second = second_daemon(journal)
    print(
        f"a second daemon on the live journal: exit {second['exit']} after {second['seconds']:.2f} s; "
        f"journal {'unchanged' if second['unchanged'] else 'CHANGED'}"
    )
    ours = results["waitress"]
    others = [k for k in results if k != "waitress"]

    def compare(key: str, unit: str) -> str:
        return "; ".join(f"{k} {results[k][key]:.0f} {unit}" for k in others)

    save(
        "club_network",
        f"a game of {RULINGS} rulings served by waitress (ours) and, side by side, "
        + ", ".join(others)
        + f"; {args.spectators} spectators joining at once, {args.idle} half-sent connections, a second daemon",
        [
            Figure(
                f"referee /api/state while {args.spectators} spectators join",
                ours["watch_p99"],
                f"p50 {ours['watch_p50']:.1f} ms, p99 {ours['watch_p99']:.1f} ms",
                "p99: "
                + "; ".join(
                    f"{k} {results[k]['watch_p99']:.0f} ms ({results[k]['watch_joined']} of {args.spectators} joined)"
                    for k in others
                ),
            ),
            Figure(
                "server RSS: before → peak → after they left",
                ours["watch_rss_peak"] - ours["watch_rss_before"],
                f"{ours['watch_rss_before']:.0f} → {ours['watch_rss_peak']:.0f} → {ours['watch_rss_after']:.0f} MB",
                "peak: " + compare("watch_rss_peak", "MB"),
            ),
            Figure(
                f"the same game with all {RULINGS} rulings pending (nobody confirms): a screen's first snapshot",
                snapshot_bytes / 1000,
                f"{snapshot_bytes / 1000:.0f} kB; referee /api/state p50 {all_pending['p50']:.1f} ms, "
                f"p99 {all_pending['p99']:.1f} ms; RSS {all_pending['rss_before']:.0f} → "
                f"{all_pending['rss_peak']:.0f} → {all_pending['rss_after']:.0f} MB",
                f"{all_pending['joined']} of {args.spectators} joined",
            ),
            Figure(
                f"a fresh client, {args.idle} half-sent connections held open",
                ours["idle_fresh_ms"],
                f"answered in {ours['idle_fresh_ms']:.0f} ms; {ours['idle_closed']} of {ours['idle_held']} closed 15 s later",
                "; ".join(
                    f"{k} {results[k]['idle_fresh_ms']:.0f} ms, {results[k]['idle_closed']} closed" for k in others
                ),
            ),
            Figure(
                "a second daemon on the live journal",
                second["seconds"],
                f"refused (exit {second['exit']}) in {second['seconds']:.2f} s, journal "
                + ("unchanged" if second["unchanged"] else "CHANGED"),
            ),
        ],
        "p99 ≤ 100 ms; RSS +≤ 100 MB and back within 20 MB; first snapshot ≤ 150 kB; answered ≤ 1 s; refused ≤ 2 s",
    )


if __name__ == "__main__":
    main()
