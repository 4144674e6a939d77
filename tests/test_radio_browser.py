"""The radio nodes on the referee's dashboard, in Russian: the real radio firmware in simavr
(firmware/build/radio-sim), `station run` on its hub's port, and a phone-sized Chromium.  A node
out of range is shown silent, with the time it was last heard; a low cell is named."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from station.devices.board import SimulatedRadioTable, firmware_images

from .conftest import ROOT
from .test_dashboard_browser import TOKEN, _page, station_process

pytestmark = pytest.mark.browser
HIL = ROOT / "tests" / "data" / "hil"


def test_the_dashboard_shows_a_silent_node_and_a_low_cell_in_russian(tmp_path):
    script = tmp_path / "table.txt"
    script.write_text("t=0.050 RT1 battery 3.30\nt=4.000 RL1 away 300\nt=300 end\n")
    hub, nodes = firmware_images(ROOT / "firmware" / "build", ("RL1", "RT1"))
    table = SimulatedRadioTable(hub, nodes, script, tmp_path / "radio-hub").start()
    command = ["run", "--game", "bronepekhota", "--army", str(HIL / "blue.json"), "--army", str(HIL / "red.json"),
               "--serial", table.path, "--journal", str(tmp_path / "game.jsonl"), "--force",
               "--note", "radio nodes only"]  # fmt: skip
    try:
        with station_process(tmp_path, command, TOKEN) as url, _page(url, height=800, width=390) as page:
            page.context.add_cookies([{"name": "lang", "value": "ru", "url": url}])
            page.reload()
            nodes = page.locator("#radio-nodes")
            expect(nodes.locator("li[data-node='RT1']")).to_contain_text("3.29 В", timeout=10_000)
            expect(nodes.locator("li[data-node='RT1']")).to_have_class("low")
            alert = page.locator("#radio-alert")
            expect(alert).to_contain_text("узел RT1: батарея садится (3.29 В)")
            expect(alert).to_contain_text("узел RL1 молчит с", timeout=15_000)
            expect(nodes.locator("li[data-node='RL1']")).to_have_class("silent")
            assert "повторов" in nodes.inner_text() and "resends" not in nodes.inner_text()
    finally:
        table.stop()
