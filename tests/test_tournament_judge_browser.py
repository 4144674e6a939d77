"""An evening run from the judge's phone (issue 50, What 1), at 390 px in Russian, with no
terminal: eight players of two games registered at the desk (one army uploaded, a bad one and a
name given twice refused under their fields, a player dropped), three rounds paired with no
rematch and each game its own pool, every result entered from the phone and one corrected with
its reason, the tournament restarted between rounds 2 and 3, and the standings checked against
a reference this test computes, before and after the judge reorders the tiebreaks."""

import json
import threading
import time

import pytest
from playwright.sync_api import expect
from waitress import create_server

from station.publish import BrokerUrl
from station.tournament.app import create_tournament_app
from station.tournament.store import Store
from station.tournament.subscriber import Subscriber
from tests.conftest import ROOT
from tests.phone_check import accessibility, problems
from tests.test_dashboard_browser import _page
from tests.test_tournament_judge import reference_standings

pytestmark = pytest.mark.browser
TOKEN = "вечер-судьи"  # the judge's token may be any text (issue 49)
PLAYERS = [
    ("Олег Петров", "Север", "steel_warriors"),
    ("Ёжик", "Север", "steel_warriors"),
    ("Анна", "Юг", "steel_warriors"),
    ("Борис", "Юг", "steel_warriors"),
    ("Вера", "Север", "bronepekhota_quick"),
    ("Глеб", "Север", "bronepekhota_quick"),
    ("Дина", "Юг", "bronepekhota_quick"),
    ("Егор", "Юг", "bronepekhota_quick"),
]
TITLES = {"steel_warriors": "Стальные Воины", "bronepekhota_quick": "Бронепехота — быстрые правила"}


class Tournament:
    """The tournament's app on a fixed port, stopped and started again over the same file, with
    its subscriber to ``broker`` if given."""

    def __init__(self, path, broker=None, token=TOKEN):
        self.path, self.broker, self.token, self.port = path, broker, token, 0
        self.start()

    def start(self):
        self.store = Store(self.path)
        self.subscriber = Subscriber(BrokerUrl.parse(self.broker.url), self.store).start() if self.broker else None
        app = create_tournament_app(self.store, self.token, self.subscriber)
        for _ in range(50):  # the old listening socket goes with its loop's next turn
            try:
                self.server = create_server(app, host="127.0.0.1", port=self.port, threads=6)
                break
            except OSError:
                time.sleep(0.1)
        self.port = self.server.effective_port
        threading.Thread(target=self.server.run, daemon=True).start()

    def stop(self):
        """As a process that ends: the listening socket and every open connection closed."""
        self.server.close()
        for channel in list(self.server._map.values()):
            channel.close()
        self.server.task_dispatcher.shutdown()
        if self.subscriber is not None:
            self.subscriber.stop()
        self.store.close()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"


def register(page, name, club, game, army=None):
    form = page.locator("#register")
    if not form.is_visible():
        page.locator("#register-box > summary").click()
    form.get_by_label("Имя").fill(name)
    form.get_by_label("Клуб").fill(club)
    form.get_by_label("Игра").select_option(game)
    if army:
        form.get_by_label("Файл армии (можно позже)").set_input_files(str(army))
    form.get_by_role("button", name="Зарегистрировать").click()


def enter_result(page, number, table, winner, scores, why=""):
    card = page.locator(f'#pairings details[data-round="{number}"] .pairing[data-table="{table}"]')
    if not card.is_visible():
        page.locator(f'#pairings details[data-round="{number}"] > summary').click()
    card.get_by_role("button", name="итог…").click()
    form = card.locator(".result-form")
    form.get_by_label(winner, exact=True).check()
    form.locator('[name="score_a"]').fill(str(scores[0]))
    form.locator('[name="score_b"]').fill(str(scores[1]))
    if why:
        form.locator('[name="why"]').fill(why)
    form.get_by_role("button", name="Сохранить итог").click()
    return card


def play_round(page, tournament, number, results, winner_of, early=False):
    page.locator("#pair").click()
    expect(page.locator(f'#pairings details[data-round="{number}"] .pairing')).to_have_count(4)
    if early:  # the next round is not paired while this one has tables with no result
        page.locator("#pair").click()
        expect(page.locator("#pair-error")).to_have_text(f"раунд {number} не закончен: нет итога за столом 1, 2, 3, 4")
    for p in [p for p in tournament.store.pairings() if p["round"] == number]:
        winner = winner_of(p)
        scores = (12, 5) if winner == p["a"] else (5, 12)
        card = enter_result(page, number, p["table_id"], winner, scores)
        expect(card.locator(".result")).to_contain_text(f"победил(а) {winner}")
        results[(number, p["table_id"])] = {"a": p["a"], "b": p["b"], "winner": winner,
                                            "score_a": scores[0], "score_b": scores[1]}  # fmt: skip


def shown_standings(page):
    page.locator("#pools .pool").first.wait_for()  # drawn by the page's script after a (re)load
    return {
        pool.get_attribute("data-game"): pool.locator("tbody tr").evaluate_all(
            "rows => rows.map(r => r.dataset.player)"
        )
        for pool in page.locator("#pools .pool").all()
    }


def expected_standings(results, order=("points", "sos", "wins", "score")):
    game = {name: g for name, _, g in PLAYERS}
    return {
        g: reference_standings([r for r in results.values() if game[r["a"]] == g], order)
        for g in ("steel_warriors", "bronepekhota_quick")
    }


def test_an_evening_from_the_judges_phone(tmp_path):
    tournament = Tournament(tmp_path / "evening.sqlite")
    army = tmp_path / "армия-кено.json"
    army.write_text(
        (ROOT / "station" / "data" / "steel_warriors" / "keno.json").read_text(encoding="utf-8"), encoding="utf-8"
    )
    broken = json.loads(army.read_text(encoding="utf-8"))
    broken["squads"][0]["quality"] = "отличное"
    bad_army = tmp_path / "плохая.json"
    bad_army.write_text(json.dumps(broken, ensure_ascii=False), encoding="utf-8")
    results = {}
    try:
        with _page(tournament.url + "/judge", width=390, height=844) as page:
            page.context.add_cookies([{"name": "lang", "value": "ru", "url": tournament.url}])
            page.goto(tournament.url + f"/judge?token={TOKEN}")
            expect(page.locator("#role")).to_have_text("главный судья вошёл")
            register(page, "Олег Петров", "Север", "steel_warriors")
            name = page.locator("#judge-name")  # nothing is done before the judge says who they are
            expect(name).to_have_attribute("aria-invalid", "true")
            expect(page.locator(".field-error")).to_contain_text("Сначала напишите своё имя")
            name.fill("Марина")
            register(page, "Олег Петров", "Север", "steel_warriors", army)
            expect(page.locator('#players [data-player="Олег Петров"]')).to_contain_text("армия: Партизаны Кено")
            register(page, "олег петров ", "Юг", "steel_warriors")  # the same player, typed again
            expect(page.locator("#register .field-error")).to_have_text("олег петров уже зарегистрирован(а)")
            register(page, "Ира", "Юг", "steel_warriors", bad_army)
            said = "плохая.json · squads[0].quality: здесь нужно целое число, а не текст"  # which file, where, what
            expect(page.locator("#register .field-error")).to_have_text(said)
            page.locator("#register").get_by_label("Файл армии (можно позже)").set_input_files([])
            page.locator("#register").get_by_role("button", name="Зарегистрировать").click()
            for player, club, game in PLAYERS[1:]:
                register(page, player, club, game)
                expect(page.locator(f'#players [data-player="{player}"]')).to_contain_text(TITLES[game])
            late = page.locator('#players [data-player="Ёжик"]')  # an army brought after registration
            expect(late).to_contain_text("армии пока нет")
            late.get_by_label("Файл армии игрока").set_input_files(str(army))
            expect(late).to_contain_text("армия: Партизаны Кено")
            ira = page.locator('#players [data-player="Ира"]')
            ira.get_by_role("button", name="Снять с турнира").click()
            expect(ira).to_contain_text("снят с турнира")
            gleb = page.get_by_label("Глеб пришёл")  # checked out and in again, at the desk
            gleb.uncheck()
            expect(page.locator("#player-count")).to_have_text("пришли 7 из 9")
            gleb.check()
            expect(page.locator("#player-count")).to_have_text("пришли 8 из 9")
            assert problems(page, "ru", {"JSON"}) == []
            assert accessibility(page) == []

            play_round(page, tournament, 1, results, lambda p: p["a"], early=True)
            club = {player: c for player, c, _ in PLAYERS}
            assert all(club[p["a"]] != club[p["b"]] for p in tournament.store.pairings())  # no club in round 1
            play_round(page, tournament, 2, results, lambda p: p["b"])

            # the judge corrects a round-1 result: refused without a reason, then with one
            first = next(p for p in tournament.store.pairings() if p["round"] == 1)
            card = enter_result(page, 1, first["table_id"], first["b"], (3, 9))
            why = card.locator('[name="why"]')
            expect(why).to_have_attribute("aria-invalid", "true")
            expect(card.locator(".field-error")).to_have_text(
                "исправлению нужна причина: напишите, почему итог меняется"
            )
            why.fill("перепутали победителя при вводе")
            card.get_by_role("button", name="Сохранить итог").click()
            expect(card.locator(".result")).to_contain_text(f"победил(а) {first['b']}")
            results[(1, first["table_id"])].update(winner=first["b"], score_a=3, score_b=9)
            expect(page.locator("#changes li").first).to_contain_text("Марина: раунд 1")
            expect(page.locator("#changes li").first).to_contain_text("почему: перепутали победителя при вводе")

            tournament.stop()  # the tournament restarts between rounds: nothing is lost
            tournament.start()  # (its logins too: the judge opens the link again)
            page.goto(tournament.url + f"/judge?token={TOKEN}")
            expect(page.locator("#role")).to_have_text("главный судья вошёл")
            expect(page.locator("#judge-name")).to_have_value("Марина")  # kept on the phone
            expect(page.locator("#player-count")).to_have_text("пришли 8 из 9")
            expect(page.locator("#pairings details.round")).to_have_count(2)
            assert shown_standings(page) == expected_standings(results)
            play_round(page, tournament, 3, results, lambda p: min(p["a"], p["b"]))

            met = [frozenset((p["a"], p["b"])) for p in tournament.store.pairings()]
            assert len(met) == len(set(met)) == 12  # three rounds of four tables, no rematch
            game = {player: g for player, _, g in PLAYERS}
            assert all(game[p["a"]] == game[p["b"]] == p["game"] for p in tournament.store.pairings())
            expect(page.locator("#round")).to_have_text("3")
            assert shown_standings(page) == expected_standings(results)

            page.get_by_role("button", name="очки: ниже").click()  # points after Buchholz
            expect(page.locator("#tiebreaks li").first).to_contain_text("сила соперников")
            order = ("sos", "points", "wins", "score")
            expect(page.locator("#changes li").first).to_contain_text("порядок при равенстве")
            assert shown_standings(page) == expected_standings(results, order)
            assert problems(page, "ru", {"JSON"}) == []
            assert accessibility(page) == []
            page.goto(tournament.url + "/standings")
            for g, names in expected_standings(results, order).items():
                rows = page.locator(f'table[data-game="{g}"] tbody tr td:nth-child(2)')
                expect(rows).to_have_text(names)
            assert problems(page, "ru", {"CSV"}) == []
            expect(page.locator("#language")).to_have_value("ru")  # it said English on a Russian page
            page.locator("#language").select_option("en")
            expect(page.locator("h1")).to_have_text("Standings after round 3")
            expect(page.locator("#language")).to_have_value("en")
    finally:
        tournament.stop()
