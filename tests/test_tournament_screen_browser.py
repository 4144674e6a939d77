"""The judges' screen as a judge meets it: readable (WCAG AA contrast on every card), logged in by
the printed link with a visible logged-in state, in both languages, and an empty round that says
so.  The screen is fed straight into its store, as the subscriber would (no broker needed)."""

import threading

import pytest
from playwright.sync_api import expect
from waitress import create_server

from station.tournament.app import create_tournament_app
from station.tournament.store import Store
from tests.phone_check import accessibility, problems
from tests.test_dashboard_browser import _page

pytestmark = pytest.mark.browser
TOKEN = "judge-link-token"

# The contrast of every text in the cards against the colour it is drawn on (WCAG 2 formula).
CONTRAST = """() => {
  const rgb = (c) => c.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const behind = (e) => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor);
    if (c.length < 4 || c[3] > 0) return c.slice(0, 3); } return [255, 255, 255]; };
  return [...document.querySelectorAll('.table-card, .table-card *')].filter((e) => [...e.childNodes]
    .some((n) => n.nodeType === 3 && n.textContent.trim())).map((e) => {
      const a = lum(rgb(getComputedStyle(e).color)), b = lum(behind(e));
      return [e.textContent.trim().slice(0, 30), (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
    });
}"""


@pytest.fixture
def screen(tmp_path):
    store = Store(tmp_path / "tournament.sqlite")
    store.keep_state(
        "t1",
        "state",
        {
            "game": "bronepekhota",
            "title": "Бронепехота",
            "round": 2,
            "active_player": "blue",
            "players": ["blue", "red"],
            "waiting": 1,
            "rulings": [
                {
                    "id": "9:hit:clone-3",
                    "text": "Hit on Clone 3 by Salamander's shell",
                    "message": {
                        "key": "Hit on {target}{how} by {shooter}'s {charge}",
                        "args": {
                            "target": "Clone 3",
                            "how": "",
                            "shooter": "Salamander",
                            "charge": {"key": "shell", "args": {}},
                        },
                    },
                    "section": "§6.7",
                }
            ],
        },
    )
    store.keep_state("t2", "state", {"game": "alpha_strike", "title": "BattleTech Alpha Strike", "round": 1})
    store.keep_record("t2", "t2.jsonl", {"seq": 5, "kind": "judge", "note": "рулетка", "wall": "2026-11-26T10:00:00"})
    ended = {"result": "time", "winner": "Олег"}  # a game the referee ended on time; the station waits for the next
    store.keep_state("t3", "state", {"game": "bronepekhota", "round": 4, "active_player": None,
                                     "players": ["Олег", "Иван"], "winner": "Олег", "ended": ended})  # fmt: skip
    store.keep_state("t3", "health", {"state": "idle", "table": "t3"})
    server = create_server(create_tournament_app(store, TOKEN), host="127.0.0.1", port=0, threads=4)
    threading.Thread(target=server.run, daemon=True).start()
    yield f"http://127.0.0.1:{server.effective_port}", store
    server.close()
    store.close()


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_judges_screen_is_readable_and_a_link_logs_the_judge_in(screen, lang):
    url, store = screen
    with _page(url + "/", width=390, height=844) as page:
        page.context.add_cookies([{"name": "lang", "value": lang, "url": url}])
        page.goto(url + f"/?token={TOKEN}")
        expect(page.locator(".table-card")).to_have_count(3)
        expect(page.locator("#role")).to_have_text("judge logged in" if lang == "en" else "главный судья вошёл")
        assert "token" not in page.url  # kept out of the address bar and the history
        expect(page.locator("#judge-login")).to_be_hidden()
        for text, ratio in page.evaluate(CONTRAST):
            assert ratio >= 4.5, f"{text!r}: contrast {ratio:.2f}"
        judged = page.locator('.table-card[data-table="t2"]')
        expect(judged).to_have_class("table-card judge")
        assert problems(page, lang, {"Clone", "Salamander", "blue", "red"}) == []
        assert accessibility(page) == []
        if lang == "ru":
            expect(page.locator('.table-card[data-table="t1"]')).to_contain_text("Бронепехота · тур 2")
            over = page.locator('.table-card[data-table="t3"]')  # the truth of a table between games
            expect(over).to_contain_text("(между играми)")
            expect(over).to_contain_text("Олег — Иван")
            expect(over).to_contain_text("игра окончена: победил Олег (по времени)")
            expect(over).not_to_contain_text("ходит")
            expect(over).not_to_contain_text("не в сети")
        judged.locator("button.handled").click()
        expect(page.locator('.table-card[data-table="t2"]')).not_to_have_class("table-card judge")
        page.goto(url + "/standings")
        expect(page.locator("#no-results")).to_be_visible()
        assert problems(page, lang, {"CSV"}) == []
        assert accessibility(page) == []


def test_a_spectator_sees_no_judges_controls_and_a_wrong_link_says_so(screen):
    url, store = screen
    with _page(url + "/?token=wrong", width=390, height=844) as page:
        expect(page.locator("#login-error")).to_have_text("wrong referee token")
        expect(page.locator("#role")).to_have_text("spectator")
        expect(page.locator('.table-card[data-table="t2"] button.handled')).to_be_hidden()
        assert store.tables()[1]["judge_calls"]  # nothing was handled
