"""A pairing reaches its table (issue 50, What 2): the judge pairs a round, the tournament tells
table 1 over a real Mosquitto, the station's lobby (390 px, Russian) shows the players, the
game and the armies the judge uploaded, and one tap starts that game with them.  The game's
players are the tournament's (their ids map back to their names), and its end is the round's
result at that table."""

import json
import threading
import urllib.request

import pytest
from playwright.sync_api import expect, sync_playwright
from waitress import create_server

from station.publish import BrokerUrl
from station.tournament.app import create_tournament_app
from station.tournament.broker import LocalBroker
from station.tournament.store import Store
from station.tournament.subscriber import Subscriber
from tests.conftest import ROOT, wait_for
from tests.phone_check import accessibility, problems
from tests.test_dashboard_browser import CHROMIUM, FLAGS, station_process

pytestmark = pytest.mark.browser
TOKEN = "table-one-token"
JUDGE = {"X-Referee-Token": "judge-token"}


def demo_army(name):
    return json.loads((ROOT / "station" / "data" / "demo" / f"{name}.json").read_text(encoding="utf-8"))


def register_two(judge):
    """Олег and Ёжик, checked in for Бронепехота with the demo's two armies."""
    for name, army in (("Олег", "blue-protectorate"), ("Ёжик", "red-polaris")):
        body = {"judge": "Марина", "name": name, "club": "", "game": "bronepekhota", "army": demo_army(army),
                "checked_in": True}  # fmt: skip
        assert judge.post("/api/players", json=body, headers=JUDGE).status_code == 200


def table_one(tmp_path, broker):
    """``station serve`` as table 1 of the tournament on ``broker``, in its lobby."""
    command = ["serve", "--data", str(tmp_path / "data"), "--host", "127.0.0.1", "--mqtt", broker.url, "--table", "1"]
    return station_process(tmp_path, command, TOKEN, ready="/api/lobby")


def test_the_judges_pairing_starts_its_game_at_the_table_with_one_tap(tmp_path):
    broker = LocalBroker(tmp_path / "broker").start()
    store = Store(tmp_path / "tournament.sqlite")
    subscriber = Subscriber(BrokerUrl.parse(broker.url), store).start()
    judge = create_tournament_app(store, "judge-token", subscriber).test_client()
    try:
        register_two(judge)
        with table_one(tmp_path, broker) as url, sync_playwright() as pw:
            paired = judge.post("/api/rounds", json={"judge": "Марина"}, headers=JUDGE).get_json()
            assert [p["table"] for p in paired["pairings"]] == ["1"]  # no table has published yet: numbered
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            context = browser.new_context(viewport={"width": 390, "height": 844})
            context.add_cookies([{"name": "lang", "value": "ru", "url": url}])
            page = context.new_page()
            page.on("dialog", lambda dialog: dialog.accept())
            page.goto(url + f"/?token={TOKEN}")
            card = page.locator("#pairing .pairing-card")
            expect(card).to_contain_text("Турнир, раунд 1: ")
            expect(card).to_contain_text("Олег: Ударная группа Торгового Протектората")
            expect(card).to_contain_text("Ёжик: Штурмовая колонна Империи Полярис")
            expect(card).to_contain_text("первым ходит")
            assert problems(page, "ru", set()) == []
            assert accessibility(page) == []
            card.get_by_role("button", name="Начать эту игру").click()
            expect(page).to_have_url(url + "/", timeout=20_000)  # the game runs: the dashboard

            header = _header(tmp_path / "data" / "journals")
            assert header["game"] == "bronepekhota"
            assert sorted(a["player"] for a in header["armies"]) == ["Ёжик", "Олег"]  # the tournament's ids
            wait_for(lambda: store.games(), 20, "the table's game at the tournament")
            assert store.games()[0]["round"] == 1 and sorted(json.loads(store.games()[0]["players"])) == [
                "Ёжик",
                "Олег",
            ]

            ended = urllib.request.Request(
                url + "/api/game/end",
                data=json.dumps({"result": "concession", "winner": "Ёжик"}).encode(),
                headers={"Content-Type": "application/json", "X-Referee-Token": TOKEN},
            )
            urllib.request.urlopen(ended, timeout=10)
            wait_for(lambda: store.results(), 20, "the table's result")
            result = store.results()[0]
            assert (result["round"], result["table_id"], result["winner"], result["reason"]) == (
                1,
                "1",
                "Ёжик",
                "concession",
            )
            assert result["source"] == "table" and not result["confirmed"]

            # What 3: the table's result waits for the judge, who confirms it from the phone
            refused = judge.post("/api/rounds", json={"judge": "Марина"}, headers=JUDGE)
            assert refused.status_code == 409 and "confirm the result of table 1" in refused.get_json()["error"]
            server = create_server(create_tournament_app(store, "judge-token", subscriber), host="127.0.0.1", port=0)
            threading.Thread(target=server.run, daemon=True).start()
            screen = f"http://127.0.0.1:{server.effective_port}"
            context.add_cookies([{"name": "lang", "value": "ru", "url": screen}])
            page.goto(screen + "/judge?token=judge-token")
            page.locator("#judge-name").fill("Марина")
            table = page.locator('#pairings .pairing[data-table="1"]')
            expect(table.locator(".result")).to_have_text(
                "победил(а) Ёжик (соперник сдался) · прислал стол · ещё не подтверждён"
            )
            table.get_by_role("button", name="Подтвердить итог стола").click()
            expect(table.locator(".result")).to_have_text("победил(а) Ёжик (соперник сдался) · прислал стол")
            expect(page.locator("#changes li").first).to_contain_text("Марина: подтверждён итог раунда 1, стол 1")
            assert store.results()[0]["confirmed"] == 1
            server.close()
            browser.close()
    finally:
        subscriber.stop()
        store.close()
        broker.stop()


def _header(journals):
    (journal,) = [p for p in journals.glob("*.jsonl")]
    return json.loads(journal.read_text(encoding="utf-8").splitlines()[0])
