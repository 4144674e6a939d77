"""The dashboard page: the layout is rendered here; live parts are filled by dashboard.js.
With no game running, the station's address opens the lobby."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request
from werkzeug.wrappers import Response

from .current import lobby

pages = Blueprint("pages", __name__, template_folder="templates", static_folder="static", static_url_path="/static")


@pages.get("/")
def dashboard() -> str | Response:
    station = lobby().station
    if station is None:
        query = request.query_string.decode()
        return redirect("/lobby" + (f"?{query}" if query else ""))  # a ?token= link still logs in
    snapshot = station.game.snapshot()
    ruleset = station.game.ruleset
    return render_template(
        "dashboard.html",
        snapshot=snapshot,
        summary=station.game.summary(),
        controls=ruleset.controls,
        input_types=ruleset.input_types,
    )
