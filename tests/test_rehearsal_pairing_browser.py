"""Pairing with the rehearsal hub, from the lobby (issue 48, Why 6): *Pair* used to wait for ever
on «спустите курок…», because the rehearsal hub's buttons lived only on the dashboard during a
game.  Now the slot being paired offers the rehearsal hub's nodes of its kind, and a tap pairs it."""

import json
import urllib.request

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.test_dashboard_browser import phone_page, station_process

TOKEN = "rehearsal-pairing-token"
pytestmark = pytest.mark.browser


def _settings(url, body):
    request = urllib.request.Request(
        url + "/api/settings",
        data=json.dumps(body).encode(),
        method="PUT",
        headers={"Content-Type": "application/json", "X-Referee-Token": TOKEN},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def test_a_launcher_and_a_tilt_node_pair_from_the_rehearsal_hub_in_the_lobby(tmp_path):
    command = ["serve", "--data", str(tmp_path / "data"), "--host", "127.0.0.1", "--seed", "4"]
    with station_process(tmp_path, command, TOKEN, ready="/api/lobby") as url, sync_playwright() as pw:
        _settings(url, {"rehearsal": True})
        page, errors = phone_page(pw, url)
        browser = page.context.browser
        page.goto(url + f"/lobby?token={TOKEN}")
        page.select_option("#game", "bronepekhota")
        page.locator("#editor > summary").click()
        page.select_option("#editor-from", "sample:red-polaris.json")
        page.click("#wiring-refresh")
        cannon = page.locator('#wiring li[data-path=\'["units",1,"launchers",0,"node"]\']')
        clone = page.locator('#wiring li[data-path=\'["units",0,"members",0,"tilt_node"]\']')
        was = json.loads(page.locator("#editor-text").input_value())["units"][1]["launchers"][0]["node"]
        cannon.locator("button.pair").click()
        expect(cannon.locator("button.pair")).to_have_text("спустите курок…")
        choices = cannon.locator("button.rehearse-node")
        expect(choices.first).to_be_visible()
        other = next(n for n in choices.evaluate_all("bs => bs.map(b => b.dataset.node)") if n != was)
        assert all(n.startswith("L") for n in choices.evaluate_all("bs => bs.map(b => b.dataset.node)"))
        cannon.locator(f'button.rehearse-node[data-node="{other}"]').click()
        expect(cannon.locator("code")).to_have_text(other)
        assert json.loads(page.locator("#editor-text").input_value())["units"][1]["launchers"][0]["node"] == other
        clone.locator("button.pair").click()
        expect(clone.locator("button.rehearse-node").first).to_be_visible()
        tilts = clone.locator("button.rehearse-node").evaluate_all("bs => bs.map(b => b.dataset.node)")
        assert tilts and all(n.startswith("T") for n in tilts)
        clone.locator(f'button.rehearse-node[data-node="{tilts[-1]}"]').click()
        expect(clone.locator("code")).to_have_text(tilts[-1])
        assert errors == []
        browser.close()
