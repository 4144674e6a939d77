"""Smart dice from the referee's phone (issue 52), in Russian at 390 px: the rehearsal hub's
virtual dice are listed on the settings page with their battery, a die is paired with any roll
from its menu, thrown with its button, and its throw reaches the game with no typing: the
settings page says it was used, and the dashboard's dice badge and the table dice waiting show it."""

import json
import re
import urllib.request

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.conftest import referee_call
from tests.test_dashboard_browser import phone_page, station_process

TOKEN = "dice-browser-token"
pytestmark = pytest.mark.browser


def test_a_referee_pairs_a_die_throws_it_and_the_game_takes_the_value(tmp_path):
    command = ["serve", "--data", str(tmp_path / "data"), "--host", "127.0.0.1", "--seed", "4"]
    with station_process(tmp_path, command, TOKEN, ready="/api/lobby") as url, sync_playwright() as pw:
        referee_call(url, "/api/settings", TOKEN, {"rehearsal": True}, method="PUT")
        armies = ["sample:blue-protectorate.json", "sample:red-polaris.json"]
        referee_call(
            url, "/api/games", TOKEN, {"game": "bronepekhota", "armies": armies, "force": True, "note": "dice"}
        )
        page, errors = phone_page(pw, url)
        browser = page.context.browser
        page.goto(url + f"/settings?token={TOKEN}")
        pixel = page.locator('#dice li[data-die="pixels-5eed0001"]')
        expect(pixel).to_contain_text("Rehearsal Pixel")
        expect(pixel).to_contain_text("80 %")
        expect(pixel).to_contain_text("рядом")
        page.wait_for_timeout(400)  # a referee reads the line before choosing
        pixel.locator("select.die-use").select_option("any")
        expect(page.locator("#settings-done")).to_have_text("Rehearsal Pixel назначен: он мигает.")
        page.wait_for_timeout(400)
        pixel = page.locator('#dice li[data-die="pixels-5eed0001"]')  # the line is remade once it is paired
        expect(pixel.locator("select.die-use")).to_have_value("any")
        pixel.locator("button.throw-die").click()
        used = page.locator('#dice li[data-die="pixels-5eed0001"] .last-throw')
        expect(used).to_have_text(re.compile(r"бросок [1-6]: засчитан"), timeout=5000)
        face = int(re.search(r"бросок ([1-6])", used.inner_text()).group(1))
        state = json.loads(urllib.request.urlopen(url + "/api/state", timeout=5).read())
        assert state["dice_waiting"] == {"6": [face]}

        page.goto(url + "/")
        badge = page.locator('#dice-badge li[data-die="pixels-5eed0001"]')
        expect(badge).to_contain_text("любой бросок")
        expect(badge).to_contain_text(f"выпало {face}")
        expect(page.locator("#dice-waiting")).to_contain_text(f"D6: {face}")
        box = page.locator("#dice-badge").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390  # nothing sideways on the phone
        assert errors == []
        browser.close()
