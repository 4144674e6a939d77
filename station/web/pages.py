"""The dashboard page: the layout is rendered here; live parts are filled by dashboard.js."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template

pages = Blueprint("pages", __name__, template_folder="templates", static_folder="static", static_url_path="/static")


@pages.get("/")
def dashboard() -> str:
    station = current_app.config["STATION"]
    snapshot = station.game.snapshot()
    ruleset = station.game.ruleset
    return render_template(
        "dashboard.html",
        snapshot=snapshot,
        summary=station.game.summary(),
        controls=ruleset.controls,
        input_types=ruleset.input_types,
    )
