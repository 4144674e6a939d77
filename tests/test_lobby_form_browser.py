"""The new-game form stops what the server would refuse, before asking it, in the page's language."""

import pytest
from playwright.sync_api import expect

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
