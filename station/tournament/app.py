"""The tournament screen's Flask app: every table, the judge calls and the standings.

Anyone on the network reads (``/``, ``/standings``, ``/judge``, the JSON and the CSV); the
controls (judge_api.py: players, rounds, results, tiebreaks, a call handled) need the
tournament's token, by header or by the login cookie with its CSRF token, exactly as the
station's own controls (station/web/security.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, render_template
from jinja2 import ChoiceLoader, PackageLoader

from ..rules.labels import label
from ..rules.registry import RULESETS
from ..rules.text import from_message
from ..web import i18n
from ..web.i18n import language, ruling_words
from ..web.security import harden
from . import judge_api, overlay
from .roster import Roster
from .standings import Standing, as_csv
from .store import Store


def create_tournament_app(store: Store, token: str, subscriber: Any = None, config: Path | None = None) -> Flask:
    """``config``: the file the judges' token came from, followed for a new one."""
    app = Flask(__name__, static_folder="../web/static", static_url_path="/static")
    harden(app, token, config)
    # the station's language switch and catalogs: the judges' screen speaks both languages too
    app.jinja_loader = ChoiceLoader([app.jinja_loader, PackageLoader("station.web", "templates")])  # type: ignore[list-item]
    i18n.install(app)

    roster = Roster(store)
    _screens(app, store, roster, subscriber)
    judge_api.install(app, store, roster, subscriber)
    overlay.install(app, store, said)
    return app


def _ranked(roster: Roster) -> list[tuple[str, Standing]]:
    """Every player with their game, best first within each game's pool."""
    return [(game, s) for game, ranked in roster.pools().items() for s in ranked]


def said(table: dict[str, Any]) -> dict[str, Any]:
    """A table as the judge reads it: its game's name and its waiting rulings in the page's
    language (each game has its own words, so the server says them)."""
    state = table["state"]
    if not state:
        return table
    game, lang = str(state.get("game") or ""), language()
    known = game in RULESETS  # a table's word over the network is never a path to read
    words = ruling_words(game) if known else {}
    given = state.get("names")
    names = {k: v for k, v in given.items() if isinstance(v, str)} if isinstance(given, dict) else {}

    def in_words(rulings: Any) -> list[dict[str, Any]]:
        return [
            {**r, "said": from_message(r["message"]).said(words or None, names) if r.get("message") else r.get("text")}
            for r in rulings or []
        ]

    title = label(game, lang, game) if known else state.get("title")
    rulings, recent = in_words(state.get("rulings")), in_words(state.get("recent"))
    return {**table, "state": {**state, "title": title, "rulings": rulings, "recent": recent}}


def _screens(app: Flask, store: Store, roster: Roster, subscriber: Any) -> None:
    """What everyone reads: the tables, the standings and their CSV."""

    @app.get("/")
    def overview() -> str:
        return render_template("tournament.html", round=store.current_round())

    @app.get("/standings")
    def standings_page() -> str:
        shown = judge_api.event(store, roster)
        return render_template("standings.html", **shown)

    @app.get("/judge")
    def judge_page() -> str:
        return render_template("judge.html", round=store.current_round())

    @app.get("/api/tables")
    def tables() -> Response:
        return jsonify(
            {
                "round": store.current_round(),
                "tables": [said(t) for t in store.tables()],
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
                "standings": [{**s.as_dict(), "game": game} for game, s in _ranked(roster)],
                "pairings": store.pairings(),
                "results": store.results(),
            }
        )

    @app.get("/standings.csv")
    def standings_csv() -> Response:
        ranked = _ranked(roster)
        return Response(
            "\ufeff" + as_csv(ranked),  # the byte-order mark: Excel reads Cyrillic names as UTF-8 only with it
            mimetype="text/csv; charset=utf-8",
            headers={"Content-Disposition": "attachment; filename=standings.csv"},
        )
