"""A long game's screens: a new watcher gets the state and the recent rulings, built once per
game version however many join, and pages back through the older rulings on demand."""

from __future__ import annotations

import json
import statistics
import threading
import time
import urllib.request

import pytest

from station.game import RECENT_PENDING, RECENT_RULINGS
from station.rules.bronepekhota.army import load_army
from station.runtime import Station
from station.web.app import create_app
from station.web.limits import WebLimits
from station.web.server import DashboardServer
from tests.faults.crash import ARMY_FILES, TOKEN

REF = {"X-Referee-Token": TOKEN}
RULINGS = 4500  # about 1 MB of rulings as JSON


@pytest.fixture(scope="module")
def long_game(tmp_path_factory):
    station = Station(
        tmp_path_factory.mktemp("long") / "game.jsonl", "bronepekhota", [load_army(p) for p in ARMY_FILES]
    ).start()
    game = station.game
    game.operator_input("begin_round", {})
    for k in range(RULINGS):  # a warning ruling each; every other one waits for the referee
        game.operator_input(*(("end_activation", {}) if k % 2 else ("jump", {"element": "cyber-1"})))  # no jump pack
    yield station
    station.stop()


def test_a_new_screen_gets_the_recent_rulings_the_latest_pending_ones_and_the_count_of_the_rest(long_game):
    """A neglected table: 4,500 rulings, none confirmed.  The screen opens with the latest 200,
    the latest 50 older ones still pending, and how many more wait (issue 36: at most 150 kB)."""
    game = long_game.game
    everything = game.snapshot()
    assert len(json.dumps(everything)) > 900_000  # the size that stalled the referee
    recent = game.snapshot(RECENT_RULINGS)
    pending_before_window = [r for r in everything["rulings"][:-RECENT_RULINGS] if r["status"] == "pending"]
    assert len(pending_before_window) > 2000
    assert recent["rulings"] == everything["rulings"][-RECENT_RULINGS:]
    assert recent["waiting"] == pending_before_window[-RECENT_PENDING:]
    assert recent["older_pending"] == len(pending_before_window) - RECENT_PENDING
    assert recent["pending_before"] == pending_before_window[-RECENT_PENDING]["id"]
    assert recent["older_rulings"] == len(everything["rulings"]) - RECENT_RULINGS
    assert recent["older_before"] == everything["rulings"][-RECENT_RULINGS]["id"]
    assert len(json.dumps(recent)) < 150_000
    # Paging back from the window's first ruling walks through every older one, in order.
    seen, before, more = [], recent["older_before"], True
    while more:
        page = game.rulings_before(before, 500)
        seen[:0] = page["rulings"]
        before, more = page["rulings"][0]["id"], page["more"]
    assert seen == everything["rulings"][:-RECENT_RULINGS]


def test_older_rulings_through_the_api(long_game):
    client = create_app(long_game, TOKEN).test_client()
    state = client.get("/api/state").get_json()
    assert len(state["rulings"]) >= RECENT_RULINGS and state["older_rulings"] > 0
    page = client.get(f"/api/rulings?before={state['older_before']}&limit=50").get_json()
    assert len(page["rulings"]) == 50 and page["more"]
    full = client.get("/api/state?rulings=all").get_json()["rulings"]
    assert full == long_game.game.snapshot()["rulings"]
    at = next(i for i, r in enumerate(full) if r["id"] == state["older_before"])
    assert page["rulings"] == full[at - 50 : at]
    for query, message in [
        ("", "before=<ruling id>"),
        ("?before=x&limit=0", "limit=1..500"),
        ("?before=x&limit=many", "a whole number"),
        ("?before=1:nothing&limit=5", "no ruling '1:nothing'"),
    ]:
        answer = client.get("/api/rulings" + query)
        assert answer.status_code == 400 and message in answer.get_json()["error"], query


def test_a_hundred_spectators_joining_at_once_cost_one_snapshot(long_game):
    server = DashboardServer(long_game, TOKEN, port=0, limits=WebLimits(spectators=120)).start()
    try:
        streams, errors, started = [], [], threading.Barrier(101)

        def watch() -> None:
            started.wait()
            try:
                answer = urllib.request.urlopen(server.url + "/api/stream", timeout=20)
                assert answer.readline().startswith(b"id: ")
                streams.append(answer)
            except Exception as exc:  # counted, and shown if any
                errors.append(exc)

        threads = [threading.Thread(target=watch) for _ in range(100)]
        for thread in threads:
            thread.start()
        started.wait()
        referee = []
        while any(t.is_alive() for t in threads):
            began = time.monotonic()
            with urllib.request.urlopen(urllib.request.Request(server.url + "/api/state", headers=REF), timeout=10):
                referee.append(time.monotonic() - began)
        for thread in threads:
            thread.join()
        assert not errors, errors[:3]
        assert len(streams) == 100
        broadcaster = server.app.extensions["broadcasters"].of(long_game)
        assert broadcaster.snapshots_built == 1  # the game did not change: one version, one snapshot
        assert referee and statistics.median(referee) < 0.5  # the referee is answered meanwhile
        for answer in streams:
            answer.close()
    finally:
        server.stop()


@pytest.mark.browser
def test_the_feed_pages_back_when_scrolled_to_its_end(long_game):
    from playwright.sync_api import expect

    from tests.test_dashboard_browser import _page

    server = DashboardServer(long_game, TOKEN, port=0).start()
    try:
        with _page(server.url + "/") as page:
            feed, older = page.locator("#feed > li"), page.locator("#feed-older")
            expect(older).to_be_visible(timeout=20_000)
            total = RULINGS + 1  # (begin_round's warning too)

            def settled(more_than: int = 0) -> tuple[int, int]:
                """The feed's length and the button's count once they agree (a page may be
                loading between two reads), with more than ``more_than`` rulings shown."""
                deadline = time.monotonic() + 10
                while True:
                    shown = feed.count()
                    left = int(older.inner_text().split("(")[1].rstrip(")"))
                    if shown + left == total and shown > more_than and feed.count() == shown:
                        return shown, left
                    assert time.monotonic() < deadline, (shown, left)  # nothing lost, nothing twice
                    page.wait_for_timeout(100)

            shown, _ = settled(RECENT_RULINGS - 1)
            older.scroll_into_view_if_needed()  # reaching the end of the feed loads a page
            older.click()  # and so does its button
            grown, _ = settled(shown)
            assert grown >= shown + 100
    finally:
        server.stop()


def test_the_referee_sees_how_many_older_rulings_wait_and_loads_them(long_game):
    """The pending panel counts every ruling waiting, offers the older ones ("N older rulings
    still wait") and loads them a page at a time."""
    from playwright.sync_api import expect

    from tests.test_dashboard_browser import _page

    waiting = sum(1 for r in long_game.game.snapshot()["rulings"] if r["status"] == "pending")
    older = long_game.game.snapshot(RECENT_RULINGS)["older_pending"]
    server = DashboardServer(long_game, TOKEN, port=0).start()
    try:
        with _page(server.url + f"/?token={TOKEN}") as page:
            button = page.locator("#pending-older")
            expect(button).to_have_text(f"{older} older rulings still wait", timeout=20_000)
            expect(page.locator("#pending-count")).to_have_text(str(waiting))
            button.click()
            expect(button).to_have_text(f"{older - 50} older rulings still wait")
            expect(page.locator("#pending-count")).to_have_text(str(waiting))  # the same rulings, now loaded
    finally:
        server.stop()


def test_walking_back_through_the_pending_rulings_a_page_at_a_time(long_game):
    game = long_game.game
    everything = game.snapshot()["rulings"]
    recent = game.snapshot(RECENT_RULINGS)
    pending = [r for r in everything[:-RECENT_RULINGS] if r["status"] == "pending"]
    seen, before, more = [], recent["pending_before"], recent["older_pending"]
    while more:
        page = game.pending_before(before, 500)
        assert page["more"] == more - len(page["rulings"])  # the count falls by each page
        seen[:0] = page["rulings"]
        before, more = page["rulings"][0]["id"], page["more"]
    assert seen == pending[:-RECENT_PENDING]
    client = create_app(long_game, TOKEN).test_client()
    api = client.get(f"/api/rulings?before={recent['pending_before']}&limit=30&pending=1").get_json()
    assert api["rulings"] == pending[-RECENT_PENDING - 30 : -RECENT_PENDING] and api["more"] == len(pending) - 80


def test_a_pending_ruling_confirmed_while_the_screen_pages_drops_out_of_the_pages_and_the_count(long_game):
    game = long_game.game
    recent = game.snapshot(RECENT_RULINGS)
    first_page = game.pending_before(recent["pending_before"], 10)
    target = first_page["rulings"][4]["id"]
    game.confirm(target)
    again = game.pending_before(recent["pending_before"], 10)
    assert target not in [r["id"] for r in again["rulings"]] and again["more"] == first_page["more"] - 1
    assert game.snapshot(RECENT_RULINGS)["older_pending"] == recent["older_pending"] - 1
