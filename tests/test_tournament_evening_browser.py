"""The whole evening of issue 50's tests: 8 players of two games on 4 stations and a real
Mosquitto, run by the judge from a phone at 390 px in Russian with no terminal.  The judge
registers and checks in the players (each with an army file), sets the clock and pairs 3
rounds; each table hears its pairing and plays it with the armies the judge uploaded (the
stations run in this process, their referees' taps made through the lobby as its page makes
them), each clock hands over at the end of an activation, and each result comes back from its
table to be confirmed on the phone; one is corrected with its reason.  The tournament is
restarted between rounds 2 and 3 and loses nothing.  No rematch, each game its own pool, and
the standings are the ones this test computes."""

import json

import pytest
from playwright.sync_api import expect

from station.lobby.lobby import Hardware, Lobby
from station.tournament.broker import LocalBroker
from tests.conftest import ROOT, wait_for
from tests.test_dashboard_browser import _page
from tests.test_tournament_judge import reference_standings
from tests.test_tournament_judge_browser import Tournament, enter_result, register, shown_standings

pytestmark = pytest.mark.browser
TOKEN = "judge-evening"
SAMPLES = {
    "bronepekhota": ROOT / "station" / "data" / "demo",
    "bronepekhota_quick": ROOT / "station" / "data" / "quick",
}
PLAYERS = [  # name, club, game, the sample army their own is made from
    ("Олег", "Север", "bronepekhota", "blue-protectorate"),
    ("Ёжик", "Север", "bronepekhota", "red-polaris"),
    ("Анна", "Юг", "bronepekhota", "blue-protectorate"),
    ("Борис", "Юг", "bronepekhota", "red-polaris"),
    ("Вера", "Север", "bronepekhota_quick", "blue-patrol"),
    ("Глеб", "Север", "bronepekhota_quick", "red-raiders"),
    ("Дина", "Юг", "bronepekhota_quick", "blue-patrol"),
    ("Егор", "Юг", "bronepekhota_quick", "red-raiders"),
]
RENAMED = ("id", "pilot", "tilt_node", "node", "launcher")  # the fields that are an army's own ids


def own_army(folder, game, sample, k):
    """A player's own army file, made from a sample: every id its own, so any two players of a
    game can meet at a table."""

    def renamed(value, key=None):
        if isinstance(value, dict):
            return {name: renamed(item, name) for name, item in value.items()}
        if isinstance(value, list):
            return [renamed(item, key) for item in value]
        return f"p{k}-{value}" if key in RENAMED and isinstance(value, str) else value

    army = renamed(json.loads((SAMPLES[game] / f"{sample}.json").read_text(encoding="utf-8")))
    path = folder / f"армия-{k}.json"
    path.write_text(json.dumps(army, ensure_ascii=False), encoding="utf-8")
    return path


def play_the_tables(tournament, lobbies, number, winner_of, results):
    """Each table starts its pairing with the judge's armies and clock, hands the clock over at
    the end of an activation (Бронепехота), and ends with the winner the test chose."""
    for table, lobby in lobbies.items():
        wait_for(
            lambda lobby=lobby: (lobby.pairing.pairing or {}).get("round") == number, 20, f"table {table}'s pairing"
        )
        pairing = lobby.pairing.pairing
        armies = [lobby.shelf.check(pairing["game"], p["army"], p["name"]) for p in pairing["players"]]
        station = lobby.start(pairing["game"], armies, {}, force=True, note="no hub at a test table",
                              clock_s=pairing["clock_minutes"] * 60)  # fmt: skip
        first, second = (p["id"] for p in pairing["players"])
        game = station.game
        if pairing["game"] == "bronepekhota":
            game.operator_input("begin_round")
            game.operator_input("set_order", {"order": [first, second]})
            assert game.clocks()["running"] == first
            game.operator_input("activate", {"unit": armies[0]["units"][0]["id"]})
            game.operator_input("end_activation")
            assert game.clocks()["running"] == second  # handed over by the game, not by a button
        a, b = (p["name"] for p in pairing["players"])
        winner = winner_of(a, b)
        ids = {p["name"]: p["id"] for p in pairing["players"]}
        lobby.end("", result="victory", winner=ids[winner])
        results[(number, table)] = {"a": a, "b": b, "winner": winner, "score_a": None, "score_b": None}
    wait_for(
        lambda: len([r for r in tournament.store.results() if r["round"] == number]) == 4, 30, "the tables' results"
    )


def confirm_round(page, number):
    details = page.locator(f'#pairings details[data-round="{number}"]')
    for k in range(4):
        button = details.get_by_role("button", name="Подтвердить итог стола").first
        button.click()
        expect(details.get_by_role("button", name="Подтвердить итог стола")).to_have_count(3 - k)


def test_an_evening_of_two_games_on_four_tables_from_the_judges_phone(tmp_path):
    broker = LocalBroker(tmp_path / "broker").start()
    tournament = Tournament(tmp_path / "tournament.sqlite", broker, TOKEN)
    lobbies = {
        str(k): Lobby(
            tmp_path / f"t{k}" / "journals",
            tmp_path / f"t{k}" / "armies",
            Hardware(mqtt=broker.url, table=str(k), seed=k),
        )  # fmt: skip
        for k in range(1, 5)
    }
    results = {}
    try:
        wait_for(lambda: len(tournament.store.tables()) == 4, 20, "four tables between games")
        with _page(tournament.url + "/judge", width=390, height=844) as page:
            page.context.add_cookies([{"name": "lang", "value": "ru", "url": tournament.url}])
            page.goto(tournament.url + f"/judge?token={TOKEN}")
            expect(page.locator("#role")).to_have_text("главный судья вошёл")
            page.locator("#judge-name").fill("Марина")
            for k, (name, club, game, sample) in enumerate(PLAYERS, 1):
                register(page, name, club, game, own_army(tmp_path, game, sample, k))
                expect(page.locator(f'#players [data-player="{name}"]')).to_contain_text("армия: ")
            page.locator('#clock-form [name="minutes"]').fill("45")
            page.locator("#clock-form").get_by_role("button", name="Сохранить часы").click()
            expect(page.locator("#changes li").first).to_contain_text("часы каждого игрока — 45 мин")

            for number, winner_of in ((1, min), (2, max)):
                page.locator("#pair").click()
                expect(page.locator(f'#pairings details[data-round="{number}"] .pairing')).to_have_count(4)
                play_the_tables(tournament, lobbies, number, winner_of, results)
                confirm_round(page, number)
            first = next(p for p in tournament.store.pairings() if p["round"] == 1)  # the judge corrects one
            fixed = first["b"] if results[(1, first["table_id"])]["winner"] == first["a"] else first["a"]
            enter_result(page, 1, first["table_id"], fixed, (0, 0), why="судья стола ошибся в победителе")
            expect(page.locator("#changes li").first).to_contain_text("почему: судья стола ошибся в победителе")
            results[(1, first["table_id"])].update(winner=fixed, score_a=0, score_b=0)

            tournament.stop()  # the tournament restarts between rounds: nothing is lost
            tournament.start()
            page.goto(tournament.url + f"/judge?token={TOKEN}")
            expect(page.locator("#pairings details.round")).to_have_count(2)
            page.locator("#pair").click()
            expect(page.locator('#pairings details[data-round="3"] .pairing')).to_have_count(4)
            play_the_tables(tournament, lobbies, 3, min, results)
            confirm_round(page, 3)

            pairings = tournament.store.pairings()
            met = [frozenset((p["a"], p["b"])) for p in pairings]
            assert len(met) == len(set(met)) == 12  # no rematch
            game = {name: g for name, _, g, _ in PLAYERS}
            assert all(game[p["a"]] == game[p["b"]] == p["game"] for p in pairings)
            club = {name: c for name, c, _, _ in PLAYERS}
            assert all(club[p["a"]] != club[p["b"]] for p in pairings if p["round"] == 1)
            expected = {
                g: reference_standings(
                    [r for r in results.values() if game[r["a"]] == g], ("points", "sos", "wins", "score")
                )
                for g in ("bronepekhota", "bronepekhota_quick")
            }
            page.reload()
            assert shown_standings(page) == expected
            kept = {
                (r["round"], r["table_id"]): (r["winner"], r["reason"], r["source"]) for r in tournament.store.results()
            }
            assert kept[(1, first["table_id"])] == (fixed, "victory", "judge")
            assert sum(source == "table" for _, _, source in kept.values()) == 11  # the rest came from the tables
    finally:
        for lobby in lobbies.values():
            lobby.close()
        tournament.stop()
        broker.stop()
