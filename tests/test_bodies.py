"""Request bodies are bounded before they are read (station/web/bodies.py): a spectator's large
body is refused from its headers, nothing reaches the temporary folder, a wrong token is counted
as a guess, and the referee's largest real request still gets through."""

import json
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest
from waitress.server import create_server

from station.tournament.app import create_tournament_app
from station.tournament.store import Store
from station.web.bodies import ADJUSTMENTS, OPEN_BODY_BYTES, gate
from station.web.security import ATTEMPTS, MAX_UPLOAD_BYTES
from station.web.server import DashboardServer

from .conftest import REFEREE_TOKEN

MB = 1024 * 1024


@pytest.fixture
def server(station, tmp_path, monkeypatch):
    monkeypatch.setenv("STATION_DATA", str(tmp_path / "data"))  # the card library the paste goes to
    served = DashboardServer(station, REFEREE_TOKEN, port=0).start()
    yield served
    served.stop()


def _ask(port, head: str, body: bytes = b"", send_body: bool = True, timeout: float = 5.0) -> tuple[int, dict, float]:
    """Send the headers (and ``body`` if ``send_body``); the status, the JSON answer, and the
    seconds from the end of the headers to the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(head.encode() + b"\r\n")
        sent = time.monotonic()
        if send_body and body:
            try:
                conn.sendall(body)
            except OSError:  # the server answered and closed before taking it all
                pass
        answer = b""
        while b"\r\n\r\n" not in answer or len(answer.split(b"\r\n\r\n", 1)[1]) < _length(answer):
            chunk = conn.recv(65536)
            if not chunk:
                break
            answer += chunk
    took = time.monotonic() - sent
    status = int(answer.split(b" ", 2)[1])
    payload = answer.split(b"\r\n\r\n", 1)[1]
    return status, json.loads(payload) if payload.strip().startswith(b"{") else {}, took


def _length(answer: bytes) -> int:
    for line in answer.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return int(line.split(b":")[1])
    return 0


def _head(path: str, length: int | None, *headers: str, method: str = "POST") -> str:
    lines = [f"{method} {path} HTTP/1.1", "Host: station", "Content-Type: application/json", *headers]
    lines.append(f"Content-Length: {length}" if length is not None else "Transfer-Encoding: chunked")
    return "\r\n".join(lines) + "\r\n"


def _temporary_bytes(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        try:
            total += path.stat().st_size if path.is_file() else 0
        except OSError:
            continue
    return total


def test_a_spectators_large_body_is_refused_from_its_headers_and_nothing_reaches_the_disk(
    server, tmp_path, monkeypatch
):
    spool = tmp_path / "spool"  # the server's temporary files, apart from any other process's
    spool.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spool))
    before = _temporary_bytes(spool)
    status, said, took = _ask(server.port, _head("/api/dice", 50 * MB), send_body=False)
    assert status == 413 and "needs the referee's token" in said["error"]
    assert took < 1.0  # answered without waiting for a byte of the 50 MB
    status, said, _ = _ask(server.port, _head("/api/dice", 50 * MB), b"x" * (4 * MB))  # sent anyway
    assert status == 413
    assert _temporary_bytes(spool) - before < 5 * MB


def test_a_chunked_body_is_stopped_at_its_allowance(server):
    chunk = b"%x\r\n%s\r\n" % (64 * 1024, b"x" * 64 * 1024)
    status, said, _ = _ask(server.port, _head("/api/dice", None), chunk * 8)
    assert status == 413 and "16 kB" in said["error"]
    small = json.dumps({"token": "wrong"}).encode()
    body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(small), small)
    status, said, _ = _ask(server.port, _head("/api/login", None), body)  # a login under the allowance is read
    assert status == 403 and said["error"] == "wrong referee token"


def test_a_wrong_token_is_a_counted_guess_so_the_size_limit_tests_no_token(server):
    for _ in range(ATTEMPTS):
        status, said, _ = _ask(server.port, _head("/api/dice", 2 * MB, "X-Referee-Token: guess"), send_body=False)
        assert status == 403 and said["error"] == "wrong referee token"
    status, said, _ = _ask(server.port, _head("/api/dice", 10, f"X-Referee-Token: {REFEREE_TOKEN}"), b"{}" + b" " * 8)
    assert status == 429  # the right token, too, once the address has guessed too often


def test_the_referees_largest_real_request_gets_through_and_no_more(server):
    records = [dict(r, Id=900_000 + i) for i, r in enumerate(_mul_records() * 40)]
    body = json.dumps({"cards": {"Units": records}}).encode()
    assert OPEN_BODY_BYTES < len(body) < MAX_UPLOAD_BYTES
    referee = f"X-Referee-Token: {REFEREE_TOKEN}"
    status, said, _ = _ask(server.port, _head("/api/rulesets/alpha_strike/cards", len(body), referee), body)
    assert status == 200 and len(said["added"]) == len(records), said
    status, said, _ = _ask(
        server.port, _head("/api/rulesets/alpha_strike/cards", MAX_UPLOAD_BYTES + 1, referee), send_body=False
    )
    assert status == 413 and "larger than 1024 kB" in said["error"]
    login = json.dumps({"token": REFEREE_TOKEN}).encode()
    status, said, _ = _ask(server.port, _head("/api/login", len(login)), login)
    assert status == 200  # and a login cookie is as good as the token for the allowance:
    cookie = _login_cookie(server.port)
    status, said, _ = _ask(server.port, _head("/api/rulesets/alpha_strike/cards", len(body), f"Cookie: {cookie}"), body)
    assert status == 403 and "CSRF" in said["error"]  # read (not 413), then refused by the application


def test_the_tournament_server_bounds_bodies_too(tmp_path):
    store = Store(tmp_path / "t.sqlite")
    app = create_tournament_app(store, "judge-token-1")
    served = gate(create_server(app, host="127.0.0.1", port=0, threads=2, **ADJUSTMENTS), app)
    thread = threading.Thread(target=served.run, daemon=True)
    thread.start()
    try:
        status, said, took = _ask(served.effective_port, _head("/api/login", 400 * MB), send_body=False)
        assert status == 413 and took < 1.0
    finally:
        served.close()


def _mul_records():
    data = json.loads((Path(__file__).parent / "data" / "mul" / "quicklist.json").read_text())
    return data["Units"]


def _login_cookie(port) -> str:
    login = json.dumps({"token": REFEREE_TOKEN})
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall((_head("/api/login", len(login)) + "\r\n" + login).encode())
        answer = conn.recv(65536).decode()
    line = next(line for line in answer.split("\r\n") if line.lower().startswith("set-cookie:"))
    return line.split(":", 1)[1].strip().split(";")[0]


def test_the_dashboard_server_stops_even_when_its_loop_has_already_closed_its_trigger(station):
    """A daemon told to stop while waitress's loop is already winding down must not die on a
    closed trigger (EBADF): it closes what is left itself, and exits 0."""
    served = DashboardServer(station, REFEREE_TOKEN, port=0).start()
    served._server.trigger.close()  # as the loop does when it ends first
    served.stop()
    assert not served._thread.is_alive()
