"""Alpha Strike with no camera, from the referee's phone in Russian: moves declared with the
referee's tape, then an attack chosen in the picker with the range band and cover, previewed
before it is declared, and journaled with what the referee said (seed 004 digest §5, §6)."""

import json

import pytest
from playwright.sync_api import expect

from station.rules.alpha_strike.army import load_army
from station.runtime import Station
from station.web.server import DashboardServer
from tests.test_action_panel_browser import fill_panel
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
        expect(page.locator("#calibrate-link")).to_be_hidden()  # nor a camera to calibrate
        expect(page.locator("#rehearsal")).to_be_hidden()  # no rehearsal hub here: no empty section
        for unit in [u["id"] for u in game.state_view()["units"]]:
            fill_panel(page, "move", unit=unit, mode="ground", inches="4")
            page.locator("#action-do").click()
            expect(page.locator("#feed")).to_contain_text("по замеру судьи")
        page.locator('#controls button[data-input="end_movement"]').click()
        expect(page.locator('#phase-tracker li.current[data-phase="combat"]')).to_be_visible()
        expect(page.locator("#action-input")).to_have_value("attack")  # the panel follows the phase

        attacker = next(u for u in game.state_view()["units"] if u["player"] == game.state_view()["order"][0])
        target = next(u for u in game.state_view()["units"] if u["player"] != attacker["player"])["id"]
        records = game.snapshot()["records"]
        fill_panel(page, "attack", attacker=attacker["id"], target=target)
        preview = page.locator("#action-preview")
        expect(preview).to_contain_text("дистанцию")  # no camera, no range yet: asked for by name
        fill_panel(page, "attack", band="medium", partial_cover=True)
        expect(preview).to_contain_text("частичное укрытие +1")
        expect(preview).to_contain_text("по замеру судьи")
        expected = game.preview(
            "attack", {"attacker": attacker["id"], "target": target, "band": "medium", "partial_cover": True}
        )
        expect(preview).to_contain_text(f"ЦЧ {expected['tn']}")
        assert game.snapshot()["records"] == records  # the previews journaled nothing
        page.locator("#action-do").click()
        expect(page.locator('#feed li.ruling[data-ruling$=":attack"]').first).to_contain_text("Дистанция и укрытие")
        expect(page.locator("#feed .show-measure, #feed a.picture")).to_have_count(0)  # nothing to show on no map
        for control in page.locator("#action-panel button:visible, #action-panel select:visible").all():
            assert control.bounding_box()["height"] >= 44
    attacks = [
        json.loads(line)
        for line in (station.game.journal.path).read_text().splitlines()
        if '"type":"attack"' in line.replace(" ", "")
    ]
    assert [(a["args"]["band"], a["args"]["partial_cover"]) for a in attacks] == [("medium", True)]
    assert attacks[0]["args"]["attacker"] == attacker["id"] and attacks[0]["args"]["target"] == target
