"""The referee's controls at human speed while the table is live: the hub's heartbeats and events
keep arriving, and nothing the referee has open is rebuilt under their finger."""

import json

import pytest
from playwright.sync_api import expect

from tests.test_dashboard_browser import TOKEN, _demo, _page

pytestmark = pytest.mark.browser


def _journal(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_an_open_override_survives_five_seconds_of_live_updates_and_keeps_its_note(tmp_path):
    journal = tmp_path / "demo.jsonl"
    with _demo(tmp_path, "--speed", "3", "--journal", str(journal)) as url:
        with _page(url + f"/?token={TOKEN}", width=390, height=844) as page:
            expect(page.locator("#role")).to_have_text("referee")
            item = page.locator("#pending li.ruling").last  # the oldest on screen: newer ones arrive above it
            expect(item).to_be_visible(timeout=45_000)
            ruling_id = item.get_attribute("data-ruling")
            item = page.locator(f'#pending li.ruling[data-ruling="{ruling_id}"]')
            item.locator("button.override-open").click()
            note = item.locator('input[aria-label="override note"]')
            expect(note).to_be_visible()
            expect(note).to_be_focused()  # the note comes first, ready to type
            page.evaluate(  # mark the open panel's node: a rebuilt panel would be a new node without it
                "id => { document.querySelector(`#pending li[data-ruling='${id}'] .override`).dataset.mark = 'kept'; }",
                ruling_id,
            )
            records = int(page.locator("#records").inner_text())
            page.wait_for_timeout(5_000)  # a referee reads the ruling and thinks
            assert int(page.locator("#records").inner_text()) > records  # the table went on meanwhile
            expect(item.locator(".override[data-mark='kept']")).to_be_visible()
            expect(note).to_be_focused()
            note.press_sequentially("the shell hit the base, not the model", delay=60)  # typed at a phone's pace
            expect(note).to_have_value("the shell hit the base, not the model")
            box = item.locator("button.verdict").first.bounding_box()
            assert box["y"] > note.bounding_box()["y"]  # verdicts after the note, so typing comes first
            verdict = item.locator("button.verdict").first.get_attribute("data-verdict")
            item.locator("button.verdict").first.click()
            expect(page.locator(f'#feed li.ruling[data-ruling="{ruling_id}"] .meta')).to_contain_text("overridden")
    overrides = [r for r in _journal(journal) if r["kind"] == "override"]
    assert [(r["ruling"], r["verdict"], r["note"]) for r in overrides] == [
        (ruling_id, verdict, "the shell hit the base, not the model")
    ]


def test_confirm_all_confirms_the_rulings_on_screen_with_their_count(tmp_path):
    journal = tmp_path / "demo.jsonl"
    with _demo(tmp_path, "--speed", "6", "--journal", str(journal)) as url:
        with _page(url + f"/?token={TOKEN}", width=390, height=844) as page:
            expect(page.locator("#role")).to_have_text("referee")
            button = page.locator("#confirm-all")
            expect(button).to_be_visible(timeout=60_000)  # two rulings or more wait
            box = button.bounding_box()
            assert box["height"] >= 44 and box["y"] < 844  # first on the referee's phone
            page.once("dialog", lambda dialog: dialog.dismiss())  # a slip of the finger asks first
            button.click()
            page.wait_for_timeout(300)
            assert not [r for r in _journal(journal) if r["kind"] == "confirm"]
            page.evaluate(  # what was on screen when the question was asked: the live game goes on meanwhile
                """() => { window.__asked = []; window.confirm = (q) => { window.__asked.push([q,
                  [...document.querySelectorAll("#pending li.ruling")].map((i) => i.dataset.ruling)]); return true; }; }"""
            )
            button.click()
            asked = page.evaluate("window.__asked")
            assert len(asked) == 1, asked
            question, shown = asked[0]
            assert str(len(shown)) in question, asked
            for ruling_id in shown:
                expect(page.locator(f'#feed li.ruling[data-ruling="{ruling_id}"] .meta').first).to_contain_text(
                    "confirmed"
                )
    confirmed = [r["ruling"] for r in _journal(journal) if r["kind"] == "confirm"]
    assert set(shown) <= set(confirmed) and len(confirmed) == len(set(confirmed))


def test_an_open_override_at_the_top_stays_under_the_finger_as_rulings_arrive_above_it(tmp_path):
    """Issue 49: with the page at the top, two hub events moved the first verdict button from
    y=539 to y=678, and another ruling's «Изменить…» came under the finger.  New rulings arrive
    above the open panel (newest first); the page scrolls by as much, so its buttons stay put."""
    with _demo(tmp_path, "--speed", "3") as url:
        with _page(url + f"/?token={TOKEN}", width=390, height=844) as page:
            expect(page.locator("#role")).to_have_text("referee")
            item = page.locator("#pending li.ruling").first  # the newest: every new one comes above it
            expect(item).to_be_visible(timeout=45_000)
            ruling_id = item.get_attribute("data-ruling")
            item = page.locator(f'#pending li.ruling[data-ruling="{ruling_id}"]')
            page.evaluate("window.scrollTo(0, 0)")
            item.locator("button.override-open").click()
            verdict = item.locator("button.verdict").first
            expect(verdict).to_be_visible()
            note = item.locator('input[aria-label="override note"]')  # the panel's whole width: its placeholder fits
            assert note.evaluate("n => n.clientWidth >= 0.9 * n.closest('.override').clientWidth")
            before = verdict.evaluate("b => b.getBoundingClientRect().top")
            page.wait_for_timeout(6_000)  # the referee reads; the table goes on
            newest = page.locator("#pending li.ruling").first.get_attribute("data-ruling")
            assert newest != ruling_id  # rulings did arrive above it
            after = verdict.evaluate("b => b.getBoundingClientRect().top")
            assert abs(after - before) <= 2, (before, after)
