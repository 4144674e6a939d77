"""The lobby's pages and API: start, resume and end a game, the armies on the shelf, and the
games played (with their journals to download).

Reading is open to spectators, as on the dashboard; starting, ending, resuming and saving an army
need the referee (station.web.security).  Every error is JSON naming the problem, and an army's
error also names its field (``field``), so the form can point at it.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template, request, send_file

from ..datafile import DataFileError
from ..dice import DiceBook
from ..game import InputError
from ..lobby.armies import ShelfError
from ..lobby.lobby import GameRunning
from ..lobby.network import qr_svg
from ..rules.registry import RULESETS, make_ruleset
from .current import lobby
from .security import error_response, referee_only

lobby_pages = Blueprint("lobby_pages", __name__, template_folder="templates")
lobby_api = Blueprint("lobby_api", __name__)

MAX_ARMIES = 8


@lobby_api.errorhandler(DataFileError)
def _bad_army(exc: DataFileError) -> tuple[Response, int]:
    return jsonify({"error": str(exc), "field": exc.where}), 400


@lobby_api.errorhandler(InputError)
@lobby_api.errorhandler(ShelfError)
def _refused(exc: Exception) -> tuple[Response, int]:
    return error_response(409 if isinstance(exc, GameRunning) else 400, str(exc))


def _body() -> dict[str, Any]:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise InputError("the request body must be a JSON object")
    return body


def addresses() -> list[str]:
    """Where phones open the station: the server's LAN addresses, else the one asked for."""
    return current_app.config.get("ADDRESSES") or [request.host_url]


@lobby_pages.get("/lobby")
def page() -> str:
    return render_template("lobby.html", addresses=addresses())


@lobby_api.get("/lobby")
def status() -> Response:
    return jsonify({**lobby().status(), "addresses": addresses()})


@lobby_api.get("/qr.svg")
def qr() -> Response:
    """The spectators' address as a QR code (the first LAN address)."""
    return Response(qr_svg(addresses()[0]), mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})


@lobby_api.get("/rulesets")
def rulesets() -> Response:
    """What the new-game form offers: each game with its options (from the game's own
    declarations: default, rulebook section, help) and its armies."""
    shelf = lobby().shelf
    games = []
    for name in sorted(RULESETS):
        ruleset = make_ruleset(name, DiceBook())
        games.append(
            {
                "name": name,
                "title": ruleset.title,
                "options": ruleset.options.describe(),
                "armies": [a.as_dict() for a in shelf.armies(name)],
            }
        )
    return jsonify({"games": games})


@lobby_api.get("/rulesets/<game>/schema")
def army_schema(game: str) -> Response:
    if game not in RULESETS:
        return error_response(404, f"unknown game {game!r}")
    return jsonify(make_ruleset(game, DiceBook()).army_schema())


@lobby_api.get("/armies/<game>/<army_id>")
def army_document(game: str, army_id: str) -> Response:
    """An army's file as written, in its own key order: the editor starts from it (a sample is
    a template)."""
    text = json.dumps(lobby().shelf.document(game, army_id), ensure_ascii=False, indent=1)
    return Response(text, mimetype="application/json")


@lobby_api.post("/armies/<game>")
@referee_only
def save_army(game: str) -> Response:
    """``{"name": ..., "army": {...}}``: checked by the game's own loader, then kept on the shelf."""
    body = _body()
    name, document = body.get("name"), body.get("army")
    if not isinstance(name, str) or not isinstance(document, dict):
        raise InputError('expected {"name": string, "army": object}')
    return jsonify({"army": lobby().shelf.save(game, name, document).as_dict()})


def _armies(game: str, chosen: Any) -> list[dict[str, Any]]:
    """The armies a new game is started with: shelf ids, or documents sent whole (uploaded)."""
    if not isinstance(chosen, list) or not 2 <= len(chosen) <= MAX_ARMIES:
        raise InputError(f"armies: choose from 2 to {MAX_ARMIES} armies")
    shelf, loaded = lobby().shelf, []
    for i, army in enumerate(chosen):
        if isinstance(army, str):
            loaded.append(shelf.load(game, army))
        elif isinstance(army, dict) and isinstance(army.get("army"), dict):
            loaded.append(shelf.check(game, army["army"], str(army.get("label") or f"army {i + 1}")))
        else:
            raise InputError(f'armies[{i}]: give an army id or {{"army": {{...}}, "label": "file name"}}')
    return loaded


@lobby_api.post("/games")
@referee_only
def start_game() -> Response:
    """``{"game": ..., "options": {...}, "armies": [id or {"army": {...}}, ...]}``: a new game."""
    body = _body()
    game, options = body.get("game"), body.get("options", {})
    if game not in RULESETS:
        raise InputError(f"game: expected one of {', '.join(sorted(RULESETS))}")
    if not isinstance(options, dict):
        raise InputError("options: must be an object")
    running = lobby().station
    if running is not None:  # before loading anything: the answer does not depend on it
        raise GameRunning(f"a game is already running ({running.journal.path.name}); end it first")
    station = lobby().start(game, _armies(game, body.get("armies")), options)
    return jsonify({"journal": station.journal.path.name, "messages": lobby().messages}), 201


@lobby_api.post("/game/end")
@referee_only
def end_game() -> Response:
    """``{"note": ...}``: journal the end of the running game (its winner, its summary, and how
    many rulings were still unconfirmed: they stand as the station ruled them) and stop it."""
    note = _body().get("note", "") if request.data else ""
    if not isinstance(note, str):
        raise InputError("note: must be text")
    return jsonify({"game": lobby().end(note, by="dashboard").as_dict()})


@lobby_api.post("/games/<name>/resume")
@referee_only
def resume_game(name: str) -> Response:
    station = lobby().resume(name)
    return jsonify({"journal": station.journal.path.name, "messages": lobby().messages})


@lobby_api.get("/games")
def games() -> Response:
    return jsonify({"games": [g.as_dict() for g in lobby().history.games()]})


@lobby_api.get("/games/<name>/journal")
def download_journal(name: str) -> Response:
    """A game's whole journal (JSON Lines), as a file: ``station replay`` reads it anywhere."""
    played = lobby().history.find(name)
    if played is None:
        return error_response(404, f"no game {name!r}")
    return send_file(played.path.resolve(), mimetype="application/x-ndjson", as_attachment=True, download_name=name)
