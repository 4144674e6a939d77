"""Claiming a new station from the browser: the first referee sets the referee password (or keeps
the token the station made) and takes the referee's link as a QR code, with no terminal.

Who may claim, on a club's shared Wi-Fi: whoever shows the one-time code the station printed in
its log when it first started (``journalctl -u station``, or the terminal), or whoever browses
from the station's own machine (the Pi's screen and keyboard, where nobody else can be).  A wrong
code counts against the same throttle as a wrong referee token, and six digits at five tries a
minute take months to guess.  After the claim the code is gone from the config and the page only
says the station is claimed.  Behind a reverse proxy every request looks local: use the code.
"""

from __future__ import annotations

import hmac
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

from flask import Blueprint, Response, current_app, jsonify, redirect, render_template, request
from werkzeug.wrappers import Response as WerkzeugResponse

from ..config import load_config, save_config
from ..lobby.network import qr_svg, token_link
from ..rules.text import say
from .security import error_response, guessed_wrong, referee_only, referee_token, throttled

log = logging.getLogger(__name__)
claim = Blueprint("claim", __name__, template_folder="templates")
LOOPBACK = ("127.0.0.1", "::1")
SHORTEST_PASSWORD = 8


@dataclass
class Claim:
    """An unclaimed station's config file and its one-time code."""

    path: Path
    code: str
    done: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def of(cls, path: Path) -> Claim | None:
        """The claim still open for the config at ``path``, or None for a claimed station."""
        code = load_config(path).get("claim_code")
        return cls(path, code) if code else None


def _local() -> bool:
    """Browsing from the station's own machine (its screen and keyboard)."""
    return request.remote_addr in LOOPBACK


def _claim() -> Claim | None:
    found: Claim | None = current_app.config.get("CLAIM")
    return None if found is None or found.done else found


@claim.get("/setup")
def setup_page() -> str | WerkzeugResponse:
    if _claim() is None:
        return redirect("/lobby")
    return render_template("setup.html", local=_local())


@claim.get("/api/claim")
def claim_state() -> Response:
    return jsonify({"claimed": _claim() is None, "local": _local()})


@claim.post("/api/claim")
def claim_station() -> tuple[Response, int] | Response:
    """``{"code": "123456", "password": "..."}``: the station is the claimer's.  The password
    (8 characters or more) becomes the referee token; without one the station's token stands."""
    open_claim = _claim()
    if open_claim is None:
        return error_response(409, say("this station is already claimed"))
    refused = throttled()
    if refused:
        return refused
    body = request.get_json(silent=True)
    body = body if isinstance(body, dict) else {}
    code, password = body.get("code", ""), body.get("password") or ""
    if not isinstance(code, str) or not isinstance(password, str):
        return error_response(400, say("the code and the password are text"))
    local = _local()
    if not local and not hmac.compare_digest(code.strip().encode(), open_claim.code.encode()):
        guessed_wrong()
        return error_response(403, say("wrong claim code: it is in the station's log from its first start"))
    if password and len(password) < SHORTEST_PASSWORD:
        return error_response(400, say("the password needs 8 characters or more"))
    with open_claim.lock:
        if open_claim.done:
            return error_response(409, say("this station is already claimed"))
        token = password or referee_token().current()
        save_config(open_claim.path, {"referee_token": token})
        referee_token().change(token)
        open_claim.done = True
    log.info("station claimed from %s%s", request.remote_addr, " (its own machine)" if local else "")
    return jsonify({"claimed": True, "token": token})


@claim.get("/api/referee-qr.svg")
@referee_only
def referee_qr() -> Response:
    """The referee's link, token included, as a QR code: for the referee's own phone only."""
    from .lobby import addresses

    link = token_link(addresses()[0], referee_token().current())
    return Response(qr_svg(link), mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})
