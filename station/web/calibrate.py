"""Guided calibration on the dashboard (referee only): the lens from views of the ChArUco board,
then the table from its anchors, on the command line's code path (station.vision.guided)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from flask import Blueprint, Response, jsonify, render_template, request

from ..rules.text import say
from ..vision.calibration import CalibrationError, MovedAnchorError
from ..vision.guided import CalibrationDesk
from .current import lobby
from .security import P, Reply, error_response, referee_only

calibrate = Blueprint("calibrate", __name__, template_folder="templates")


def _any_desk() -> CalibrationDesk | None:
    station = lobby().station
    return station.calibration_desk if station is not None else None


def _desk() -> CalibrationDesk:
    """The station's calibration desk, which ``_with_desk`` made sure of."""
    desk = _any_desk()
    if desk is None:
        raise LookupError("no calibration desk")  # _with_desk answers 404 before a view gets here
    return desk


@calibrate.get("/calibrate")
def page() -> str:
    return render_template("calibrate.html")


@calibrate.errorhandler(CalibrationError)
def _calibration_error(exc: CalibrationError) -> tuple[Response, int]:
    return error_response(409 if isinstance(exc, MovedAnchorError) else 400, str(exc))


def _with_desk(view: Callable[P, Reply]) -> Callable[P, Reply]:
    """404 when the station has no camera to calibrate."""

    @wraps(view)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> Reply:
        if _any_desk() is None:
            return error_response(404, say("no camera: choose one in the settings, and start a game, to calibrate it"))
        return view(*args, **kwargs)

    return guarded


@calibrate.get("/api/calibrate")
@referee_only
@_with_desk
def state() -> Reply:
    return jsonify(_desk().state())


@calibrate.get("/api/calibrate/view.jpg")
@referee_only
@_with_desk
def view() -> Reply:
    """The camera now, with the board's corners (or the anchors and their residuals) drawn."""
    return Response(_desk().view_jpeg(), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@calibrate.post("/api/calibrate/views")
@referee_only
@_with_desk
def accept_view() -> Reply:
    return jsonify(_desk().accept())


@calibrate.delete("/api/calibrate/views/<int:index>")
@referee_only
@_with_desk
def drop_view(index: int) -> Reply:
    return jsonify(_desk().drop(index))


@calibrate.post("/api/calibrate/table")
@referee_only
@_with_desk
def fit_table() -> Reply:
    body = request.get_json(silent=True) or {}
    without = body.get("without", []) if isinstance(body, dict) else []
    if not isinstance(without, list) or not all(isinstance(i, int) for i in without):
        return error_response(400, "without must be a list of anchor ids")
    try:
        return jsonify(_desk().fit_table(without))
    except MovedAnchorError as exc:  # the drawing shows the anchors, with the moved ones marked
        return jsonify({**_desk().state(), "error": str(exc)}), 409


@calibrate.post("/api/calibrate/save")
@referee_only
@_with_desk
def save() -> Reply:
    return jsonify(_desk().save())
