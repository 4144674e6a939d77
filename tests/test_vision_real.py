"""What real users bring to the camera: OpenCV's own photographs, a board they already own, a copied
marker, a marker off the table, a model leaning, and the detector's corner bias.

The photographs in tests/data/photos come from OpenCV's documentation (tutorials on ArUco and
ChArUco detection), as shipped in Debian's opencv-doc package; see tests/data/photos/SOURCE.md."""

from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from station.cli import main
from station.vision import cv as V
from station.vision.calibration import Calibration, calibrate_lens
from station.vision.geometry import overhead_camera
from station.vision.locate import Locator, MarkerSpec
from tests.sim.synthetic import Scene, SceneMarker, anchor_markers, ideal_calibration, random_scene, render

PHOTOS = Path(__file__).parent / "data" / "photos"
CAM = overhead_camera()
TABLE = (1219.2, 1219.2)


@pytest.mark.parametrize(
    "name, ours, theirs",
    [
        ("singlemarkersoriginal.jpg", 1, 6),  # six 6x6 markers on a sheet; one box icon reads as 4x4 id 17
        ("choriginal.jpg", 0, 17),  # a ChArUco board of 6x6 markers
        ("gboriginal.png", 0, 0),  # a grid board of another dictionary
    ],
)
def test_real_photos_go_through_detection_and_markers_are_counted(name, ours, theirs):
    image = cv2.imread(str(PHOTOS / name))
    assert image is not None
    assert len(V.MarkerDetector().detect(image).ids) == ours
    other = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_6X6_250))
    _, ids, _ = other.detectMarkers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    assert (0 if ids is None else len(ids)) == theirs


def test_a_false_marker_in_a_real_photo_makes_no_base():
    """OpenCV's photo of single markers: a 'fragile' icon printed on a cardboard box reads as id
    17.  With the sheet of paper as the table (its pose from the real 6x6 markers on it, 50 mm
    each), the false 17 lies off the table and is not its printed size: it is named and dropped."""
    image = cv2.imread(str(PHOTOS / "singlemarkersoriginal.jpg"))
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_6X6_250))
    corners, ids, _ = detector.detectMarkers(gray)
    K = np.array([[452.5, 0, 317.7], [0, 456.8, 277.8], [0, 0, 1]])  # OpenCV's tutorial camera
    side = 50.0
    square = np.array(
        [[-side / 2, side / 2, 0], [side / 2, side / 2, 0], [side / 2, -side / 2, 0], [-side / 2, -side / 2, 0]]
    )
    first = list(ids.ravel()).index(62)
    ok, rvec, tvec = cv2.solvePnP(square, corners[first].reshape(4, 2), K, np.zeros(5), flags=cv2.SOLVEPNP_IPPE_SQUARE)
    assert ok
    # a table frame whose corner lies 150 mm left of and below marker 62, 400 x 300 mm: the sheet
    R = V.rodrigues(rvec.reshape(3))
    origin = np.array([-150.0, -150.0, 0.0])
    table_R, table_t = R, R @ origin + tvec.reshape(3)
    cal = Calibration((640, 480), K, np.zeros(5), 0.2, 4, table_R, table_t, (400.0, 300.0), [], {})
    specs = {17: MarkerSpec(17, "rifleman", "squad", "blue", side, 0.0)}
    sightings, warnings = Locator(cal, specs).locate(image)
    assert sightings == []
    assert any(w.startswith("marker 17 (rifleman)") and w.endswith("ignored") for w in warnings), warnings
    # and the real markers on that plane do measure 50 mm each: the frame is right
    camera = cal.camera()
    sizes = [np.linalg.norm(np.diff(camera.on_plane(c.reshape(4, 2), 0.0)[:2], axis=0)) for c in corners]
    assert np.median(sizes) == pytest.approx(side, rel=0.15)


def test_a_chaurco_photo_with_known_board_parameters_goes_through_lens_calibration(tmp_path):
    """OpenCV's ChArUco photo: 5x7 squares, markers 6x6.  One view fits the reduced lens (focal
    length and k1); the command line takes the board as --board and refuses one view."""
    image = cv2.imread(str(PHOTOS / "choriginal.jpg"))
    board = V.parse_board("5x7:40:24:DICT_6X6_250")
    objects, _ = V.detect_charuco(board, image)
    assert len(objects) == 24
    lens = calibrate_lens([image], board, min_views=1)
    assert lens.views == 1 and lens.rms_px < 0.5
    assert 350 < lens.K[0, 0] < 900 and lens.K[0, 0] == lens.K[1, 1]  # a webcam's 640 px frame
    assert tuple(lens.K[:2, 2]) == (319.5, 239.5) or np.allclose(lens.K[:2, 2], (320, 240))
    photos = tmp_path / "photos"
    photos.mkdir()
    cv2.imwrite(str(photos / "board.jpg"), image)
    result = CliRunner().invoke(
        main,
        [
            "calibrate",
            "lens",
            "--images",
            str(photos),
            "--board",
            "5x7:40:24:DICT_6X6_250",
            "--out",
            str(tmp_path / "lens.json"),
        ],
    )
    assert result.exit_code == 2 and "found in 1 of 1 images" in result.output and "at least 5 views" in result.output
    wrong = CliRunner().invoke(main, ["calibrate", "lens", "--images", str(photos), "--board", "5x7:40:24:DICT_4X4_50"])
    assert wrong.exit_code == 2 and "found in 0 of 1 images" in wrong.output


@pytest.mark.parametrize(
    "spec, words",
    [
        ("9x6:30:22", "is not COLSxROWS:SQUARE_MM:MARKER_MM:DICT"),
        ("9by6:30:22:DICT_5X5_100", "'9by6' is not COLSxROWS"),
        ("9x6:thirty:22:DICT_5X5_100", "must be sizes in mm"),
        ("9x6:30:32:DICT_5X5_100", "markers smaller than squares"),
        ("9x6:30:22:DICT_9X9_1", "is not an ArUco dictionary"),
        ("9x6:30:22:DICT_5X5_100:old", "is not COLSxROWS"),
    ],
)
def test_a_wrong_board_is_a_clear_error(spec, words):
    with pytest.raises(ValueError, match=words):
        V.parse_board(spec)
    result = CliRunner().invoke(main, ["calibrate", "lens", "--images", str(PHOTOS), "--board", spec])
    assert result.exit_code == 2 and "--board" in result.output


def test_the_legacy_pattern_is_what_older_boards_need():
    """Boards printed by OpenCV before 4.6 with an even number of rows start with the other
    colour: the modern pattern finds no corners on them, the legacy one does."""
    legacy = V.parse_board("6x6:30:22:DICT_5X5_100:legacy")
    assert legacy.getLegacyPattern() and not V.parse_board("6x6:30:22:DICT_5X5_100").getLegacyPattern()
    picture = cv2.copyMakeBorder(V.charuco_image(legacy, (720, 720)), 60, 60, 60, 60, cv2.BORDER_CONSTANT, value=255)
    assert len(V.detect_charuco(legacy, picture)[0]) == 25
    assert len(V.detect_charuco(V.parse_board("6x6:30:22:DICT_5X5_100"), picture)[0]) < 25


def _locator(specs):
    return Locator(ideal_calibration(CAM, TABLE), specs)


def test_a_copied_marker_is_a_conflict_not_two_bases_and_the_unseen_are_listed():
    specs = {
        16: MarkerSpec(16, "tank-1", "tanks", "blue", 30.0, 40.0),
        17: MarkerSpec(17, "tank-2", "tanks", "blue", 30.0, 40.0),
        18: MarkerSpec(18, "gun-1", "guns", "red", 30.0, 20.0),
    }
    scene = Scene(
        CAM,
        anchor_markers(TABLE)
        + [
            SceneMarker(16, 300.0, 300.0, 40.0),
            SceneMarker(16, 800.0, 700.0, 40.0),
            SceneMarker(17, 500.0, 900.0, 40.0),
        ],
        TABLE,
    )
    image, _ = render(scene, np.random.default_rng(7))
    sightings, warnings = _locator(specs).locate(image)
    assert [s.element for s in sightings] == ["tank-2"]
    assert "marker 16 (tank-1) is seen 2 times in one frame: a copied marker? None of them is used" in warnings
    assert "not seen: marker 18 (gun-1)" in warnings


def test_a_marker_at_the_wrong_size_or_off_the_table_is_rejected_with_a_warning():
    """The same printed marker claimed at another size (a misprint, or another army's id) and a
    marker on a box beside the table (seen through the table's calibration, it lands off it)."""
    specs = {
        20: MarkerSpec(20, "scout", "scouts", "blue", 50.0, 10.0),  # printed 30 mm in the scene
        21: MarkerSpec(21, "box", "boxes", "red", 30.0, 0.0),
    }
    wide = overhead_camera(focal_px=800.0)  # sees the floor around the table
    scene = Scene(
        wide, anchor_markers(TABLE) + [SceneMarker(20, 600.0, 600.0, 10.0), SceneMarker(21, 1330.0, 600.0, 0.0)], TABLE
    )
    image, _ = render(scene, np.random.default_rng(8))
    sightings, warnings = Locator(ideal_calibration(wide, TABLE), specs).locate(image)
    assert sightings == []
    assert any(w.startswith("marker 20 (scout) measures 30 mm") and "not its printed 50 mm" in w for w in warnings)
    assert any(w.startswith("marker 21 (box) would put its base at x 1330") and "off the" in w for w in warnings)


def test_locate_on_the_command_line_says_what_it_could_not_do(tmp_path):
    import json

    from .test_vision import _army_with_markers  # gryphon wears marker 20, cyber-1 marker 22

    image, _ = render(
        Scene(CAM, anchor_markers(TABLE) + [SceneMarker(20, 400.0, 400.0, 40.0)], TABLE), np.random.default_rng(9)
    )
    cv2.imwrite(str(tmp_path / "table.png"), image)
    ideal_calibration(CAM, TABLE).save(tmp_path / "cal.json")
    result = CliRunner().invoke(
        main,
        [
            "locate",
            str(tmp_path / "table.png"),
            "--army",
            str(_army_with_markers(tmp_path)),
            "--calibration",
            str(tmp_path / "cal.json"),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "warning: not seen: marker 22 (cyber-1)" in result.stderr
    report = json.loads(result.stdout)
    assert [b["marker"] for b in report["bases"]] == [20] and report["bases"][0]["sigma_mm"] > 0
    assert report["warnings"] == ["not seen: marker 22 (cyber-1)"]


def test_the_detector_leaves_no_bias_on_marker_size():
    """The contour's edges run half a pixel inside the printed edge; the detector moves them out.
    Measured on the renderer over all markers of three frames: the corners' mean outward error."""
    rng = np.random.default_rng(10)
    radial = []
    for _ in range(3):
        image, truth = render(random_scene(CAM, rng, units=20), rng)
        detection = V.MarkerDetector().detect(image)
        for m in truth["markers"]:
            found = detection.corners[list(detection.ids).index(m["id"])]
            true = np.array(m["corners_px"])
            outward = (true - true.mean(0)) / np.linalg.norm(true - true.mean(0), axis=1, keepdims=True)
            radial.extend(((found - true) * outward).sum(1))
    assert abs(np.mean(radial)) < 0.15  # px along the diagonal; it was -0.78 before the correction
    uncorrected = V.widen_edges(np.array([[[0, 0], [10, 0], [10, 10], [0, 10.0]]]), 0.5)
    assert np.allclose(uncorrected, [[[-0.5, -0.5], [10.5, -0.5], [10.5, 10.5], [-0.5, 10.5]]])


def _leaning_run(lean_deg: float, frames: int = 20):
    from station.vision.tracker import ModelFell, Tracker

    rng = np.random.default_rng(int(lean_deg) + 1)
    specs = {16 + k: MarkerSpec(16 + k, f"m{k}", "u", "p", 30.0, 40.0) for k in range(6)}
    tracker = Tracker(_locator(specs))
    falls = []
    for f in range(frames):
        markers = [
            SceneMarker(16 + k, 200.0 + 160 * k, 300.0 + 90 * k, 40.0, 60.0 * k + f, 30.0, lean_deg if f >= 3 else 0.0)
            for k in range(6)
        ]
        out = tracker.update(render(Scene(CAM, anchor_markers(TABLE) + markers, TABLE), rng)[0])
        falls += [e.element for e in out.events if isinstance(e, ModelFell)]
    return falls


def test_a_model_leaning_30_degrees_is_caught_by_the_fused_tracker():
    assert sorted(_leaning_run(30.0)) == [f"m{k}" for k in range(6)]


def test_a_model_leaning_15_degrees_or_standing_is_not():
    assert _leaning_run(15.0) == [] and _leaning_run(0.0) == []
