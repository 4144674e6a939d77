"""A referee sets up, plays and reviews a game from a browser, with no command after
``station serve``: a fresh station with a simulated hub, at desktop and phone sizes."""

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from station.devices.hubsim import SimulatedHub
from station.dice import DiceBook
from station.events import Node
from station.rules.registry import make_ruleset
from tests.test_dashboard_browser import CHROMIUM, FLAGS, station_process
from tests.test_lobby import _frames_with_a_model_arriving

TOKEN = "lobby-browser-token"
pytestmark = pytest.mark.browser


def _serve(tmp_path, serial, camera):
    """A fresh ``station serve`` with the simulated hub on ``serial`` and recorded ``camera`` frames."""
    command = ["serve", "--data", str(tmp_path / "data"), "--host", "127.0.0.1", "--serial", serial, "--seed", "4"]
    command += ["--camera", str(camera), "--camera-fps", "10", "--calibration", str(tmp_path / "table.json")]
    return station_process(tmp_path, command, TOKEN, ready="/api/lobby")


RUSSIAN = json.loads(Path("station/web/i18n/ru.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "viewport, lang",
    # English at phone size adds nothing to these two: the flow in English on the desktop, the phone's
    # layout in Russian, and every page in English at 390 px in the crawl (test_phone_pages_browser)
    [((1400, 1000), "en"), ((390, 844), "ru")],
    ids=["desktop", "phone-ru"],
)
def test_a_referee_runs_a_whole_game_from_the_browser(tmp_path, viewport, lang):
    def tr(text, **values):  # what the page says, in the language it was asked for
        return (RUSSIAN.get(text, text) if lang == "ru" else text).format(**values)

    ruleset = make_ruleset("bronepekhota", DiceBook())
    samples = [ruleset.load_army(f"station/data/demo/{name}.json") for name in ("blue-protectorate", "red-polaris")]
    spare = [Node("L77", "launcher", 2), Node("T77", "tilt")]  # two new nodes, wired into the army by pairing
    hub = SimulatedHub(tmp_path / "hub", nodes=[*ruleset.sensor_nodes(samples), *spare]).start()
    try:
        frames = _frames_with_a_model_arriving(tmp_path / "frames")
        with _serve(tmp_path, str(tmp_path / "hub"), frames) as url, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, accept_downloads=True)
            context.add_cookies([{"name": "lang", "value": lang, "url": url}])
            page = context.new_page()
            page.on("dialog", lambda dialog: dialog.accept())
            page.goto(url + f"/?token={TOKEN}")  # no game yet: the station opens its lobby
            expect(page).to_have_url(url + "/lobby")
            expect(page.locator("html")).to_have_attribute("lang", lang)
            expect(page.locator("#role")).to_have_text(tr("referee"))
            expect(page.locator("#no-game")).to_be_visible()
            page.select_option("#game", "bronepekhota")
            expect(page.locator("#armies select")).to_have_count(2)

            # an army built in the form (made from its JSON Schema): the red sample as a template,
            # refused once at the field the server names, then renamed and kept
            page.locator("#editor > summary").click()
            page.select_option("#editor-from", "sample:red-polaris.json")
            expect(page.locator("#editor-text")).to_have_value(
                re.compile('"name": "Штурмовая колонна Империи Полярис"')
            )
            for fold in ("units[0]", "units[0].members[0]"):  # each unit and member folds; open the first
                page.locator(f'#army-form details[data-fold="{fold}"] > summary').click()
            armour = page.locator('#army-form input[data-path="units[0].members[0].armour"]')
            expect(armour).to_have_value("2")
            armour.fill("25")
            armour.dispatch_event("change")
            page.fill("#editor-name", "Моя армия")
            page.click("#editor-save")
            # refused by the browser itself, under the field, in the form's words (no file, no JSON path)
            expect(page.locator("#army-form .field-error")).to_contain_text(
                tr("is {value}; expected {low} to {high}", value=25, low=0, high=20)
            )
            expect(page.locator("#army-form .field-error")).not_to_contain_text("units[0]")
            expect(page.locator('#army-form input[data-path="units[0].members[0].armour"]')).to_have_class(
                re.compile("bad")
            )
            armour = page.locator('#army-form input[data-path="units[0].members[0].armour"]')
            armour.fill("3")
            armour.dispatch_event("change")
            name = page.locator('#army-form input[data-path="name"]')
            name.fill("Полярная колонна")
            name.dispatch_event("change")
            clone = page.locator('#army-form fieldset[data-path="units[0].members[0]"]')
            clone.locator("> select.add-property").select_option("marker")  # an optional field, added
            marker = page.locator('#army-form input[data-path="units[0].members[0].marker.height_mm"]')
            marker.fill("30")
            marker.dispatch_event("change")
            army = json.loads(page.locator("#editor-text").input_value())
            assert army["name"] == "Полярная колонна" and army["units"][0]["members"][0]["armour"] == 3
            assert army["units"][0]["members"][0]["marker"] == {"id": 16, "height_mm": 30}

            # its marker, paired by sight: the model comes under the camera, its crop is offered
            page.click("#wiring-refresh")
            sight = page.locator('#wiring li[data-path=\'["units",0,"members",0,"marker","id"]\']')
            sight.locator("button.pair").click()
            expect(sight.locator("button.pair")).to_have_text(tr("put it under the camera…"))
            expect(sight.locator("img")).to_be_visible(timeout=15000)
            sight.locator("button.use-marker").click()
            expect(page.locator('#army-form input[data-path="units[0].members[0].marker.id"]')).to_have_value("40")
            assert (
                json.loads(page.locator("#editor-text").input_value())["units"][0]["members"][0]["marker"]["id"] == 40
            )

            # pairing: Clone 1's tilt node and the Salamander's launcher, from the hub itself
            page.click("#wiring-refresh")
            clone = page.locator('#wiring li[data-path=\'["units",0,"members",0,"tilt_node"]\']')
            cannon = page.locator('#wiring li[data-path=\'["units",1,"launchers",0,"node"]\']')
            expect(clone).to_contain_text("T31")
            clone.locator("button.pair").click()
            expect(clone.locator("button.pair")).to_have_text(tr("tilt it…"))
            hub.shot("L1")  # a launcher's event does not pair a tilt node
            hub.tilt("T77", "leaning", angle=30)
            expect(clone).to_contain_text("T77")
            cannon.locator("button.pair").click()
            expect(cannon.locator("button.pair")).to_have_text(tr("pull its trigger…"))
            hub.shot("L77")
            expect(cannon).to_contain_text("L77")
            expect(page.locator("#wiring li.bad")).to_have_count(0)  # no conflict, all on the hub
            army = json.loads(page.locator("#editor-text").input_value())
            assert army["units"][0]["members"][0]["tilt_node"] == "T77"
            expect(page.locator('#army-form input[data-path="units[0].members[0].tilt_node"]')).to_have_value("T77")
            assert army["units"][1]["launchers"][0]["node"] == "L77"
            page.click("#editor-save")
            expect(page.locator("#editor-done")).to_contain_text(tr("Saved as {name}.", name="Моя-армия.json"))
            expect(page.locator("#armies select").nth(1)).to_have_value("saved:Моя-армия.json")

            # an option from the game's own declarations: out of its range the server refuses it,
            # naming it, and the form marks it; then a value in range is sent
            page.locator("#options-box summary").click()
            page.fill("#option-hit_window_ms", "5")
            page.click("#start")
            label = page.locator('[data-option="hit_window_ms"] label').inner_text().strip()
            expect(page.locator('[data-option="hit_window_ms"] .field-error')).to_contain_text(f"{label}: ")
            expect(page.locator('[data-option="hit_window_ms"]')).to_have_class(re.compile(r"\bbad\b"))
            expect(page).to_have_url(url + "/lobby")
            page.fill("#option-hit_window_ms", "3000")
            page.click("#start")
            expect(page).to_have_url(url + "/", timeout=10000)
            expect(page.locator("#link")).to_contain_text(tr("hub connected"), timeout=15000)

            # play: the round begins, the hub's launcher fires, a ruling appears
            page.click('[data-input="begin_round"]')
            hub.shot("L1")
            expect(page.locator("#feed li").first).to_be_visible(timeout=10000)
            expect(page.locator("#feed")).to_contain_text("L1", timeout=10000)
            expect(page.locator("#feed")).to_contain_text("fired" if lang == "en" else "выстрел")  # in its language

            # the end: journaled with the note, back to the lobby, in the history with its journal
            page.fill("#end-note", "time called")
            expect(page.locator("#end-winner")).to_be_disabled()  # as the rules ruled: nobody won yet
            page.select_option("#end-result", "concession")
            page.select_option("#end-winner", "red")
            page.click("#end-game")
            expect(page.locator("#game-ended")).to_be_visible()
            expect(page).to_have_url(re.compile(re.escape(url + "/lobby")), timeout=10000)
            expect(page.locator("#ended")).to_contain_text(tr("The game is saved: it is first in the history."))
            row = page.locator("#history li.game-card").first
            expect(row).to_contain_text("Полярная колонна")
            expect(row).to_contain_text(tr("winner by concession: {winner}", winner="red"))
            with page.expect_download() as download:
                row.locator("a.journal").click()
            journal = download.value.path().read_text().splitlines()
            end = json.loads(journal[-1])
            assert end["kind"] == "end" and end["note"] == "time called" and end["by"] == "dashboard"
            assert end["result"] == "concession" and end["winner"] == "red" and end["won_by"] is None
            assert json.loads(journal[0])["options"] == {"hit_window_ms": 3000}
            assert json.loads(journal[0])["armies"][1]["units"][1]["launchers"][0]["node"] == "L77"
            precheck = next(json.loads(line) for line in journal if json.loads(line)["kind"] == "precheck")
            assert not precheck["forced"] and {c["check"] for c in precheck["checks"]} >= {"armies", "hub", "disk"}
            assert any(json.loads(line)["kind"] == "rx" and "SHOT" in json.loads(line)["line"] for line in journal)
            expect(page.locator("#resume")).to_have_count(0)  # an ended game is not offered to resume

            # the replay: it opens at the end; scrubbing to the start empties the rulings, and
            # stepping to the next ruling shows exactly one
            row.locator("a.replay").click()
            expect(page.locator("#ruling-count")).not_to_have_text("0")
            page.click("#first")
            expect(page.locator("#ruling-count")).to_have_text("0")
            page.click("#next-ruling")
            expect(page.locator("#ruling-count")).to_have_text("1")
            expect(page.locator("#replay-summary")).to_contain_text("Бронепехота")
            page.click("#report-link")
            expect(page.locator("h1")).to_have_text("Бронепехота")
            expect(page.locator("body")).to_contain_text("time called")
            expect(page.locator("body")).to_contain_text(tr("Winner by concession: {winner}", winner="red"))
            browser.close()
    finally:
        hub.stop()
