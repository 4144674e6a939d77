"""The tournament screen's Flask app: every table, the judge calls and the standings.

Anyone on the network reads (``/``, ``/standings``, the JSON and the CSV); the controls (next
round, a judge's result, a call handled) need the tournament's token, by header or by the login
cookie with its CSRF token, exactly as the station's own controls (station/web/security.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from jinja2 import ChoiceLoader, PackageLoader

from ..rules.labels import label
from ..rules.registry import RULESETS
from ..rules.text import from_message
from ..web import i18n
from ..web.i18n import language, ruling_words
from ..web.security import error_response, harden, login, logout, referee_only
from .standings import Standing, as_csv, standings, swiss_pairings
from .store import Store


def create_tournament_app(store: Store, token: str, subscriber: Any = None, config: Path | None = None) -> Flask:
    """``config``: the file the judges' token came from, followed for a new one."""
    app = Flask(__name__, static_folder="../web/static", static_url_path="/static")
    harden(app, token, config)
    # the station's language switch and catalogs: the judges' screen speaks both languages too
    app.jinja_loader = ChoiceLoader([app.jinja_loader, PackageLoader("station.web", "templates")])  # type: ignore[list-item]
    i18n.install(app)

    _screens(app, store, subscriber)
    _judges(app, store)
    return app


def _ranked(store: Store) -> list[Standing]:
    """Every player (named by a game's armies or a pairing), best first."""
    named = {p for g in store.games() for p in json.loads(g["players"]) if p}
    named |= {p for pairing in store.pairings() for p in (pairing["a"], pairing["b"]) if p}
    return standings(store.results(), sorted(named))


def _said(table: dict[str, Any]) -> dict[str, Any]:
    """A table as the judge reads it: its game's name and its waiting rulings in the page's
    language (each game has its own words, so the server says them)."""
    state = table["state"]
    if not state:
        return table
    game, said = str(state.get("game") or ""), language()
    known = game in RULESETS  # a table's word over the network is never a path to read
    words = ruling_words(game) if known else {}
    rulings = [
        {**r, "said": from_message(r["message"]).said(words or None) if r.get("message") else r.get("text")}
        for r in state.get("rulings") or []
    ]
    title = label(game, said, game) if known else state.get("title")
    return {**table, "state": {**state, "title": title, "rulings": rulings}}


def _screens(app: Flask, store: Store, subscriber: Any) -> None:
    """What everyone reads: the tables, the standings and their CSV."""

    @app.get("/")
    def overview() -> str:
        return render_template("tournament.html", round=store.current_round())

    @app.get("/standings")
    def standings_page() -> str:
        return render_template(
            "standings.html",
            round=store.current_round(),
            ranked=[s.as_dict() for s in _ranked(store)],
            pairings=store.pairings(),
            results=store.results(),
        )

    @app.get("/api/tables")
    def tables() -> Response:
        return jsonify(
            {
                "round": store.current_round(),
                "tables": [_said(t) for t in store.tables()],
                "counters": store.counters(),
                "broker": bool(subscriber and subscriber.connected.is_set()),
                "taking": bool(subscriber and subscriber.health()["taking"]),
                "error": subscriber.health()["error"] if subscriber else None,
            }
        )

    @app.get("/api/standings")
    def standings_json() -> Response:
        return jsonify(
            {
                "round": store.current_round(),
                "standings": [s.as_dict() for s in _ranked(store)],
                "pairings": store.pairings(),
                "results": store.results(),
            }
        )

    @app.get("/standings.csv")
    def standings_csv() -> Response:
        ranked = _ranked(store)
        return Response(
            "\ufeff" + as_csv(ranked),  # the byte-order mark: Excel reads Cyrillic names as UTF-8 only with it
            mimetype="text/csv; charset=utf-8",
            headers={"Content-Disposition": "attachment; filename=standings.csv"},
        )


def _judges(app: Flask, store: Store) -> None:
    """The judges' controls: logging in, pairing a round, results, handled calls."""

    @app.get("/api/whoami")
    @referee_only
    def whoami() -> Response:
        return jsonify({"judge": True})

    @app.post("/api/login")
    def _login() -> Any:
        return login()

    @app.post("/api/logout")
    def _logout() -> Any:
        return logout()

    @app.post("/api/rounds")
    @referee_only
    def next_round() -> Any:
        """Pair the next round (Swiss) over the tables known, and open it."""
        ranked = _ranked(store)
        if len(ranked) < 2:
            return error_response(409, "no players yet: a game's header names them")
        tables = [t["table"] for t in store.tables()]
        pairings = swiss_pairings(ranked, tables)
        number = store.open_round(pairings)
        return jsonify({"round": number, "pairings": [{"table": t, "a": a, "b": b} for t, a, b in pairings]})

    @app.post("/api/results")
    @referee_only
    def set_result() -> Any:
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            return error_response(400, "give {round, table, a, b, winner}")
        try:
            round_number, table, a = int(body["round"]), str(body["table"]), str(body["a"])
        except (KeyError, TypeError, ValueError):
            return error_response(400, "round (a number), table and a (a player) are needed")
        b, winner = body.get("b"), body.get("winner")
        if winner not in (None, a, b):
            return error_response(400, f"winner must be {a!r}, {b!r} or null for a draw")
        store.set_result(round_number, table, a, b, winner)
        return jsonify({"ok": True})

    @app.post("/api/tables/<table>/handled")
    @referee_only
    def handled(table: str) -> Response:
        return jsonify({"handled": store.handle_call(table)})
