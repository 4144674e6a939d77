"""How much of a request body the server reads, decided from the headers before any of it.

waitress reads a whole body (up to 1 GB, spooled to the temporary folder past 512 kB) before the
application sees the request, so a refusal came only after the body was on the Pi's SD card,
which is also the journal's: three spectators sending 1,000 MB each grew the temporary folder
by 3 GB.  Here the server's parser looks at the headers first:

* a request that carries the referee's token, or the cookie of a login the server still keeps
  (sessions.py), may send up to ``MAX_UPLOAD_BYTES`` (security.py: 1 MiB).  The largest body the
  station takes is a pasted Master Unit List response; 1 MiB holds about 500 of its records as
  the MUL's QuickList gives them (about 2 kB each), more than a club pastes at once;
* the referee's upload to a path the app names as large (``LARGE_BODIES``: a backup to restore,
  up to 4 GB) may send up to that path's limit, and past 1 MiB its body is spooled to a file in
  the app's ``SPOOL`` folder (the station's data disk), not to the temporary folder, which on a
  Pi may be memory;
* any other request (a spectator, a scanner, a login, a claim) may send ``OPEN_BODY_BYTES``
  (16 kB: a login or a claim is under 200 bytes);
* a wrong token is refused (403) and counted as a guess, and an address that guessed wrong too
  often gets 429, exactly as the application would, so the size limit is not a way to test
  tokens without the throttle.

A body over its allowance is answered 413 as soon as its ``Content-Length`` is seen, or as soon
as a chunked body passes it, and the connection is closed.  A body within 1 MiB is kept in memory
(``inbuf_overflow``), so no other request ever writes to disk.
"""

from __future__ import annotations

import copy
import json
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

from flask import Flask
from waitress.buffers import FileBasedBuffer, OverflowableBuffer
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.utilities import Error, RequestEntityTooLarge
from werkzeug.http import parse_cookie

from .security import MAX_UPLOAD_BYTES, TOO_MANY_GUESSES, WRONG_TOKEN, larger_than, token_matches

OPEN_BODY_BYTES = 16 * 1024


class Refusal(Error):  # type: ignore[misc]  # waitress has no type hints
    """A request refused from its headers, answered as the API answers: JSON ``{"error": ...}``."""

    def __init__(self, code: int, reason: str, said: str) -> None:
        super().__init__(said)
        self.code, self.reason = code, reason

    def to_response(self, ident: str | None = None) -> tuple[str, list[tuple[str, str]], bytes]:
        body = json.dumps({"error": self.body}).encode()
        return f"{self.code} {self.reason}", [("Content-Type", "application/json")], body


def too_large(allowed: int) -> Refusal:
    if allowed <= OPEN_BODY_BYTES:
        said = f"a body over {OPEN_BODY_BYTES // 1024} kB needs the referee's token"
    else:
        said = larger_than(allowed)
    return Refusal(413, "Content Too Large", said)


class DiskSpool(OverflowableBuffer):  # type: ignore[misc]  # waitress has no type hints
    """waitress's body buffer, which past memory goes to a file in ``folder`` instead of the
    temporary folder."""

    buf: Any  # waitress's buffer of the moment: in memory, then the file

    def __init__(self, overflow: int, folder: Path) -> None:
        super().__init__(overflow)
        self.folder = folder

    def _set_large_buffer(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        small = self.buf
        self.buf = FileBasedBuffer(tempfile.TemporaryFile(dir=self.folder), small)
        if hasattr(small, "close"):
            small.close()
        self.overflowed = True


class BodyGate:
    """What a request may send, from its headers and the address it comes from."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self._cookie_name = app.config["SESSION_COOKIE_NAME"]

    def allowance(self, headers: dict[str, str], who: str) -> int | Refusal:
        throttle, referee = self.app.config["THROTTLE"], self.app.extensions["referee_token"]
        auth = headers.get("AUTHORIZATION", "")
        token = auth[7:] if auth.startswith("Bearer ") else headers.get("X_REFEREE_TOKEN", "")
        if throttle.blocked(who):
            return Refusal(429, "Too Many Requests", TOO_MANY_GUESSES)
        if token:
            if token_matches(token, referee.current()):
                return MAX_UPLOAD_BYTES
            throttle.failed(who)
            return Refusal(403, "Forbidden", WRONG_TOKEN)
        return MAX_UPLOAD_BYTES if self._logged_in(headers.get("COOKIE", "")) else OPEN_BODY_BYTES

    def _logged_in(self, cookies: str) -> bool:
        value = parse_cookie(cookies).get(self._cookie_name) if cookies else None
        if not value:
            return False
        serializer = self.app.session_interface.get_signing_serializer(self.app)  # type: ignore[attr-defined]
        try:
            data = serializer.loads(value)
        except Exception:  # noqa: BLE001 - a forged or stale cookie, in any of the ways one can be
            return False
        return isinstance(data, dict) and self.app.extensions["referee_token"].sessions.valid(data.get("sid"))

    def large(self, method: str, path: str) -> tuple[int, Path] | None:
        """The limit and the spool folder of a referee's upload to ``path``, if the app takes a
        large body there."""
        limit = self.app.config.get("LARGE_BODIES", {}).get(path) if method == "POST" else None
        return (limit, self.app.config["SPOOL"]()) if limit else None


class GatedParser(HTTPRequestParser):  # type: ignore[misc]  # waitress has no type hints
    """waitress's request parser, which asks the gate before it reads a body."""

    def __init__(self, adj: Any, gate: BodyGate, who: str) -> None:
        super().__init__(adj)
        self.gate, self.who, self.allowed = gate, who, OPEN_BODY_BYTES

    def parse_header(self, header_plus: bytes) -> None:
        super().parse_header(header_plus)
        if self.body_rcv is None:  # no body: nothing to decide
            return
        allowed = self.gate.allowance(self.headers, self.who)
        self.adj: Any = copy.copy(self.adj)
        if isinstance(allowed, Refusal):
            self.error, self.completed = allowed, True
            self.adj.max_request_body_size = self.content_length + 1  # waitress's own check stays quiet
            return
        large = self.gate.large(self.command, self.path) if allowed == MAX_UPLOAD_BYTES else None
        if large is not None:  # the referee's large upload: its own limit, spooled to the data disk
            allowed, folder = large
            self.body_rcv.buf = DiskSpool(self.adj.inbuf_overflow, folder)
        self.allowed = allowed
        self.adj.max_request_body_size = allowed + 1  # waitress refuses from this size on

    def received(self, data: bytes) -> int:
        consumed = super().received(data)
        if isinstance(self.error, RequestEntityTooLarge):  # waitress's words, as the API says them
            self.error = too_large(self.allowed)
        return int(consumed)


class GatedChannel(HTTPChannel):  # type: ignore[misc]  # waitress has no type hints
    """A connection whose requests are parsed by ``GatedParser``, knowing the client's address."""

    def __init__(self, server: Any, sock: Any, addr: Any, adj: Any, map: Any = None) -> None:
        super().__init__(server, sock, addr, adj, map)
        who = addr[0] if isinstance(addr, tuple) else str(addr)
        self.parser_class = partial(GatedParser, gate=server.body_gate, who=who)


ADJUSTMENTS = {
    "max_request_body_size": MAX_UPLOAD_BYTES + 1,  # the default: the gate sets each request's own
    "inbuf_overflow": MAX_UPLOAD_BYTES + 1,  # a body within it stays in memory: nothing on disk
}


def gate(server: Any, app: Flask) -> Any:
    """``server`` (a waitress server of ``app``) with its bodies gated: what both the station's
    server and the tournament's use."""
    server.body_gate = BodyGate(app)
    server.channel_class = GatedChannel
    return server
