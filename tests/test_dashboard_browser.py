"""The dashboard in headless Chromium during a live demo replay: a ruling appears, spectators
see no controls, and the referee confirms a ruling with the token."""

import contextlib
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
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TOKEN = "browser-test-token"

pytestmark = pytest.mark.browser


@contextlib.contextmanager
def _page(url, height=1000, width=1400):
    """Headless Chromium on ``url``.  A script error on the page fails the test that saw it: one
    broken script (two scripts declaring the same name) silently empties other controls."""
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": width, "height": height})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url)
        yield page
        browser.close()
        assert errors == [], f"script errors on the page: {errors}"


def phone_page(pw, url, lang="ru", width=390, height=844):
    """A phone's page in ``lang`` on the station at ``url``, and the list its script errors go
    to (a test asserts it stays empty).  Close with ``page.context.browser.close()``."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
    context = browser.new_context(viewport={"width": width, "height": height})
    context.add_cookies([{"name": "lang", "value": lang, "url": url}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def station_process(tmp_path, command, token, ready="/api/state"):
    """``station COMMAND ...`` in a subprocess on a free port with the referee ``token``, its
    output in ``<command>.log``; yields its address once ``ready`` answers."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"referee_token": token}))
    port = _free_port()
    log_path = tmp_path / f"{command[0]}.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "station", *command, "--port", str(port), "--config", str(config)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url + ready, timeout=1)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(log_path.read_text()) from None
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def _demo(tmp_path, *extra):
    """``station demo`` in a subprocess, with the referee token; yields its address."""
    return station_process(tmp_path, ["demo", *extra], TOKEN)


@pytest.fixture
def demo(tmp_path):
    with _demo(tmp_path, "--speed", "6", "--journal", str(tmp_path / "demo.jsonl")) as url:
        yield url, tmp_path


def test_dashboard_shows_a_ruling_live_and_the_referee_confirms_it(demo):
    url, tmp_path = demo
    with _page(url + "/") as page:
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
        page.locator(f'#pending li.ruling[data-ruling="{ruling_id}"]').get_by_role(
            "button", name="Confirm"
        ).click()  # by id: the list moves as rulings arrive
        expect(page.locator(f'#feed li.ruling[data-ruling="{ruling_id}"] .meta')).to_contain_text("confirmed")
        page.screenshot(path=str(tmp_path / "dashboard.png"), full_page=True)
    journal = [json.loads(line) for line in (tmp_path / "demo.jsonl").read_text().splitlines()]
    assert any(r["kind"] == "confirm" and r["ruling"] == ruling_id and r["by"] == "dashboard" for r in journal)


def test_measuring_tool_draws_the_line_between_two_bases(tmp_path):
    """Click two bases on the table map: the station measures edge to edge on its latest
    snapshot and the dashboard draws the line and the value in steps (Бронепехота)."""
    import cv2
    import numpy as np

    from station.rules.bronepekhota.army import load_army
    from station.runtime import Station
    from station.vision.geometry import overhead_camera
    from station.vision.sources import open_source
    from station.web.server import DashboardServer
    from tests.sim.synthetic import Scene, SceneMarker, anchor_markers, ideal_calibration, render

    from .conftest import EXAMPLES

    army = json.loads((EXAMPLES / "blue-protectorate.json").read_text())
    army["units"][1]["marker"] = {"id": 20, "size_mm": 30, "height_mm": 40}
    army["units"][2]["marker"] = {"id": 21, "size_mm": 30, "height_mm": 40}
    (tmp_path / "blue.json").write_text(json.dumps(army))
    camera = overhead_camera()
    frames = tmp_path / "frames"
    frames.mkdir()
    scene = Scene(
        camera, anchor_markers() + [SceneMarker(20, 300.0, 300.0, 40.0, 0.0), SceneMarker(21, 700.0, 300.0, 40.0, 0.0)]
    )
    for k in range(3):
        cv2.imwrite(str(frames / f"{k}.png"), render(scene, np.random.default_rng(k))[0])
    station = Station(
        tmp_path / "g.jsonl",
        "bronepekhota",
        [load_army(tmp_path / "blue.json"), load_army(EXAMPLES / "red-polaris.json")],
        {},
    )
    station.attach_camera(open_source(str(frames)), ideal_calibration(camera))
    station.start()
    server = DashboardServer(station, TOKEN, port=0).start()
    try:
        with _page(server.url + "/") as page:
            page.locator('[data-element="gryphon"]').click(timeout=20_000)
            expect(page.locator("#arc-front")).to_have_count(1)  # a picked base shows its front half
            page.locator('[data-element="t-rex"]').click()
            expect(page.locator("#measure-label")).to_contain_text("step")
            # 400 mm apart: gryphon's 100x50 footprint faces +x (reaches 50 mm), t-rex's too: 300 mm = 6 steps
            expect(page.locator("#measure-text")).to_contain_text("6.00 step")
            assert page.locator("#measure-line").count() == 1
    finally:
        server.stop()
        station.stop()


def test_referee_draws_terrain_and_a_selected_model_shows_its_reach(tmp_path):
    """Terrain drawn on the map is saved and journaled; spectators cannot edit; a selected model
    lists its enemies with distance and cover, and a ruling that measured links to its picture."""
    from station.devices import protocol as p
    from station.rules.bronepekhota.army import load_army
    from station.runtime import Station
    from station.web.server import DashboardServer

    from .conftest import EXAMPLES

    station = Station(
        tmp_path / "g.jsonl",
        "bronepekhota",
        [load_army(EXAMPLES / "blue-protectorate.json"), load_army(EXAMPLES / "red-polaris.json")],
        {},
    ).start()
    game = station.game
    game.set_terrain(
        {
            "format": "station-terrain/1",
            "pieces": [
                {
                    "id": "wall",
                    "type": "building",
                    "height_mm": 150,
                    "polygon": [[590, 100], [610, 100], [610, 500], [590, 500]],
                }
            ],
        }
    )
    units = [
        ("gryphon", 300, 300, 0),
        ("salamander", 401, 300, 180),
        ("varan", 900, 300, 180),
        ("clone-1", 300, 700, 270),
    ]
    game.operator_input("begin_round")
    game.observe_table(
        {
            "table_mm": [1200, 900],
            "units": [
                {"element": e, "x_mm": x, "y_mm": y, "facing_deg": f, "status": "up", "confidence": 1.0}
                for e, x, y, f in units
            ],
        }
    )
    shot = p.Shot(1, "L1", 1, "shell", 1, 1000)  # gryphon fires while touching salamander: refused (§6.2)
    game.observe(game.journal.append("rx", line=p.encode(shot).decode().strip(), verdict="event"))
    server = DashboardServer(station, TOKEN, port=0).start()
    try:
        with _page(server.url + "/", height=1100) as page:
            expect(page.locator('polygon[data-piece="wall"]')).to_have_count(1, timeout=20_000)
            expect(page.locator("#terrain-edit")).to_be_hidden()  # spectators only look

            page.locator('[data-element="gryphon"]').click()
            expect(page.locator("#reach")).to_be_visible()
            expect(page.locator("#reach-rings")).to_contain_text("may move 5.0 steps")
            expect(page.locator('#reach-targets tr[data-target="varan"]')).to_contain_text("not visible")
            expect(page.locator('#reach-targets tr[data-target="clone-1"]')).to_contain_text("fully visible")
            expect(page.locator("#table-map polygon.ring")).to_have_count(
                3
            )  # the move, and the cannon's D12: 1 and 12 steps
            expect(page.locator("#reach-rings")).to_contain_text("Cannon D12: may hit within 12 steps")
            expect(page.locator("#arc-front")).to_have_count(1)

            picture = page.locator("#feed a.picture").first
            expect(picture).to_be_visible()
            assert "<line" in page.request.get(server.url + picture.get_attribute("href")).text()

            page.goto(server.url + f"/?token={TOKEN}")
            expect(page.locator("#role")).to_have_text("referee")
            page.locator("#terrain-edit").click()
            page.locator("#terrain-new").click()
            corners = [(100, 800), (250, 800), (250, 650), (100, 650)]
            for x, y in corners:
                sx, sy = page.evaluate(
                    """([x, y]) => {
                    const map = document.getElementById('table-map'); const pt = map.createSVGPoint();
                    pt.x = x; pt.y = 900 - y; const s = pt.matrixTransform(map.getScreenCTM());
                    return [s.x, s.y]; }""",
                    [x, y],
                )
                page.mouse.click(sx, sy)
            expect(page.locator("#table-map circle.draft-point")).to_have_count(4)
            page.fill("#terrain-id", "crater")
            page.select_option("#terrain-type", "hill")
            page.fill("#terrain-height", "80")
            page.locator("#terrain-finish").click()
            page.locator("#terrain-save").click()
            expect(page.locator('polygon[data-piece="crater"]')).to_have_count(1, timeout=10_000)
            expect(page.locator("#terrain-editor")).to_be_hidden()
    finally:
        server.stop()
        station.stop()
    records = [json.loads(line) for line in (tmp_path / "g.jsonl").read_text().splitlines()]
    saved = [r for r in records if r["kind"] == "terrain"][-1]
    assert saved["by"] == "dashboard" and [piece["id"] for piece in saved["pieces"]] == ["wall", "crater"]
    crater = saved["pieces"][1]
    assert crater["type"] == "hill" and crater["height_mm"] == 80
    for (x, y), (cx, cy) in zip(crater["polygon"], corners):
        assert abs(x - cx) < 2 and abs(y - cy) < 2  # clicked on screen, stored in table millimetres


def test_referee_declares_a_virtual_shot_from_the_selected_model(tmp_path):
    """§7 on the dashboard: select the shooter, press Fire on an enemy's row; the ruling gives the
    measured distance, the dice and the result, and the journal holds the input and the dice."""
    from station.rules.bronepekhota.army import load_army
    from station.runtime import Station
    from station.web.server import DashboardServer

    from .conftest import EXAMPLES

    station = Station(
        tmp_path / "g.jsonl",
        "bronepekhota",
        [load_army(EXAMPLES / "blue-protectorate.json"), load_army(EXAMPLES / "red-polaris.json")],
        {"shooting": "virtual"},
        seed=3,
    ).start()
    game = station.game
    game.operator_input("begin_round")
    game.operator_input("set_order", {"order": ["blue", "red"]})
    game.observe_table(
        {
            "table_mm": [1200, 900],
            "units": [
                {"element": e, "x_mm": x, "y_mm": y, "facing_deg": f, "status": "up", "confidence": 1.0}
                for e, x, y, f in [("cyber-2", 300, 300, 0), ("clone-3", 450, 300, 180)]
            ],
        }
    )
    server = DashboardServer(station, TOKEN, port=0).start()
    try:
        with _page(server.url + f"/?token={TOKEN}") as page:
            expect(page.locator("#role")).to_have_text("referee")
            page.locator('[data-element="cyber-2"]').click(timeout=20_000)
            expect(page.locator("#virtual-tools")).to_be_visible()
            expect(page.locator("#reach-weapon")).to_contain_text("D6+2/2D6")
            page.fill("#dice-values", "1 1 1")  # dice rolled at the table: range 1, power 1 and 1
            page.locator("#dice-form button[type=submit]").click()
            expect(page.locator("#dice-waiting")).to_contain_text("D6: 1, 1, 1")
            page.locator('#reach-targets tr[data-target="clone-3"] button.fire').click()
            expect(page.locator("#feed li.ruling").first).to_contain_text("fires personal weapon", timeout=10_000)
            expect(page.locator("#feed li.ruling").first).to_contain_text("rolled 1 → 3")
            expect(page.locator("#dice-waiting")).to_have_text("")
            expect(page.locator("#measure-text")).to_contain_text("steps counted 3")
    finally:
        server.stop()
        station.stop()
    records = [json.loads(line) for line in (tmp_path / "g.jsonl").read_text().splitlines()]
    assert any(r["kind"] == "input" and r["type"] == "virtual_shot" and r["by"] == "dashboard" for r in records)
    assert any(r["kind"] == "dice" and "/virtual/range/" in r["key"] and r.get("physical") for r in records)


def test_the_quick_rules_play_on_the_same_dashboard(tmp_path):
    """The quick rules' recorded session on the dashboard: its own referee buttons, the models'
    cards, and the victory ruling."""
    with (
        _demo(
            tmp_path,
            "--speed",
            "8",
            "--session",
            "station/data/quick/session.json",
            "--journal",
            str(tmp_path / "q.jsonl"),
        ) as url,
        _page(url + f"/?token={TOKEN}") as page,
    ):
        expect(page.locator("#role")).to_have_text("referee")
        expect(page.locator('#controls button[data-input="roll_off"]')).to_be_visible()
        expect(page.locator('#controls button[data-input="end_turn"]')).to_be_visible()
        assert page.locator("#activate").count() == 0  # no activations in the quick rules
        expect(page.locator('article[data-unit="walker"]')).to_be_visible()
        expect(page.locator("#feed")).to_contain_text("blue wins", timeout=30_000)


def test_training_day_is_played_on_the_dashboard(tmp_path):
    """Alpha Strike from the dashboard with a simulated table snapshot: the cards with their pips,
    the phase tracker, initiative and moves declared, the attack wizard's TN and chance, the
    players' own dice, the End Phase, and Training Day's victory."""
    with (
        _demo(
            tmp_path,
            "--speed",
            "4",
            "--session",
            "tests/data/sessions/training-day-table.json",
            "--journal",
            str(tmp_path / "td.jsonl"),
        ) as url,
        _page(url + f"/?token={TOKEN}", height=1400) as page,
    ):
        expect(page.locator("#role")).to_have_text("referee")
        card = page.locator('article[data-unit="thunderbolt"]')
        expect(card.locator('[data-pips="armour"] i.pip.on')).to_have_count(7)
        expect(card.locator('[data-pips="structure"] i.pip.on')).to_have_count(6)
        expect(card).to_contain_text("Damage S 3 / M 3 / L 2")
        expect(page.locator('#phase-tracker li[data-phase="initiative"]')).to_have_class("current")

        def dice(values):
            page.fill("#dice-values", values)
            page.locator("#dice-form button[type=submit]").click()
            expect(page.locator("#dice-waiting")).to_contain_text(values.replace(" ", ", "))

        def control(name):
            page.locator(f'#controls button[data-input="{name}"]').click()

        page.locator('[data-element="catapult"]').wait_for(timeout=20_000)  # the table snapshot arrived
        dice("4 5 2 3")
        control("roll_initiative")
        expect(page.locator('#phase-tracker li[data-phase="movement"]')).to_have_class("current")
        expect(page.locator("#phase-tracker")).to_contain_text("due: defender")
        for unit in ("thunderbolt", "catapult", "commando", "locust"):  # declared from the action panel
            page.select_option("#action-input", "move")
            page.select_option('#action-args [data-arg="unit"]', unit)
            page.select_option('#action-args [data-arg="mode"]', "still")
            page.locator("#action-do").click()
            expect(page.locator("#feed li.ruling").first).to_contain_text(f"({unit}) stands still")
        control("end_movement")
        expect(page.locator('#phase-tracker li[data-phase="combat"]')).to_have_class("current")

        page.locator('[data-element="catapult"]').click()
        row = page.locator('#reach-targets tr[data-target="thunderbolt"]')
        expect(row).to_contain_text("TN 7 · 58 %")  # skill 3, still -1, woods +1, long +4; 21 of 36
        expect(row).to_contain_text("24.48 inch")
        row.locator("summary").click()
        expect(row).to_contain_text('long (0.48" in, 17.52" to spare)')
        dice("6 6 6 6")  # a natural double six, and the critical roll it earns: 12, destroyed
        row.locator("button.attack").click()
        expect(page.locator("#feed li.ruling").first).to_contain_text("unit destroyed", timeout=10_000)
        expect(page.locator('article[data-unit="thunderbolt"] [data-crit="engine"]')).to_be_visible()
        control("end_turn")
        expect(page.locator("#feed")).to_contain_text("attacker wins", timeout=10_000)
        expect(page.locator('article[data-unit="thunderbolt"]')).to_contain_text("destroyed")
    records = [json.loads(line) for line in (tmp_path / "td.jsonl").read_text().splitlines()]
    assert [r["type"] for r in records if r["kind"] == "input" and r["by"] == "dashboard"][:2] == [
        "roll_initiative",
        "move",
    ]


def test_the_price_of_a_mile_shooting_helper_on_the_dashboard(tmp_path):
    """The Price of a Mile played to its end on the dashboard with a simulated table snapshot (a
    one-turn game): table d10s, the initiative, squads activated, the command-distance links, the
    shooting helper's legal targets and odds, a shot, and the victory points."""
    with (
        _demo(
            tmp_path,
            "--speed",
            "4",
            "--session",
            "tests/data/sessions/price-of-a-mile-table.json",
            "--journal",
            str(tmp_path / "pm.jsonl"),
        ) as url,
        _page(url + f"/?token={TOKEN}", height=1400) as page,
    ):
        expect(page.locator("#role")).to_have_text("referee")
        page.locator('[data-element="p1"]').wait_for(timeout=20_000)

        def dice(values):
            page.select_option("#dice-sides", "10")
            page.fill("#dice-values", values)
            page.locator("#dice-form button[type=submit]").click()
            expect(page.locator("#dice-waiting")).to_contain_text("D10: " + values.replace(" ", ", "))

        dice("5 3")
        page.locator('#controls button[data-input="roll_initiative"]').click()
        expect(page.locator("#feed li.ruling").first).to_contain_text("entente activates first")
        page.select_option("#activate-unit", "poilus")
        page.locator("#activate").click()
        expect(page.locator("#feed li.ruling").first).to_contain_text("entente activates squad poilus")
        expect(page.locator("#table-map line.link").first).to_be_attached()  # the squads' command distance
        page.locator('[data-element="p1"]').click()
        expect(page.locator('#reach-targets tr[data-target="l2"]')).to_contain_text("7+ · 1d10 +1 · 50 % a die")
        expect(page.locator('#reach-targets tr[data-target="l5"]')).to_contain_text(
            "no attack"
        )  # not among the 3 nearest
        dice("6 5")
        page.locator('#reach-targets tr[data-target="l2"] button.attack').click()
        expect(page.locator("#feed li.ruling").first).to_contain_text("p1 fires rifle at landser", timeout=10_000)
        expect(page.locator("#feed li.ruling").first).to_contain_text("l1 out")
        for squad in (
            "landser",
            "grenadiers",
            "mg-crew",
            "capitaine",
            "sturm",
            "leutnant",
            None,
        ):  # the rest of the turn
            page.locator('#controls button[data-input="end_activation"]').click()
            if squad:
                expect(page.locator("#activate-unit")).to_contain_text(squad)
                page.select_option("#activate-unit", squad)
                page.locator("#activate").click()
                named = squad if squad in ("capitaine", "leutnant") else f"squad {squad}"  # characters act alone
                expect(page.locator("#feed li.ruling").first).to_contain_text(f"activates {named}")
        expect(page.locator("#feed")).to_contain_text("Game over: victory points entente 10, central 0; entente wins")


def test_steel_warriors_fire_helper_on_the_dashboard(tmp_path):
    """Steel Warriors on the dashboard with the recorded skirmish's table: a turn begun, a squad
    activated, the fire helper's dice and odds, a volley fired with the table's dice, and the
    suppression marker it leaves."""
    with (
        _demo(
            tmp_path,
            "--speed",
            "4",
            "--session",
            "tests/data/sessions/steel-warriors-table.json",
            "--journal",
            str(tmp_path / "sw.jsonl"),
        ) as url,
        _page(url + f"/?token={TOKEN}", height=1400) as page,
    ):
        expect(page.locator("#role")).to_have_text("referee")
        page.locator('[data-element="u1"]').wait_for(timeout=20_000)
        page.locator('#controls button[data-input="begin_turn"]').click()
        page.select_option("#activate-unit", "recruits")
        page.locator("#activate").click()
        expect(page.locator("#feed li.ruling").first).to_contain_text("steel activates recruits")
        page.locator('[data-element="u1"]').click()
        row = page.locator('#reach-targets tr[data-target="k1"]')
        expect(row).to_contain_text("d6 + d4 + d8 v d8")  # 10": zone 2, so the SMGs stay out; the bushes +1
        for sides, values in (("6", "1"), ("4", "1"), ("8", "7 5")):  # the LMG's 7 alone beats the partisans' 5
            page.select_option("#dice-sides", sides)
            page.fill("#dice-values", values)
            page.locator("#dice-form button[type=submit]").click()
            expect(page.locator("#dice-waiting")).to_contain_text(f"D{sides}: " + values.replace(" ", ", "))
        row.locator("button.attack").click()
        expect(page.locator("#feed li.ruling").first).to_contain_text("recruits fires at partisans")
        expect(page.locator("#feed li.ruling").first).to_contain_text("against d8 5: suppressed")
        expect(page.locator('article[data-unit="partisans"] [data-marker="suppressed 1"]')).to_be_visible()
        page.locator('#controls button[data-input="end_activation"]').click()  # and the rest of the turn
        expect(page.locator("#feed li.ruling").first).to_contain_text("Squad recruits ends its activation")
        page.select_option("#activate-unit", "partisans")
        page.locator("#activate").click()
        expect(page.locator("#feed li.ruling").first).to_contain_text("suppressed (1): only observation")
        page.locator('#controls button[data-input="end_activation"]').click()
        expect(page.locator("#feed li.ruling").first).to_contain_text("Squad partisans ends its activation")
        expect(page.locator("#activate-unit option")).to_have_count(0)  # nobody left to act this turn


def test_a_full_disk_shows_an_alert_and_clears_when_space_returns(tmp_path, small_disk, armies):
    """Issue 9: the journal's disk fills mid-game (a real 1 MB tmpfs); everyone watching sees why
    the station takes no input, and the alert goes once space is freed."""
    from station.runtime import Station
    from station.web.server import DashboardServer

    from .conftest import fill

    station = Station(small_disk / "game.jsonl", "bronepekhota", armies, {}, journal_reserve=64 * 1024).start()
    server = DashboardServer(station, TOKEN, port=0).start()
    try:
        with _page(server.url + "/") as page:
            expect(page.locator("#journal-alert")).to_be_hidden()
            filler = fill(small_disk)
            station.game.operator_input("begin_round")  # its record and dice land on the reserve
            alert = page.locator("#journal-alert")
            expect(alert).to_be_visible(timeout=10_000)
            expect(alert).to_contain_text("journal full")
            expect(alert).to_contain_text("inputs refused")
            filler.unlink()
            expect(alert).to_be_hidden(timeout=10_000)
    finally:
        server.stop()
        station.stop()


def test_rulings_name_models_as_the_army_does_in_both_languages(tmp_path):
    """The journal says "gryphon (blue) activated." (the id); the page says the army's name."""
    with _demo(tmp_path, "--speed", "3", "--journal", str(tmp_path / "demo.jsonl")) as url:
        for lang, said in (("ru", "Gryphon (blue) — активация."), ("en", "Gryphon (blue) activated.")):
            with _page(url) as page:
                page.context.add_cookies([{"name": "lang", "value": lang, "url": url}])
                page.reload()
                expect(page.locator("#feed")).to_contain_text(said, timeout=30_000)
                texts = page.locator("#feed li.ruling .text").all_inner_texts()
                assert not [t for t in texts if t.startswith(("gryphon ", "clones ", "varan "))], texts
        journal = [json.loads(line) for line in (tmp_path / "demo.jsonl").read_text().splitlines()]
        assert "gryphon (blue) activated." in [r["ruling"]["text"] for r in journal if r["kind"] == "ruling"]


def test_the_referee_declares_a_mission_and_its_completion_ends_the_game_in_russian(tmp_path):
    """Бронепехота §1.1, §12.1 on a Russian page: the referee declares blue's mission from the
    dashboard, then its completion; the banner says who won and by which condition."""
    from station.rules.bronepekhota.army import load_army
    from station.runtime import Station
    from station.web.server import DashboardServer

    from .conftest import EXAMPLES

    station = Station(
        tmp_path / "g.jsonl",
        "bronepekhota",
        [load_army(EXAMPLES / "blue-protectorate.json"), load_army(EXAMPLES / "red-polaris.json")],
        {},
        seed=3,
    ).start()
    server = DashboardServer(station, TOKEN, port=0).start()
    try:
        with _page(server.url + f"/?token={TOKEN}", height=900, width=400) as page:
            page.context.add_cookies([{"name": "lang", "value": "ru", "url": server.url}])
            page.reload()
            expect(page.locator("#mission-picker")).to_be_visible(timeout=20_000)
            page.select_option("#mission-player", "blue")
            page.select_option("#mission-objective", "command_vehicle")
            expect(page.locator("#mission-target-label")).to_be_visible()
            expect(page.locator("#mission-target")).to_contain_text("Salamander")
            page.select_option("#mission-target", "varan")
            page.locator("#mission-declare").click()
            expect(page.locator("#feed li.ruling").first).to_contain_text("Миссия blue: уничтожить", timeout=10_000)
            page.locator("#mission-complete").click()
            expect(page.locator("#winner")).to_contain_text(
                "Игра окончена: победил blue: выполнил миссию", timeout=10_000
            )
            expect(page.locator("#winner")).to_contain_text("уничтожить командную машину противника")
    finally:
        server.stop()
        station.stop()
    records = [json.loads(line) for line in (tmp_path / "g.jsonl").read_text().splitlines()]
    assert [r["args"]["player"] for r in records if r["kind"] == "input" and r["type"] == "mission_complete"] == [
        "blue"
    ]
