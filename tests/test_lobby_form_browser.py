"""The new-game form stops what the server would refuse, before asking it, in the page's language."""

import json

import pytest
from playwright.sync_api import expect

from tests.conftest import ROOT, referee_call
from tests.test_dashboard_browser import _page, station_process

pytestmark = pytest.mark.browser
TOKEN = "lobby-form-token"


def test_one_player_twice_is_stopped_in_the_form_in_russian(tmp_path):
    command = ["serve", "--data", str(tmp_path / "data"), "--host", "127.0.0.1"]
    with station_process(tmp_path, command, TOKEN, ready="/api/lobby") as url:
        with _page(url + "/lobby", width=390, height=844) as page:
            page.context.add_cookies([{"name": "lang", "value": "ru", "url": url}])
            page.goto(url + f"/lobby?token={TOKEN}")
            page.select_option("#game", "bronepekhota")
            rows = page.locator("#armies select")
            expect(rows).to_have_count(2)
            first = rows.nth(0).input_value()
            rows.nth(1).select_option(first)  # the same army, so the same player, twice
            page.locator("#start").click()
            expect(page.locator("#lobby-error")).to_contain_text("выбран дважды")
            expect(page.locator("#checks li")).to_have_count(0)  # the server was not even asked


def test_the_chosen_armies_stay_in_their_menus_after_a_reload_and_a_new_saved_army(tmp_path):
    command = ["serve", "--data", str(tmp_path / "data"), "--host", "127.0.0.1"]
    with station_process(tmp_path, command, TOKEN, ready="/api/lobby") as url:
        with _page(url + "/lobby", width=390, height=844) as page:
            page.goto(url + f"/lobby?token={TOKEN}")
            page.select_option("#game", "bronepekhota")
            rows = page.locator("#armies select")
            expect(rows).to_have_count(2)
            blue, red = rows.nth(0).input_value(), rows.nth(1).input_value()
            rows.nth(0).select_option(red)  # the other way round from what the page offers first
            rows.nth(1).select_option(blue)
            army = json.loads((ROOT / "station" / "data" / "demo" / "blue-protectorate.json").read_text())
            saved = referee_call(
                url, "/api/armies/bronepekhota", TOKEN, {"name": "aaa-first-on-the-shelf", "army": army}
            )
            page.reload()
            page.select_option("#game", "bronepekhota")
            expect(rows).to_have_count(2)
            assert [rows.nth(0).input_value(), rows.nth(1).input_value()] == [red, blue]
            assert saved["army"]["id"] in [o.get_attribute("value") for o in rows.nth(0).locator("option").all()]
            page.locator("#armies .army-row button").nth(1).click()  # a row removed is remembered too
            page.reload()
            page.select_option("#game", "bronepekhota")
            expect(rows).to_have_count(1)
            assert rows.nth(0).input_value() == red
