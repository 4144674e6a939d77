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
from ..exclusive import InUse
from ..game import InputError, checked_note
from ..lobby.armies import ShelfError
from ..lobby.lobby import GameRunning
from ..lobby.network import qr_svg
from ..lobby.starting import CheckFailed, check_army_count, checks_view, refuse_unplayable
from ..lobby.wiring import inventory_of, wiring
from ..playerclock import MOST_CLOCK_MINUTES
from ..rules.labels import label, titled
from ..rules.registry import RULESETS, make_ruleset
from ..rules.text import with_messages
from .current import lobby
from .i18n import language
from .security import Reply, error_response, file_error, file_error_response, referee_only

lobby_pages = Blueprint("lobby_pages", __name__, template_folder="templates")
lobby_api = Blueprint("lobby_api", __name__)


@lobby_api.errorhandler(DataFileError)
def _bad_army(exc: DataFileError) -> tuple[Response, int]:
    return file_error_response(exc)


@lobby_api.errorhandler(InputError)
@lobby_api.errorhandler(ShelfError)
@lobby_api.errorhandler(InUse)
def _refused(exc: Exception) -> tuple[Response, int]:
    field = exc.field if isinstance(exc, InputError) else None
    return error_response(409 if isinstance(exc, (GameRunning, InUse)) else 400, str(exc), field)


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
    said = lobby().status()
    if said["running"]:  # the game's name in the page's language
        said["running"]["title"] = label(said["running"]["game"], language(), said["running"]["game"])
    return jsonify({**with_messages(said), "addresses": addresses()})


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
                "title": label(name, language(), name),
                "options": [_labelled(option, name) for option in ruleset.options.describe()],
                "card_library": ruleset.card_library is not None,
                "armies": [a.as_dict() for a in shelf.armies(name)],
            }
        )
    return jsonify({"games": games})


def _labelled(option: dict[str, Any], game: str) -> dict[str, Any]:
    """An option as the form shows it: its name and choices in the page's language beside the keys."""
    said: dict[str, Any] = {"label": label(option["name"], language(), game)}
    if option.get("choices"):
        said["choice_labels"] = [label(c, language(), game) for c in option["choices"]]
    return {**option, **said}


@lobby_api.get("/rulesets/<game>/schema")
def army_schema(game: str) -> Reply:
    if game not in RULESETS:
        return error_response(404, f"unknown game {game!r}")
    return jsonify(titled(make_ruleset(game, DiceBook()).army_schema(), language(), game))


@lobby_api.get("/rulesets/<game>/inputs")
def input_schemas(game: str) -> Reply:
    """Each operator input of the game: its rulebook section and its arguments as a JSON Schema
    (station/rules/input_args.py), the same declaration that checks a request."""
    if game not in RULESETS:
        return error_response(404, f"unknown game {game!r}")
    declared = make_ruleset(game, DiceBook()).declared_inputs
    said = language()

    def labelled(schema: dict[str, Any]) -> dict[str, Any]:
        """The arguments' names and choices in the page's language, beside the keys."""
        for name, prop in schema["properties"].items():
            prop["title"] = label(name, said, game)
            if "enum" in prop:
                prop["x-labels"] = [label(c, said, game) for c in prop["enum"]]
        return schema

    return jsonify(
        {
            "inputs": {
                name: {"section": d.section, "label": label(name, said, game), "args": labelled(d.schema())}
                for name, d in declared.items()
            }
        }
    )


@lobby_api.get("/armies/<game>/<army_id>")
def army_document(game: str, army_id: str) -> Response:
    """An army's file as written, in its own key order: the editor starts from it (a sample is
    a template)."""
    text = json.dumps(lobby().shelf.document(game, army_id), ensure_ascii=False, indent=1)
    return Response(text, mimetype="application/json")


@lobby_api.get("/lobby/pairing")
@referee_only
def tournament_pairing() -> Response:
    """This table's tournament pairing whole, with the players' armies, to start it with."""
    listener = lobby().pairing
    return jsonify({"pairing": listener.pairing if listener else None})


@lobby_api.post("/armies/<game>")
@referee_only
def save_army(game: str) -> Response:
    """``{"name": ..., "army": {...}, "alongside": [army ids]}``: checked by the game's own loader,
    then kept on the shelf.  ``clash`` says why it cannot meet the armies chosen alongside it as
    it is (an id they share): it is saved all the same, since it may be meant for another game."""
    body = _body()
    name, document, alongside = body.get("name"), body.get("army"), body.get("alongside", [])
    if not isinstance(name, str) or not isinstance(document, dict):
        raise InputError('expected {"name": string, "army": object}')
    if not isinstance(alongside, list) or not all(isinstance(a, str) for a in alongside):
        raise InputError("alongside: expected a list of army ids", "alongside")
    shelf = lobby().shelf
    saved = shelf.save(game, name, document)
    clash = shelf.clash(game, saved.id, alongside[:8])
    return jsonify({"army": saved.as_dict(), **({"clash": file_error(clash)} if clash else {})})


def _armies(game: str, chosen: Any) -> list[dict[str, Any]]:
    """The armies a new game is started with: shelf ids, or documents sent whole (uploaded)."""
    if not isinstance(chosen, list):
        raise InputError("armies: expected a list of army ids or documents")
    check_army_count(len(chosen))
    shelf, loaded = lobby().shelf, []
    for i, army in enumerate(chosen):
        if isinstance(army, str):
            loaded.append(shelf.load(game, army))
        elif isinstance(army, dict) and isinstance(army.get("army"), dict):
            loaded.append(shelf.check(game, army["army"], str(army.get("label") or f"army {i + 1}")))
        else:
            raise InputError(f'armies[{i}]: give an army id or {{"army": {{...}}, "label": "file name"}}')
    return loaded


def _new_game(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    game, options = body.get("game"), body.get("options", {})
    if game not in RULESETS:
        raise InputError(f"game: expected one of {', '.join(sorted(RULESETS))}")
    if not isinstance(options, dict):
        raise InputError("options: must be an object")
    make_ruleset(game, DiceBook()).options.parse(options)  # a bad option is a DataFileError naming it as its field
    return game, _armies(game, body.get("armies")), options


def _clock_s(body: dict[str, Any]) -> float | None:
    """``clock_minutes``: each player's time (a tournament's pairing gives it), or none."""
    minutes = body.get("clock_minutes")
    if minutes is None:
        return None
    if type(minutes) not in (int, float) or not 1 <= minutes <= MOST_CLOCK_MINUTES:
        raise InputError(
            f"clock_minutes: a number of minutes from 1 to {MOST_CLOCK_MINUTES}, or left out", "clock_minutes"
        )
    return float(minutes) * 60


@lobby_api.post("/games/check")
@referee_only
def check_game() -> Response:
    """The pre-game check for a new game's armies: each check ok, a warning, or failed."""
    game, armies, options = _new_game(_body())
    checks = checks_view(lobby().check(game, armies, options))
    refuse_unplayable(checks)
    return jsonify({"checks": checks, "ready": all(c["level"] != "fail" for c in checks)})


@lobby_api.post("/games")
@referee_only
def start_game() -> Reply:
    """``{"game": ..., "options": {...}, "armies": [id or {"army": {...}}, ...], "clock_minutes": 60}``: a new game,
    once the pre-game check passes, or with ``"force": true`` and a ``"note"`` saying why; the
    check and the note are journaled with the game."""
    body = _body()
    lobby().refuse_if_running()  # before loading anything: the answer does not depend on it
    game, armies, options = _new_game(body)
    force, note = body.get("force") is True, checked_note(body.get("note", ""))
    try:
        station = lobby().start(game, armies, options, force=force, note=note, by="dashboard", clock_s=_clock_s(body))
    except CheckFailed as failed:
        return jsonify({"error": str(failed), "checks": failed.checks}), 412
    return jsonify({"journal": station.journal.path.name, "messages": lobby().messages, "checks": lobby().checks}), 201


@lobby_api.post("/rulesets/<game>/cards")
@referee_only
def import_cards(game: str) -> Response:
    """``{"cards": <pasted cards>}``: added to the game's club card library (Alpha Strike's: a
    MUL response, a list of records or one record, as ``station import-mul``); army files then
    name the cards.  A record the station cannot read is skipped, and said why."""
    if game not in RULESETS:
        raise InputError(f"unknown game {game!r}")
    ruleset = make_ruleset(game, DiceBook())
    if ruleset.card_library is None:
        raise InputError(f"{game} keeps no card library")
    library = lobby().shelf.folder.parent / ruleset.card_library
    report = ruleset.import_cards(_body().get("cards"), "the pasted cards", library)
    return jsonify(
        {
            "added": report.added,
            "updated": report.updated,
            "skipped": report.skipped,
            "summary": report.summary(),
            "cards": report.cards,
        }
    )


@lobby_api.post("/armies/<game>/wiring")
@referee_only
def army_wiring(game: str) -> Response:
    """``{"army": {...}}``: the army's hardware slots (launchers, tilt nodes, markers) with their
    ids, conflicts, empty ones and ids the hub does not have."""
    if game not in RULESETS:
        raise InputError(f"unknown game {game!r}")
    document = _body().get("army")
    if not isinstance(document, dict):
        raise InputError('expected {"army": {...}}')
    hub = lobby().hub_health()
    return jsonify({"slots": wiring(document, inventory_of(hub)), "hub": hub})


@lobby_api.get("/camera/markers")
def camera_markers() -> Response:
    """The unit markers the camera sees while no game runs, each with the watch number it was
    first seen at (pairing takes the one newly seen) and its crop's address."""
    camera = lobby().camera
    markers = camera.markers() if camera is not None and lobby().station is None else []
    return jsonify(
        {
            "markers": [{**m, "thumb": f"/api/camera/markers/{m['id']}.jpg"} for m in markers],
            "camera": lobby().camera_health(),
        }
    )


@lobby_api.get("/camera/markers/<int:marker_id>.jpg")
def camera_marker_crop(marker_id: int) -> Reply:
    camera = lobby().camera
    jpeg = camera.crop(marker_id) if camera is not None and lobby().station is None else None
    if jpeg is None:
        return error_response(404, f"marker {marker_id} is not in view")
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@lobby_api.get("/hub/events")
def hub_events() -> Reply:
    """The hub's events while no game runs, after ``since``: what pairing waits for."""
    try:
        since = int(request.args.get("since", 0))
    except ValueError:
        return error_response(400, "since must be an integer")
    hub = lobby().hub
    return jsonify({"events": hub.events_since(since) if hub else [], "hub": lobby().hub_health()})


@lobby_api.post("/game/end")
@referee_only
def end_game() -> Response:
    """``{"note", "result", "winner"}`` (all optional): journal the end of the running game (its
    result and winner, as the referee chose or as the rules ruled, its summary, and how many
    rulings were still unconfirmed: they stand as the station ruled them) and stop it."""
    body = _body() if request.data else {}
    note = checked_note(body.get("note", ""))
    result, winner = body.get("result"), body.get("winner")
    for name, value in (("result", result), ("winner", winner)):
        if value is not None and not isinstance(value, str):
            raise InputError(f"{name}: text, or left out", name)
    return jsonify({"game": lobby().end(note, by="dashboard", result=result, winner=winner).as_dict()})


@lobby_api.post("/games/<name>/resume")
@referee_only
def resume_game(name: str) -> Response:
    station = lobby().resume(name)
    return jsonify({"journal": station.journal.path.name, "messages": lobby().messages})


@lobby_api.get("/games")
def games() -> Response:
    said = language()
    return jsonify({"games": [{**g.as_dict(), "title": label(g.game, said, g.game)} for g in lobby().history.games()]})


@lobby_api.get("/games/<name>/journal")
def download_journal(name: str) -> Reply:
    """A game's whole journal (JSON Lines), as a file: ``station replay`` reads it anywhere."""
    played = lobby().history.find(name)
    if played is None:
        return error_response(404, f"no game {name!r}")
    return send_file(played.path.resolve(), mimetype="application/x-ndjson", as_attachment=True, download_name=name)
