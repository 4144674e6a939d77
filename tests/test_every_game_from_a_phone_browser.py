"""Every game, from a Russian phone with no camera and no hardware (issue 48, "Done when"): a
``station serve`` with the rehearsal hub, each game started from the lobby with its sample armies,
a round played from the action panel alone (moves and distances by the referee's tape, shots,
close combat, grenades, templates, morale, a vehicle's action where the game has them), with dice
both typed at the table and rolled by the station; then ended with the winner the referee chose.
The history says the result and the winner, and the journal folds to the rulings the page saw."""

import json
import re
import urllib.request

import pytest
from playwright.sync_api import expect, sync_playwright

from station.fold import fold
from station.journal import read_records
from tests.test_action_panel_browser import fill_panel
from tests.test_dashboard_browser import phone_page, station_process

TOKEN = "every-game-token"
pytestmark = pytest.mark.browser


def _api(url, path, body=None, method="GET"):
    request = urllib.request.Request(
        url + path,
        data=None if body is None else json.dumps(body).encode(),
        method=method,
        headers={"Content-Type": "application/json", "X-Referee-Token": TOKEN},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


class Table:
    """The referee's phone at the table: the action panel, the dashboard's buttons, table dice."""

    def __init__(self, page, url):
        self.page, self.url, self.said = page, url, []

    def act(self, input_type, typed=False, **values):
        """One input from the action panel, its fields filled as a referee fills them; the station
        must not refuse it.  ``typed``: the dice the preview says it rolls are thrown at the table
        and typed in first."""
        page = self.page
        fill_panel(page, input_type, **values)
        if typed:
            expect(page.locator("#action-preview")).to_contain_text("Бросок:")
            count, sides = re.search(r"Бросок: (\d*)d(\d+)", page.locator("#action-preview").text_content()).groups()
            self.dice(int(sides), " ".join(["3"] * int(count or 1)))
        page.evaluate("document.getElementById('action-said').textContent = ''")
        page.locator(f'#action-do[data-input="{input_type}"]').click()
        said = page.locator("#action-said")
        expect(said).not_to_be_empty()
        rulings = _api(self.url, "/api/state")["rulings"]
        latest = [r for r in rulings if r["cause"] == max(r["cause"] for r in rulings)]
        assert not any(r.get("refused") for r in latest), f"{input_type} {values}: {said.text_content()}"
        self.said.append(input_type)
        return said.text_content()

    def button(self, input_type):
        records = _api(self.url, "/api/state")["records"]
        self.page.locator(f'#controls button[data-input="{input_type}"]').click()
        deadline = 50  # the button's input is journaled: wait for its record, as the referee waits for the page
        while _api(self.url, "/api/state")["records"] == records and deadline:
            self.page.wait_for_timeout(100)
            deadline -= 1
        self.said.append(input_type)

    def dice(self, sides, values):
        """Dice thrown at the table and typed in, used by the next rolls of that die."""
        self.page.locator("#dice-sides").select_option(str(sides))
        self.page.locator("#dice-values").fill(values)
        self.page.locator("#dice-form button[type=submit]").click()
        expect(self.page.locator("#dice-waiting")).to_contain_text(values.split()[0])

    def state(self):
        return _api(self.url, "/api/state")["state"]


def _price_of_a_mile(table):
    table.dice(10, "9 1")  # the initiative, thrown at the table: the entente by 4 or more
    table.button("roll_initiative")
    table.act("activate", squad="grenadiers")
    table.act("move", base="g1", inches=3)
    table.act("shoot", shooter="g2", target="l2", distance=5, cover=True)
    table.act("grenade", thrower="g3", distance=4, difficult=True)
    expect(table.page.locator("#action-input")).to_have_value("blast")  # the template waits to be laid
    table.act("blast", under=["l1", "l3"], in_cover=["l3"])
    table.button("end_activation")
    table.act("activate", squad="poilus")
    table.act("move", base="p1", inches=4, contact="l4")
    table.act("melee", attacker="p1", defender="l4", contact=True)
    table.button("end_activation")
    table.act("activate", squad="sturm")
    table.act("flame", operator="s1", under=["p2"], crew_near=True)
    table.button("end_activation")  # the poilus, under flame, test Morale (§9.1, §13.1)
    return "victory", "central"


def _steel_warriors(table):
    table.button("begin_turn")
    table.act("activate", squad="partisans")
    table.dice(6, "1")  # the assault's command test, thrown at the table: it passes
    table.act("assault", squad="partisans", target="recruits")
    table.act("charge", squad="partisans", target="recruits", distance=1.5)
    table.act("morale_test", squad="recruits", passed=True)
    table.act("close_combat", squad="partisans", target="recruits", engaged=["k1", "k2", "s1", "s2"])
    table.button("end_activation")
    table.act("activate", squad="recruits")
    table.act("move", squad="recruits", inches=4, closer=True)
    table.act("shoot", squad="recruits", target="partisans", distance=13, cover="light")
    table.button("end_activation")
    return "time", "keno"  # the fragment has no victory condition: the referee calls it on time


def _bronepekhota_quick(table):
    table.dice(6, "6 1")  # the roll-off, thrown at the table
    table.button("roll_off")
    side = table.state()["active_player"]
    ours, theirs = (("trooper-1", "heavy-1", "walker"), ("raider-1", "cyborg", "crawler"))[
        :: 1 if side == "blue" else -1
    ]
    weapon = next(e for u in table.state()["units"] for e in u["elements"] if e["id"] == ours[0])["weapons"][0]
    table.act(
        "virtual_shot", shooter=ours[0], target=theirs[0], weapon=weapon["id"], moved=True, distance=4, cover=True
    )
    menu = table.page.locator('#action-args [data-arg="weapon"] option')
    expect(menu.nth(1)).to_have_text(weapon["name"])  # the shooter's own weapons, by name
    table.act("grenade", thrower=ours[1], target=theirs[1], distance=3)
    table.act("ram", rammer=ours[2], target=theirs[2])
    table.button("end_turn")
    table.act("close_combat", attacker=theirs[1], target=ours[1])
    table.button("end_turn")
    return "concession", side


def _bronepekhota(table):
    table.button("begin_round")
    active = table.state()
    first = active["order"][0] if active.get("order") else active["players"][0]
    unit = next(u for u in active["units"] if u["player"] == first and len(u["elements"]) > 1)
    enemy = next(u for u in active["units"] if u["player"] != first and len(u["elements"]) > 2)
    table.act("activate", unit=unit["id"])
    shooter, target = unit["elements"][2]["id"], enemy["elements"][2]["id"]  # on foot: 1 and 2 ride in vehicles
    table.act("close_combat", typed=True, attacker=shooter, defender=target)
    feed = table.page.locator("#feed li.ruling")
    before = feed.count()
    table.page.locator("#rehearsal-nodes li button.pull").first.click()  # a real shot: a trigger pulled
    table.page.locator("#rehearsal-nodes li button.tilt.fallen").first.click()  # and a model knocked over
    expect(feed).not_to_have_count(before, timeout=10_000)
    table.button("end_activation")
    return "victory", first


def _alpha_strike(table):
    table.dice(6, "6 6 1 1")  # the initiative, thrown at the table
    table.button("roll_initiative")
    for unit in [u["id"] for u in table.state()["units"]]:
        table.act("move", unit=unit, mode="ground", inches=4)
    table.button("end_movement")
    table.act("attack", attacker="locust", target="thunderbolt", distance=5.5)
    table.act("attack", attacker="thunderbolt", target="locust", band="short", partial_cover=True)
    table.button("end_turn")
    return "victory", "defender"


GAMES = {
    "price_of_a_mile": (["sample:entente.json", "sample:central.json"], _price_of_a_mile),
    "steel_warriors": (["sample:steel.json", "sample:keno.json"], _steel_warriors),
    "bronepekhota_quick": (["sample:blue-patrol.json", "sample:red-raiders.json"], _bronepekhota_quick),
    "bronepekhota": (["sample:blue-protectorate.json", "sample:red-polaris.json"], _bronepekhota),
    "alpha_strike": (["sample:training-day-attacker.json", "sample:training-day-defender.json"], _alpha_strike),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_whole_round_from_a_russian_phone_with_no_camera_ends_with_the_chosen_winner(tmp_path, game):
    armies, play = GAMES[game]
    data = tmp_path / "data"
    command = ["serve", "--data", str(data), "--host", "127.0.0.1", "--seed", "7"]
    with station_process(tmp_path, command, TOKEN, ready="/api/lobby") as url, sync_playwright() as pw:
        _api(url, "/api/settings", {"rehearsal": True}, "PUT")
        page, errors = phone_page(pw, url)
        browser = page.context.browser
        page.on("dialog", lambda dialog: dialog.accept())
        page.goto(url + f"/lobby?token={TOKEN}")
        page.select_option("#game", game)
        for select, army in zip(page.locator("#armies select").all(), armies, strict=True):
            select.select_option(army)
        page.locator("#start").click()
        expect(page).to_have_url(url + "/", timeout=15_000)
        expect(page.locator("#role")).to_have_text("судья")
        table = Table(page, url)
        result, winner = play(table)
        seen = _api(url, "/api/state")
        page.locator("#end-result").select_option(result)
        page.locator("#end-winner").select_option(winner)
        page.locator("#end-game").click()
        expect(page.locator("#ended")).to_be_visible(timeout=15_000)
        ended = _api(url, "/api/games")["games"][0]
        assert errors == []
        browser.close()
    assert (ended["game"], ended["result"], ended["winner"]) == (game, result, winner)
    journal = next(p for p in (data / "journals").glob("*.jsonl") if ended["name"] in (p.name, p.stem))
    replayed = {r.id: r for r in fold(read_records(journal)).rulings}
    for ruling in seen["rulings"]:
        assert ruling["id"] in replayed and replayed[ruling["id"]].as_dict()["text"] == ruling["text"], ruling["id"]
    physical = [r for r in read_records(journal) if r["kind"] == "dice" and r.get("physical")]
    assert physical, "dice typed at the table were used"
