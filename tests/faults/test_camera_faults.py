"""Camera faults in a running station (issue 9): the picture goes dark, freezes on one frame,
stalls, and the camera disappears and comes back.  None of it may make a model "fall", each shows
on the dashboard's health, and tracking resumes by itself."""

import threading
import time

import numpy as np
import pytest

from station.journal import read_records
from station.rules.bronepekhota.army import load_army
from station.runtime import Station
from station.vision.sources import SourceError
from station.vision.watchdog import FROZEN_FRAMES, FrameWatchdog
from station.web.app import create_app
from tests.sim.synthetic import SceneMarker, render

from ..conftest import REFEREE_TOKEN
from ..test_link import wait_for
from ..test_vision import _army_with_markers, _scene, _truth_calibration

MARKERS = [SceneMarker(20, 500.0, 500.0, 40.0, 0.0), SceneMarker(22, 700.0, 300.0, 25.0, 45.0)]


@pytest.fixture(scope="module")
def frames():
    rng = np.random.default_rng(4)
    return [render(_scene(MARKERS), rng)[0] for _ in range(14)]


def test_the_watchdog_knows_dark_and_frozen_frames(frames):
    watchdog = FrameWatchdog()
    assert watchdog.judge(frames[0]).usable
    assert watchdog.judge((frames[1] * 0.06).astype(np.uint8)).fault == "dark"
    verdicts = [watchdog.judge(frames[2].copy()) for _ in range(FROZEN_FRAMES + 3)]
    assert [v.fault for v in verdicts] == [None] * (FROZEN_FRAMES - 1) + ["frozen"] * 4
    assert watchdog.judge(frames[3]).usable  # live again at the first frame that differs


def test_dark_frozen_stalled_and_lost_camera(tmp_path, armies, frames):
    good, good_frames = iter(frames), [0]

    def live(count):
        for _ in range(count):
            good_frames[0] += 1
            yield next(good)

    def first_camera():
        yield from live(4)
        dark = (frames[4] * 0.06).astype(np.uint8)
        for _ in range(300):  # lights out for 10 s: long enough for a tracker to learn the dark as
            yield dark  # its background, and then to take every marker for a fallen model
        for _ in range(30):  # the driver hands back one buffer
            yield frames[5]
        yield from live(2)
        time.sleep(0.8)  # then blocks
        yield from live(1)
        raise SourceError("camera 0 stopped delivering frames")  # and the cable comes out

    opens = []

    def reopen():
        opens.append(time.monotonic())
        if len(opens) == 1:
            raise SourceError("camera 0 cannot be opened (is it connected, and free?)")
        return live(4)

    station = Station(tmp_path / "game.jsonl", "bronepekhota", [load_army(_army_with_markers(tmp_path)), armies[1]], {})
    station.attach_camera(first_camera(), _truth_calibration(), reopen)
    station.camera.reopen_backoff, station.camera.stall_after = (0.05, 0.1), 0.3
    client = create_app(station, REFEREE_TOKEN).test_client()
    seen, done = [], threading.Event()

    def watch():  # what a spectator's dashboard shows, every 20 ms
        while not done.is_set():
            state = client.get("/api/health").get_json()["camera"]["state"]
            if not seen or seen[-1] != state:
                seen.append(state)
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    station.start()
    watcher.start()
    try:
        wait_for(lambda: station.camera.state == "ended", timeout=30, what="the camera to come back and end")
    finally:
        done.set()
        watcher.join()
        station.stop()
    for state in ("stalled", "lost", "running"):
        assert state in seen, seen
    assert station.camera.faults == {"dark": 1, "frozen": 1, "lost": 1}
    assert len(opens) == 2 and good_frames[0] == 11
    assert station.camera.tracker.frame <= good_frames[0] + FROZEN_FRAMES  # dark and frozen frames held back
    records = read_records(tmp_path / "game.jsonl")
    assert not [r for r in records if r["kind"] == "camera"], "a dark or frozen picture made a model fall"
    snapshots = [r for r in records if r["kind"] == "snapshot"]
    assert snapshots and all(u["status"] == "up" for s in snapshots for u in s["units"])
    assert {u["element"] for u in snapshots[-1]["units"]} == {"gryphon", "cyber-1"}
