"""The camera as people mount it: tilted, turned, off-centre, high or low, 720p to 4K, anchors
covered or moved (docs/camera.md "Camera mounts").  Every row of the matrix is rendered and calibrated
afresh; the targets are the issue's: every pose with its anchors in place accepted, the camera
centre within 2 mm, bases at most 0.5 mm RMS and 1.5 mm worst, facing within 1 degree RMS, a moved
anchor named every time, and the uncertainty map honest (95 % of bases within 2 sigma)."""

import json

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from station.cli import main
from station.vision import cv as V
from station.vision.calibration import (
    Calibration,
    CalibrationError,
    MovedAnchorError,
    calibrate_lens,
    calibrate_table,
    default_anchors,
    load_calibration,
)
from station.vision.geometry import mounted_camera
from tests.sim.mounts import (
    MOUNTS,
    TABLE,
    Mount,
    MountResult,
    calibration_frame,
    edge_sweep,
    framed_camera,
    honesty,
    locate_and_score,
    marker_size_sweep,
    on_every_core,
    remounted,
    run_mount,
)
from tests.sim.synthetic import (
    Scene,
    SceneMarker,
    anchor_markers,
    board_views,
    ideal_lens,
    random_scene,
    render,
    save_frame,
)

FRAMES = 8  # a row's frames, each with the camera hung again (mounts.remounted): 8 draws of its error


@pytest.fixture(scope="module")
def matrix() -> dict[str, list[MountResult]]:
    """Every row's frames, rendered and calibrated on every core (this matrix was the suite's
    slowest two minutes): the results are the same as one by one, in order."""
    jobs = [(m, seed) for m in MOUNTS for seed in range(FRAMES)]
    results = on_every_core(run_mount, *zip(*jobs))
    return {m.name: results[k * FRAMES : (k + 1) * FRAMES] for k, m in enumerate(MOUNTS)}


@pytest.mark.parametrize("mount", MOUNTS, ids=[m.name for m in MOUNTS])
def test_every_mount_gives_a_right_pose_and_right_bases(matrix, mount):
    for seed, result in enumerate(matrix[mount.name]):
        if mount.moved[0] >= 0:
            assert not result.accepted and result.named_moved == (mount.moved[0],), (seed, result.message)
            assert f"anchor {mount.moved[0]} is" in result.message and f"--without {mount.moved[0]}" in result.message
        else:
            assert result.accepted, (seed, result.message)
        assert result.centre_error_mm < 2.0, seed  # with a moved anchor: the pose from the others
        assert result.bases >= 20, seed  # of 24: a few fall under the frame's edge or a foreshortened view
        assert result.base_rms_mm <= 0.5 and result.base_worst_mm <= 1.5, seed
        assert result.facing_rms_deg <= 1.0, seed


def test_the_uncertainty_map_is_honest_in_both_directions(matrix):
    """About 95 % of bases within 2 sigma, not all of them; and on every mount the error at
    0.8-1.5 sigma.  Fails with corners counted as independent (sigma 2x the error with 4 anchors)."""
    results = [r for frames in matrix.values() for r in frames]
    errors = np.concatenate([r.errors_mm for r in results])
    sigmas = np.concatenate([r.sigmas_mm for r in results])
    assert len(errors) > 3000
    assert 0.94 <= np.mean(errors <= 2 * sigmas) <= 0.985  # neither too narrow nor too wide
    assert 0.8 <= np.median(sigmas) / np.sqrt(np.mean(errors**2)) <= 1.2
    for name, frames in matrix.items():
        ratio = honesty(np.concatenate([r.errors_mm for r in frames]), np.concatenate([r.sigmas_mm for r in frames]))
        assert 0.8 <= ratio <= 1.5, (name, ratio)


def test_the_budgets_marker_scatter_is_the_one_the_detector_has():
    """MARKER_CENTRE_SIGMA_PX, measured: bases located with the true pose carry the detector's
    scatter alone."""
    from station.vision.uncertainty import MARKER_CENTRE_SIGMA_PX
    from tests.sim.mounts import detection_scatter_px

    assert detection_scatter_px() == pytest.approx(MARKER_CENTRE_SIGMA_PX, rel=0.15)


def test_anchors_laid_off_their_marks_widen_sigma_so_it_still_covers_the_error():
    """Anchors laid by hand, each up to a millimetre off: under the moved-anchor limit, so the pose
    is accepted, but its error grows.  The anchors' own scatter says so and sigma grows with it."""
    from tests.sim.mounts import laid_off

    mount = next(m for m in MOUNTS if m.name == "tilt 3°")
    laid = [laid_off(mount, 1.0, seed) for seed in range(4)]
    exact = [laid_off(mount, 0.0, seed) for seed in range(4)]
    laid_sigma = np.median(np.concatenate([r.sigmas_mm for r in laid]))
    assert laid_sigma > 1.5 * np.median(np.concatenate([r.sigmas_mm for r in exact]))
    ratio = honesty(np.concatenate([r.errors_mm for r in laid]), np.concatenate([r.sigmas_mm for r in laid]))
    assert 0.6 <= ratio <= 1.5, ratio


def test_the_lens_share_of_sigma_is_what_a_board_calibrated_lens_leaves():
    """Eight lens calibrations from 18 board photos each, the anchors seen exactly: the error the
    lens leaves after the table fit against the lens's share of sigma.  Without the pose's response
    to the lens (the refit makes up most of a lens error) sigma would be 16 times too wide."""
    from tests.sim.mounts import lens_share

    actual, predicted = lens_share(next(m for m in MOUNTS if m.name == "720p, tilt 4°"), draws=8)
    assert 0.8 <= actual / predicted <= 1.25, (actual, predicted)


def test_the_renderer_tilts_toward_the_table_and_fits_it_in_the_frame():
    camera = framed_camera(Mount("x", tilt_deg=20, offset_mm=(-300, 0)))
    axis = camera.R[2]  # optical axis in table coordinates
    assert axis[0] > 0.3 and axis[2] < -0.9  # looks down and toward +x, where the table's centre is
    corners = camera.project(np.array([[0, 0, 0], [TABLE[0], 0, 0], [TABLE[0], TABLE[1], 0], [0, TABLE[1], 0.0]]))
    assert (corners >= 0).all() and (corners[:, 0] < 1920).all() and (corners[:, 1] < 1080).all()


def test_a_real_mount_with_a_lens_calibrated_from_rendered_board_photos():
    """The issue's own case: 2 degrees off vertical, 10 mm off centre, f = 960 px; the lens from 18
    ChArUco views, then the table, then 48 bases.  Corner-level RANSAC refused this pose."""
    rng = np.random.default_rng(31)
    camera = mounted_camera((1920, 1080), 960.0, TABLE, 1200.0, 2.0, 0.0, 0.0, (10.0, 0.0))
    board = V.charuco_board()
    lens = calibrate_lens(board_views(camera, board, rng, 18), board)
    assert abs(lens.K[0, 0] - 960) < 5 and lens.lens_covariance.shape == (9, 9)
    image, _ = render(random_scene(camera, rng, units=0), rng)
    cal = calibrate_table(image, lens, default_anchors(TABLE), TABLE)
    assert len(cal.used_anchors) == 8
    # the lens's own focal error (a few tenths of a percent) moves the camera along its axis
    assert np.linalg.norm(cal.camera().centre - camera.centre) < 5.0
    result = MountResult(Mount("lens"), True)
    locate_and_score(result, cal, camera, rng, 48, 30.0)
    assert result.bases >= 40 and result.base_rms_mm <= 0.5 and result.base_worst_mm <= 1.5
    assert result.within_2_sigma >= 0.95
    worst = max(m["worst_mm"] for m in cal.uncertainty_maps())
    assert worst > max(m["median_mm"] for m in cal.uncertainty_maps())  # the corners are worse than the middle


def test_fewer_than_four_anchors_is_an_error_with_the_ids_seen():
    camera = framed_camera(Mount("x", tilt_deg=3))
    markers = [m for m in anchor_markers(TABLE) if m.id in (0, 4, 7)]
    image, _ = render(Scene(camera, markers, TABLE), np.random.default_rng(1))
    with pytest.raises(CalibrationError, match=r"only 3 of 8 anchors were found \(ids \[0, 4, 7\]\); at least 4"):
        calibrate_table(image, ideal_lens(camera), default_anchors(TABLE), TABLE)


@pytest.mark.parametrize(
    "spoil, words",
    [
        (lambda im: (im * 0.05).astype(np.uint8), "too dark"),
        (lambda im: np.clip(im.astype(int) * 6 + 80, 0, 255).astype(np.uint8), "overexposed"),
        (lambda im: cv2.GaussianBlur(im, (0, 0), 3), "blurred"),
    ],
)
def test_a_bad_picture_is_named_as_such_not_as_a_failed_fit(spoil, words):
    camera = framed_camera(Mount("x"))
    image, _ = render(Scene(camera, anchor_markers(TABLE), TABLE), np.random.default_rng(2))
    with pytest.raises(CalibrationError, match=f"the image is {words}"):
        calibrate_table(spoil(image), ideal_lens(camera), default_anchors(TABLE), TABLE)


def test_a_good_picture_has_no_problems():
    from station.vision.quality import image_problems

    camera = framed_camera(Mount("x", tilt_deg=5))
    image, _ = render(random_scene(camera, np.random.default_rng(3), units=10), np.random.default_rng(3))
    assert image_problems(image) == []


def test_a_moved_anchor_is_named_and_the_pose_from_the_others_is_kept():
    camera = framed_camera(Mount("x", tilt_deg=6, rotation_deg=30))
    anchors = default_anchors(TABLE)
    placed = [SceneMarker(a.id, a.x, a.y + (12 if a.id == 5 else 0), 0.0, a.facing_deg, a.size_mm) for a in anchors]
    image, _ = render(Scene(camera, placed, TABLE), np.random.default_rng(4))
    with pytest.raises(MovedAnchorError, match=r"anchor 5 is 1\d\.\d mm from where the others put it") as refused:
        calibrate_table(image, ideal_lens(camera), anchors, TABLE)
    assert 5 not in refused.value.calibration.used_anchors
    assert np.linalg.norm(refused.value.calibration.camera().centre - camera.centre) < 2.0
    kept = calibrate_table(image, ideal_lens(camera), anchors, TABLE, without=[5])
    assert kept.used_anchors == (0, 1, 2, 3, 4, 6, 7)


def test_calibrate_table_from_the_command_line_names_a_moved_anchor_and_reports_the_error_map(tmp_path):
    camera = framed_camera(Mount("x", tilt_deg=4, offset_mm=(50, 0)))
    anchors = default_anchors(TABLE)
    placed = [SceneMarker(a.id, a.x + (20 if a.id == 2 else 0), a.y, 0.0, a.facing_deg, a.size_mm) for a in anchors]
    image, truth = render(Scene(camera, placed, TABLE), np.random.default_rng(5))
    save_frame(str(tmp_path / "table"), image, truth)
    ideal_lens(camera).save(tmp_path / "lens.json")
    runner = CliRunner()
    args = [
        "calibrate",
        "table",
        "--image",
        str(tmp_path / "table.png"),
        "--lens",
        str(tmp_path / "lens.json"),
        "--out",
        str(tmp_path / "cal.json"),
    ]
    refused = runner.invoke(main, args)
    assert refused.exit_code == 2 and "anchor 2 is 20." in refused.output and "--without 2" in refused.output
    accepted = runner.invoke(main, args + ["--without", "2"])
    assert accepted.exit_code == 0, accepted.output
    assert "table pose from 7 anchors" in accepted.output
    assert "expected position error, 1 sigma in mm, at 0 mm" in accepted.output
    assert "at 60 mm: median" in accepted.output
    saved = load_calibration(tmp_path / "cal.json")
    assert saved.pose_covariance.shape == (6, 6) and saved.used_anchors == (0, 1, 3, 4, 5, 6, 7)
    assert saved.health()["worst_sigma_mm"] == pytest.approx(max(m["worst_mm"] for m in saved.uncertainty_maps()))


def _calibrated(mount_name: str, seed: int = 0) -> Calibration:
    mount = remounted(next(m for m in MOUNTS if m.name == mount_name), seed)
    camera, anchors, image = calibration_frame(mount, np.random.default_rng(seed))
    return calibrate_table(image, ideal_lens(camera), anchors, TABLE)


def test_sigma_is_the_same_however_the_camera_rotation_is_written():
    """A camera looking straight down is turned about 180 degrees, which has two rvecs; the fit
    may return one and the saved R give back the other.  A covariance in rvec's own coordinates
    then gave two sigma maps for one calibration, up to 70 % apart."""
    from dataclasses import replace

    cal = _calibrated("vertical")
    model = cal.error_model()
    angle = np.linalg.norm(model.rvec)
    assert abs(angle - np.pi) < 0.01
    other = replace(model, rvec=model.rvec * (1 - 2 * np.pi / angle))  # the same rotation, written the other way
    assert np.allclose(V.rodrigues(other.rvec), V.rodrigues(model.rvec), atol=1e-9)
    points = np.array([[600.0, 600.0], [100.0, 1100.0], [1100.0, 100.0]])
    for height in (0.0, 60.0):
        assert other.sigma_mm(points, height) == pytest.approx(model.sigma_mm(points, height), rel=1e-6)


def test_a_calibration_saved_with_the_covariance_in_rvec_coordinates_loads_to_the_same_map(tmp_path):
    """Files written before the covariance was kept per small turn hold it in rvec's coordinates;
    they load to the map they always meant."""
    from station.vision.tablepose import from_rvec_coordinates

    cal = _calibrated("tilt 10°, turned 37°, 0.7 m")
    data = cal.to_json()
    assert data["table"].pop("pose_parameters") == "turn, tvec"
    back = np.linalg.inv(from_rvec_coordinates(V.rvec_of(cal.R)))
    data["table"]["pose_covariance"] = (back @ cal.pose_covariance @ back.T).tolist()
    data["table"]["lens_sensitivity"] = (back @ cal.lens_sensitivity).tolist()
    (tmp_path / "rvec.json").write_text(json.dumps(data))
    old = load_calibration(tmp_path / "rvec.json")
    for then, now in zip(old.uncertainty_maps(), cal.uncertainty_maps()):
        assert np.allclose(then["sigma_mm"], now["sigma_mm"], rtol=1e-4, atol=2e-3)


def test_an_old_calibration_without_an_error_budget_still_loads_and_locates(tmp_path):
    from station.vision.locate import Locator, MarkerSpec

    camera = framed_camera(Mount("x"))
    cal = Calibration(
        camera.image_size,
        camera.K,
        camera.dist,
        0.2,
        10,
        camera.R,
        camera.t,
        TABLE,
        default_anchors(TABLE),
        {k: 0.4 for k in range(8)},
    )
    data = cal.to_json()
    assert "pose_covariance" not in data["table"]
    (tmp_path / "old.json").write_text(json.dumps(data))
    old = load_calibration(tmp_path / "old.json")
    assert old.error_model() is None and old.uncertainty_maps() == []
    image, _ = render(
        Scene(camera, anchor_markers(TABLE) + [SceneMarker(20, 300.0, 300.0, 10.0)], TABLE), np.random.default_rng(6)
    )
    sightings, _ = Locator(old, {20: MarkerSpec(20, "a", "a", "p", 30.0, 10.0)}).locate(image)
    assert sightings[0].sigma_mm == pytest.approx(0.4)  # the worst anchor, as before


def test_the_error_map_goes_into_snapshots_and_decides_too_close_to_call():
    """A base's sigma is the map's value at its place, journaled in the snapshot; the fold and the
    measurement layer use it instead of one worst residual."""
    from station.measure.measurement import unit_sigma

    assert unit_sigma({"sigma_mm": 0.3, "confidence": 1.0}, 2.0) == pytest.approx(0.3)
    assert unit_sigma({"sigma_mm": 0.3, "confidence": 0.5}, 2.0) == pytest.approx(0.6)
    assert unit_sigma({"confidence": 1.0}, 2.0) == pytest.approx(2.0)  # a snapshot recorded before the map
    from station.rules.table_snapshot import read_snapshot

    seen = read_snapshot(
        {
            "units": [
                {
                    "element": "a",
                    "x_mm": 1,
                    "y_mm": 2,
                    "facing_deg": 0,
                    "status": "up",
                    "confidence": 1.0,
                    "sigma_mm": 0.27,
                }
            ],
            "residual_mm": 3.0,
        },
        {"a"},
        {},
        {},
        {},
        (),
        None,
    )
    assert seen.sigmas == {"a": pytest.approx(0.27)}


EDGES = ("left", "right", "top", "bottom")


def test_a_marker_is_found_however_near_the_frames_edge():
    """The issue's 4K and 1080p cases: a border 8-15 px from the edge was missed at 41-58 px.  Every
    gap of 0-30 px at every edge, for markers of 24, 41 and 56 px (on every core)."""
    jobs = [(side, edge) for side in (24, 41, 56) for edge in EDGES]
    results = on_every_core(edge_sweep, *zip(*jobs))
    missed = [(side, edge, gap, why) for (side, edge), rows in zip(jobs, results) for gap, why in rows]
    assert not missed


# ---- markers too small for the mount: said with their size and the fix (issue 38) --------------


def _anchors_at(focal_px: float):
    """A 720p camera 2 m up with a wide lens: 40 mm anchors about 10.5 px (550) or 12 px (600)."""
    camera = mounted_camera((1280, 720), focal_px, TABLE, 2000.0, 0.0, 0.0, 0.0)
    anchors = default_anchors(TABLE, 40.0)
    scene = Scene(camera, [SceneMarker(a.id, a.x, a.y, 0.0, a.facing_deg, a.size_mm) for a in anchors], TABLE)
    image, _ = render(scene, np.random.default_rng(3))
    return image, ideal_lens(camera), anchors


def test_a_pose_refused_for_too_few_anchors_says_they_are_too_small_and_what_to_print():
    from station.vision.readable import RELIABLE_PX

    image, lens, anchors = _anchors_at(550.0)
    with pytest.raises(CalibrationError) as refused:
        calibrate_table(image, lens, anchors, TABLE)
    said = str(refused.value)
    assert "only 1 of 8 anchors were found" in said
    assert f"The anchors found measure 10.5-10.5 px across, under the {RELIABLE_PX:g} px" in said
    assert "print them at ≥ 69 mm, or mount the camera lower" in said


def test_a_pose_from_the_few_anchors_big_enough_names_the_others_as_too_small():
    """The issue's 720p at 2 m: a pose "from 4 anchors", and now the four others named, with why."""
    from station.vision.calibration import missing_anchors

    image, lens, anchors = _anchors_at(600.0)
    cal = calibrate_table(image, lens, anchors, TABLE)
    missing = missing_anchors(cal)
    assert len(cal.used_anchors) + len(missing) == 8 and missing
    for m in missing:
        assert m.kind == "small" and 10 < m.px < 14
        assert m.said() == (
            f"anchor {m.id} would be {m.px:.1f} px here, under the 18 px the detector reads reliably; "
            f"print it at ≥ {m.as_dict()['print_mm']} mm, or mount the camera lower"
        )


def test_locate_names_the_markers_too_small_for_the_mount_with_their_size_and_the_fix():
    from station.vision.locate import Locator, MarkerSpec
    from station.vision.readable import RELIABLE_PX
    from tests.sim.synthetic import ideal_calibration

    camera = mounted_camera((1280, 720), 600.0, TABLE, 2000.0, 0.0, 0.0, 0.0)
    cal = ideal_calibration(camera, TABLE)
    specs = {
        28: MarkerSpec(28, "scout", "recon", "blue", 30.0, 0.0),  # about 9 px here
        29: MarkerSpec(29, "tank", "armour", "blue", 70.0, 40.0),  # about 20 px: readable
    }
    _, warnings = Locator(cal, specs).locate(np.full((720, 1280, 3), 90, np.uint8))
    small = [w for w in warnings if "would be" in w]
    assert len(small) == 1 and small[0].startswith("marker 28 (scout) would be ")
    px = float(small[0].split("would be ")[1].split(" px")[0])
    assert 8.0 < px < RELIABLE_PX
    needed = int(small[0].split("print it at ≥ ")[1].split(" mm")[0])
    assert needed * px / 30.0 >= RELIABLE_PX > (needed - 1) * px / 30.0  # just enough, in whole mm
    assert "not seen: marker 28 (scout), marker 29 (tank)" in warnings


def test_a_pose_from_fewer_anchors_than_were_laid_names_the_missing_ones_and_why():
    from station.vision.calibration import missing_anchors

    mount = next(m for m in MOUNTS if m.name == "4 anchors seen, tilt 3°")
    rng = np.random.default_rng(0)
    camera, anchors, image = calibration_frame(mount, rng)
    lens = ideal_lens(camera)
    cal = calibrate_table(image, lens, anchors, TABLE)
    missing = missing_anchors(cal)
    assert [m.id for m in missing] == list(mount.covered)
    assert all(m.kind == "hidden" and "covered, in shadow" in m.said() for m in missing)


def test_a_marker_read_too_small_to_trust_its_id_is_never_a_unit():
    """The issue's misread: marker 28 at 12.8 px read as 116.  Had 116 been in an army, it would
    have become a phantom base; read under TRUSTED_PX it is said and ignored."""
    from station.vision.locate import Locator, MarkerSpec
    from station.vision.readable import TRUSTED_PX
    from tests.sim.synthetic import ideal_calibration

    camera = mounted_camera((1920, 1080), 950.0, TABLE, 1200.0, 0.0, 0.0, 0.0)
    cal = ideal_calibration(camera, TABLE)
    spec = MarkerSpec(116, "phantom", "ghosts", "red", 16.0, 0.0)  # printed small: 12.8 px reads right for its size
    centre = camera.project(np.array([[600.0, 600.0, 0.0]]))[0]
    half = 6.4
    quad = centre + np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    sightings, warnings = Locator(cal, {116: spec}).locate_detection(V.Detection(np.array([116]), quad[None]))
    assert sightings == []
    assert any(
        w.startswith("marker 116 (phantom) read at 12.8 px") and f"under the {TRUSTED_PX:g} px" in w for w in warnings
    )


def test_the_pre_game_check_names_the_army_markers_too_small_for_the_mount(tmp_path, armies):
    import copy

    from station.lobby.precheck import pregame_checks
    from tests.sim.synthetic import ideal_calibration

    armies = copy.deepcopy(armies)
    armies[0]["units"][0]["members"][0]["marker"] = {"id": 28, "size_mm": 30, "height_mm": 25}  # about 9 px here
    armies[0]["units"][1]["marker"] = {"id": 29, "size_mm": 80, "height_mm": 40}  # about 23 px
    path = tmp_path / "table.json"
    ideal_calibration(mounted_camera((1280, 720), 600.0, TABLE, 2000.0, 0.0, 0.0, 0.0), TABLE).save(path)
    checks = pregame_checks("bronepekhota", armies, {}, (), {}, "0", path, tmp_path)
    sizes = next(c for c in checks if c.check == "markers")
    assert sizes.level == "warn"
    element = armies[0]["units"][0]["members"][0]["id"]
    assert sizes.said.startswith(f"28 ({element}) would be ") and "print at ≥ 6" in sizes.said
    assert "29 (" not in sizes.said
    del armies[0]["units"][0]["members"][0]["marker"]
    sizes = next(
        c for c in pregame_checks("bronepekhota", armies, {}, (), {}, "0", path, tmp_path) if c.check == "markers"
    )
    assert sizes.level == "ok"


def test_no_misread_id_becomes_a_base_over_marker_sizes_8_to_30_px():
    """Every unit id is in the army here, so any misread is some unit's: the worst case.  Below
    14 px a few ids are misread (it happens: the sweep finds some), and none becomes a base."""
    halves = on_every_core(marker_size_sweep, [[9, 10], [11, 12], list(range(14, 31, 4))], [30, 30, 2], [7, 8, 7])
    small, larger = halves[0] + halves[1], halves[2]  # two halves of the small sizes, one core each
    assert sum(r.misread for r in small) > 0
    assert all(r.phantom == 0 for r in small)
    assert all(r.misread == 0 and r.phantom == 0 for r in larger)
    assert all(r.found >= 0.98 * r.placed for r in larger if r.px >= 18)


def test_a_misread_that_persists_frame_after_frame_never_becomes_a_track():
    """The same small marker misread as another army's id in every frame: the tracker's
    three-frame confirmation alone would take it; read under TRUSTED_PX it never starts a track."""
    from station.vision.locate import Locator, MarkerSpec
    from station.vision.tracker import Tracker
    from tests.sim.synthetic import ideal_calibration

    camera = mounted_camera((1920, 1080), 950.0, TABLE, 1200.0, 0.0, 0.0, 0.0)
    specs = {
        116: MarkerSpec(116, "phantom", "ghosts", "red", 16.0, 0.0),
        40: MarkerSpec(40, "tank", "t", "blue", 30.0, 0.0),
    }
    locator = Locator(ideal_calibration(camera, TABLE), specs)

    def quad(x_mm: float, half_px: float) -> np.ndarray:
        centre = camera.project(np.array([[x_mm, 600.0, 0.0]]))[0]
        return centre + np.array([[-half_px, -half_px], [half_px, -half_px], [half_px, half_px], [-half_px, half_px]])

    misread = V.Detection(np.array([116, 40]), np.stack([quad(500.0, 6.4), quad(800.0, 12.0)]))
    locator.detector.detect = lambda image: misread  # the detector reads the same every frame
    tracker = Tracker(locator)
    outputs = [tracker.update(np.full((1080, 1920), 90, np.uint8)) for _ in range(10)]
    assert {t.element for t in outputs[-1].tracks} == {"tank"}  # the real one, 24 px, confirmed
