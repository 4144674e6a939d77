"""The judge's controls (issue 50, What 1), through the tournament's HTTP API: players registered
and checked in, rounds paired Swiss within each game's pool with no rematch, no same club in a
pool's first round and a toss anyone can repeat, results entered and corrected only with a
reason, every change in the audit trail, and tiebreaks in the judge's order.  The browser walk
is tests/test_tournament_judge_browser.py."""

import hashlib
import json

import pytest

from station.tournament.app import create_tournament_app
from station.tournament.store import Store
from tests.conftest import ROOT

TOKEN = "judge-token"
AUTH = {"X-Referee-Token": TOKEN}
PLAYERS = [  # name, club, game: two pools of four, two clubs in each
    ("Олег Петров", "Клуб Север", "steel_warriors"),
    ("Ёжик", "Клуб Север", "steel_warriors"),
    ("Anna", "Юг", "steel_warriors"),
    ("Борис", "Юг", "steel_warriors"),
    ("Вера", "Клуб Север", "bronepekhota_quick"),
    ("Глеб", "Клуб Север", "bronepekhota_quick"),
    ("Дина", "Юг", "bronepekhota_quick"),
    ("Егор", "Юг", "bronepekhota_quick"),
]


@pytest.fixture
def judge(tmp_path):
    store = Store(tmp_path / "tournament.sqlite")
    app = create_tournament_app(store, TOKEN).test_client()
    yield app, store
    store.close()


def post(app, path, body=None):
    return app.post(path, json={"judge": "Главный", **(body or {})}, headers=AUTH)


def register_all(app, checked_in=True):
    for name, club, game in PLAYERS:
        answer = post(app, "/api/players", {"name": name, "club": club, "game": game, "checked_in": checked_in})
        assert answer.status_code == 200, answer.get_json()


def test_players_are_registered_checked_in_and_dropped_with_clear_refusals(judge):
    app, _ = judge
    assert app.post("/api/players", json={"name": "x", "game": "steel_warriors"}).status_code == 401
    register_all(app, checked_in=False)
    again = post(app, "/api/players", {"name": " ёжик ", "club": "", "game": "steel_warriors"})
    assert again.status_code == 400 and again.get_json()["field"] == "name"
    assert again.get_json()["message"]["key"] == "{name} is already registered"
    no_game = post(app, "/api/players", {"name": "Зоя", "game": "chess"})
    assert no_game.status_code == 400 and no_game.get_json()["field"] == "game"
    long = post(app, "/api/players", {"name": "я" * 65, "game": "steel_warriors"})
    assert long.get_json()["field"] == "name"
    nobody = post(app, "/api/rounds")
    assert nobody.status_code == 409 and "checked in" in nobody.get_json()["error"]
    assert post(app, "/api/players/Ёжик", {"checked_in": True}).status_code == 200
    assert post(app, "/api/players/Ёжик", {"checked_in": "yes"}).get_json()["field"] == "checked_in"
    assert post(app, "/api/players/Никто", {"checked_in": True}).status_code == 400
    players = {p["name"]: p for p in app.get("/api/event").get_json()["players"]}
    assert players["Ёжик"]["checked_in"] and not players["Anna"]["checked_in"]
    assert players["Олег Петров"]["id"] == "Олег-Петров"  # the id the player's army carries at a table
    changes = app.get("/api/event").get_json()["changes"]
    assert changes[0]["what"] == "player" and changes[0]["judge"] == "Главный"
    assert changes[0]["body"] == {"name": "Ёжик", "checked_in": True}


def test_an_army_is_checked_by_its_games_loader_and_a_bad_field_named(judge):
    app, _ = judge
    army = json.loads((ROOT / "station" / "data" / "steel_warriors" / "keno.json").read_text(encoding="utf-8"))
    ok = post(app, "/api/players", {"name": "Олег", "club": "", "game": "steel_warriors", "army": army})
    assert ok.status_code == 200, ok.get_json()
    assert app.get("/api/event").get_json()["players"][0]["army"] == army["name"]
    broken = json.loads(json.dumps(army))
    broken["squads"][0]["id"] = "два слова"
    bad = post(app, "/api/players", {"name": "Ира", "club": "", "game": "steel_warriors", "army": broken})
    assert bad.status_code == 400 and bad.get_json()["field"] == "squads[0].id", bad.get_json()


def reference_standings(results, order=("points", "sos", "wins", "score")):
    """The standings computed here, apart from the product: 3 a win (a bye too), 1 a draw."""
    points, wins, score, met = {}, {}, {}, {}
    for r in results:
        for me, them, mine in ((r["a"], r["b"], r["score_a"]), (r["b"], r["a"], r["score_b"])):
            if me is None:
                continue
            points.setdefault(me, 0)
            wins.setdefault(me, 0)
            score[me] = score.get(me, 0) + (mine or 0)
            if them is not None:
                met.setdefault(me, []).append(them)
            if r["winner"] == me:
                points[me] += 3
                wins[me] += 1
            elif r["winner"] is None:
                points[me] += 1
    sos = {p: sum(points[o] for o in met.get(p, [])) for p in points}
    value = {"points": points, "wins": wins, "sos": sos, "score": score}
    return sorted(points, key=lambda p: (*(-value[name][p] for name in order), p))


def play_round(app, store, winner_of=lambda p: p["a"]):
    paired = post(app, "/api/rounds")
    assert paired.status_code == 200, paired.get_json()
    number = paired.get_json()["round"]
    for p in paired.get_json()["pairings"]:
        if p["b"] is not None:
            body = {"round": number, "table": p["table"], "winner": winner_of(p), "score_a": 10, "score_b": 4}
            assert post(app, "/api/results", body).status_code == 200
    return number, paired.get_json()["pairings"]


def test_three_rounds_pair_within_each_game_with_no_rematch_and_no_club_in_round_one(judge):
    app, store = judge
    register_all(app)
    club = {name: c for name, c, _ in PLAYERS}
    game = {name: g for name, _, g in PLAYERS}
    met = set()
    for expected in (1, 2, 3):
        number, pairings = play_round(app, store)
        assert number == expected  # the first pairing of the evening is round 1
        for p in pairings:
            assert game[p["a"]] == game[p["b"]] == p["game"]  # Why 3: each game its own pool
            assert frozenset((p["a"], p["b"])) not in met
            met.add(frozenset((p["a"], p["b"])))
            if number == 1:
                assert club[p["a"]] != club[p["b"]]
    assert len(met) == 12  # 3 rounds × 4 tables, all different
    seed = app.get("/api/event").get_json()["seed"]
    for p in store.pairings():  # the toss, repeated from the seed on the judge's page
        digest = hashlib.sha256(f"{seed}:{p['round']}:{p['table_id']}:{p['a']}:{p['b']}".encode()).digest()
        assert p["first"] == (p["a"] if digest[0] % 2 == 0 else p["b"])
    assert {p["first"] for p in store.pairings()} - {p["a"] for p in store.pairings()}  # the toss does go both ways
    event = app.get("/api/event").get_json()
    for pool in event["pools"]:
        names = [s["player"] for s in pool["standings"]]
        mine = [r for r in store.results() if game[r["a"]] == pool["game"]]
        assert names == reference_standings(mine)


def test_a_round_is_paired_only_when_the_last_is_over_and_a_correction_needs_a_reason(judge):
    app, store = judge
    register_all(app)
    paired = post(app, "/api/rounds").get_json()
    first = paired["pairings"][0]
    early = post(app, "/api/rounds")
    assert early.status_code == 409 and early.get_json()["field"] == "round"
    assert "round 1 is not over" in early.get_json()["error"]
    entered = {"round": 1, "table": first["table"], "winner": first["b"], "reason": "concession"}
    assert post(app, "/api/results", entered).status_code == 200
    wrong = post(app, "/api/results", {**entered, "winner": "Зоя"})
    assert wrong.status_code == 400 and wrong.get_json()["field"] == "winner"
    draw_with_winner = post(app, "/api/results", {**entered, "reason": "draw", "why": "x"})
    assert draw_with_winner.get_json()["field"] == "reason"
    bad_score = post(app, "/api/results", {**entered, "score_a": "много", "why": "x"})
    assert bad_score.get_json()["field"] == "score_a"
    silent = post(app, "/api/results", {**entered, "winner": first["a"], "reason": "victory"})
    assert silent.status_code == 400 and silent.get_json()["field"] == "why"
    fixed = {**entered, "winner": first["a"], "reason": "time", "why": "часы: время вышло у второго"}
    assert post(app, "/api/results", fixed).status_code == 200
    result = [r for r in store.results() if r["table_id"] == first["table"]][0]
    assert (result["winner"], result["reason"], result["source"]) == (first["a"], "time", "judge")
    change = app.get("/api/event").get_json()["changes"][0]
    assert change["what"] == "result" and change["why"] == "часы: время вышло у второго"
    assert change["body"]["before"]["winner"] == first["b"] and change["body"]["winner"] == first["a"]
    assert change["judge"] == "Главный" and change["table_id"] == first["table"]


def test_a_late_player_joins_a_dropped_one_leaves_and_an_odd_pool_gives_one_bye(judge):
    app, store = judge
    register_all(app)
    play_round(app, store)
    assert post(app, "/api/players/Anna", {"dropped": True}).status_code == 200
    late = post(app, "/api/players", {"name": "Жанна", "club": "", "game": "bronepekhota_quick", "checked_in": True})
    assert late.status_code == 200
    number, pairings = play_round(app, store)
    named = {p["a"] for p in pairings} | {p["b"] for p in pairings}
    assert "Anna" not in named and "Жанна" in named
    byes = [p for p in pairings if p["b"] is None]
    assert len(byes) == 2 and {p["game"] for p in byes} == {"steel_warriors", "bronepekhota_quick"}
    assert len({p["table"] for p in pairings}) == len(pairings)  # two byes, two names
    standings = {s["player"]: s for pool in app.get("/api/event").get_json()["pools"] for s in pool["standings"]}
    assert all(standings[p["a"]]["byes"] == 1 for p in byes)


def test_the_tiebreaks_follow_the_judges_order(judge):
    app, store = judge
    register_all(app)
    play_round(app, store, winner_of=lambda p: None)  # every game a draw, with scores 10 to 4
    refused = post(app, "/api/tiebreaks", {"order": ["points", "points"]})
    assert refused.status_code == 400 and refused.get_json()["field"] == "order"
    assert post(app, "/api/tiebreaks", {"order": ["score", "points", "sos", "wins"]}).status_code == 200
    event = app.get("/api/event").get_json()
    assert event["tiebreaks"] == ["score", "points", "sos", "wins"]
    for pool in event["pools"]:
        mine = [r for r in store.results() if r["a"] in {s["player"] for s in pool["standings"]}]
        names = [s["player"] for s in pool["standings"]]
        assert names == reference_standings(mine, ("score", "points", "sos", "wins"))
        assert pool["standings"][0]["score"] == 10


def test_a_restart_keeps_players_rounds_results_and_the_trail(tmp_path):
    store = Store(tmp_path / "t.sqlite")
    app = create_tournament_app(store, TOKEN).test_client()
    register_all(app)
    play_round(app, store)
    before = app.get("/api/event").get_json()
    store.close()
    store = Store(tmp_path / "t.sqlite")
    after = create_tournament_app(store, TOKEN).test_client().get("/api/event").get_json()
    assert (
        after == before and after["round"] == 1 and len(after["changes"]) == 8 + 1 + 4
    )  # registered, paired, four results
    store.close()
