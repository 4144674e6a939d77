"""The judge's controls over HTTP: logging in, players, rounds, results, the tiebreaks and a
table's call handled.  Each needs the tournament's token (header, or the login cookie with its
CSRF token), exactly as a station's controls (station/web/security.py); what they change is
read by anyone from ``/api/event``.

The judge's name travels in the JSON body, never in a header: a browser cannot send «Олег» in a
header (the Cyrillic password's lesson of issue 49)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from flask import Flask, Response, jsonify, request

from ..datafile import DataFileError
from ..rules.labels import label
from ..rules.registry import RULESETS
from ..rules.text import say
from ..web.i18n import language
from ..web.security import error_response, file_error_response, login, logout, referee_only
from .roster import Roster, RosterError
from .store import Store


def _body() -> dict[str, Any]:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise RosterError("body", say("send a JSON object"))
    return body


def _answer(action: Callable[[], Any]) -> Any:
    """The action's answer, or its refusal naming the field (a bad army: its file's field)."""
    try:
        return jsonify(action() or {"ok": True})
    except RosterError as exc:
        return error_response(400 if exc.field != "round" else 409, exc.text, exc.field)
    except DataFileError as exc:
        return file_error_response(exc)


def event(store: Store, roster: Roster) -> dict[str, Any]:
    """Everything the judge's page shows, in the page's language: the games and their pools'
    standings, the players, every pairing and result, the tiebreaks and the audit trail."""
    said = language()
    return {
        "round": store.current_round(),
        "seed": roster.seed(),
        "games": [{"game": game, "title": label(game, said, game)} for game in sorted(RULESETS)],
        "players": roster.players(),
        "pools": [
            {
                "game": game,
                "title": label(game, said, game) if game in RULESETS else game,
                "standings": [s.as_dict() for s in ranked],
            }
            for game, ranked in roster.pools().items()
        ],  # fmt: skip
        "tiebreaks": list(roster.tiebreaks()),
        "clock_minutes": roster.clock_minutes(),
        "pairings": store.pairings(),
        "results": store.results(),
        "changes": roster.changes(),
    }


def install(app: Flask, store: Store, roster: Roster, subscriber: Any = None) -> None:
    @app.get("/api/event")
    def event_json() -> Response:
        return jsonify(event(store, roster))

    _session(app)
    _players(app, roster)
    _rounds(app, store, roster, subscriber)


def _session(app: Flask) -> None:
    """The judge's login, as a station's referee's."""

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


def _players(app: Flask, roster: Roster) -> None:
    @app.post("/api/players")
    @referee_only
    def register() -> Any:
        return _answer(lambda: roster.register(_body()))

    @app.post("/api/players/<path:name>")
    @referee_only
    def update_player(name: str) -> Any:
        return _answer(lambda: roster.update(name, _body()))

    @app.post("/api/tiebreaks")
    @referee_only
    def tiebreaks() -> Any:
        return _answer(lambda: roster.set_tiebreaks(_body()))

    @app.post("/api/clock")
    @referee_only
    def clock_minutes() -> Any:
        return _answer(lambda: roster.set_clock_minutes(_body()))


def _rounds(app: Flask, store: Store, roster: Roster, subscriber: Any) -> None:
    """Pairing, results and the tables' calls."""

    @app.post("/api/rounds")
    @referee_only
    def next_round() -> Any:
        """Pair the next round, Swiss within each game's pool, open it, and tell each table."""

        def paired() -> dict[str, Any]:
            body = request.get_json(silent=True)
            tables = _tables(store)
            number, pairings = roster.pair_round(body if isinstance(body, dict) else {}, tables)
            told = roster.messages_for_tables(number, pairings)
            if subscriber is not None:  # each table hears its pairing; a table left out, none
                for table in sorted(set(tables) | set(told)):
                    subscriber.tell_table(table, "pairing", told.get(table))
            return {"round": number, "pairings": [asdict(p) for p in pairings]}

        return _answer(paired)

    @app.post("/api/results")
    @referee_only
    def set_result() -> Any:
        return _answer(lambda: roster.set_result(_body()))

    @app.post("/api/results/confirm")
    @referee_only
    def confirm_result() -> Any:
        return _answer(lambda: roster.confirm(_body()))

    @app.post("/api/tables/<table>/handled")
    @referee_only
    def handled(table: str) -> Response:
        """The table's calls handled; the table hears it (its dashboard says a judge is coming)."""
        latest = store.handle_call(table)
        if latest is not None and subscriber is not None:
            subscriber.tell_table(table, "calls", latest)
        return jsonify({"handled": 1 if latest else 0})


def _tables(store: Store) -> list[str]:
    """The tables a round is paired onto: every station that has published, by its id."""
    return [t["table"] for t in store.tables()]
