"""Serving the dashboard from a background thread with werkzeug's threaded server, so the
station's own threads never share a thread with a web client."""

from __future__ import annotations

import logging
import socket
import threading

from werkzeug.serving import make_server

from ..lobby.lobby import Lobby
from ..lobby.network import urls
from ..runtime import Station
from .app import create_app

log = logging.getLogger(__name__)


class DashboardServer:
    def __init__(self, station: Lobby | Station, token: str, host: str = "127.0.0.1", port: int = 8080) -> None:
        app = create_app(station, token)
        self._server = make_server(host, port, app, threaded=True)
        self._server.daemon_threads = True
        # Each SSE frame is one small write: with Nagle's algorithm on, it waits for the
        # client's delayed ACK (40 ms on Linux) whenever the previous frame is unacknowledged.
        # Accepted sockets inherit the option from the listening one.
        self._server.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.host, self.port = host, self._server.server_port
        self.addresses = urls(host, self.port)  # what a phone opens: never "0.0.0.0"
        app.config["ADDRESSES"] = self.addresses
        self._thread = threading.Thread(target=self._server.serve_forever, name="dashboard", daemon=True)

    @property
    def url(self) -> str:
        return self.addresses[0].rstrip("/")

    def start(self) -> DashboardServer:
        self._thread.start()
        log.info("dashboard at %s", self.url)
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._thread.join(timeout=5)
