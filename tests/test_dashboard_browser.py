"""The dashboard in headless Chromium during a live demo replay: a ruling appears, spectators
see no controls, and the referee confirms a ruling with the token."""
import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from playwright.sync_api import expect, sync_playwright

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
TOKEN = "browser-test-token"

pytestmark = pytest.mark.browser


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def demo(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"referee_token": TOKEN}))
    port = _free_port()
    log = open(tmp_path / "demo.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "station", "demo", "--port", str(port), "--speed", "6",
                             "--journal", str(tmp_path / "demo.jsonl"), "--config", str(config)],
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/api/state", timeout=1)
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError((tmp_path / "demo.log").read_text())
            time.sleep(0.2)
    yield url, tmp_path
    proc.terminate()
    proc.wait(timeout=10)
    log.close()


def test_dashboard_shows_a_ruling_live_and_the_referee_confirms_it(demo):
    url, tmp_path = demo
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(url + "/")
        hit = page.locator("#feed li.ruling.hit").first
        expect(hit).to_contain_text("Hit on", timeout=45_000)
        expect(page.locator("#controls")).to_be_hidden()  # a spectator sees no controls
        expect(page.locator("#link")).to_contain_text("connected")
        assert int(page.locator("#round").inner_text()) >= 1

        page.goto(url + f"/?token={TOKEN}")
        expect(page.locator("#role")).to_have_text("referee")
        assert "token" not in page.url  # the token is kept out of the address bar and history
        pending = page.locator("#pending li.ruling").first
        expect(pending).to_be_visible(timeout=30_000)
        ruling_id = pending.get_attribute("data-ruling")
        pending.get_by_role("button", name="Confirm").click()
        expect(page.locator(f'#feed li.ruling[data-ruling="{ruling_id}"] .meta')).to_contain_text("confirmed")
        page.screenshot(path=str(tmp_path / "dashboard.png"), full_page=True)
        browser.close()
    journal = [json.loads(line) for line in (tmp_path / "demo.jsonl").read_text().splitlines()]
    assert any(r["kind"] == "confirm" and r["ruling"] == ruling_id and r["by"] == "dashboard" for r in journal)
