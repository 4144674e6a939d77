"""Claiming a station from another machine's browser (issue 49, item 12): the page asks for the
code the station's log printed, refuses a wrong one, and takes any Unicode password.  The phone
is this machine reaching the station by its network address, so the station sees a remote client
(not its own loopback, where no code is asked)."""

import re
import subprocess
import sys
import time

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.test_dashboard_browser import CHROMIUM, FLAGS
from tests.test_game_night_browser import _free_port

pytestmark = pytest.mark.browser
PASSWORD = "Пароль клуба 🎲 ёж"


def _network_address() -> str:
    """This machine's first address that is not loopback: a browser that opens it is remote."""
    found = subprocess.run(["hostname", "-I"], capture_output=True, text=True, check=True).stdout.split()
    ipv4 = [a for a in found if re.fullmatch(r"\d+\.\d+\.\d+\.\d+", a) and not a.startswith("127.")]
    assert ipv4, "this machine has no network address to reach the station from (hostname -I)"
    return ipv4[0]


def test_a_phone_claims_the_station_with_the_code_and_a_unicode_password(tmp_path):
    port, config, log_path = _free_port(), tmp_path / "config.json", tmp_path / "serve.log"
    command = [sys.executable, "-m", "station", "serve", "--data", str(tmp_path / "data"), "--host", "0.0.0.0"]
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            [*command, "--port", str(port), "--config", str(config)], stdout=log, stderr=subprocess.STDOUT
        )
    url = f"http://{_network_address()}:{port}"
    try:
        deadline = time.monotonic() + 30
        while "Claim code:" not in log_path.read_text(encoding="utf-8"):
            assert proc.poll() is None and time.monotonic() < deadline, log_path.read_text(encoding="utf-8")
            time.sleep(0.2)
        code = re.search(r"Claim code:\s+(\d{6})", log_path.read_text(encoding="utf-8")).group(1)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            context = browser.new_context(viewport={"width": 320, "height": 640})
            context.add_cookies([{"name": "lang", "value": "ru", "url": url}])
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(url + "/setup")
            expect(page.locator("#claim-code")).to_be_visible()  # not the station itself: the code is asked
            expect(page.locator("#local")).to_have_count(0)
            wrong = "000000" if code != "000000" else "111111"
            page.locator("#claim-code").fill(wrong)
            page.locator("#claim-password").fill(PASSWORD)
            page.locator("#claim").click()
            expect(page.locator("#claim-error")).not_to_be_empty()
            page.locator("#claim-code").fill(code)
            page.locator("#claim").click()
            expect(page.locator("#claimed")).to_be_visible()
            # the QR code drawn, not a broken image: its picture is fetched after the claim, and an
            # image with no picture yet is "complete" too (that raced here on a busy box)
            page.wait_for_function("() => document.querySelector('#referee-qr').naturalWidth > 0", timeout=10000)
            page.goto(url + "/lobby")
            expect(page.locator("#role")).to_have_text("судья")
            stored = page.evaluate("JSON.stringify([{...localStorage}, {...sessionStorage}, document.cookie])")
            assert "Пароль" not in stored
            assert errors == []
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert PASSWORD not in log_path.read_text(encoding="utf-8")
