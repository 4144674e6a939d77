"""JSON API and the Server-Sent Events stream.

Reading is open to spectators.  Every control (inputs, confirm, override) needs the referee
(station.web.security).  Errors are JSON ``{"error": ...}``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any, cast

from flask import Blueprint, Response, current_app, jsonify, request, stream_with_context

from ..game import RECENT_RULINGS, InputError, JournalUnavailable
from ..rules.text import with_messages
from .current import station as _station
from .security import Reply, error_response, is_referee, login, logout, referee_only, whoami
from .stream import ENDED, Broadcaster

api = Blueprint("api", __name__)


def _broadcaster() -> Broadcaster:
    return cast(Broadcaster, current_app.extensions["broadcasters"].of(_station()))


def _json_body() -> dict[str, Any]:
    body = request.get_json(silent=True)
    if body is None and request.data:
        raise InputError("the request body is not valid JSON")
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise InputError("the request body must be a JSON object")
    return body


@api.errorhandler(InputError)
def _input_error(exc: InputError) -> tuple[Response, int]:
    return error_response(400, exc.said or str(exc), exc.field)


@api.errorhandler(JournalUnavailable)
def _journal_unavailable(exc: JournalUnavailable) -> tuple[Response, int]:
    """The request was fine but cannot be recorded now (disk full): retry once there is room."""
    return error_response(503, str(exc))


api.add_url_rule("/login", "login", login, methods=["POST"])
api.add_url_rule("/logout", "logout", logout, methods=["POST"])
api.add_url_rule("/whoami", "whoami", whoami, methods=["GET"])


@api.get("/state")
def state() -> Response:
    """The game as a screen opens it: the state and the recent rulings (``?rulings=all`` for
    every one kept); ``older_rulings`` counts those left to page with /api/rulings."""
    everything = request.args.get("rulings") == "all"
    snapshot = _station().game.snapshot(None if everything else RECENT_RULINGS)
    return jsonify({**snapshot, "state": with_messages(snapshot["state"]), "health": _broadcaster().health()})


@api.get("/rulings")
def older_rulings() -> Response | tuple[Response, int]:
    """``?before=<ruling id>&limit=N`` (N up to 500, default 100): the rulings just before that
    one, oldest first, and whether there are ``more``; a screen scrolling back loads these.
    With ``&pending=1`` only those still pending, and ``more`` counts the older ones waiting."""
    before = request.args.get("before", "")
    try:
        limit = int(request.args.get("limit", "100"))
    except ValueError:
        return error_response(400, "limit: a whole number of rulings, 1 to 500")
    if not before or not 1 <= limit <= 500:
        return error_response(400, "give before=<ruling id> and limit=1..500")
    game = _station().game
    if request.args.get("pending") == "1":
        return jsonify(game.pending_before(before, limit))
    return jsonify(game.rulings_before(before, limit))


@api.get("/table")
def table() -> Response:
    """The latest TableSnapshot from the camera (null without one) and the camera's health."""
    return jsonify({"table": _station().game.table(), "camera": _station().health()["camera"]})


@api.get("/measure")
def measure_bases() -> Reply:
    """Edge-to-edge (or ``kind=centre``) distance between two bases on the latest snapshot, in
    the game's units, with the two exact points measured and the uncertainty."""
    from ..measure.snapshot import NotOnTable, measure_on_snapshot

    station = _station()
    a, b, kind = request.args.get("a"), request.args.get("b"), request.args.get("kind", "edge")
    if not a or not b or kind not in ("edge", "centre"):
        return error_response(400, "give ?a=ELEMENT&b=ELEMENT and optionally kind=edge|centre")
    table = station.game.table()
    if table is None:
        return error_response(404, "no table snapshot yet: is a camera attached?")
    try:
        m = measure_on_snapshot(table, a, b, station.game.ruleset.convention, station.calibration_residual_mm(), kind)
    except NotOnTable as exc:
        return error_response(404, str(exc))
    return jsonify({**m.as_dict(), "text": m.describe(), "snapshot_seq": table["seq"]})


@api.get("/reach")
def reach() -> Reply:
    """For a selected model on the latest snapshot: the rules' rings (drawn as outlines) and
    arcs, and every enemy base with its distance, arc and line of sight."""
    from ..tableview import NotPlaced

    element = request.args.get("element")
    if not element:
        return error_response(400, "give ?element=ELEMENT")
    try:
        return jsonify(with_messages(_station().table_view.reach(element)))
    except NotPlaced as exc:
        return error_response(404, str(exc))


@api.get("/terrain")
def terrain() -> Response:
    """The terrain pieces in force (``station-terrain/1``), as journaled."""
    return jsonify(_station().game.terrain())


@api.put("/terrain")
@referee_only
def set_terrain() -> Response:
    """Replace the terrain with the whole document sent; it is checked, journaled, and from then
    on used for line of sight, cover and movement.  A bad document changes nothing."""
    changed = _station().game.set_terrain(_json_body(), by="dashboard", where="the terrain sent")
    return jsonify({**_station().game.terrain(), "changed": changed})


@api.get("/camera.jpg")
def camera_still() -> Reply:
    """A low-rate still of the table with the bases drawn on it (404 without a camera yet)."""
    camera = _station().camera
    return _jpeg(camera.still() if camera else None, "no camera frame yet")


@api.get("/table.jpg")
def table_still() -> Reply:
    """The camera's latest frame seen from straight above, to the table's scale (2 mm a pixel),
    for the map's backdrop (404 without a calibrated camera frame yet)."""
    camera = _station().camera
    return _jpeg(camera.table_still() if camera else None, "no calibrated camera frame yet")


def _jpeg(jpeg: bytes | None, missing: str) -> Reply:
    """A still as it is now (never cached), or 404 saying why there is none yet."""
    if jpeg is None:
        return error_response(404, missing)
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@api.get("/uncertainty")
def uncertainty() -> Reply:
    """The calibration's expected position error over the table (1 sigma, mm) at each mapped
    height, for the map's overlay: 404 without a camera, empty maps for an old calibration."""
    camera = _station().camera
    if camera is None:
        return error_response(404, "no camera attached")
    return jsonify({"maps": camera.uncertainty_maps()})


@api.get("/health")
def health() -> Response:
    return jsonify(_broadcaster().health())


@api.get("/events")
def events() -> Reply:
    try:
        since = int(request.args.get("since", 0))
        limit = min(int(request.args.get("limit", 500)), 5000)
    except ValueError:
        return error_response(400, "since and limit must be integers")
    return jsonify({"records": _station().game.records_since(since, limit)})


@api.post("/input")
@referee_only
def operator_input() -> Response:
    body = _json_body()
    kind, args = body.get("type"), body.get("args", {})
    if not isinstance(kind, str) or not isinstance(args, dict):
        raise InputError('expected {"type": string, "args": object}')
    game = _station().game
    rulings = game.operator_input(kind, args, by="dashboard")
    # what fits now comes with the answer: the action panel follows the game without waiting
    # for the stream, whose update may come before or after this answer
    return jsonify({"rulings": [r.as_dict() for r in rulings], "inputs_now": game.inputs_now()})


@api.post("/preview")
@referee_only
def preview_input() -> Response:
    """``{"type": "attack", "args": {...}}``: what the input would rule now, nothing journaled
    (the attack picker shows it before the referee declares)."""
    body = _json_body()
    return jsonify(with_messages(_station().game.preview(str(body.get("type")), body.get("args", {}))))


@api.post("/judge")
@referee_only
def call_judge() -> Response:
    """``{"note": ...}``: ask for a tournament judge (docs/tournament.md)."""
    body = _json_body()
    record = _station().game.call_judge(body.get("note", ""), by="dashboard")
    return jsonify({"seq": record["seq"]})


@api.post("/clocks")
@referee_only
def set_clocks() -> Response:
    """``{"running": false}`` pauses the players' clocks, ``true`` resumes them (the referee's
    only; the handover between players follows the game by itself: station/playerclock.py)."""
    body = _json_body()
    running = body.get("running")
    if not isinstance(running, bool):
        raise InputError("running: true or false", "running")
    return jsonify(_station().game.set_clocks_running(running, by="dashboard"))


@api.post("/dice")
@referee_only
def enter_dice() -> Response:
    """Physical dice: {"sides": 6, "values": [3, 5]} are used, in order, for the next D6 rolls."""
    body = _json_body()
    return jsonify({"waiting": _station().game.enter_dice(body.get("sides"), body.get("values"), by="dashboard")})


@api.delete("/dice")
@referee_only
def clear_dice() -> Response:
    _station().game.clear_dice(by="dashboard")
    return jsonify({"waiting": {}})


@api.post("/rulings/confirm")
@referee_only
def confirm_all() -> Response:
    """``{"rulings": [id, ...]}``: the referee's *Confirm all* for the rulings on their screen."""
    ids = _json_body().get("rulings")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids) or len(ids) > 500:
        raise InputError('expected {"rulings": [ruling id, ...]} with 1 to 500 ids')
    once = list(dict.fromkeys(ids))  # a repeated id is confirmed once
    _station().game.confirm(*once, by="dashboard")
    return jsonify({"confirmed": once})


@api.post("/rulings/<ruling_id>/confirm")
@referee_only
def confirm(ruling_id: str) -> Response:
    _station().game.confirm(ruling_id, by="dashboard")
    return jsonify({"confirmed": ruling_id})


@api.post("/rulings/<ruling_id>/override")
@referee_only
def override(ruling_id: str) -> Response:
    body = _json_body()
    verdict, note = body.get("verdict"), body.get("note", "")
    if not isinstance(verdict, str) or not isinstance(note, str):
        raise InputError('expected {"verdict": string, "note": string}')
    ruling = _station().game.override(ruling_id, verdict, note, by="dashboard")
    return jsonify({"ruling": ruling.as_dict()})


@api.get("/rulings/<ruling_id>/verdicts")
def verdicts(ruling_id: str) -> Response:
    """The overrides that fit this ruling, each explained in one line, for the override form."""
    fitting = _station().game.verdicts(ruling_id)
    return jsonify({"verdicts": [{"verdict": v, "why": why} for v, why in fitting]})


@api.get("/rulings/<ruling_id>/picture.svg")
def ruling_picture(ruling_id: str) -> Reply:
    """The picture of what a ruling measured: the table of that moment with the line drawn."""
    from .picture import ruling_picture as draw

    game = _station().game
    try:
        ruling = game.ruling(ruling_id).as_dict()
    except InputError as exc:
        return error_response(404, str(exc))
    measured = ruling["details"].get("measured")
    table = game.table_at(measured.get("table_seq", -1)) if measured else None
    if table is None:
        return error_response(404, f"ruling {ruling_id} measured nothing on a table snapshot")
    players = game.state_view().get("players", [])
    svg = draw(ruling, table, game.terrain(at_seq=table["seq"])["pieces"], players)
    return Response(svg, mimetype="image/svg+xml")


# Screens sent their first frame at once: 500 phones opening the page together would otherwise be
# 500 threads contending for the interpreter, and the referee's request would wait behind them all.
JOINING = threading.BoundedSemaphore(1)


@api.get("/stream")
def stream() -> Response | tuple[Response, int]:
    """``snapshot`` first, then the broadcaster's frames (``update``, ``snapshot``, ``health``;
    see stream.py).  A watcher that lagged gets a fresh ``snapshot``."""
    broadcaster = _broadcaster()
    seats, kind = current_app.extensions["seats"], "referee" if is_referee() else "spectator"
    if not seats.take(kind):
        response, status = error_response(
            503, f"the station has {seats.caps[kind]} {kind} screens open, its most; try again in a minute"
        )
        response.headers["Retry-After"] = "60"
        return response, status
    subscription = broadcaster.subscribe()

    def generate() -> Iterator[bytes]:
        with JOINING:  # a crowd joining at once waits its turn, off the CPU, for its first frame
            shown, frame = broadcaster.snapshot()
            yield frame
        while True:
            item = subscription.get(timeout=60)
            if broadcaster.closed and item is None:
                return
            if item is None:
                continue
            if subscription.lagged:
                subscription.lagged = False
                subscription.drain()
                shown, frame = broadcaster.snapshot()
                yield frame
                continue
            version, frame = item
            if version == ENDED:
                yield frame
                return
            if version is None or shown is None or version > shown:  # older ones are in the snapshot already
                yield frame

    response = Response(
        stream_with_context(generate()),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )

    @response.call_on_close  # also for a client gone before its first frame
    def _left() -> None:
        broadcaster.unsubscribe(subscription)
        seats.give_back(kind)

    return response
