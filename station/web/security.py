"""Who may change the game, and how hard it is to guess or trick the way in.

* A referee proves himself with the token, either on every request (``X-Referee-Token`` or
  ``Authorization: Bearer``) or once, at ``POST /api/login``, which sets an HttpOnly, SameSite
  session cookie.  The cookie names a session the server keeps (sessions.py): a logout, a new
  token or the session's age ends it, wherever the cookie is replayed from.
* A request that rides on the cookie must also carry the CSRF token the login returned
  (``X-CSRF-Token``), so another site's page cannot act through the referee's browser.  A header
  token is never sent by a browser on its own, so it needs no CSRF token.
* Wrong tokens are rate-limited per client address: after ``ATTEMPTS`` failures in
  ``WINDOW_S`` seconds every further try is refused with 429 until the window passes.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, ParamSpec, cast

from flask import Flask, Response, current_app, jsonify, request, session

from ..datafile import DataFileError, Problem
from ..rules.text import Text, say
from ..untrusted_json import TooDeep
from . import strict_json
from .sessions import SESSION_HOURS, RefereeToken, Sessions

P = ParamSpec("P")
Reply = Response | tuple[Response, int]  # what a view answers: a response, or one with its status

ATTEMPTS = 5
WINDOW_S = 60.0
WRONG_TOKEN = say("wrong referee token")
TOO_MANY_GUESSES = say("too many wrong referee tokens; wait a minute")
MAX_UPLOAD_BYTES = 1024 * 1024  # army files, terrain and calibration are a few kB; a whole game's inputs far less


class Throttle:
    """Failed token attempts per client address, in a sliding window."""

    def __init__(
        self, attempts: int = ATTEMPTS, window_s: float = WINDOW_S, clock: Callable[[], float] = time.monotonic
    ):
        self.attempts, self.window_s, self.clock = attempts, window_s, clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, who: str) -> deque[float]:
        now = self.clock()
        failures = self._failures.setdefault(who, deque())
        while failures and now - failures[0] > self.window_s:
            failures.popleft()
        return failures

    def blocked(self, who: str) -> bool:
        with self._lock:
            return len(self._recent(who)) >= self.attempts

    def failed(self, who: str) -> None:
        with self._lock:
            self._recent(who).append(self.clock())
            if len(self._failures) > 10_000:  # a flood of addresses must not grow memory without bound
                self._failures = {k: v for k, v in self._failures.items() if v}


def larger_than(allowed: int) -> str:
    """The refusal of a body over ``allowed`` bytes, the same from the server's parser
    (bodies.py) and from the application."""
    return f"the request is larger than {allowed // 1024} kB"


def error_response(status: int, message: str, field: str | None = None) -> tuple[Response, int]:
    """Every error the API answers: JSON ``{"error": ...}`` with its status; a refusal said with
    ``say`` (station/rules/text.py) also carries its ``message``, for a page to say in its language,
    and one about a request's field names it (``field``), for a form to point at."""
    said = {"message": message.message()} if isinstance(message, (Text, Problem)) else {}
    return jsonify({"error": message, **said, **({"field": field} if field else {})}), status


def file_error(exc: DataFileError) -> dict[str, Any]:
    """A bad file or form field as JSON: the whole error in English (``error``, as the log and the
    command line say it), and its parts, so that a form says it in the page's language at the
    field: the file, the field's path and the problem, with ``problem_message`` where the loader
    said it with ``problem`` (station/datafile.py) or ``say``."""
    wrong = exc.problem
    said = wrong.message() if isinstance(wrong, (Text, Problem)) else {"key": "{value}", "args": {"value": str(wrong)}}
    message = {"key": "{path}: {where}: {problem}", "args": {"path": exc.path, "where": exc.where, "problem": said}}
    body = {"error": str(exc), "file": exc.path, "field": exc.where, "problem": str(wrong), "problem_message": said}
    return {**body, "message": message}


def file_error_response(exc: DataFileError, status: int = 400) -> tuple[Response, int]:
    return jsonify(file_error(exc)), status


def referee_token() -> RefereeToken:
    return cast(RefereeToken, current_app.extensions["referee_token"])


def token_matches(given: str, token: str) -> bool:
    """In constant time, so the answer's timing says nothing of how much of a guess was right."""
    return hmac.compare_digest(given.encode(), token.encode())


def _token_ok(given: str) -> bool:
    return token_matches(given, referee_token().current())


def _logged_in() -> bool:
    """A login cookie whose session the server still keeps (not logged out, not expired, opened
    with the token in force)."""
    referee_token().current()  # a token changed in the config file closes the sessions first
    return referee_token().sessions.valid(session.get("sid"))


def _throttle() -> Throttle:
    return cast(Throttle, current_app.config["THROTTLE"])


def _who() -> str:
    return request.remote_addr or "unknown"


def _given_token() -> str:
    """The token a request carries in its headers: ``Authorization: Bearer``, else
    ``X-Referee-Token``; empty if none."""
    auth = request.headers.get("Authorization", "")
    return auth[7:] if auth.startswith("Bearer ") else request.headers.get("X-Referee-Token", "")


def is_referee() -> bool:
    """Whether this request comes from the referee (a right header token, or the login cookie):
    for what is only counted apart, such as the referee's own dashboard streams.  Controls use
    ``referee_only``, which also checks CSRF and throttles guesses."""
    given = _given_token()
    return _logged_in() or (bool(given) and _token_ok(given))


def throttled() -> tuple[Response, int] | None:
    """The refusal for an address that has guessed wrong too often this minute, or None."""
    if _throttle().blocked(_who()):
        return error_response(429, TOO_MANY_GUESSES)
    return None


def guessed_wrong() -> None:
    """Count a wrong token (or claim code) against the asking address."""
    _throttle().failed(_who())


def _wrong_token(given: str) -> tuple[Response, int] | None:
    """The refusal of a wrong header token, counted against the asking address; None if right."""
    if _token_ok(given):
        return None
    guessed_wrong()
    return error_response(403, WRONG_TOKEN)


def referee_only(view: Callable[P, Reply]) -> Callable[P, Reply]:
    """The referee's controls: a header token, or the login cookie with its CSRF token."""

    @wraps(view)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> Reply:
        refused = throttled()
        if refused:
            return refused
        given = _given_token()
        if given:
            return _wrong_token(given) or view(*args, **kwargs)
        if _logged_in():
            sent = request.headers.get("X-CSRF-Token", "")
            if not sent or not hmac.compare_digest(sent.encode(), str(session.get("csrf", "")).encode()):
                return error_response(403, "this control needs the CSRF token the login gave (X-CSRF-Token)")
            return view(*args, **kwargs)
        return error_response(401, say("this control needs the referee token"))

    return guarded


def login() -> Any:
    """``{"token": ...}``: the referee's cookie session and the CSRF token for its requests."""
    refused = throttled()
    if refused:
        return refused
    body = request.get_json(silent=True)
    given = body.get("token") if isinstance(body, dict) else None
    if not isinstance(given, str) or not given or not _token_ok(given):
        guessed_wrong()
        return error_response(403, WRONG_TOKEN)
    session.clear()
    session["sid"] = referee_token().sessions.open()
    session["csrf"] = secrets.token_urlsafe(24)
    return jsonify({"referee": True, "csrf": session["csrf"]})


def whoami() -> Any:
    """Whether this browser is the referee's.  A header token is checked (403 when wrong); a
    login cookie gets back its CSRF token, which the page sends with its controls.  The answer
    is read by the station's own pages only: no other site's page can read it (no CORS), and the
    cookie is SameSite=Strict."""
    refused = throttled()
    if refused:
        return refused
    given = _given_token()
    if given:
        return _wrong_token(given) or jsonify({"referee": True})
    if _logged_in():
        return jsonify({"referee": True, "csrf": session.get("csrf", "")})
    return error_response(401, say("this control needs the referee token"))


def logout() -> Any:
    """End this session on the server, so its cookie is worth nothing wherever it is replayed."""
    referee_token().sessions.close(session.get("sid"))
    session.clear()
    return jsonify({"referee": False})


def harden(app: Flask, token: str, config: Path | None = None, session_hours: float = SESSION_HOURS) -> None:
    """The app's security settings: the referee's token (followed in ``config``, if given) and
    sessions, a per-start session key, strict cookies, the upload cap, debug off, and JSON errors
    for oversized bodies."""
    app.config.update(
        SECRET_KEY=secrets.token_bytes(32),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        MAX_CONTENT_LENGTH=MAX_UPLOAD_BYTES,
        THROTTLE=Throttle(),
    )
    app.extensions["referee_token"] = RefereeToken(token, Sessions(session_hours), config)
    strict_json.install(app)
    app.debug = False

    @app.errorhandler(413)
    def _too_large(_exc: Exception) -> tuple[Response, int]:
        return error_response(413, larger_than(MAX_UPLOAD_BYTES))

    @app.errorhandler(TooDeep)
    def _too_deep(_exc: Exception) -> tuple[Response, int]:
        """A body nested thousands of levels deep (a hostile client): refused by name, as JSON."""
        return error_response(400, "the request body is nested too deeply to read")

    @app.errorhandler(500)
    def _failed(exc: Exception) -> tuple[Response, int]:
        """Whatever went wrong inside, the client gets JSON naming it, never an HTML page; the
        traceback is in the station's log."""
        original = getattr(exc, "original_exception", None) or exc
        return error_response(500, f"the station failed on this request ({type(original).__name__}); see its log")
