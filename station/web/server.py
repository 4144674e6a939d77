"""Serving the dashboard on a club's network: waitress, with limits that phones cannot exhaust.

Why waitress (bench/club_network.py measures it beside cheroot and werkzeug; docs/performance.md
has the figures): its one I/O thread reads every request to the end before a worker thread sees
it, so a connection that sends half a request (a scanner, a phone's browser holding a
keep-alive) costs a socket and no thread; werkzeug's development server gives each such
connection a thread and never closes it, and neither it nor cheroot closed one of 2,000
half-sent connections in 15 s.  It is pure Python (nothing to build on a Pi), well kept (the
Pylons project), and flushes each write at once, which a Server-Sent Events stream needs.

The limits (``WebLimits``, settings of ``run`` and ``serve``):

* connections idle for ``idle_timeout`` seconds, a request half sent or a keep-alive unused,
  are closed;
* at most ``connections`` sockets are open.  A new one beyond that closes the connection idle
  the longest, so idle sockets can never lock out a fresh client; only when every connection is
  busy is the newcomer answered "503 busy" and closed;
* each dashboard stream holds a worker thread for as long as it watches: ``spectators`` streams
  at most (the next gets a 503 saying so), and ``referee_streams`` kept apart for the referee.
  A thread is started for each stream that opens and retired when it closes, on top of
  ``workers`` threads for everything short, so the referee's controls answer while spectators
  fill their seats, and a crowd's threads (and their memory) are gone once it leaves;
* short requests are served before new streams are (``ShortFirst``), every waiting connection is
  accepted at each turn of the loop, and the interpreter hands its lock between threads every
  millisecond (``SWITCH_INTERVAL``), so 500 phones arriving at once delay the referee by
  milliseconds, not seconds;
* the open-file limit is raised to its hard limit (the systemd unit sets ``LimitNOFILE``), and
  the connection cap is lowered to fit what is left, with a warning, so the server never meets
  "Too many open files".
"""

from __future__ import annotations

import errno
import logging
import sys
import threading
from collections import deque
from pathlib import Path
from typing import Any

from waitress.server import TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher

from ..lobby.lobby import Lobby
from ..lobby.network import urls
from ..runtime import Station
from . import heap
from .app import create_app
from .bodies import ADJUSTMENTS as BODY_ADJUSTMENTS
from .bodies import gate
from .claim import Claim
from .limits import WebLimits

log = logging.getLogger(__name__)

OUTBUF_BYTES = 256 * 1024
ACCEPTS_PER_TURN = 64
SWITCH_INTERVAL = 0.001  # seconds a thread may hold the interpreter while others wait
STREAM_PATHS = ("/api/stream",)  # requests that hold their thread for as long as a screen watches
_BUSY_BODY = b'{"error": "the station is busy: every connection is in use; retry in a few seconds"}'
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 5\r\n"
    b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(_BUSY_BODY), _BUSY_BODY)
)


class ShortFirst:
    """waitress's task queue, short requests ahead of new streams.  When 500 phones open the
    dashboard at once, their 500 stream requests queue together; in one first-come queue the
    referee's next request would wait for every one of them to be handed a thread."""

    def __init__(self) -> None:
        self.short: deque[Any] = deque()
        self.streams: deque[Any] = deque()

    def append(self, channel: Any) -> None:
        request = channel.requests[0] if channel.requests else None
        streaming = request is not None and request.path in STREAM_PATHS
        (self.streams if streaming else self.short).append(channel)

    def popleft(self) -> Any:
        return self.short.popleft() if self.short else self.streams.popleft()

    def __len__(self) -> int:
        return len(self.short) + len(self.streams)


class ClubServer(TcpWSGIServer):  # type: ignore[misc]  # waitress has no type hints
    """waitress's server, with a connection cap that closes the longest-idle connection first
    and answers 503 only when every connection is busy."""

    def __init__(self, app: Any, limits: WebLimits, **adjustments: Any) -> None:
        self.limits = limits
        self.evicted = self.refused = 0
        dispatcher = ThreadedTaskDispatcher()
        dispatcher.queue = ShortFirst()
        dispatcher.set_thread_count(limits.workers)
        super().__init__(
            app,
            dispatcher=dispatcher,
            channel_timeout=limits.idle_timeout,
            cleanup_interval=1,
            connection_limit=limits.connections + 16,  # never reached: handle_accept caps first
            asyncore_use_poll=True,  # select() cannot watch descriptors past 1024
            # A stream whose client reads slowly blocks its own thread after this much, so the
            # broadcaster sees it lag (and sends it a fresh snapshot) instead of waitress
            # buffering megabytes of stale frames for it.
            outbuf_high_watermark=OUTBUF_BYTES,
            outbuf_overflow=OUTBUF_BYTES,
            ident="station",
            **BODY_ADJUSTMENTS,
            **adjustments,
        )
        gate(self, app)

    def size_pool(self, open_streams: int) -> None:
        """``workers`` threads for short requests plus one for each open stream: a crowd's
        threads, and the memory they used, are gone once it leaves (``Seats.on_change``)."""
        self.task_dispatcher.set_thread_count(self.limits.workers + open_streams)

    def handle_accept(self) -> None:
        """Take every connection waiting, not one per turn of the loop: each turn walks every
        open connection, so with 500 phones arriving at once, one accept a turn would leave the
        referee's connection a second or more in the queue behind them."""
        for _ in range(ACCEPTS_PER_TURN):
            try:
                accepted = self.accept()
            except OSError:  # gone before we got to it
                continue
            if accepted is None:  # no one else waiting
                return
            conn, addr = accepted
            if len(self.active_channels) >= self.limits.connections and not self._evict_idlest():
                self._refuse(conn)
                continue
            try:
                self.set_socket_options(conn)
            except OSError:
                conn.close()
                continue
            self.channel_class(self, conn, self.fix_addr(addr), self.adj, map=self._map)

    def _evict_idlest(self) -> bool:
        idle = [c for c in self.active_channels.values() if not c.requests and not c.will_close]
        if not idle:
            return False
        oldest = min(idle, key=lambda c: c.last_activity)
        oldest.handle_close()
        self.evicted += 1
        return True

    def _refuse(self, conn: Any) -> None:
        """Answer 503 busy and close: every connection is in use, none idle to close."""
        try:
            conn.setblocking(False)
            conn.send(BUSY)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EPIPE, errno.ECONNRESET):
                log.debug("refusing a connection: %s", exc)
        finally:
            conn.close()
        self.refused += 1


class DashboardServer:
    """The dashboard and API of one lobby (or one running station) on ``host:port``, served
    from its own threads, so the station's threads never share one with a web client."""

    def __init__(
        self,
        station: Lobby | Station,
        token: str,
        host: str = "127.0.0.1",
        port: int = 8080,
        limits: WebLimits | None = None,
        claim: Claim | None = None,
        config: Path | None = None,
    ) -> None:
        self.limits = (limits or WebLimits()).fitted()
        heap.cap_arenas()  # before the web threads start (heap.py says why)
        self.app = app = create_app(station, token, self.limits, claim, config)
        self._server = ClubServer(app, self.limits, host=host, port=port)
        app.extensions["seats"].on_change = self._server.size_pool
        self.host, self.port = host, self._server.effective_port
        self.addresses = urls(host, self.port)  # what a phone opens: never "0.0.0.0"
        app.config["ADDRESSES"] = self.addresses
        self._thread = threading.Thread(target=self._server.run, name="dashboard", daemon=True)

    @property
    def url(self) -> str:
        return self.addresses[0].rstrip("/")

    def counters(self) -> dict[str, int]:
        """Connections open now, and how many were closed to make room or refused."""
        return {
            "connections": len(self._server.active_channels),
            "evicted": self._server.evicted,
            "refused": self._server.refused,
        }

    def start(self) -> DashboardServer:
        # Process-wide: the station is many I/O threads (hub, journal, engine, web); a thread
        # busy in Python gives the others their turn after 1 ms instead of CPython's 5.
        sys.setswitchinterval(SWITCH_INTERVAL)
        self._thread.start()
        log.info("dashboard at %s", self.url)
        return self

    def stop(self) -> None:
        """Close every connection and the listening socket from the server's own thread (its
        loop ends when nothing is left to watch), then let the workers go."""
        server = self._server
        try:
            server.trigger.pull_trigger(lambda: [d.close() for d in list(server._map.values())])
        except OSError:  # its loop had already ended and closed the trigger: nothing runs there now
            for dispatcher in list(server._map.values()):
                dispatcher.close()
        self._thread.join(timeout=5)
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=2)
