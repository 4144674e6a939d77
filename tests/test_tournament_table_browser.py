"""A tournament table as its players, referee, judge and stream see it (issue 50, What 4 to 6),
on a real Mosquitto: the judge sets an hour a player, the pairing starts its game with those
clocks, the clock hands over at the end of an activation with nobody pressing anything, the
stream overlay (no login, transparent) follows within a second, the referee alone pauses the
clocks, and a judge call is confirmed at the table when the tournament has it and when a judge
takes it."""

import json
import threading
import time
import urllib.request

import pytest
from playwright.sync_api import expect, sync_playwright
from waitress import create_server

from station.publish import BrokerUrl
from station.tournament.app import create_tournament_app
from station.tournament.broker import LocalBroker
from station.tournament.store import Store
from station.tournament.subscriber import Subscriber
from tests.conftest import ROOT
from tests.phone_check import accessibility, army_names, problems
from tests.test_dashboard_browser import CHROMIUM, FLAGS
from tests.test_tournament_pairing_browser import JUDGE, TOKEN, register_two, table_one

pytestmark = pytest.mark.browser


def station_input(url, type_, args=None):
    request = urllib.request.Request(
        url + "/api/input",
        data=json.dumps({"type": type_, "args": args or {}}).encode(),
        headers={"Content-Type": "application/json", "X-Referee-Token": TOKEN},
    )
    urllib.request.urlopen(request, timeout=10)


def test_clocks_hand_over_by_themselves_the_overlay_follows_and_a_judge_call_is_confirmed(tmp_path):
    broker = LocalBroker(tmp_path / "broker").start()
    store = Store(tmp_path / "tournament.sqlite")
    subscriber = Subscriber(BrokerUrl.parse(broker.url), store).start()
    app = create_tournament_app(store, "judge-token", subscriber)
    judge = app.test_client()
    server = create_server(app, host="127.0.0.1", port=0, threads=6)
    threading.Thread(target=server.run, daemon=True).start()
    screen = f"http://127.0.0.1:{server.effective_port}"
    try:
        register_two(judge)
        assert judge.post("/api/clock", json={"judge": "Марина", "minutes": 60}, headers=JUDGE).status_code == 200
        with table_one(tmp_path, broker) as url, sync_playwright() as pw:
            assert judge.post("/api/rounds", json={"judge": "Марина"}, headers=JUDGE).status_code == 200
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            context = browser.new_context(viewport={"width": 390, "height": 844})
            for where in (url, screen):
                context.add_cookies([{"name": "lang", "value": "ru", "url": where}])
            page = context.new_page()
            page.goto(url + f"/?token={TOKEN}")
            card = page.locator("#pairing .pairing-card")
            expect(card).to_contain_text("60 мин на игрока")
            card.get_by_role("button", name="Начать эту игру").click()
            expect(page).to_have_url(url + "/", timeout=20_000)
            expect(page.locator("#clocks")).to_be_visible()
            expect(page.locator('#clocks .clock[data-player="Олег"]')).to_contain_text("Олег 60:00")

            overlay = context.new_page()  # as OBS opens it: no login, its language in the address
            overlay.goto(screen + "/overlay?table=1&lang=ru&theme=dark")
            assert overlay.evaluate("getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
            expect(overlay.locator('.player[data-player="Ёжик"]')).to_be_visible()

            station_input(url, "begin_round")
            station_input(url, "set_order", {"order": ["Олег", "Ёжик"]})
            expect(page.locator('#clocks .clock.running[data-player="Олег"]')).to_be_visible()
            station_input(url, "activate", {"unit": "cyber"})
            time.sleep(1.5)
            said = time.monotonic()
            station_input(url, "end_activation")  # nobody presses a clock: the game hands over
            expect(overlay.locator('.player.running[data-player="Ёжик"]')).to_be_visible(timeout=3000)
            followed = time.monotonic() - said
            assert followed <= 1.0, f"the overlay followed the table {followed:.2f} s later"
            expect(page.locator('#clocks .clock.running[data-player="Ёжик"]')).to_be_visible()
            expect(page.locator('#clocks .clock[data-player="Олег"]')).to_contain_text("Олег 59:5")
            expect(overlay.locator("#game")).to_contain_text("Бронепехота")

            page.get_by_role("button", name="Остановить часы").click()  # only the referee
            expect(page.get_by_role("button", name="Пустить часы")).to_be_visible()
            expect(page.locator("#clocks .clock.running")).to_have_count(0)
            expect(overlay.locator(".player.running")).to_have_count(0)

            page.locator("#judge-note").fill("спор о дальности")
            page.get_by_role("button", name="Позвать главного судью").click()
            expect(page.locator("#judge-said")).to_have_text(
                "Турнир получил вызов; ждём главного судью.", timeout=15_000
            )
            tables = context.new_page()
            tables.goto(screen + "/?token=judge-token")
            table_card = tables.locator('.table-card[data-table="1"]')
            expect(table_card).to_contain_text("спор о дальности")
            expect(table_card.locator(".clock")).to_have_count(2)
            expect(table_card).to_contain_text("(часы остановлены)")
            table_card.get_by_role("button", name="разобрано").click()
            expect(page.locator("#judge-said")).to_have_text(
                "Главный судья принял вызов и идёт к столу.", timeout=15_000
            )
            demo = ROOT / "station" / "data" / "demo"
            named = army_names([demo / "blue-protectorate.json", demo / "red-polaris.json"])  # the armies' own words
            assert problems(page, "ru", named) == []
            assert problems(overlay, "ru", named) == []
            expect(overlay.locator("#recent")).to_contain_text("Cyber-infantry (Роботизированная Киберпехота)")
            assert accessibility(overlay) == []
            browser.close()
    finally:
        server.close()
        subscriber.stop()
        store.close()
        broker.stop()
