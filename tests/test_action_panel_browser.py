"""The action panel (issue 48): every input a game declares, its arguments drawn from their kinds,
on a Russian phone with no camera.  The Price of a Mile's shot and Steel Warriors' fire, which
could not be made from the page at all, are made with the referee's tape; a missing argument is
refused naming it, and the journal replays to the same rulings."""

import pytest
from playwright.sync_api import expect

from station.fold import fold
from station.journal import read_records
from station.runtime import Station
from station.web.server import DashboardServer
from tests.test_dashboard_browser import TOKEN, _page
from tests.test_price_of_a_mile import DATA as MILE
from tests.test_steel_warriors import DATA as WAR

pytestmark = pytest.mark.browser


def _served(tmp_path, game, armies):
    station = Station(tmp_path / "game.jsonl", game, armies, {}, seed=3).start()
    return station, DashboardServer(station, TOKEN, port=0).start()


def _russian_phone(page, url):
    page.context.add_cookies([{"name": "lang", "value": "ru", "url": url}])
    page.goto(url + f"/?token={TOKEN}")
    expect(page.locator("#role")).to_have_text("судья")


def fill_panel(page, input_type, **values):
    """The action panel's input and fields, filled as the referee fills them (not sent)."""
    if page.locator("#action-input").input_value() != input_type:
        page.locator("#action-input").select_option(input_type)
    for name, value in values.items():
        control = page.locator(f'#action-args [data-arg="{name}"]')
        if control.get_attribute("data-kind") == "flag":
            control.check()
        elif control.evaluate("e => e.tagName") == "SELECT":
            control.select_option(value)
        else:
            control.fill(str(value))


def _act(page, input_type, **values):
    fill_panel(page, input_type, **values)
    page.locator(f'#action-do[data-input="{input_type}"]').click()


def test_the_price_of_a_mile_shoots_from_the_panel_with_the_referees_tape(tmp_path):
    from station.rules.price_of_a_mile.army import load_army

    station, server = _served(
        tmp_path, "price_of_a_mile", [load_army(MILE / "entente.json"), load_army(MILE / "central.json")]
    )
    try:
        game = station.game
        game.operator_input("roll_initiative", {})
        first = game.state_view()["order"][0]
        squad = next(u for u in game.state_view()["units"] if u["player"] == first and len(u["elements"]) > 1)
        enemy = next(u for u in game.state_view()["units"] if u["player"] != first)
        with _page(server.url + "/", width=390, height=844) as page:
            _russian_phone(page, server.url)
            expect(page.locator("#action-input")).to_contain_text("стрельба (§6)")
            _act(page, "activate", squad=squad["id"])
            expect(page.locator("#feed")).to_contain_text(squad["id"])
            shooter, target = squad["elements"][0]["id"], enemy["elements"][0]["id"]
            _act(page, "shoot", shooter=shooter, target=target)  # no distance: asked for by name
            expect(page.locator("#action-said")).to_contain_text("укажите расстояние в дюймах")
            _act(page, "shoot", distance="14.5", cover=True)
            expect(page.locator("#action-said")).to_contain_text("по рулетке судьи")
            for control in page.locator("#action-panel select:visible, #action-panel button:visible").all():
                assert control.bounding_box()["height"] >= 44
        shot = next(r for r in game.snapshot()["rulings"] if r["kind"] == "shot" and not r.get("refused"))
        assert shot["details"]["measured_by"] == "referee" and shot["details"]["cover"]
        inputs = [r for r in read_records(station.journal.path) if r["kind"] == "input" and r["type"] == "shoot"]
        assert inputs[-1]["args"] == {"shooter": shooter, "target": target, "distance": 14.5, "cover": True}
    finally:
        server.stop()
        station.stop()
    assert fold(read_records(station.journal.path)).state_json() == station.game.state_json()


def test_a_missing_argument_is_named_and_focused_and_nothing_is_journaled(tmp_path):
    from station.rules.steel_warriors.army import load_army

    station, server = _served(tmp_path, "steel_warriors", [load_army(WAR / "steel.json"), load_army(WAR / "keno.json")])
    try:
        game = station.game
        with _page(server.url + "/", width=390, height=844) as page:
            _russian_phone(page, server.url)
            records = game.snapshot()["records"]
            page.locator("#action-input").select_option("set_morale")
            page.locator('#action-args [data-arg="morale"]').select_option("shaken")
            page.locator('#action-args [data-arg="squad"]').evaluate("s => { s.value = ''; }")
            page.locator("#action-do").click()
            expect(page.locator("#control-error")).to_contain_text("squad: нужно указать")
            box = page.locator("#control-error").bounding_box()  # said where the referee looks
            # (within a pixel: scrolling to the nearest edge leaves a fraction of one, 844.06 in CI)
            assert 0 <= box["y"] and box["y"] + box["height"] <= 844 + 1, box
            assert game.snapshot()["records"] == records
    finally:
        server.stop()
        station.stop()


def test_the_panel_previews_follows_the_game_to_the_blast_and_picks_from_the_cards(tmp_path):
    """A grenade with no camera, made the way a referee makes it: the panel opens on what fits now
    (activate), the thrower is picked by tapping its card, the preview says the dice before the
    tap, and after the throw the panel moves on to laying the template (Blast)."""
    from station.rules.price_of_a_mile.army import load_army

    station, server = _served(
        tmp_path, "price_of_a_mile", [load_army(MILE / "entente.json"), load_army(MILE / "central.json")]
    )
    try:
        game = station.game
        game.enter_dice(10, [9, 1])  # the table's initiative roll: the entente goes first
        game.operator_input("roll_initiative", {})
        with _page(server.url + "/", width=390, height=844) as page:
            _russian_phone(page, server.url)
            expect(page.locator("#action-input")).to_have_value("activate")  # what fits between activations
            page.locator('#units [data-unit="grenadiers"] h3').click()  # the card picks the squad
            expect(page.locator('#action-args [data-arg="squad"]')).to_have_value("grenadiers")
            page.locator("#action-do").click()
            expect(page.locator("#action-input")).to_have_value("move")  # the activation's orders now
            page.locator("#action-input").select_option("grenade")
            page.locator('#units [data-model="g2"]').click()
            expect(page.locator('#action-args [data-arg="thrower"]')).to_have_value("g2")
            page.locator('#action-args [data-arg="distance"]').fill("9")
            expect(page.locator("#action-preview")).to_contain_text("граната летит на 6")  # refused, before the tap
            page.locator('#action-args [data-arg="distance"]').fill("4")
            page.locator('#action-args [data-arg="difficult"]').check()
            expect(page.locator("#action-preview")).to_contain_text("Бросок: d12 + d6")
            records = game.snapshot()["records"]
            assert not [r for r in read_records(station.journal.path) if r.get("type") == "grenade"]
            page.locator("#action-do").click()
            expect(page.locator("#action-said")).to_contain_text("Положите туда шаблон")
            expect(page.locator("#action-input")).to_have_value("blast")  # the template waits to be laid
            assert game.snapshot()["records"] > records
            enemy = page.locator('#action-args [data-arg="under"]')
            enemy.select_option(["l1", "l2"])
            page.locator("#action-do").click()
            expect(page.locator("#action-said")).to_contain_text("положен судьёй")
        assert game.inputs_now()[0] == "move"  # the template laid, the orders go on
    finally:
        server.stop()
        station.stop()
    assert fold(read_records(station.journal.path)).state_json() == station.game.state_json()


def test_with_a_camera_on_the_table_the_panel_asks_only_for_what_it_cannot_measure(tmp_path):
    """The same shot with a camera (a synthetic table snapshot): the distance and cover fields
    are folded away, shooter and target are tapped on the map, the shot is taken from the
    camera's positions, and the ruling is the camera's (no measured_by); the referee's measures
    stay reachable for a model it cannot see."""
    from station.rules.price_of_a_mile.army import load_army
    from tests.test_price_of_a_mile import LAYOUT

    station, server = _served(
        tmp_path, "price_of_a_mile", [load_army(MILE / "entente.json"), load_army(MILE / "central.json")]
    )
    try:
        game = station.game
        game.observe_table(
            {
                "table_mm": [1200, 900],
                "residual_mm": 0.3,
                "units": [
                    {"element": e, "x_mm": x, "y_mm": y, "facing_deg": f, "status": "up"}
                    for e, (x, y, f) in LAYOUT.items()
                ],
            }
        )
        game.enter_dice(10, [9, 1])
        game.operator_input("roll_initiative", {})
        game.operator_input("activate", {"squad": "poilus"})
        with _page(server.url + "/", width=390, height=844) as page:
            _russian_phone(page, server.url)
            page.locator("#action-input").select_option("shoot")
            expect(page.locator('#action-args > label [data-arg="shooter"]')).to_be_visible()
            for measure in ("distance", "cover", "prepared"):
                expect(page.locator(f'#action-args [data-arg="{measure}"]')).to_be_hidden()  # folded away
            expect(page.locator("#action-args details.taped summary")).to_have_text(
                "вручную, если камера не видит модель"
            )
            page.locator('#table-map [data-element="p5"]').first.click()  # the shooter, tapped on the map
            page.locator('#table-map [data-element="l5"]').first.click()  # then the target
            expect(page.locator('#action-args [data-arg="shooter"]')).to_have_value("p5")
            expect(page.locator('#action-args [data-arg="target"]')).to_have_value("l5")
            expect(page.locator("#action-preview")).to_contain_text("d10")  # the odds, from the camera
            page.locator("#action-do").click()
            expect(page.locator("#action-said")).not_to_be_empty()
        shot = next(r for r in game.snapshot()["rulings"] if r["id"].endswith(":shot"))
        assert not shot.get("refused") and "measured_by" not in shot["details"], shot
        assert "need" in shot["details"] and shot["details"]["shooter"] == "p5"  # ruled on the camera's range
    finally:
        server.stop()
        station.stop()
