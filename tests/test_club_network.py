"""The dashboard on a club's network: idle and half-sent connections, more spectators than seats,
and every connection busy.  The referee must still be answered."""

from __future__ import annotations

import json
import resource
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from station.runtime import Station
from station.web.limits import WebLimits
from station.web.server import DashboardServer
from tests.faults.crash import ARMY_FILES, ROOT, TOKEN
from tests.test_one_daemon import NEW_GAME

FD_LIMIT = 256


def _low_fd_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))


def _half_sent(port: int) -> socket.socket:
    """A connection that sends the start of a request and then waits, as a scanner does."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: station\r\nX-Slow: ")
    return sock


def _closed_by_server(sock: socket.socket) -> bool:
    sock.settimeout(0)
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


@pytest.fixture
def daemon(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"referee_token": TOKEN}))
    proc = subprocess.Popen(
        [sys.executable, "-m", "station", "run", "--journal", str(tmp_path / "game.jsonl"), "--port", "0"]
        + ["--config", str(config), "--idle-timeout", "2", *NEW_GAME],
        stdout=subprocess.PIPE,
        stderr=open(tmp_path / "log", "wb"),
        cwd=ROOT,
        preexec_fn=_low_fd_limit,  # as if a unit had set LimitNOFILE=256
    )
    url = None
    for raw in proc.stdout:
        if raw.startswith(b"Dashboard:"):
            url = raw.split()[-1].decode().rstrip("/")
            break
    assert url, (tmp_path / "log").read_text()
    yield proc, url, tmp_path / "log"
    proc.terminate()
    proc.wait(timeout=10)


def test_half_sent_requests_cannot_lock_out_a_fresh_client(daemon):
    proc, url, log = daemon
    port = int(url.rsplit(":", 1)[1])
    idle = [_half_sent(port) for _ in range(300)]  # more than the open-file limit allows
    try:
        started = time.monotonic()
        with urllib.request.urlopen(url + "/api/state", timeout=5) as answer:
            assert answer.status == 200 and json.loads(answer.read())["game"] == "bronepekhota"
        assert time.monotonic() - started < 1.0
        referee = urllib.request.Request(
            url + "/api/input",
            data=json.dumps({"type": "begin_round", "args": {}}).encode(),
            headers={"Content-Type": "application/json", "X-Referee-Token": TOKEN},
        )
        with urllib.request.urlopen(referee, timeout=5) as answer:
            assert answer.status == 200
        deadline = time.monotonic() + 10  # the idle timeout (2 s) closes every one of them
        while not all(_closed_by_server(s) for s in idle):
            assert time.monotonic() < deadline, sum(not _closed_by_server(s) for s in idle)
            time.sleep(0.2)
        assert proc.poll() is None
        assert "Too many open files" not in log.read_text()
        assert "open-file limit 256 allows 192 connections" in log.read_text()
    finally:
        for sock in idle:
            sock.close()


@pytest.fixture
def small_server(tmp_path):
    from station.rules.bronepekhota.army import load_army

    station = Station(tmp_path / "game.jsonl", "bronepekhota", [load_army(p) for p in ARMY_FILES]).start()
    server = DashboardServer(
        station, TOKEN, port=0, limits=WebLimits(spectators=2, referee_streams=4, workers=2, connections=6)
    ).start()
    yield server
    server.stop()
    station.stop()


def _open_stream(url: str, headers: dict[str, str] | None = None):
    answer = urllib.request.urlopen(urllib.request.Request(url + "/api/stream", headers=headers or {}), timeout=5)
    assert answer.readline().startswith(b"id: ")  # the snapshot's first line
    return answer


def test_spectators_beyond_their_seats_get_a_503_and_the_referee_still_gets_in(small_server):
    url = small_server.url
    watching = [_open_stream(url) for _ in range(2)]
    with pytest.raises(urllib.error.HTTPError) as refused:
        _open_stream(url)
    assert refused.value.code == 503 and "2 spectator screens open" in json.loads(refused.value.read())["error"]
    assert refused.value.headers["Retry-After"]
    referee = _open_stream(url, {"X-Referee-Token": TOKEN})  # the referee's seat is kept
    with urllib.request.urlopen(url + "/api/state", timeout=5) as answer:  # and short requests go on
        assert answer.status == 200
    watching[0].close()
    deadline = time.monotonic() + 5  # a spectator who leaves frees the seat
    while True:
        try:
            watching[0] = _open_stream(url)
            break
        except urllib.error.HTTPError:
            assert time.monotonic() < deadline
            time.sleep(0.2)
    for answer in [*watching, referee]:
        answer.close()


def test_when_every_connection_is_busy_a_newcomer_is_told_so(small_server):
    url, port = small_server.url, small_server.port
    streams = [_open_stream(url) for _ in range(2)] + [_open_stream(url, {"X-Referee-Token": TOKEN})]
    idle = [_half_sent(port) for _ in range(3)]
    time.sleep(0.3)
    # 6 connections, the cap: a newcomer closes the longest idle one and is served.
    with urllib.request.urlopen(url + "/api/state", timeout=5) as answer:
        assert answer.status == 200
    time.sleep(0.3)
    assert _closed_by_server(idle[0]) and small_server.counters()["evicted"] >= 1
    for sock in idle:
        sock.close()
    deadline = time.monotonic() + 5  # the server has seen them go: only the three streams are left
    while small_server.counters()["connections"] > 3:
        assert time.monotonic() < deadline, small_server.counters()
        time.sleep(0.05)
    # Six streams: every connection busy with a request in progress, none idle to close.
    streams += [_open_stream(url, {"X-Referee-Token": TOKEN}) for _ in range(3)]
    time.sleep(0.3)
    newcomer = socket.create_connection(("127.0.0.1", port))
    newcomer.sendall(b"GET /api/state HTTP/1.1\r\nHost: s\r\n\r\n")
    newcomer.settimeout(5)
    reply = newcomer.recv(4096)
    newcomer.close()
    for answer in streams:
        answer.close()
    assert reply.startswith(b"HTTP/1.1 503") and b"every connection is in use" in reply
