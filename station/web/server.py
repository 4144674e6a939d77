"""Serving the dashboard from a background thread with werkzeug's threaded server, so the
station's own threads never share a thread with a web client."""

from __future__ import annotations

import logging
import threading

from werkzeug.serving import make_server

from ..runtime import Station
from .app import create_app

log = logging.getLogger(__name__)


class DashboardServer:
    def __init__(self, station: Station, token: str, host: str = "127.0.0.1", port: int = 8080) -> None:
        self._server = make_server(host, port, create_app(station, token), threaded=True)
        self._server.daemon_threads = True
        self.host, self.port = host, self._server.server_port
        self._thread = threading.Thread(target=self._server.serve_forever, name="dashboard", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> DashboardServer:
        self._thread.start()
        log.info("dashboard at %s", self.url)
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._thread.join(timeout=5)
