"""The stream overlay: one table for an OBS browser source, with no login.

``/overlay?table=t1&theme=dark&compact=1&lang=ru`` is a page with a transparent background
(OBS draws it over the camera) showing the players, their clocks, the game's round and its
latest rulings.  It is pushed, not polled: ``/api/tables/<table>/events`` is a Server-Sent
Events stream that sends the table again as soon as the tournament's store has a newer state
from it (a table publishes at most every 0.5 s; the stream looks every 0.2 s), so a change at
the table is on the stream within a second.  A stream ends after ``STREAM_S`` and the browser
opens it again by itself, so no server thread is held for ever by a forgotten source.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Flask, Response, render_template, request, stream_with_context

from ..publish import check_table_id
from .store import Store

LOOK_EVERY_S = 0.2
HEARTBEAT_S = 15.0
STREAM_S = 600.0
THEMES = ("dark", "light")


def install(app: Flask, store: Store, said: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    @app.get("/overlay")
    def overlay() -> Any:
        table = request.args.get("table", "")
        try:
            check_table_id(table)
        except ValueError:
            return render_template("overlay.html", table=None, theme="dark", compact=False), 400
        theme = request.args.get("theme", "dark")
        compact = request.args.get("compact", "") in ("1", "true", "yes")
        return render_template("overlay.html", table=table, theme=theme if theme in THEMES else "dark", compact=compact)

    @app.get("/api/tables/<table>/events")
    def table_events(table: str) -> Response:
        def events() -> Iterator[str]:
            sent, started, beat = "", time.monotonic(), time.monotonic()
            while time.monotonic() - started < STREAM_S:
                now = next((t for t in store.tables() if t["table"] == table), None)
                body = json.dumps(said(now) if now else {"table": table, "state": None, "health": None})
                if body != sent:
                    sent, beat = body, time.monotonic()
                    yield f"data: {body}\n\n"
                elif time.monotonic() - beat > HEARTBEAT_S:
                    beat = time.monotonic()
                    yield ": still here\n\n"
                time.sleep(LOOK_EVERY_S)

        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        return Response(stream_with_context(events()), mimetype="text/event-stream", headers=headers)
