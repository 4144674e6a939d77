"""The settings page and its API: the hub's port (probed for HELLO), the rehearsal hub, the camera
(with a preview) and the calibration, changed from the browser between games and remembered
(station/lobby/settings.py); and the rehearsal hub's buttons, which fire its events.

Reading is open, as everywhere on the station; changing a setting, probing the ports (which
wakes each device) and firing the rehearsal hub need the referee."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from flask import Blueprint, Response, jsonify, render_template, request

from ..datafile import DataFileError
from ..lobby.lobby import FolderUnusable, LobbyError
from ..lobby.settings import Settings, cameras, serial_ports
from ..lobby.wiring import wiring
from ..rules.text import say
from .current import lobby
from .security import error_response, file_error_response, referee_only

settings_pages = Blueprint("settings", __name__, template_folder="templates")


def _current() -> Settings:
    return lobby().current_settings()


def _body() -> dict[str, Any]:
    body = request.get_json(silent=True)
    return body if isinstance(body, dict) else {}


@settings_pages.get("/settings")
def page() -> str:
    return render_template("settings.html")


@settings_pages.get("/api/settings")
def current() -> Response:
    the_lobby = lobby()
    return jsonify(
        {
            "settings": asdict(_current()),
            "from_flags": the_lobby.settings is None,
            "data": str(the_lobby.data),
            "home": str(the_lobby.folder),
            "running": the_lobby.station is not None,
            "hub": the_lobby.hub_health(),
            "camera": the_lobby.camera_health(),
        }
    )


@settings_pages.put("/api/settings")
@referee_only
def change() -> tuple[Response, int] | Response:
    """``{"serial": ["/dev/ttyACM0", "/dev/ttyACM1"]}`` (every hub's port), ``{"rehearsal": true}``, ``{"camera": "0"}``,
    ``{"calibration": "..."}``, ``{"data": "/media/usb/station"}`` (any of them; ``"data": null``
    is the home folder again): applied at once and remembered.  ``copied`` counts the files a
    new data folder was given."""
    try:
        changed = _current().changed(_body())
        copied = lobby().apply_settings(changed)
    except DataFileError as exc:
        return file_error_response(exc)
    except FolderUnusable as exc:
        return jsonify({"error": str(exc), "field": "data"}), 400
    except LobbyError as exc:
        return error_response(409, str(exc))
    return jsonify({"settings": asdict(changed), "copied": copied})


@settings_pages.get("/api/settings/ports")
@referee_only
def ports() -> Response:
    """Every serial port, each probed for a hub's HELLO (the one in use is not disturbed)."""
    the_lobby = lobby()
    in_use = the_lobby.hardware.serial_urls if the_lobby.rehearsal is None else ()
    return jsonify({"ports": serial_ports(skip=in_use)})


@settings_pages.get("/api/settings/cameras")
def camera_list() -> Response:
    return jsonify({"cameras": cameras()})


@settings_pages.get("/api/settings/camera.jpg")
def preview() -> Response | tuple[Response, int]:
    watch = lobby().camera
    jpeg = watch.preview() if watch is not None else None
    if jpeg is None:
        return error_response(404, say("no camera picture yet"))
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@settings_pages.get("/api/rehearsal")
def rehearsal_nodes() -> Response:
    """The rehearsal hub's nodes; during a game only the game's, each named by what it is wired
    to in the armies ("Salamander (cannon)"), so the buttons read as the table does."""
    the_lobby = lobby()
    rehearsal = the_lobby.rehearsal
    nodes = rehearsal.nodes() if rehearsal else []
    station = the_lobby.station
    if station is not None and nodes:
        owners: dict[str, list[str]] = {}
        for army in station.game.header["armies"]:
            for slot in wiring(army):
                if slot["kind"] != "marker" and slot["id"]:
                    owners.setdefault(str(slot["id"]), []).append(slot["owner"])
        nodes = [{**n, "owners": owners[n["id"]]} for n in nodes if n["id"] in owners]
    return jsonify({"on": rehearsal is not None, "nodes": nodes})


@settings_pages.post("/api/rehearsal")
@referee_only
def rehearsal_event() -> tuple[Response, int] | Response:
    """``{"node": "L1", "event": "shot", "barrel": 1, "charge": "shell"}``, ``{"node": "T3",
    "event": "tilt", "posture": "fallen"}`` or ``{"node": "T3", "event": "impact"}``."""
    rehearsal = lobby().rehearsal
    if rehearsal is None:
        return error_response(409, say("the rehearsal hub is off: switch it on in the settings"))
    body = _body()
    try:
        barrel = int(body.get("barrel", 1))
        seq = rehearsal.fire(
            str(body.get("node", "")),
            str(body.get("event", "")),
            barrel,
            str(body.get("charge", "shell")),
            str(body.get("posture", "fallen")),
        )
    except (TypeError, ValueError) as exc:
        return error_response(400, str(exc))
    return jsonify({"seq": seq})
