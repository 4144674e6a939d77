"""The overhead camera against synthetic frames with known ground truth."""

import json
import struct

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from station.cli import main
from station.vision import cv as V
from station.vision.calibration import (
    CalibrationError,
    calibrate_lens,
    calibrate_table,
    default_anchors,
    load_calibration,
)
from station.vision.geometry import marker_pose, overhead_camera
from station.vision.locate import Locator, MarkerSpec
from tests.sim.synthetic import (
    Occluder,
    Scene,
    SceneMarker,
    anchor_markers,
    board_views,
    ideal_calibration,
    ideal_lens,
    random_scene,
    render,
)

from .conftest import EXAMPLES

TABLE = (1219.2, 1219.2)
CAM = overhead_camera()


def _truth_calibration(camera=CAM):
    return ideal_calibration(camera, TABLE)


def _scene(markers, **kw):
    return Scene(CAM, anchor_markers(TABLE) + list(markers), TABLE, **kw)


def test_renderer_draws_what_its_ground_truth_says():
    rng = np.random.default_rng(5)
    image, truth = render(random_scene(CAM, rng, units=12), rng)
    detection = V.MarkerDetector().detect(image)
    assert sorted(detection.ids) == sorted(m["id"] for m in truth["markers"])
    for m in truth["markers"]:
        found = detection.corners[list(detection.ids).index(m["id"])]
        assert np.linalg.norm(found.mean(0) - np.mean(m["corners_px"], 0)) < 0.6  # centre within 0.75 mm
        assert np.abs(found - m["corners_px"]).max() < 1.5


def test_lens_calibration_recovers_known_intrinsics():
    rng = np.random.default_rng(3)
    board = V.charuco_board()
    views = board_views(CAM, board, rng, 10, reach=(250, 150), depth=(500, 800))
    cal = calibrate_lens(views, board)
    assert cal.views == 10 and cal.rms_px < 0.5
    assert abs(cal.K[0, 0] / CAM.K[0, 0] - 1) < 0.01 and abs(cal.K[1, 1] / CAM.K[1, 1] - 1) < 0.01
    assert np.abs(cal.K[:2, 2] - CAM.K[:2, 2]).max() < 5
    assert abs(cal.dist[0] - CAM.dist[0]) < 0.03


def test_lens_calibration_without_enough_views_says_so():
    blank = np.full((1080, 1920, 3), 128, np.uint8)
    with pytest.raises(CalibrationError, match="found in 0 of 3 images"):
        calibrate_lens([blank] * 3)


def test_table_calibration_recovers_the_pose_and_reports_each_anchor():
    rng = np.random.default_rng(2)
    image, _ = render(random_scene(CAM, rng, units=6), rng)
    lens = ideal_lens(CAM)
    cal = calibrate_table(image, lens, default_anchors(TABLE), TABLE)
    assert np.abs(cal.camera().centre - CAM.centre).max() < 1.0
    assert sorted(cal.residuals_mm) == list(range(8)) and max(cal.residuals_mm.values()) < 1.0


def test_a_moved_anchor_is_refused_by_name():
    anchors = default_anchors(TABLE)
    moved = [SceneMarker(a.id, a.x + (25 if a.id == 3 else 0), a.y, 0.0, a.facing_deg, a.size_mm) for a in anchors]
    image, _ = render(Scene(CAM, moved, TABLE), np.random.default_rng(1))
    lens = ideal_lens(CAM)
    with pytest.raises(CalibrationError, match=r"anchor 3 is \d+\.\d mm from where the others put it"):
        calibrate_table(image, lens, anchors, TABLE)


@pytest.mark.parametrize("x, y", [(609.6, 609.6), (80.0, 1130.0), (1140.0, 90.0)])
@pytest.mark.parametrize("height", [0.0, 30.0, 60.0])
def test_parallax_correction_at_any_height_and_table_position(x, y, height):
    image, _ = render(_scene([SceneMarker(20, x, y, height, 33.0)]), np.random.default_rng(0))
    detection = V.MarkerDetector().detect(image)
    corners = detection.corners[list(detection.ids).index(20)]
    pose = marker_pose(CAM, corners, height)
    assert np.hypot(pose.x - x, pose.y - y) < 1.0
    naive = marker_pose(CAM, corners, 0.0)  # what a table-plane homography would say
    lean = np.hypot(x - 609.6, y - 609.6) * height / (1200 - height)  # where its ray meets the table
    assert abs(np.hypot(naive.x - x, naive.y - y) - lean) < 1.5
    if height == 60 and x != 609.6:
        assert lean > 25  # tens of mm at the edge: the error the correction removes


@pytest.mark.parametrize("facing", range(0, 360, 30))
def test_facing_in_every_direction(facing):
    image, _ = render(_scene([SceneMarker(21, 400.0, 700.0, 40.0, float(facing))]), np.random.default_rng(facing))
    detection = V.MarkerDetector().detect(image)
    pose = marker_pose(CAM, detection.corners[list(detection.ids).index(21)], 40.0)
    assert abs((pose.facing_deg - facing + 180) % 360 - 180) < 1.5


def _locator():
    specs = {
        20: MarkerSpec(20, "gryphon", "gryphon", "blue", 30.0, 40.0, (25.0, 0.0)),
        21: MarkerSpec(21, "salamander", "salamander", "red", 30.0, 20.0),
    }
    return Locator(_truth_calibration(), specs)


def test_base_centre_uses_the_offset_along_the_facing_and_flags_tipped_markers():
    scene = _scene(
        [
            SceneMarker(20, 500.0, 500.0, 40.0, 0.0),
            SceneMarker(21, 800.0, 300.0, 20.0, 90.0, tilt_deg=50.0),
            SceneMarker(99, 300.0, 900.0, 10.0),
        ]
    )
    image, _ = render(scene, np.random.default_rng(4))
    sightings, warnings = _locator().locate(image)
    by_element = {s.element: s for s in sightings}
    assert abs(by_element["gryphon"].x_mm - 525.0) < 1.0 and abs(by_element["gryphon"].y_mm - 500.0) < 1.0
    assert not by_element["gryphon"].tipped and by_element["gryphon"].confidence > 0.8
    assert by_element["salamander"].tipped
    assert warnings == ["marker 99 belongs to no unit in the army files"]


def test_hands_over_the_table_hide_markers_but_do_not_move_the_others():
    markers = [SceneMarker(20, 500.0, 500.0, 40.0, 0.0), SceneMarker(21, 900.0, 900.0, 20.0, 0.0)]
    hand = Occluder(*CAM.project(np.array([[500.0, 500.0, 40.0]]))[0], 90, 200, 30)
    image, _ = render(_scene(markers, occluders=[hand]), np.random.default_rng(6))
    sightings, _ = _locator().locate(image)
    assert [s.element for s in sightings] == ["salamander"]


def test_a_calibration_for_another_resolution_is_refused():
    image = np.zeros((720, 1280, 3), np.uint8)
    with pytest.raises(CalibrationError, match="1280x720 but the calibration is for 1920x1080"):
        _locator().locate(image, "table.png")


def test_calibration_files_round_trip_and_damage_is_named(tmp_path):
    cal = _truth_calibration()
    cal.residuals_mm = {0: 0.1}
    cal.save(tmp_path / "cal.json")
    again = load_calibration(tmp_path / "cal.json")
    assert np.allclose(again.K, cal.K) and np.allclose(again.R, cal.R) and again.residuals_mm == {0: 0.1}
    data = json.loads((tmp_path / "cal.json").read_text())
    data["lens"]["K"] = [[1, 2], [3, 4]]
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="bad.json: damaged calibration"):
        load_calibration(tmp_path / "bad.json")
    (tmp_path / "old.json").write_text(json.dumps({"format": "station-calibration/0"}))
    with pytest.raises(CalibrationError, match="format must be"):
        load_calibration(tmp_path / "old.json")


def _army_with_markers(tmp_path):
    army = json.loads((EXAMPLES / "blue-protectorate.json").read_text())
    army["units"][1]["marker"] = {"id": 20, "size_mm": 30, "height_mm": 40, "offset_mm": [25, 0]}
    army["units"][0]["members"][0]["marker"] = {"id": 22, "size_mm": 30, "height_mm": 25}
    path = tmp_path / "blue.json"
    path.write_text(json.dumps(army))
    return path


def test_station_locate_prints_every_base_as_json(tmp_path):
    _truth_calibration().save(tmp_path / "table.json")
    scene = _scene([SceneMarker(20, 500.0, 500.0, 40.0, 0.0), SceneMarker(22, 700.0, 300.0, 25.0, 45.0)])
    image, _ = render(scene, np.random.default_rng(8))
    cv2.imwrite(str(tmp_path / "frame.png"), image)
    red = EXAMPLES / "red-polaris.json"
    result = CliRunner().invoke(
        main,
        [
            "locate",
            str(tmp_path / "frame.png"),
            "--calibration",
            str(tmp_path / "table.json"),
            "--army",
            str(_army_with_markers(tmp_path)),
            "--army",
            str(red),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    bases = {b["element"]: b for b in json.loads(result.output)["bases"]}
    assert abs(bases["gryphon"]["x_mm"] - 525) < 1 and abs(bases["gryphon"]["x_in"] - 525 / 25.4) < 0.05
    assert abs(bases["cyber-1"]["facing_deg"] - 45) < 1.5 and bases["cyber-1"]["player"] == "blue"


def test_station_locate_on_an_unreadable_image_is_a_clear_error(tmp_path):
    _truth_calibration().save(tmp_path / "table.json")
    (tmp_path / "notes.png").write_text("not an image")
    result = CliRunner().invoke(
        main,
        [
            "locate",
            str(tmp_path / "notes.png"),
            "--calibration",
            str(tmp_path / "table.json"),
            "--army",
            str(_army_with_markers(tmp_path)),
        ],
    )
    assert result.exit_code == 2 and "cannot be read as an image" in result.output


def test_marker_sheets_print_at_exact_scale(tmp_path):
    result = CliRunner().invoke(main, ["markers", "--out", str(tmp_path), "--ids", "16-18", "--size-mm", "30"])
    assert result.exit_code == 0, result.output
    data = (tmp_path / "units-1.png").read_bytes()
    at = data.find(b"pHYs")
    assert struct.unpack(">IIB", data[at + 4 : at + 13]) == (11811, 11811, 1)  # 300 dpi in pixels per metre
    sheet = cv2.imread(str(tmp_path / "units-1.png"))
    detection = V.MarkerDetector().detect(sheet)
    assert sorted(detection.ids) == [16, 17, 18]
    side_px = np.linalg.norm(detection.corners[0][0] - detection.corners[0][1])
    assert abs(side_px - 30 / 25.4 * 300) < 3  # 354 px: 30 mm at 300 dpi
    assert {p.name for p in tmp_path.iterdir()} >= {"units-1.png", "anchors-1.png", "charuco.png"}
    board = V.parse_board("9x6:30:22:DICT_5X5_100")
    assert len(V.detect_charuco(board, cv2.imread(str(tmp_path / "charuco.png")))[0]) == 40  # all inner corners
    own = CliRunner().invoke(
        main, ["markers", "--out", str(tmp_path / "own"), "--ids", "16", "--board", "7x5:25:18:DICT_6X6_250"]
    )
    assert own.exit_code == 0, own.output
    assert (
        len(
            V.detect_charuco(
                V.parse_board("7x5:25:18:DICT_6X6_250"), cv2.imread(str(tmp_path / "own" / "charuco.png"))
            )[0]
        )
        == 24
    )
    big = CliRunner().invoke(main, ["markers", "--out", str(tmp_path / "big"), "--board", "12x8:40:30:DICT_5X5_100"])
    assert big.exit_code == 2 and "use smaller squares" in big.output


def test_army_marker_errors_name_the_field(tmp_path):
    from station.rules.base import ArmyError
    from station.rules.bronepekhota.army import load_army

    army = json.loads((EXAMPLES / "blue-protectorate.json").read_text())
    army["units"][1]["marker"] = {"id": 3, "height_mm": 40}
    path = tmp_path / "a.json"
    path.write_text(json.dumps(army))
    with pytest.raises(ArmyError) as err:
        load_army(path)
    assert err.value.where == "units[1].marker.id" and "16 to 249" in err.value.problem


# ---- the tracker over time ------------------------------------------------------------------------


def _run_sequence(seed, frames, falls, hands=3):
    from station.vision.tracker import ModelFell, ModelUp, Tracker
    from tests.sim.synthetic import sequence

    rng = np.random.default_rng(seed)
    tracker, found, false, truth, outputs = None, {}, [], set(), []
    for base, frame in sequence(CAM, rng, frames=frames, units=12, falls=falls, hands=hands):
        if tracker is None:
            specs = {
                m.id: MarkerSpec(m.id, f"u{m.id}", "u", "p", m.size, m.height)
                for m in base.markers
                if m.id in V.UNIT_IDS
            }
            tracker = Tracker(Locator(_truth_calibration(), specs))
        out = tracker.update(frame.image)
        outputs.append(out)
        truth |= frame.fallen
        for event in out.events:
            if isinstance(event, ModelFell):
                (found if int(event.element[1:]) in frame.fallen else false.append(event) or {}).update(
                    {int(event.element[1:]): out.frame}
                )
            assert not isinstance(event, ModelUp)
    return truth, found, false, outputs


def test_tracker_finds_fallen_models_among_passing_hands():
    truth, found, false, _ = _run_sequence(seed=12, frames=56, falls=3)
    assert truth and set(found) == truth and not false


def test_hands_passing_over_make_no_false_falls():
    _, _, false, outputs = _run_sequence(seed=22, frames=60, falls=0)
    assert not false
    assert any(t.status == "hidden" for out in outputs for t in out.tracks)  # hands did hide markers


def test_tilt_sensor_decides_at_once_and_snapshot_reports_units():
    from station.vision.tracker import ModelFell, Tracker

    image, _ = render(_scene([SceneMarker(20, 500.0, 500.0, 40.0, 0.0)]), np.random.default_rng(3))
    tracker = Tracker(_locator())
    first = tracker.update(image)
    assert not first.events and not first.still and not first.tracks  # a new marker must be seen again
    tracker.update(image)
    third = tracker.update(image)
    assert [t.element for t in third.tracks] == ["gryphon"]  # confirmed after three frames in a row
    second = tracker.update(image, tilt={"gryphon": "fallen"})
    assert second.still and second.events == [ModelFell("gryphon", 4, "tilt sensor")]
    snapshot = second.snapshot(mm_per_unit=50.0)  # Бронепехота steps
    unit = snapshot["units"][0]
    assert unit["status"] == "fallen" and abs(unit["x_units"] - 525 / 50) < 0.03


def test_station_with_a_camera_journals_snapshots_and_falls(tmp_path, armies):
    """station run --camera: frames in, TableSnapshot and ModelFell records in the journal, the map
    on /api/table; the rules' own fold is untouched by camera records."""
    from station.fold import fold
    from station.journal import read_records
    from station.rules.bronepekhota.army import load_army
    from station.runtime import Station
    from station.vision.sources import open_source
    from station.web.app import create_app

    blue = load_army(_army_with_markers(tmp_path))
    frames = tmp_path / "frames"
    frames.mkdir()
    rng = np.random.default_rng(9)
    for k in range(26):
        cyber = SceneMarker(22, 700.0, 300.0, 25.0, 45.0, tilt_deg=85.0 if k >= 8 else 0.0)
        image, _ = render(_scene([SceneMarker(20, 500.0, 500.0, 40.0, 0.0), cyber]), rng)
        cv2.imwrite(str(frames / f"{k:03d}.png"), image)
    station = Station(tmp_path / "game.jsonl", "bronepekhota", [blue, armies[1]], {})
    station.attach_camera(open_source(str(frames)), _truth_calibration())
    station.start()
    deadline = __import__("time").monotonic() + 30
    while station.camera.state != "ended" and __import__("time").monotonic() < deadline:
        __import__("time").sleep(0.05)
    client = create_app(station, "token-123").test_client()
    table = client.get("/api/table").get_json()
    still = client.get("/api/camera.jpg")
    station.stop()
    assert still.status_code == 200 and still.mimetype == "image/jpeg"
    assert cv2.imdecode(np.frombuffer(still.data, np.uint8), cv2.IMREAD_COLOR).shape == (540, 960, 3)
    assert station.camera.frames_seen == 26 and table["camera"]["calibration"]["table"]
    records = read_records(tmp_path / "game.jsonl")
    falls = [r for r in records if r["kind"] == "camera" and r["event"] == "ModelFell"]
    assert [(r["element"], r["evidence"]) for r in falls] == [("cyber-1", "vanished")]
    snapshots = [r for r in records if r["kind"] == "snapshot"]
    assert snapshots and {u["element"] for u in snapshots[-1]["units"]} == {"gryphon", "cyber-1"}
    gryphon = next(u for u in table["table"]["units"] if u["element"] == "gryphon")
    assert abs(gryphon["x_mm"] - 525) < 1 and abs(gryphon["x_units"] - 525 / 50) < 0.03 and gryphon["player"] == "blue"
    with_camera, without = fold(records), fold([r for r in records if r["kind"] not in ("snapshot", "camera")])
    assert with_camera.state_json() == fold(records).state_json()  # replays exactly, camera included
    assert json.loads(with_camera.state_json())["positions"]["gryphon"][:2] == pytest.approx([525, 500], abs=1)
    # cyber-1 has a tilt node, which never reported a fall: the camera's fall becomes a question, not a ruling
    extra = [r for r in with_camera.rulings if r.text not in {x.text for x in without.rulings}]
    assert [(r.element, r.needs_referee, r.kind) for r in extra] == [("cyber-1", True, "warning")]
    assert "tilt node says upright" in extra[0].text


def test_calibrate_lens_then_table_from_the_command_line(tmp_path):
    """station calibrate lens --images DIR, then station calibrate table --image IMG, as documented."""
    from tests.sim.synthetic import save_frame

    rng = np.random.default_rng(31)
    photos = tmp_path / "photos"
    photos.mkdir()
    for k, view in enumerate(board_views(CAM, V.charuco_board(), rng, 16)):  # as docs/camera.md says
        cv2.imwrite(str(photos / f"{k:02d}.png"), view)
    runner = CliRunner()
    lens = runner.invoke(main, ["calibrate", "lens", "--images", str(photos), "--out", str(tmp_path / "lens.json")])
    assert lens.exit_code == 0 and "RMS reprojection error" in lens.output, lens.output
    image, truth = render(random_scene(CAM, rng, units=4), rng)
    save_frame(str(tmp_path / "table"), image, truth)
    assert json.loads((tmp_path / "table.json").read_text())["markers"]  # the truth beside the frame
    table = runner.invoke(
        main,
        [
            "calibrate",
            "table",
            "--image",
            str(tmp_path / "table.png"),
            "--lens",
            str(tmp_path / "lens.json"),
            "--out",
            str(tmp_path / "cal.json"),
        ],
    )
    assert table.exit_code == 0, table.output
    assert table.output.count("anchor ") == 8 and "table pose from 8 anchors" in table.output
    assert np.abs(load_calibration(tmp_path / "cal.json").camera().centre - CAM.centre).max() < 5
    bad = runner.invoke(
        main, ["calibrate", "table", "--image", str(tmp_path / "table.png"), "--lens", str(tmp_path / "missing.json")]
    )
    assert bad.exit_code == 2 and "no such calibration file" in bad.output


def test_the_camera_seen_from_above_puts_each_anchor_where_the_table_says():
    """The map's backdrop: the frame warped to the table plane at 2 mm a pixel, far edge at the
    top.  Each anchor found in the warped picture sits at its table position."""
    import cv2

    from station.vision import cv as stationcv
    from station.vision.geometry import overhead_camera
    from tests.sim.synthetic import Scene, anchor_markers, ideal_calibration, render

    camera = overhead_camera()
    calibration = ideal_calibration(camera)
    frame, _ = render(Scene(camera, anchor_markers()), np.random.default_rng(3))
    maps = stationcv.table_maps(
        calibration.K, calibration.dist, stationcv.rvec_of(calibration.R), calibration.t, calibration.table_mm, 2.0
    )
    flat = cv2.imdecode(np.frombuffer(stationcv.rectified_jpeg(frame, maps), np.uint8), cv2.IMREAD_COLOR)
    assert flat.shape[:2] == (int(calibration.table_mm[1] / 2), int(calibration.table_mm[0] / 2))
    found = stationcv.MarkerDetector().detect(flat)
    centres = {int(i): c.reshape(4, 2).mean(axis=0) for i, c in zip(found.ids, found.corners)}
    assert len(centres) == 8
    for anchor in calibration.anchors:
        x, y = centres[anchor.id]
        assert abs(x * 2 - anchor.x) < 3 and abs(calibration.table_mm[1] - y * 2 - anchor.y) < 3  # mm
