"""The dashboard's locks hold (issue 9, security): no token, a wrong token, a guessing spree, a
cross-site request riding on the referee's cookie, an oversized upload, and debug mode."""

import json
import time

from click.testing import CliRunner

from station.cli import main
from station.web.app import create_app
from station.web.limits import WebLimits
from station.web.security import ATTEMPTS, MAX_UPLOAD_BYTES, Throttle
from station.web.sessions import CONFIG_CHECK_S, MOST_SESSIONS, Sessions

from .conftest import REFEREE, REFEREE_TOKEN


def test_a_login_sets_a_strict_httponly_cookie_and_controls_then_need_its_csrf_token(client, station):
    response = client.post("/api/login", json={"token": REFEREE_TOKEN})
    assert response.status_code == 200
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    csrf = response.get_json()["csrf"]
    forged = client.post("/api/input", json={"type": "begin_round"})  # the cookie alone: a cross-site attempt
    assert forged.status_code == 403 and "CSRF" in forged.get_json()["error"]
    wrong = client.post("/api/input", json={"type": "begin_round"}, headers={"X-CSRF-Token": "guess"})
    assert wrong.status_code == 403 and station.game.snapshot()["state"]["round"] == 0
    ok = client.post("/api/input", json={"type": "begin_round"}, headers={"X-CSRF-Token": csrf})
    assert ok.status_code == 200 and station.game.snapshot()["state"]["round"] == 1
    client.post("/api/logout")
    assert client.post("/api/input", json={"type": "begin_round"}, headers={"X-CSRF-Token": csrf}).status_code == 401


def test_guessing_the_token_is_rate_limited(client, station):
    for _ in range(ATTEMPTS):
        assert client.post("/api/login", json={"token": "guess"}).status_code == 403
    blocked = client.post("/api/login", json={"token": REFEREE_TOKEN})  # even the right one, for a while
    assert blocked.status_code == 429
    assert client.post("/api/input", json={"type": "begin_round"}, headers=REFEREE).status_code == 429
    assert client.get("/api/state").status_code == 200  # spectators still read


def test_the_throttle_forgets_after_its_window():
    now = [0.0]
    throttle = Throttle(attempts=2, window_s=60, clock=lambda: now[0])
    throttle.failed("a")
    throttle.failed("a")
    assert throttle.blocked("a") and not throttle.blocked("b")
    now[0] = 61.0
    assert not throttle.blocked("a")


def test_an_oversized_upload_is_refused_and_changes_nothing(client, station):
    before = client.get("/api/terrain").get_json()
    body = json.dumps({"format": "station-terrain/1", "pieces": [], "padding": "x" * MAX_UPLOAD_BYTES})
    response = client.put("/api/terrain", data=body, headers={**REFEREE, "Content-Type": "application/json"})
    assert response.status_code == 413 and "larger than" in response.get_json()["error"]
    assert client.get("/api/terrain").get_json() == before


def test_spectators_cannot_change_anything_and_debug_is_off(station):
    app = create_app(station, REFEREE_TOKEN)
    assert app.debug is False and app.config["SESSION_COOKIE_HTTPONLY"]
    client = app.test_client()
    before = station.game.snapshot()["records"]
    for method, path, body in (
        ("post", "/api/input", {"type": "begin_round"}),
        ("post", "/api/dice", {"sides": 6, "values": [1]}),
        ("delete", "/api/dice", None),
        ("put", "/api/terrain", {"format": "station-terrain/1", "pieces": []}),
        ("post", "/api/rulings/1:x/confirm", None),
        ("post", "/api/rulings/confirm", {"rulings": ["1:x"]}),
        ("post", "/api/rulings/1:x/override", {"verdict": "void"}),
        ("post", "/api/calibrate/views", None),
        ("delete", "/api/calibrate/views/0", None),
        ("post", "/api/calibrate/table", {}),
        ("post", "/api/calibrate/save", None),
        ("post", "/api/games", {"game": "bronepekhota", "armies": []}),
        ("post", "/api/game/end", {}),
        ("post", "/api/games/x.jsonl/resume", None),
        ("post", "/api/armies/bronepekhota", {"name": "x", "army": {}}),
        ("post", "/api/armies/bronepekhota/wiring", {"army": {}}),
        ("post", "/api/games/check", {"game": "bronepekhota", "armies": []}),
        ("post", "/api/rulesets/alpha_strike/cards", {"cards": []}),
        ("post", "/api/judge", {"note": "spam"}),
        ("post", "/api/clocks", {"running": False}),
        ("post", "/api/preview", {"type": "begin_round"}),
        ("put", "/api/settings", {"rehearsal": True}),
        ("post", "/api/rehearsal", {"node": "L1", "event": "shot"}),
        ("post", "/api/smart-dice/pair", {"die": "pixels-1", "use": "any"}),
        ("post", "/api/smart-dice/throw", {"die": "pixels-1"}),
        ("post", "/api/restore", None),
    ):
        assert getattr(client, method)(path, json=body).status_code == 401, path
    assert station.game.snapshot()["records"] == before  # nothing was journaled
    routes = {(rule.rule, tuple(sorted(rule.methods - {"HEAD", "OPTIONS"}))) for rule in app.url_map.iter_rules()}
    writers = {r for r, methods in routes if set(methods) & {"POST", "PUT", "DELETE", "PATCH"}}
    assert writers == {
        "/api/input",
        "/api/judge",
        "/api/clocks",
        "/api/preview",
        "/api/dice",
        "/api/terrain",
        "/api/rulings/confirm",
        "/api/rulings/<ruling_id>/confirm",
        "/api/claim",  # an unclaimed station only, by its one-time code (tests/test_claim.py)
        "/api/settings",
        "/api/rehearsal",
        "/api/smart-dice/pair",
        "/api/smart-dice/throw",
        "/api/restore",
        "/api/update",  # the image's updates (tests/test_updates.py)
        "/api/update/back",
        "/api/rulings/<ruling_id>/override",
        "/api/login",
        "/api/logout",
        "/api/calibrate/views",
        "/api/calibrate/views/<int:index>",
        "/api/calibrate/table",
        "/api/calibrate/save",
        "/api/games",
        "/api/game/end",
        "/api/games/<name>/resume",
        "/api/armies/<game>",
        "/api/armies/<game>/wiring",
        "/api/games/check",
        "/api/rulesets/<game>/cards",
    }


def test_a_body_nested_too_deeply_gets_a_json_400_and_changes_nothing(client, station):
    """A hostile body 100,000 levels deep used to get werkzeug's HTML 500 page."""
    before = station.game.snapshot()["records"]
    body = "[" * 100_000 + "]" * 100_000
    for path in ("/api/input", "/api/dice", "/api/games"):
        response = client.post(path, data=body, headers={**REFEREE, "Content-Type": "application/json"})
        assert response.status_code == 400 and response.is_json, path
        assert response.get_json() == {"error": "the request body is nested too deeply to read"}
    assert station.game.snapshot()["records"] == before


def test_every_page_has_its_icon(client):
    """The dashboard asked for /favicon.ico on every load and got a 404."""
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.mimetype == "image/svg+xml" and b"<svg" in icon.data


def _logged_in(app):
    """A new browser that logs in: its client, the cookie value and the CSRF token."""
    browser = app.test_client()
    csrf = browser.post("/api/login", json={"token": REFEREE_TOKEN}).get_json()["csrf"]
    return browser, browser.get_cookie("session").value, csrf


def _replayed(app, cookie, csrf):
    """The cookie and CSRF token replayed from another phone: its /api/whoami and a control."""
    other = app.test_client()
    other.set_cookie("session", cookie)
    headers = {"X-CSRF-Token": csrf}
    dice = other.post("/api/dice", json={"sides": 6, "values": [3]}, headers=headers)
    return other.get("/api/whoami", headers=headers).status_code, dice.status_code


def test_a_logout_ends_the_session_on_the_server_so_a_replayed_cookie_is_refused(station):
    app = create_app(station, REFEREE_TOKEN)
    browser, cookie, csrf = _logged_in(app)
    _, kept, kept_csrf = _logged_in(app)  # the referee's other phone
    assert _replayed(app, cookie, csrf)[0] == 200
    browser.post("/api/logout")
    assert _replayed(app, cookie, csrf) == (401, 401)  # the cookie left at the club is worth nothing
    assert _replayed(app, kept, kept_csrf)[0] == 200  # another login is not touched by this one's logout


def test_a_session_expires_after_its_hours(station):
    now = [1000.0]
    app = create_app(station, REFEREE_TOKEN, WebLimits(session_hours=2))
    app.extensions["referee_token"].sessions.clock = lambda: now[0]
    _, cookie, csrf = _logged_in(app)
    now[0] += 2 * 3600 - 1
    assert _replayed(app, cookie, csrf)[0] == 200
    now[0] += 2
    assert _replayed(app, cookie, csrf) == (401, 401)


def test_a_new_token_in_the_config_file_ends_every_session_within_a_second(station, tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"referee_token": REFEREE_TOKEN}))
    app = create_app(station, REFEREE_TOKEN, config=config)
    _, cookie, csrf = _logged_in(app)
    result = CliRunner().invoke(main, ["token", "--new", "--config", str(config), "--url", "http://station:8080/"])
    assert result.exit_code == 0, result.output
    fresh = json.loads(config.read_text())["referee_token"]
    assert fresh != REFEREE_TOKEN and fresh in result.output
    time.sleep(CONFIG_CHECK_S + 0.1)
    assert _replayed(app, cookie, csrf) == (401, 401)
    client = app.test_client()
    assert client.get("/api/whoami", headers={"X-Referee-Token": REFEREE_TOKEN}).status_code == 403
    assert client.get("/api/whoami", headers={"X-Referee-Token": fresh}).status_code == 200


def test_the_session_store_stays_bounded_and_forgets_what_closed():
    sessions = Sessions(hours=1)
    first = sessions.open()
    opened = [sessions.open() for _ in range(MOST_SESSIONS)]
    assert not sessions.valid(first) and all(sessions.valid(s) for s in opened[-10:])
    sessions.close(opened[-1])
    assert not sessions.valid(opened[-1]) and not sessions.valid(None) and not sessions.valid(["x"])


def test_any_unicode_password_logs_in_and_the_cookie_alone_finds_its_csrf_token(station):
    """Issue 49: a Cyrillic password locked the referee out (a browser cannot put it in a
    header).  It travels in the login's JSON body; then the cookie alone tells the station's own
    page its CSRF token (GET /api/whoami), which every control needs."""
    password = "Судья 2024 🎲 ёж"
    app = create_app(station, password)
    browser = app.test_client()
    assert browser.get("/api/whoami").status_code == 401  # no login yet
    assert browser.post("/api/login", json={"token": "Судья 2025"}).status_code == 403
    csrf = browser.post("/api/login", json={"token": password}).get_json()["csrf"]
    who = browser.get("/api/whoami")
    assert who.status_code == 200 and who.get_json() == {"referee": True, "csrf": csrf}
    assert browser.post("/api/dice", json={"sides": 6, "values": [3]}).status_code == 403  # no CSRF token
    assert (
        browser.post("/api/dice", json={"sides": 6, "values": [3]}, headers={"X-CSRF-Token": csrf}).status_code == 200
    )
    browser.post("/api/logout", headers={"X-CSRF-Token": csrf})
    assert browser.get("/api/whoami").status_code == 401


def test_the_station_never_prints_its_password(tmp_path):
    """Run as a service, what ``station serve`` prints lands in the system log."""
    from tests.test_dashboard_browser import station_process

    command = ["serve", "--data", str(tmp_path / "data")]
    with station_process(tmp_path, command, "Пароль клуба 7", ready="/api/lobby") as url:
        assert url
    printed = next(tmp_path.glob("serve.log")).read_text(encoding="utf-8")
    assert "Пароль клуба 7" not in printed and "station token" in printed
