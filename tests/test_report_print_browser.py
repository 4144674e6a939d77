"""The game's report on a phone and on paper (issue 49, Why 8): at 390 and 320 px no word of its
tables is broken across lines, its state reads as sentences in the page's language, the Print
button opens the print dialog, and ``page.pdf()`` of it gives pages whose text is the report's
own words, whole (read back with pypdf)."""

import io
import re

import pytest
from playwright.sync_api import expect, sync_playwright
from pypdf import PdfReader

from station.devices.hubsim import SimulatedHub
from station.dice import DiceBook
from station.rules.registry import make_ruleset
from tests.conftest import ROOT, first_pending, referee_call
from tests.test_dashboard_browser import CHROMIUM, FLAGS, station_process

TOKEN = "report-print-token"
ARMIES = ["sample:blue-protectorate.json", "sample:red-polaris.json"]
NOTE = "Снаряд отскочил от стены, судья видел"

pytestmark = pytest.mark.browser

# Every word of a table cell that the browser laid out over more than one line, with its cell.
BROKEN_WORDS = """() => {
  const broken = [];
  for (const cell of document.querySelectorAll('td')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.textContent.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(`${match[0]} in ${cell.dataset.label || cell.cellIndex}`);
      }
    }
  }
  return broken;
}"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A Бронепехота game with a shot overridden with a Russian note, ended: its report's address."""
    tmp_path = tmp_path_factory.mktemp("report")
    ruleset = make_ruleset("bronepekhota", DiceBook())
    armies = [ruleset.load_army(str(next((ROOT / "station" / "data").glob(f"*/{a[7:]}")))) for a in ARMIES]
    nodes = ruleset.sensor_nodes(armies)
    hub = SimulatedHub(tmp_path / "hub", nodes=nodes).start()
    command = ["serve", "--data", str(tmp_path / "data"), "--host", "127.0.0.1", "--serial", str(tmp_path / "hub")]
    try:
        with station_process(tmp_path, [*command, "--seed", "4"], TOKEN, ready="/api/lobby") as url:
            started = referee_call(url, "/api/games", TOKEN, {"game": "bronepekhota", "armies": ARMIES, "note": "test"})
            referee_call(url, "/api/input", TOKEN, {"type": "begin_round"})
            hub.shot(next(n.id for n in nodes if n.kind == "launcher"))
            ruling = first_pending(url, lambda r: r.get("kind") != "status")
            assert ruling is not None, "no pending ruling after the shot"
            verdict = referee_call(url, f"/api/rulings/{ruling}/verdicts", TOKEN, method="GET")["verdicts"][0][
                "verdict"
            ]
            referee_call(url, f"/api/rulings/{ruling}/override", TOKEN, {"verdict": verdict, "note": NOTE})
            referee_call(url, "/api/game/end", TOKEN, {"note": "конец вечера"})
            yield f"{url}/games/{started['journal']}/report"
    finally:
        hub.stop()


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_report_reads_whole_words_on_a_phone_and_prints(report, lang):
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            for width, height in [(390, 844), (320, 640)]:
                context = browser.new_context(viewport={"width": width, "height": height})
                context.add_cookies([{"name": "lang", "value": lang, "url": report}])
                page = context.new_page()
                page.goto(report)
                assert page.evaluate(BROKEN_WORDS) == [], f"{width}px {lang}: words broken across lines"
                state = page.locator(".state").inner_text()
                assert "{" not in state and len(state.splitlines()) >= 4, state
                if lang == "ru":  # the state's words are said from the catalogs
                    assert "стоит" in state and not re.search(r"\b(upright|fallen|aboard|in play)\b", state), state
                    expect(page.locator("body")).to_contain_text(NOTE)
                page.evaluate("() => { window.printed = 0; window.print = () => { window.printed += 1; }; }")
                page.locator("#print").click()
                assert page.evaluate("window.printed") == 1
                context.close()
            context = browser.new_context()
            context.add_cookies([{"name": "lang", "value": lang, "url": report}])
            page = context.new_page()
            page.goto(report)
            pdf = PdfReader(io.BytesIO(page.pdf(format="A4")))
            text = " ".join(" ".join(p.extract_text() for p in pdf.pages).split())
            heading = {"ru": "Все решения", "en": "Every ruling"}[lang]
            status = {"ru": "изменено судьёй", "en": "overridden"}[lang]
            assert len(pdf.pages) >= 1 and heading in text and status in text, text[:2000]
            assert NOTE in text  # the referee's note as typed, in either language
            assert "Печать" not in text and "Print" not in text  # the buttons are left off the paper
            context.close()
        finally:
            browser.close()
