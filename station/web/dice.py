"""The smart dice's API (hardware.md "Smart dice"): the dice in range with their link, battery
and last roll, pairing each with a player, and throwing the rehearsal hub's virtual dice.

Reading is open (the hub badge shows the dice to everyone); pairing and throwing need the
referee.  Pairing is allowed during a game: a player who swaps dice does not stop play."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify

from ..rules.text import say, with_messages
from .current import lobby
from .security import error_response, referee_only
from .settings import _body  # the settings page's reading of a JSON object body, shared

dice_api = Blueprint("dice", __name__)


@dice_api.get("/api/smart-dice")
def nearby() -> Response:
    """``{"on": true, "bluetooth": true, "problem": "", "dice": [...]}``: every die heard, the
    paired ones first, each with ``use`` ("any", a player, or "" for not used), ``link``,
    ``battery``, ``motion``, ``lost_mid_roll`` and ``last_roll`` (its face, and why it was not used)."""
    return jsonify(with_messages(lobby().dice.nearby()))


@dice_api.post("/api/smart-dice/pair")
@referee_only
def pair() -> tuple[Response, int] | Response:
    """``{"die": "pixels-5eed0001", "use": "red"}`` (a player, ``"any"``, or ``""`` to leave it
    out): the die blinks, and the pairing is remembered in the settings."""
    body = _body()
    die, use = body.get("die"), body.get("use", "")
    if not isinstance(die, str) or not isinstance(use, str) or len(use) > 64 or "\n" in use:
        return error_response(400, say("give the die's id and its use: any, a player, or nothing"), "use")
    try:
        pairs = lobby().pair_die(die, use)
    except KeyError:
        return error_response(404, say("no die {die} is in range", die=die), "die")
    return jsonify({"pairs": pairs})


@dice_api.post("/api/smart-dice/throw")
@referee_only
def throw() -> tuple[Response, int] | Response:
    """``{"die": "pixels-5eed0001"}``: one of the rehearsal hub's virtual dice is thrown; it
    tumbles for about a second and tells its face as a real die does."""
    die = _body().get("die")
    try:
        lobby().dice.throw(str(die))
    except ValueError as exc:
        return error_response(400, str(exc), "die")
    return jsonify({"thrown": die})
