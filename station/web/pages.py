"""The dashboard page: the layout is rendered here; live parts are filled by dashboard.js.
With no game running, the station's address opens the lobby."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request
from werkzeug.wrappers import Response

from ..game import RECENT_RULINGS
from ..rules.labels import label
from ..rules.view import model_names
from .current import lobby
from .i18n import language
from .vocabulary import vocabulary

pages = Blueprint("pages", __name__, template_folder="templates", static_folder="static", static_url_path="/static")


FAVICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#14171c"/>'
    '<circle cx="8" cy="8" r="4.5" fill="none" stroke="#4a90e2" stroke-width="2"/><circle cx="8" cy="8" r="1.5" fill="#e2574a"/></svg>'
)


@pages.get("/favicon.ico")
def favicon() -> Response:
    """The browser asks for it on every page: a small target, so no 404 fills the console."""
    return Response(FAVICON, mimetype="image/svg+xml", headers={"Cache-Control": "max-age=86400"})


@pages.get("/")
def dashboard() -> str | Response:
    station = lobby().station
    if station is None:
        query = request.query_string.decode()
        return redirect("/lobby" + (f"?{query}" if query else ""))  # a ?token= link still logs in
    snapshot = station.game.snapshot(RECENT_RULINGS)  # the page needs the title and state, not every ruling
    ruleset = station.game.ruleset
    return render_template(
        "dashboard.html",
        snapshot=snapshot,
        title=label(ruleset.name, language(), ruleset.name),
        summary=station.game.summary(),
        names=model_names(snapshot["state"]),
        controls=ruleset.controls,
        input_types=ruleset.input_types,
        parts=ruleset.dashboard,
        table_die=ruleset.table_die,
        unit_name={"inch": "inches", "step": "steps"}.get(ruleset.convention.unit.name, ruleset.convention.unit.name),
        vocabulary=vocabulary(),
        ruling_game=ruleset.name,
    )
