"""Guided calibration on the dashboard: the desk's lens and table steps on the command line's code
path, its API (referee only), and the whole flow in headless Chromium on a camera that starts
uncalibrated and tracks once the calibration is saved."""

import json
import threading
import time

import numpy as np
import pytest

from station.vision import cv as V
from station.vision.calibration import CalibrationError, MovedAnchorError, default_anchors, load_calibration
from station.vision.guided import COVERAGE_GRID, CalibrationDesk
from tests.sim.mounts import TABLE, Mount, framed_camera
from tests.sim.synthetic import Scene, SceneMarker, board_views, ideal_lens, render

CAMERA = framed_camera(Mount("guided", tilt_deg=3, offset_mm=(20, 0)))


def _board_frames(count, seed=41):
    return board_views(CAMERA, V.charuco_board(), np.random.default_rng(seed), count)


def _table_frame(moved=None):
    markers = [
        SceneMarker(a.id, a.x + (15 if a.id == moved else 0), a.y, 0.0, a.facing_deg, a.size_mm)
        for a in default_anchors(TABLE)
    ]
    return render(Scene(CAMERA, markers, TABLE), np.random.default_rng(5))[0]


class Hand:
    """What the camera sees now: the test moves the board, as a referee would."""

    def __init__(self):
        self.frame = None

    def __call__(self):
        return self.frame


def test_the_desk_takes_views_refits_the_lens_and_fits_and_saves_the_table(tmp_path):
    hand, saved = Hand(), []
    desk = CalibrationDesk(
        hand, anchors=default_anchors(TABLE), table_mm=TABLE, out_path=tmp_path / "cal.json", on_saved=saved.append
    )
    with pytest.raises(CalibrationError, match="no camera frame yet"):
        desk.accept()
    hand.frame = np.full((1080, 1920, 3), 128, np.uint8)
    with pytest.raises(CalibrationError, match="the board is not in view"):
        desk.accept()
    frames = _board_frames(7)
    for k, frame in enumerate(frames):
        hand.frame = frame
        state = desk.accept()
        assert len(state["views"]) == k + 1 and state["lens"]["views"] == k + 1
    assert state["lens"]["full_model"] and state["lens"]["rms_px"] < 0.5
    assert sum(map(sum, state["coverage"])) == sum(v["corners"] for v in state["views"])
    assert len(state["coverage"]) == COVERAGE_GRID[1] and all(len(r) == COVERAGE_GRID[0] for r in state["coverage"])
    dropped = desk.drop(0)
    assert len(dropped["views"]) == 6 and all(v["rms_px"] is not None for v in dropped["views"])
    with pytest.raises(CalibrationError, match="there is no view 9"):
        desk.drop(8)
    with pytest.raises(CalibrationError, match="fit the table first"):
        desk.save()
    hand.frame = _table_frame(moved=4)
    with pytest.raises(MovedAnchorError, match="anchor 4 is"):
        desk.fit_table()
    assert [a["id"] for a in desk.state()["table"]["anchors"] if not a["used"]] == [4]
    hand.frame = _table_frame()
    state = desk.fit_table()
    assert all(a["used"] and a["residual_mm"] < 1.0 for a in state["table"]["anchors"])
    assert state["table"]["maps"][0]["height_mm"] == 0
    result = desk.save()
    assert result["saved"] == str(tmp_path / "cal.json") and len(saved) == 1
    cal = load_calibration(tmp_path / "cal.json")
    # six views leave the focal length ~1 % uncertain, and the camera's height moves with it
    focal_error = abs(cal.K[0, 0] / CAMERA.K[0, 0] - 1)
    assert np.linalg.norm(cal.camera().centre - CAMERA.centre) < 2 + 1.5 * focal_error * 1200
    assert cal.lens_covariance is not None
    jpeg = desk.view_jpeg()
    assert jpeg[:2] == b"\xff\xd8"


def _station_with_uncalibrated_camera(tmp_path, hand):
    from station.rules.bronepekhota.army import load_army
    from station.runtime import Station

    from .conftest import EXAMPLES

    stop = threading.Event()

    def frames():
        while not stop.is_set():
            if hand.frame is not None:
                yield hand.frame
            time.sleep(0.05)

    station = Station(
        tmp_path / "g.jsonl",
        "bronepekhota",
        [load_army(EXAMPLES / "blue-protectorate.json"), load_army(EXAMPLES / "red-polaris.json")],
        {},
    )
    station.attach_uncalibrated_camera(frames(), tmp_path / "table.json")
    return station, stop


def test_the_calibration_api_is_for_the_referee_and_needs_a_camera(tmp_path, armies):
    from station.runtime import Station
    from station.web.app import create_app

    bare = Station(tmp_path / "bare.jsonl", "bronepekhota", armies, {})
    client = create_app(bare, "tok").test_client()
    assert client.get("/api/calibrate").status_code == 401
    assert client.get("/api/calibrate", headers={"X-Referee-Token": "tok"}).status_code == 404
    assert client.get("/calibrate").status_code == 200  # the page itself asks for the token
    bare.stop()
    hand = Hand()
    station, stop = _station_with_uncalibrated_camera(tmp_path, hand)
    station.start()
    client = create_app(station, "tok").test_client()
    referee = {"X-Referee-Token": "tok"}
    try:
        assert client.post("/api/calibrate/views").status_code == 401
        refused = client.post("/api/calibrate/views", headers=referee)
        assert refused.status_code == 400 and "no camera frame yet" in refused.get_json()["error"]
        early = client.post("/api/calibrate/table", headers=referee, json={"without": [3]})
        assert early.status_code == 400 and "at least 5 views" in early.get_json()["error"]
        bad = client.post("/api/calibrate/table", headers=referee, json={"without": "3"})
        assert bad.status_code == 400 and "list of anchor ids" in bad.get_json()["error"]
    finally:
        stop.set()
        station.stop()


@pytest.mark.browser
def test_a_referee_calibrates_an_uncalibrated_camera_in_the_browser(tmp_path):
    from playwright.sync_api import expect

    from station.web.server import DashboardServer

    from .test_dashboard_browser import TOKEN, _page

    hand = Hand()
    station, stop = _station_with_uncalibrated_camera(tmp_path, hand)
    station.start()
    server = DashboardServer(station, TOKEN, port=0).start()
    boards = _board_frames(6)
    hand.frame = boards[0]
    try:
        with _page(server.url + f"/calibrate?token={TOKEN}") as page:
            expect(page.locator("#role")).to_have_text("referee")
            expect(page.locator("#live-view")).to_have_attribute("src", __import__("re").compile("^blob:"))
            for k, frame in enumerate(boards):
                hand.frame = frame
                time.sleep(0.15)  # the grabber sees the board move
                page.locator("#take-view").click()
                expect(page.locator("#views li")).to_have_count(k + 1)
            expect(page.locator("#lens-result")).to_contain_text("6 views · RMS 0.")
            assert page.locator("#coverage td.covered").count() > 20
            page.screenshot(path=str(tmp_path / "lens.png"))
            page.locator("#views li").first.locator("button").click()
            expect(page.locator("#views li")).to_have_count(5)
            hand.frame = _table_frame()
            time.sleep(0.15)
            page.locator("#fit-table").click()
            expect(page.locator("#anchors tr.used")).to_have_count(8)
            expect(page.locator("#table-result")).to_contain_text("expected position error")
            page.locator("#save").click()
            expect(page.locator("#table-result")).to_contain_text("saved to")
            page.screenshot(path=str(tmp_path / "table.png"))
        deadline = time.monotonic() + 10
        while (station.camera is None or station.camera.frames_seen == 0) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert station.camera is not None and station.camera.frames_seen > 0  # tracking with the new calibration
        assert station.health()["camera"]["calibration"]["table"]
        assert json.loads((tmp_path / "table.json").read_text())["table"]["used_anchors"] == list(range(8))
    finally:
        stop.set()
        server.stop()
        station.stop()


@pytest.mark.browser
def test_the_error_map_is_an_overlay_on_the_table_map(tmp_path, armies):
    """The dashboard's 'position error' overlay: one cell per grid point with its sigma, the same
    numbers as /api/uncertainty, at each mapped height."""
    import cv2
    from playwright.sync_api import expect

    from station.runtime import Station
    from station.vision.calibration import calibrate_table
    from station.vision.sources import open_source
    from station.web.server import DashboardServer

    from .test_dashboard_browser import TOKEN, _page

    frame = _table_frame()
    lens = ideal_lens(CAMERA)
    calibration = calibrate_table(frame, lens, default_anchors(TABLE), TABLE)
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "0.png"), frame)
    station = Station(tmp_path / "g.jsonl", "bronepekhota", armies, {})
    station.attach_camera(open_source(str(frames)), calibration)
    station.start()
    server = DashboardServer(station, TOKEN, port=0).start()
    try:
        maps = json.loads(__import__("urllib.request").request.urlopen(server.url + "/api/uncertainty").read())["maps"]
        assert [m["height_mm"] for m in maps] == [0.0, 60.0]
        with _page(server.url + "/") as page:
            page.locator("#show-errors").check()
            cells = page.locator("rect.error-cell")
            expect(cells).to_have_count(len(maps[0]["sigma_mm"]) * len(maps[0]["sigma_mm"][0]))
            shown = sorted(float(v) for v in cells.evaluate_all("cells => cells.map(c => c.dataset.sigma)"))
            assert shown == sorted(v for row in maps[0]["sigma_mm"] for v in row)
            page.locator("#error-height").select_option("60")
            expect(page.locator("rect.error-cell").first).to_have_attribute(
                "data-sigma", repr(maps[1]["sigma_mm"][0][0])
            )
            expect(page.locator("#camera-health")).to_contain_text("position error ≤")
    finally:
        server.stop()
        station.stop()
