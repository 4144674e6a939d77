"""The dashboard page: the layout is rendered here; live parts are filled by dashboard.js."""
from __future__ import annotations

from flask import Blueprint, current_app, render_template

from ..measure.bases import Base, NAMED_BASES

# The named base sizes as [kind, length, width], so the map draws every base to scale.
BASE_SIZES = {name: [b.kind, b.length, b.width] for name, b in ((n, Base.named(n)) for n in NAMED_BASES)}

pages = Blueprint("pages", __name__, template_folder="templates", static_folder="static",
                  static_url_path="/static")


@pages.get("/")
def dashboard() -> str:
    station = current_app.config["STATION"]
    snapshot = station.game.snapshot()
    return render_template("dashboard.html", snapshot=snapshot, summary=station.game.summary(), base_sizes=BASE_SIZES)
