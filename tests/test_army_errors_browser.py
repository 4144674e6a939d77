"""Errors where the referee is looking, in the page's language (issue 49, What 3): a bad field of
the army form is said under that field, in the form's own words («Армия «…»: отряд 1 «…», боец 1:
мощность: …»), scrolled into view, above a save bar of one row; a value past its limit is
refused by the browser at once; an id the new force shares with the army it will meet is said
when it is saved, naming that army; a settings folder that is not a whole path is said under its
field.  At 390 and 320 px."""

import json

import pytest
from playwright.sync_api import expect

from tests.test_dashboard_browser import _page, station_process

pytestmark = pytest.mark.browser
TOKEN = "army-errors-token"
SIZES = [(390, 844), (320, 640)]


def _in_view(page, locator):
    box = locator.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


def _editor(page, url, lang, game, sample):
    page.context.add_cookies([{"name": "lang", "value": lang, "url": url}])
    page.goto(url + f"/lobby?token={TOKEN}")
    page.select_option("#game", game)
    page.locator("#editor > summary").click()
    page.select_option("#editor-from", sample)
    page.locator('#army-form details.fold[data-fold="units[0]"]').wait_for()


def _open(page, *folds):
    """Unfold these items of the form ("units[0]", "units[0].members[0]") as a referee taps them."""
    for where in folds:
        fold = page.locator(f'#army-form details.fold[data-fold="{where}"]')
        if fold.get_attribute("open") is None:
            fold.locator("> summary").click()


@pytest.mark.parametrize("width,height", SIZES)
def test_a_bad_field_is_said_under_it_in_russian_and_in_view(tmp_path, width, height):
    command = ["serve", "--data", str(tmp_path / "data"), "--host", "127.0.0.1"]
    with station_process(tmp_path, command, TOKEN, ready="/api/lobby") as url:
        with _page(url + "/lobby", width=width, height=height) as page:
            _editor(page, url, "ru", "bronepekhota", "sample:blue-protectorate.json")
            page.locator("#editor-name").fill("армия-ивана")
            _open(page, "units[0]", "units[0].members[0]")
            power = page.locator('#army-form input[data-path="units[0].members[0].power"]')
            power.fill("много")
            power.dispatch_event("change")
            page.locator("#editor-save").click()
            note = page.locator("#army-form .field-error")
            expect(note).to_have_count(1)
            said = note.inner_text()
            assert said.startswith("Армия «Ударная группа Торгового Протектората»: отряд 1 «Cyber-infantry"), said
            assert "боец 1" in said and "мощность: «много» — это не кубик; напишите, например, D6" in said, said
            assert not any(word in said for word in ("units[", "members", "dice expression", ".json")), said
            assert _in_view(page, note), "the error is not on the screen"
            bar = page.locator(".editor-actions").bounding_box()  # the sticky Save row hides little
            assert bar["height"] <= height / 8, f"the save bar is {bar['height']:.0f} px of {height}"
            assert power.get_attribute("aria-invalid") == "true"
            assert not (tmp_path / "data" / "armies" / "bronepekhota" / "армия-ивана.json").exists()

            power.fill("2D6")  # put right, saved: the note goes
            power.dispatch_event("change")
            armour = page.locator('#army-form input[data-path="units[0].members[0].armour"]')
            armour.fill("25")
            armour.dispatch_event("change")  # past its limit: said at once, before any save
            expect(note).to_contain_text("броня: 25 — вне пределов: от 0 до 20")
            assert _in_view(page, note)
            requests = []
            page.on("request", lambda r: requests.append(r.url) if "/api/armies" in r.url else None)
            page.locator("#editor-save").click()
            expect(note).to_contain_text("25 — вне пределов")
            assert requests == [], "a value the form knows is wrong was sent"
            armour.fill("3")
            armour.dispatch_event("change")
            expect(note).to_have_count(0)
            page.locator("#editor-save").click()
            expect(page.locator("#editor-done")).to_contain_text("армия-ивана")
            saved = json.loads((tmp_path / "data" / "armies" / "bronepekhota" / "армия-ивана.json").read_text())
            assert saved["units"][0]["members"][0]["armour"] == 3


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_an_id_the_new_force_shares_with_the_army_it_meets_is_said_when_saved(tmp_path, lang):
    """Alpha Strike: the referee's attacker reuses «commando», the defender sample's unit id.  The
    force is saved (it may be meant for another game), and the field says which army has it."""
    command = ["serve", "--data", str(tmp_path / "data"), "--host", "127.0.0.1"]
    with station_process(tmp_path, command, TOKEN, ready="/api/lobby") as url:
        with _page(url + "/lobby", width=390, height=844) as page:
            _editor(page, url, lang, "alpha_strike", "sample:training-day-attacker.json")
            rows = page.locator("#armies select")
            expect(rows).to_have_count(2)
            assert rows.nth(1).input_value() == "sample:training-day-defender.json"
            _open(page, "units[0]")
            unit_id = page.locator('#army-form input[data-path="units[0].id"]')
            unit_id.fill("commando")
            unit_id.dispatch_event("change")
            page.locator("#editor-name").fill("my-attackers")
            page.locator("#editor-save").click()
            expect(page.locator("#editor-done")).to_contain_text("my-attackers")
            note = page.locator("#army-form .field-error")
            expected = {
                "ru": "id «commando» есть и в армии «Учебный день: обороняющиеся»",
                "en": "id 'commando' is also in the army «Учебный день: обороняющиеся»",
            }[lang]
            expect(note).to_contain_text(expected)
            assert _in_view(page, note)
            assert (tmp_path / "data" / "armies" / "alpha_strike" / "my-attackers.json").exists()


def test_a_settings_folder_that_is_not_a_whole_path_is_said_under_its_field(tmp_path):
    command = ["serve", "--data", str(tmp_path / "data"), "--host", "127.0.0.1"]
    with station_process(tmp_path, command, TOKEN, ready="/api/lobby") as url:
        with _page(url + "/settings", width=320, height=640) as page:
            page.context.add_cookies([{"name": "lang", "value": "ru", "url": url}])
            page.goto(url + f"/settings?token={TOKEN}")
            page.locator("#data-folder").fill("media/usb/station")
            page.locator("#move-data").click()
            note = page.locator(".field-error")
            expect(note).to_have_text("укажите путь целиком, от / (например /media/usb/station)")
            assert _in_view(page, note)
            expect(page.locator("#settings-error")).to_have_text("")
