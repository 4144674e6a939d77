"""The phone checks themselves find what they look for: a page made wrong on purpose is caught on
every count (so a green crawl of the real pages means something)."""

import pytest
from playwright.sync_api import sync_playwright

from tests.phone_check import accessibility, problems
from tests.test_dashboard_browser import CHROMIUM, FLAGS

pytestmark = pytest.mark.browser

WRONG = """<!doctype html><html lang="ru"><head><title>x</title></head><body><main><h1>Проверка</h1>
<p style="width:600px">Широкий абзац</p><button style="width:20px;height:20px">✕</button>
<p>Clone 3 ждёт: pending</p><img src="x.png"><p style="color:#777;background:#888">низкий контраст</p>
</main></body></html>"""


def test_a_page_made_wrong_is_caught_on_every_count():
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.set_content(WRONG)
        found = problems(page, "ru", {"Clone"})
        assert any(p.startswith("scrolls sideways") for p in found)
        assert any("smaller than 44 px" in p and "20×20" in p for p in found)
        assert [p for p in found if p.startswith("English")] == [
            'English on a Russian page: pending in p "Clone 3 ждёт: pending"'
        ]  # names from the armies are allowed
        assert {p.split(" ")[1] for p in accessibility(page)} >= {"image-alt", "color-contrast"}
        browser.close()
