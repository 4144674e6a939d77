"""Every page of the station on a phone, in both languages, with a game of each kind running:
nothing scrolls sideways at 390 or 320 px, every control is finger-sized, a Russian page says
nothing in English but names, and axe-core finds no serious or critical accessibility violation
(tests/phone_check.py says exactly what is checked).  The pages are seen as a night brings them:
the lobby with an error under a field of the army form, the dashboard after a shot, an override
and a move, the replay and the report with their state, in sentences."""

import json
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import sync_playwright

from station.devices.hubsim import SimulatedHub
from station.dice import DiceBook
from station.rules.registry import make_ruleset
from tests.conftest import ROOT, first_pending, referee_call
from tests.phone_check import accessibility, army_names, problems
from tests.test_dashboard_browser import CHROMIUM, FLAGS, station_process

TOKEN = "phone-pages-token"
DATA = ROOT / "station" / "data"
GAMES = {
    "bronepekhota": ["sample:blue-protectorate.json", "sample:red-polaris.json"],
    "alpha_strike": ["sample:training-day-attacker.json", "sample:training-day-defender.json"],
    "bronepekhota_quick": ["sample:blue-patrol.json", "sample:red-raiders.json"],
    "steel_warriors": ["sample:steel.json", "sample:keno.json"],
    "price_of_a_mile": ["sample:entente.json", "sample:central.json"],
}
FIRST_INPUT = {  # what begins play in each game, so the page shows a round under way
    "bronepekhota": "begin_round",
    "alpha_strike": "roll_initiative",
    "bronepekhota_quick": "roll_off",
    "steel_warriors": "begin_turn",
    "price_of_a_mile": "roll_initiative",
}
MOVES = {"alpha_strike": "unit", "price_of_a_mile": "base", "steel_warriors": "squad"}  # the mover's argument
SIZES = [(390, 844), (320, 640)]
NAMES = army_names([*DATA.glob("*/*.json")])

pytestmark = pytest.mark.browser
# two animation frames: the layout after a load or a resize has been done and painted
SETTLED = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"


def _look(browser, url, path, prepare=lambda page: None):
    """Every size and language of one page: the problems found, each prefixed with where.  A page
    is opened once a language, at the widest size, then narrowed: what ``prepare`` opened stays
    open at every size."""
    found = []
    for lang in ("ru", "en"):
        context = browser.new_context(viewport={"width": SIZES[0][0], "height": SIZES[0][1]})
        context.add_cookies([{"name": "lang", "value": lang, "url": url}])
        page = context.new_page()
        page.goto(url + path + ("&" if "?" in path else "?") + f"token={TOKEN}")
        page.wait_for_load_state("networkidle")
        prepare(page)
        for k, (width, height) in enumerate(SIZES):
            if k:
                page.set_viewport_size({"width": width, "height": height})
            page.evaluate(SETTLED)
            found += [f"{path} {width}px {lang}: {p}" for p in problems(page, lang, NAMES)]
        if lang == "ru":  # axe-core once a page: it does not depend on the size
            found += [f"{path} axe: {p}" for p in accessibility(page)]
        context.close()
    return found


def _open_everything(page):
    """The lobby with its editor, a folded unit and the options open, and an error under a field
    of the army form: the longest it gets, with what a referee reads when a value is wrong."""
    if page.locator("#editor > summary").is_visible():
        page.locator("#editor > summary").click()
        page.locator("#army-form details.fold > summary").first.wait_for()
        page.locator("#army-form details.fold > summary").first.click()
        page.locator("#options-box > summary").click()
        limited = page.locator("#army-form input[type=number][max]:visible").first
        limited.fill(str(float(limited.get_attribute("max")) + 5))
        limited.dispatch_event("change")
        page.locator("#army-form .field-error").wait_for()


def _override_and_move(url, game, shot):
    """The referee overrides the first pending ruling (with a note in Russian) and, where the game
    takes a move from the referee, moves the first unit of the side to act three inches.  Only a
    hub's ``shot`` is waited for: what an input rules is there when its answer comes."""
    pending = first_pending(url, timeout=10.0 if shot else 0.0)
    if pending:
        verdicts = referee_call(url, f"/api/rulings/{pending}/verdicts", TOKEN, method="GET")["verdicts"]
        if verdicts:
            body = {"verdict": verdicts[0]["verdict"], "note": "судья видел сам"}
            referee_call(url, f"/api/rulings/{pending}/override", TOKEN, body)
    if game in MOVES:
        state = json.loads(urllib.request.urlopen(url + "/api/state", timeout=5).read())["state"]
        mover = next(u for u in state["units"] if u["player"] == (state["active_player"] or u["player"]))
        try:
            referee_call(url, "/api/input", TOKEN, {"type": "move", "args": {MOVES[game]: mover["id"], "inches": 3}})
        except urllib.error.HTTPError:
            pass  # not this unit's turn to move: the page shows the game as it stands


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_page_fits_a_phone_in_both_languages(tmp_path, game):
    ruleset = make_ruleset(game, DiceBook())
    armies = [ruleset.load_army(str(next(DATA.glob(f"*/{name.split(':')[1]}")))) for name in GAMES[game]]
    hub = SimulatedHub(tmp_path / "hub", nodes=ruleset.sensor_nodes(armies)).start()
    command = ["serve", "--data", str(tmp_path / "data"), "--host", "127.0.0.1", "--serial", str(tmp_path / "hub")]
    command += ["--updates", str(tmp_path / "versions")]  # as the image runs it: the settings page offers updates
    found = []
    try:
        with station_process(tmp_path, [*command, "--seed", "4"], TOKEN, ready="/api/lobby") as url:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                if game == min(GAMES):  # before any game: the same for every game, so looked at once
                    found += _look(browser, url, "/lobby", _open_everything)
                    found += _look(browser, url, "/settings")
                started = referee_call(
                    url, "/api/games", TOKEN, {"game": game, "armies": GAMES[game], "force": True, "note": "test"}
                )
                referee_call(url, "/api/input", TOKEN, {"type": FIRST_INPUT[game]})
                launchers = [n.id for n in ruleset.sensor_nodes(armies) if n.kind == "launcher"]
                if launchers:  # a shot: the rulings and the referee's controls for them are on the page too
                    hub.shot(launchers[0])
                _override_and_move(url, game, shot=bool(launchers))
                pages = (
                    ("/", "/lobby", "/calibrate") if game == min(GAMES) else ("/", "/lobby")
                )  # /calibrate: no game in it
                for page in pages:
                    found += _look(browser, url, page, _open_everything if page == "/lobby" else lambda page: None)
                referee_call(url, "/api/game/end", TOKEN, {"note": "checked on a phone"})
                name = started["journal"]
                found += _look(browser, url, f"/games/{name}")
                found += _look(browser, url, f"/games/{name}/report")
                found += _look(browser, url, "/lobby")
                browser.close()
    finally:
        hub.stop()
    assert not found, f"{len(found)} problems:\n" + "\n".join(found[:80])
