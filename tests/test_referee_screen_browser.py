"""The referee's screen as a new referee meets it, on a phone (390×844): the controls and the
pending rulings come before the map, a hit awaiting confirmation is provisional, the override
offers only what fits the ruling, every base is a finger-sized target, and the end of a game
says who won."""

import re

import pytest
from playwright.sync_api import expect

from station.devices import protocol as p
from station.runtime import Station
from station.web.server import DashboardServer
from tests.test_dashboard_browser import TOKEN, _page
from tests.test_web import _hit

pytestmark = pytest.mark.browser


@pytest.fixture
def phone_station(tmp_path, armies):
    station = Station(tmp_path / "game.jsonl", "bronepekhota", armies, {}, seed=5).start()
    station.game.observe_table(
        {
            "table_mm": [1200, 900],
            "units": [
                {"element": e, "x_mm": x, "y_mm": y, "facing_deg": 0, "status": "up", "confidence": 1.0}
                for e, x, y in (("clone-3", 300, 300), ("clone-4", 330, 300), ("gryphon", 800, 500))
            ],
        }
    )
    server = DashboardServer(station, TOKEN, port=0).start()
    yield station, server
    server.stop()
    station.stop()


def test_on_a_phone_the_referee_acts_first_and_sees_what_is_provisional(phone_station):
    station, server = phone_station
    hit = _hit(station)  # Clone 3 knocked over: a hit that waits for the referee
    with _page(server.url + f"/?token={TOKEN}", width=390, height=844) as page:
        expect(page.locator("#role")).to_have_text("referee")
        pending = page.locator(f'#pending li[data-ruling="{hit["id"]}"]')
        expect(pending).to_be_visible()
        side, units = page.locator("#side").bounding_box(), page.locator("#units-section").bounding_box()
        assert side["y"] < units["y"]  # what needs the referee comes first
        for button in page.locator("#side button:visible").all():
            assert button.bounding_box()["height"] >= 44, button.text_content()
        expect(page.locator(".members li.provisional")).to_contain_text("Clone 3")
        expect(page.locator(".members li.provisional")).to_contain_text("awaiting the referee")

        # the bases are about 8 px on this screen; each has a 44 px target that picks it
        page.locator("#table-map").scroll_into_view_if_needed()
        target = page.locator('#table-map circle.tap-target[data-tap="gryphon"]').bounding_box()
        assert target["width"] >= 43
        page.mouse.click(target["x"] + target["width"] / 2 + 15, target["y"] + target["height"] / 2)
        expect(page.locator("#reach-title")).to_contain_text("gryphon")

        pending.locator("button.override-open").click()
        verdicts = pending.locator("button.verdict")
        expect(verdicts).to_have_count(3)
        assert [v.get_attribute("data-verdict") for v in verdicts.all()] == ["stood", "fell", "void"]
        expect(verdicts.first).to_contain_text("Armour Test")
        pending.locator('input[aria-label="override note"]').fill("it only wobbled")
        pending.locator('button.verdict[data-verdict="stood"]').click()
        expect(page.locator(f'#feed li[data-ruling="{hit["id"]}"]')).to_contain_text("Referee: stood")
        expect(page.locator(".members li.provisional")).to_have_count(0)


def test_a_refused_shot_offers_only_to_allow_it(phone_station):
    station, server = phone_station
    game = station.game
    shot = p.Shot(1, "L1", 1, "shell", 1, 1000)  # no round begun: the shot is refused
    game.observe(game.journal.append("rx", line=p.encode(shot).decode().strip(), verdict="event"))
    refused = next(r for r in game.snapshot()["rulings"] if r["id"].endswith(":shot"))
    assert refused["details"]["legal"] is False
    assert game.verdicts(refused["id"]) == [("allow", "The shot was legal after all: it counts, with its ammunition.")]
    with _page(server.url + f"/?token={TOKEN}") as page:
        item = page.locator(f'#pending li[data-ruling="{refused["id"]}"]')
        item.locator("button.override-open").click()
        expect(item.locator("button.verdict")).to_have_count(1)
        expect(item.locator("button.verdict")).to_have_attribute("data-verdict", "allow")


def test_spoken_rulings_are_off_until_asked_for_and_then_read_each_new_ruling(phone_station):
    station, server = phone_station
    with _page(server.url + "/") as page:
        page.evaluate(
            "() => { window.__spoken = []; window.speechSynthesis.speak = (u) => window.__spoken.push(u.text); }"
        )
        expect(page.locator("#speak")).not_to_be_checked()
        station.game.operator_input("begin_round")
        expect(page.locator("#feed li").first).to_be_visible()
        page.wait_for_timeout(300)
        assert page.evaluate("window.__spoken") == []  # off by default
        page.locator("#speak").check()
        _hit(station)
        page.wait_for_function("window.__spoken.some((t) => t.includes('Clone 3'))")
        page.reload()  # remembered in this browser
        expect(page.locator("#speak")).to_be_checked()


@pytest.mark.parametrize("size", [(1400, 1000), (390, 844)], ids=["desktop", "phone"])
def test_the_map_labels_never_overprint_and_can_be_read(tmp_path, size):
    """In the demo at desktop and phone sizes no two bases' labels overlap, each is 12 px high
    on screen, and none runs off the table; a base without room for its label names itself."""
    from tests.test_dashboard_browser import _demo

    with _demo(tmp_path, "--speed", "6", "--journal", str(tmp_path / "demo.jsonl")) as url:
        with _page(url + "/", width=size[0], height=size[1]) as page:
            page.locator("#table-map .base").first.wait_for(timeout=30_000)
            page.wait_for_timeout(1500)  # a few snapshots in
            seen = page.evaluate(  # one moment of the map: it is redrawn with every snapshot
                """() => ({
                    labels: [...document.querySelectorAll('#table-map text.base-label')].map((t) => {
                        const r = t.getBoundingClientRect(); return [t.dataset.label, r.left, r.top, r.right, r.bottom]; }),
                    edge: (({ left, right }) => [left, right])(document.querySelector('#table-map rect.edge').getBoundingClientRect()),
                    bases: document.querySelectorAll('#table-map .base').length,
                })"""
            )
            boxes, (edge_left, edge_right), bases = seen["labels"], seen["edge"], seen["bases"]
            assert boxes and len(boxes) >= bases / 2, (len(boxes), bases)
            for k, (name, left, top, right, bottom) in enumerate(boxes):
                assert 10 <= bottom - top <= 20, (name, bottom - top)  # about 12 px, whatever the screen
                assert edge_left - 1 <= left and right <= edge_right + 1, name
                for other, l2, t2, r2, b2 in boxes[k + 1 :]:
                    assert right <= l2 or r2 <= left or bottom <= t2 or b2 <= top, f"{name} overprints {other}"
            bases = page.locator("#table-map .base").count()
            titles = page.evaluate("() => [...document.querySelectorAll('#table-map .base title')].length")
            assert titles == bases


def test_the_map_zooms_and_pans_and_its_tools_still_work(phone_station):
    """The mouse wheel zooms about the pointer, a drag pans, the reset button shows the whole
    table again; picking and measuring go on working zoomed."""
    station, server = phone_station
    with _page(server.url + "/") as page:
        gryphon = page.locator('#table-map .base[data-element="gryphon"]')
        gryphon.wait_for(timeout=20_000)
        full = [float(v) for v in page.locator("#table-map").get_attribute("viewBox").split()]
        expect(page.locator("#map-reset")).to_be_hidden()
        neighbour = page.evaluate(  # the base nearest gryphon, to measure to once zoomed
            """() => {
                const centre = (b) => { const r = b.getBoundingClientRect();
                    return [r.left + r.width / 2, r.top + r.height / 2]; };
                const [gx, gy] = centre(document.querySelector('#table-map .base[data-element="gryphon"]'));
                const others = [...document.querySelectorAll('#table-map .base')]
                    .filter((b) => b.dataset.element !== 'gryphon')
                    .map((b) => { const [x, y] = centre(b); return [Math.hypot(x - gx, y - gy), b.dataset.element, x, y]; })
                    .sort((a, b) => a[0] - b[0]);
                return { name: others[0][1], x: (others[0][2] + gx) / 2, y: (others[0][3] + gy) / 2 };
            }"""
        )
        page.mouse.move(neighbour["x"], neighbour["y"])
        for _ in range(4):
            page.mouse.wheel(0, -200)
        page.wait_for_timeout(300)
        zoomed = [float(v) for v in page.locator("#table-map").get_attribute("viewBox").split()]
        assert zoomed[2] < full[2] / 2  # at least twice as close
        expect(page.locator("#map-reset")).to_be_visible()
        gryphon.click()  # picking works zoomed
        expect(page.locator("#reach-title")).to_have_text("gryphon")
        page.locator(f'#table-map .base[data-element="{neighbour["name"]}"]').click()  # and measuring
        expect(page.locator("#measure-text")).to_contain_text("gryphon")
        box = page.locator("#table-map").bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] / 2 + 80, box["y"] + box["height"] / 2 + 40, steps=5)
        page.mouse.up()
        panned = [float(v) for v in page.locator("#table-map").get_attribute("viewBox").split()]
        assert panned[2] == zoomed[2] and (panned[0], panned[1]) != (zoomed[0], zoomed[1])
        page.click("#map-reset")
        assert [float(v) for v in page.locator("#table-map").get_attribute("viewBox").split()] == full


def test_the_map_has_a_legend_and_its_arcs_end_at_the_table_edge(phone_station):
    station, server = phone_station
    with _page(server.url + "/") as page:
        page.locator('#table-map .base[data-element="gryphon"]').wait_for(timeout=20_000)
        legend = page.locator("#map-legend li")
        for player in station.game.state_view()["players"]:
            expect(legend.filter(has_text=player)).to_have_count(1)
        expect(legend.filter(has_text="firing arc")).to_have_count(1)
        page.locator('#table-map .base[data-element="gryphon"]').click()
        page.locator("#table-map path.arc").first.wait_for()
        shapes = page.locator("#reach-shapes")
        assert shapes.get_attribute("clip-path") == "url(#table-clip)"
        assert page.locator("#reach-shapes path.arc").count() == page.locator("#table-map path.arc").count()
        clip = page.locator("#table-clip rect")
        edge = page.locator("#table-map rect.edge")
        for side in ("x", "y", "width", "height"):
            assert clip.get_attribute(side) == edge.get_attribute(side)


def test_acting_fallen_and_destroyed_models_look_different(phone_station):
    station, server = phone_station
    with _page(server.url + "/") as page:
        page.locator('#table-map .base[data-element="gryphon"]').wait_for(timeout=20_000)
        on_map = set(page.eval_on_selector_all("#table-map .base", "bs => bs.map((b) => b.dataset.element)"))
        game = station.game
        if game.state_view().get("active_unit") is None:
            game.operator_input("begin_round", {})
            game.operator_input("set_order", {"order": game.state_view()["players"]})
        state = game.state_view()
        if state.get("active_unit") is None:  # give the map an acting unit, one the camera sees
            unit = next(
                u
                for u in state["units"]
                if u.get("can_act")
                and u["kind"] != "gun"
                and u["player"] == state["active_player"]
                and any(e["id"] in on_map for e in u["elements"])
            )
            game.operator_input("activate", {"unit": unit["id"]})
        active = game.state_view()["active_unit"]
        elements = next(u for u in game.state_view()["units"] if u["id"] == active)["elements"]
        seen = next(e["id"] for e in elements if e["id"] in on_map)
        acting = page.locator(f'#table-map .base[data-element="{seen}"]')
        expect(acting).to_have_class(re.compile(r"\bacting\b"))
        others = page.locator("#table-map .base.acting")
        assert others.count() <= len(elements)
        looks = page.evaluate(
            """() => [...document.querySelectorAll('#table-map .base')].map((b) => {
                const s = getComputedStyle(b);
                return [b.getAttribute('class'), s.filter, s.opacity, s.stroke];
            })"""
        )
        acting_look = next(look for look in looks if " acting" in look[0])
        plain = next(look for look in looks if look[0].split()[:2] == ["base", "up"] and "acting" not in look[0])
        assert acting_look[1] != plain[1]  # the acting unit glows


def test_in_russian_every_ruling_reads_in_russian_and_in_english_in_english(phone_station):
    """The feed says each ruling in the page's language, as the station's own catalog says it:
    the same words the report prints (station/rules/text.py renders both)."""
    from station.rules.text import catalog

    station, server = phone_station
    hit = _hit(station)
    ruling = station.game.ruling(hit["id"])
    russian = ruling.text.said(catalog("ru", "bronepekhota"))
    assert russian != ruling.text and "Попадание" in russian
    with _page(server.url + "/", width=390, height=844) as page:
        page.context.add_cookies([{"name": "lang", "value": "ru", "url": server.url}])
        page.reload()
        expect(page.locator(f'#feed li[data-ruling="{hit["id"]}"] .text')).to_have_text(russian)
        assert hit["section"] == "§6.7 Table 4"  # its section as the Russian rulebook prints it
        expect(page.locator(f'#feed li[data-ruling="{hit["id"]}"] .meta')).to_contain_text("§6.7 Таблица 4")
        shown = page.locator("#feed li .text").all_text_contents()
        assert shown and not [t for t in shown if re.search(r"\b(?:the|fired|round|shot|with)\b", t)], shown
        # the rules' words about a picked model (its reach and arcs) in Russian as well
        page.locator("#table-map").scroll_into_view_if_needed()
        target = page.locator('#table-map circle.tap-target[data-tap="gryphon"]').bounding_box()
        page.mouse.click(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2)
        expect(page.locator("#reach-rings li").first).to_be_visible()
        rings = page.locator("#reach-rings li").all_text_contents()
        assert rings and all(re.search(r"[А-Яа-я]", r) for r in rings), rings
        assert not [r for r in rings if re.search(r"\b(?:may|move|steps|field|view|rear)\b", r)], rings
        page.context.clear_cookies()
        page.reload()
        expect(page.locator(f'#feed li[data-ruling="{hit["id"]}"] .text')).to_have_text(ruling.text)
