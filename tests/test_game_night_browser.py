"""A whole game night from a phone in Russian, with no terminal after the station is running:
claim it with the code from its log, switch the rehearsal hub on in the settings, build an Alpha
Strike force from a pasted MUL record and play an attack with no camera, then a Бронепехота game
with a hand-built army whose launcher and tilt node fire from the rehearsal hub's buttons; end,
history, replay and report.  The screenshots the manual shows are taken here (set
STATION_SCREENSHOTS to a folder to keep them)."""

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.conftest import ROOT
from tests.test_dashboard_browser import CHROMIUM, FLAGS

pytestmark = pytest.mark.browser
PASSWORD = "Судья 2024 🎲"  # any Unicode: a header could not carry it; a login's JSON body does
SHOTS = os.environ.get("STATION_SCREENSHOTS")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _snap(page, tmp_path, name, focus=None):
    """The phone's screen, scrolled to ``focus`` (what the manual's picture is about)."""
    if focus is not None:
        focus.evaluate("(e) => e.scrollIntoView({ block: 'start' })")
    page.screenshot(path=str(tmp_path / f"{name}.png"))
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


def _first_mech():
    records = json.loads((ROOT / "tests" / "data" / "mul" / "live.json").read_text())
    records = records if isinstance(records, list) else records.get("Units", records)
    return next(r for r in records if r["Type"]["Name"] == "BattleMech")


def test_a_game_night_from_a_russian_phone_with_no_terminal(tmp_path):
    port = _free_port()
    config = tmp_path / "config.json"  # no config yet: a fresh station, unclaimed
    log_path = tmp_path / "serve.log"
    log = open(log_path, "w")
    command = [sys.executable, "-m", "station", "serve", "--data", str(tmp_path / "data"), "--host", "127.0.0.1"]
    proc = subprocess.Popen(
        [*command, "--port", str(port), "--config", str(config)], stdout=log, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while "Claim code:" not in log_path.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.2)
        code = re.search(r"Claim code:\s+(\d{6})", log_path.read_text()).group(1)  # what its log says
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            context = browser.new_context(viewport={"width": 390, "height": 844})
            context.add_cookies([{"name": "lang", "value": "ru", "url": url}])
            page = context.new_page()
            page.on("dialog", lambda dialog: dialog.accept())
            _night(page, url, code, tmp_path)
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()
    assert json.loads(config.read_text(encoding="utf-8")) == {"referee_token": PASSWORD}
    assert PASSWORD not in log_path.read_text(encoding="utf-8")  # never printed, so never in the system log


def _claim(page, url, code, tmp_path):
    page.goto(url + "/lobby")
    expect(page.locator("#unclaimed")).to_be_visible()
    page.locator("#unclaimed a").click()
    expect(page).to_have_url(url + "/setup")
    _snap(page, tmp_path, "phone-1-claim")
    # this browser is on the station's own machine, where no code is asked (tests/test_claim.py
    # claims from a phone with the code the log printed, which is checked here to be six digits)
    expect(page.locator("#local")).to_be_visible()
    assert re.fullmatch(r"\d{6}", code)
    page.locator("#claim-password").fill(PASSWORD)
    page.locator("#claim").click()
    expect(page.locator("#claimed")).to_be_visible()
    expect(page.locator("#referee-qr")).to_have_js_property("complete", True)
    _snap(page, tmp_path, "phone-2-claimed")


def _rehearsal_hub(page, tmp_path):
    page.locator("#to-settings").click()
    expect(page.locator("#role")).to_have_text("судья")
    page.locator("#use-rehearsal").click()
    expect(page.locator("#settings-done")).to_contain_text("Учебный хаб включён")
    expect(page.locator("#hub-now")).to_contain_text("Учебный хаб")
    _snap(page, tmp_path, "phone-3-settings")


def _alpha_strike(page, url, tmp_path):
    mech = _first_mech()
    page.goto(url + "/lobby")
    page.select_option("#game", "alpha_strike")
    page.locator("#editor > summary").click()
    expect(page.locator('#army-form details[data-fold="units[0]"]')).to_be_attached()  # the sample, loaded
    page.locator("#mul-text").fill(json.dumps(mech))
    page.locator("#mul-import").click()
    expect(page.locator("#mul-result")).to_contain_text("добавлено")
    page.locator('#army-form details[data-fold="units[0]"] > summary').click()
    page.select_option('#army-form select[data-path="units[0]#variant"]', label="номер в MUL")
    mul_id = page.locator('#army-form input[data-path="units[0].mul_id"]')
    mul_id.fill(str(mech["Id"]))
    mul_id.dispatch_event("change")
    page.locator("#editor-name").fill("my-force")
    page.locator("#editor-save").click()
    expect(page.locator("#editor-done")).to_contain_text("my-force.json")
    _snap(page, tmp_path, "phone-4-force", page.locator('#army-form details[data-fold="units[0]"]'))
    page.locator("#start").click()
    expect(page).to_have_url(url + "/", timeout=15_000)

    # no camera: every move taped by the referee, then an attack chosen and previewed, all from
    # the action panel
    page.locator('button[data-input="roll_initiative"]').click()
    expect(page.locator("#action-input")).to_have_value("move")  # the panel follows the phase
    units = page.locator('#action-args [data-arg="unit"] option')
    expect(units.first).to_be_attached()
    for unit in [units.nth(k).get_attribute("value") for k in range(units.count())]:
        page.select_option('#action-args [data-arg="unit"]', unit)
        page.locator('#action-args [data-arg="inches"]').fill("5")
        page.locator("#action-do").click()
        expect(page.locator("#feed")).to_contain_text("по замеру судьи")
    page.locator('button[data-input="end_movement"]').click()
    expect(page.locator('#phase-tracker li.current[data-phase="combat"]')).to_be_visible()
    expect(page.locator("#no-camera")).to_be_visible()  # the map steps aside and says why
    state = json.loads(urllib.request.urlopen(url + "/api/state", timeout=5).read())["state"]
    attacker = next(u for u in state["units"] if u["player"] == state["order"][0])
    target = next(u for u in state["units"] if u["player"] != attacker["player"])
    page.select_option("#action-input", "attack")
    page.select_option('#action-args [data-arg="attacker"]', attacker["id"])
    page.select_option('#action-args [data-arg="target"]', target["id"])
    page.select_option('#action-args [data-arg="band"]', "short")
    expect(page.locator("#action-preview")).to_contain_text("ЦЧ")
    _snap(page, tmp_path, "phone-5-attack", page.locator("#action-panel"))
    page.locator("#action-do").click()
    expect(page.locator('#feed li.ruling[data-ruling$=":attack"]').first).to_be_visible()
    page.locator("#end-game").click()
    expect(page.locator("#ended")).to_contain_text("Игра сохранена", timeout=15_000)

    card = page.locator("#history li.game-card").first
    expect(card).to_contain_text("BattleTech Alpha Strike")
    _snap(page, tmp_path, "phone-6-history")
    card.locator("a.replay").click()
    expect(page.locator("#ruling-count")).not_to_have_text("0")
    expect(page.locator("#replay-no-map")).to_be_visible()
    page.go_back()
    page.locator("#history li.game-card").first.locator("a.report").click()
    expect(page.locator("h1")).to_have_text("BattleTech Alpha Strike")
    _snap(page, tmp_path, "phone-7-report")


def _bronepekhota(page, url, tmp_path):
    page.goto(url + "/lobby")
    page.select_option("#game", "bronepekhota")
    page.locator("#editor > summary").click()
    page.select_option("#editor-from", "sample:blue-protectorate.json")
    name = page.locator('#army-form input[data-path="name"]')
    expect(name).to_have_value(re.compile("."))
    name.fill("Синие нашего клуба")
    name.dispatch_event("change")
    page.locator("#editor-name").fill("синие")
    page.locator("#editor-save").click()
    expect(page.locator("#editor-done")).to_contain_text("синие.json")
    page.locator("#start").click()
    expect(page).to_have_url(url + "/", timeout=15_000)
    expect(page.locator("#rehearsal")).to_be_visible()
    page.locator('button[data-input="begin_round"]').click()
    page.locator("#rehearsal-nodes li button.pull").first.click()  # a trigger pulled on the rehearsal hub
    expect(page.locator("#feed")).to_contain_text("ыстрел", timeout=10_000)
    page.locator("#rehearsal-nodes li button.tilt.fallen").first.click()  # and a model falls
    expect(page.locator("#feed li.ruling").first).to_be_visible()
    _snap(page, tmp_path, "phone-8-rehearsal", page.locator("#rehearsal"))
    page.locator("#end-game").click()
    expect(page.locator("#ended")).to_be_visible(timeout=15_000)
    expect(page.locator("#history li.game-card").first).to_contain_text("Синие нашего клуба")


def _log_out_and_in(page, url):
    """Log out ends the session; the same Unicode password, typed in the login form, logs in again."""
    page.goto(url + "/lobby")
    expect(page.locator("#role")).to_have_text("судья")
    page.locator("#logout").click()
    expect(page.locator("#role")).to_have_text("зритель")
    page.locator("#token").fill("не тот пароль")
    page.locator("#login button[type=submit]").click()
    expect(page.locator("#role")).to_have_text("неверный токен судьи")
    page.locator("#token").fill(PASSWORD)
    page.locator("#login button[type=submit]").click()
    expect(page.locator("#role")).to_have_text("судья")


def _night(page, url, code, tmp_path):
    _claim(page, url, code, tmp_path)
    _rehearsal_hub(page, tmp_path)
    _alpha_strike(page, url, tmp_path)
    _bronepekhota(page, url, tmp_path)
    stored = page.evaluate("JSON.stringify([{...localStorage}, {...sessionStorage}, document.cookie])")
    assert PASSWORD not in stored and "Судья" not in stored  # only the server's HttpOnly cookie holds the session
    _log_out_and_in(page, url)
    answer = urllib.request.urlopen(url + "/api/games", timeout=5)
    assert [g["game"] for g in json.loads(answer.read())["games"]][:2] == ["bronepekhota", "alpha_strike"]
