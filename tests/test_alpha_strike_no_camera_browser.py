"""Alpha Strike with no camera, from the referee's phone in Russian: moves declared with the
referee's tape, then an attack chosen in the picker with the range band and cover, previewed
before it is declared, and journaled with what the referee said (seed 004 digest §5, §6)."""

import json

import pytest
from playwright.sync_api import expect

from station.rules.alpha_strike.army import load_army
from station.runtime import Station
from station.web.server import DashboardServer
from tests.test_alpha_strike_game import DATA
from tests.test_dashboard_browser import TOKEN, _page

pytestmark = pytest.mark.browser


@pytest.fixture
def no_camera(tmp_path):
    forces = [load_army(DATA / "training-day-attacker.json"), load_army(DATA / "training-day-defender.json")]
    station = Station(tmp_path / "game.jsonl", "alpha_strike", forces, {}, seed=3).start()
    server = DashboardServer(station, TOKEN, port=0).start()
    yield station, server
    server.stop()
    station.stop()


def test_an_attack_is_picked_previewed_and_declared_with_no_camera_on_a_russian_phone(no_camera):
    station, server = no_camera
    game = station.game
    game.operator_input("roll_initiative", {})
    with _page(server.url + "/", width=390, height=844) as page:
        page.context.add_cookies([{"name": "lang", "value": "ru", "url": server.url}])
        page.goto(server.url + f"/?token={TOKEN}")
        expect(page.locator("#role")).to_have_text("судья")
        expect(page.locator("#table-map")).to_be_hidden()  # no camera: no map
        for unit in [u["id"] for u in game.state_view()["units"]]:
            page.locator("#move-unit").select_option(unit)
            page.locator("#move-mode").select_option("ground")
            page.locator("#move-inches").fill("4")
            page.locator("#move").click()
            expect(page.locator("#feed")).to_contain_text("по замеру судьи")
        page.locator('button[data-input="end_movement"]').click()
        expect(page.locator('#phase-tracker li.current[data-phase="combat"]')).to_be_visible()

        attacker = next(u for u in game.state_view()["units"] if u["player"] == game.state_view()["order"][0])
        page.locator("#pick-attacker").select_option(attacker["id"])
        target = page.locator("#pick-target option").first.get_attribute("value")
        expect(page.locator('#pick-band option[value="camera"]')).to_be_disabled()  # nothing to measure with
        expect(page.locator("#pick-attack")).to_be_disabled()  # no range yet
        records = game.snapshot()["records"]
        page.locator("#pick-band").select_option("medium")
        page.locator("#pick-cover").check()
        preview = page.locator("#pick-preview")
        expect(preview).to_contain_text("частичное укрытие +1")
        expect(preview).to_contain_text("по замеру судьи")
        expected = game.preview(
            "attack",
            {
                "attacker": attacker["id"],
                "target": target,
                "kind": "weapon",
                "overheat": 0,
                "by_hand": {"band": "medium", "partial_cover": True},
            },
        )
        expect(preview).to_contain_text(f"{expected['tn']}")
        assert game.snapshot()["records"] == records  # the previews journaled nothing
        page.locator("#pick-attack").click()
        expect(page.locator('#feed li.ruling[data-ruling$=":attack"]').first).to_contain_text("Дистанция и укрытие")
        for button in page.locator("#attack-picker button:visible, #attack-picker select:visible").all():
            assert button.bounding_box()["height"] >= 44
    attacks = [
        json.loads(line)
        for line in (station.game.journal.path).read_text().splitlines()
        if '"type":"attack"' in line.replace(" ", "")
    ]
    assert [a["args"]["by_hand"] for a in attacks] == [{"band": "medium", "partial_cover": True}]
    assert attacks[0]["args"]["attacker"] == attacker["id"] and attacks[0]["args"]["target"] == target
