"""The camera-mount matrix: table calibration and base location on rendered frames from cameras
mounted as people mount them (tilted, turned, off-centre, high or low, 720p to 4K, anchors
covered), each measured against ground truth.  The test suite asserts the targets on it and
``bench/camera_mounts.py`` prints it as the table in docs/camera.md.
"""

from __future__ import annotations

import math
import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import cv2
import numpy as np

from station.vision import cv
from station.vision.calibration import (
    Anchor,
    Calibration,
    CalibrationError,
    MovedAnchorError,
    calibrate_lens,
    calibrate_table,
    default_anchors,
)
from station.vision.geometry import Camera, marker_corners, mounted_camera
from station.vision.locate import Locator, MarkerSpec
from station.vision.readable import smallest_px
from station.vision.tablepose import SeenAnchor, fit_table_pose
from station.vision.uncertainty import MAP_HEIGHTS_MM, MARKER_CENTRE_SIGMA_PX, ErrorModel
from tests.sim.synthetic import (
    Occluder,
    Scene,
    SceneMarker,
    board_views,
    ideal_calibration,
    ideal_lens,
    ideal_projection,
    random_scene,
    render,
)

TABLE = (1219.2, 1219.2)
RESOLUTIONS = {"720p": (1280, 720), "1080p": (1920, 1080), "4K": (3840, 2160)}


@dataclass(frozen=True)
class Mount:
    name: str
    resolution: str = "1080p"
    height_mm: float = 1200.0
    tilt_deg: float = 0.0
    rotation_deg: float = 0.0
    offset_mm: tuple[float, float] = (0.0, 0.0)
    covered: tuple[int, ...] = ()  # anchors under a hand or terrain
    moved: tuple[int, int] = (-1, 0)  # (anchor id, mm along x): an anchor knocked out of place


def framed_camera(mount: Mount, table_mm: tuple[float, float] = TABLE) -> Camera:
    """The mount's camera, tilted toward the table's centre from where it hangs, with the focal
    length that just fits the whole table in the frame (a 5 % margin): how a user sets a zoom."""
    size = RESOLUTIONS[mount.resolution]
    dx, dy = mount.offset_mm
    toward = math.degrees(math.atan2(-dy, -dx)) if (dx or dy) else 0.0
    unit = mounted_camera(
        size,
        1.0,
        table_mm,
        mount.height_mm,
        mount.tilt_deg,
        toward,
        mount.rotation_deg,
        mount.offset_mm,
        dist=(0, 0, 0, 0, 0),
    )
    corners = np.array([[0, 0, 0], [table_mm[0], 0, 0], [table_mm[0], table_mm[1], 0], [0, table_mm[1], 0]], float)
    cam = corners @ unit.R.T + unit.t
    uv = np.abs(cam[:, :2] / cam[:, 2:3])
    focal = 0.95 * min(size[0] / 2 / uv[:, 0].max(), size[1] / 2 / uv[:, 1].max())
    return mounted_camera(
        size, focal, table_mm, mount.height_mm, mount.tilt_deg, toward, mount.rotation_deg, mount.offset_mm
    )


MOUNTS = [
    Mount("vertical"),
    Mount("tilt 0.5°", tilt_deg=0.5, offset_mm=(10, 0)),
    Mount("tilt 1°", tilt_deg=1, offset_mm=(10, 0)),
    Mount("tilt 2°", tilt_deg=2, offset_mm=(10, 0)),
    Mount("tilt 2°, turned 180°", tilt_deg=2, rotation_deg=180, offset_mm=(10, 0)),
    Mount("tilt 3°", tilt_deg=3, offset_mm=(0, 10)),
    Mount("tilt 5°, turned 90°", tilt_deg=5, rotation_deg=90, offset_mm=(40, 60)),
    Mount("tilt 2°, 1.1 m", tilt_deg=2, height_mm=1100, offset_mm=(10, 0)),
    Mount("tilt 10°, turned 37°, 0.7 m", tilt_deg=10, rotation_deg=37, height_mm=700, offset_mm=(-120, 0)),
    Mount("tilt 15°, off a third, 1.5 m", tilt_deg=15, rotation_deg=250, height_mm=1500, offset_mm=(0, -406)),
    Mount("tilt 25°, off a third, 0.87 m", tilt_deg=25, rotation_deg=300, height_mm=870, offset_mm=(406, 0)),
    Mount("tilt 20°, 2.0 m", tilt_deg=20, rotation_deg=15, height_mm=2000, offset_mm=(-300, -250)),
    Mount("720p, tilt 4°", resolution="720p", tilt_deg=4, rotation_deg=200, offset_mm=(80, 0)),
    Mount("4K, tilt 6°", resolution="4K", tilt_deg=6, rotation_deg=120, offset_mm=(0, 100)),
    Mount("4 anchors seen, tilt 3°", tilt_deg=3, offset_mm=(30, 30), covered=(1, 3, 4, 6)),
    Mount("5 anchors seen, tilt 8°", tilt_deg=8, rotation_deg=60, offset_mm=(-150, 90), covered=(0, 5, 7)),
    Mount("anchor 3 moved 25 mm, tilt 4°", tilt_deg=4, rotation_deg=20, offset_mm=(60, 0), moved=(3, 25)),
    Mount(
        "anchor 6 moved 8 mm, tilt 12°", tilt_deg=12, rotation_deg=140, height_mm=1000, offset_mm=(0, 200), moved=(6, 8)
    ),
    Mount(
        "4 anchors seen, anchor 0 moved 25 mm, tilt 3°",
        tilt_deg=3,
        offset_mm=(30, 30),
        covered=(1, 3, 4, 6),
        moved=(0, 25),
    ),
]


@dataclass
class MountResult:
    mount: Mount
    accepted: bool
    message: str = ""
    named_moved: tuple[int, ...] = ()
    centre_error_mm: float = math.nan
    base_rms_mm: float = math.nan
    base_worst_mm: float = math.nan
    facing_rms_deg: float = math.nan
    bases: int = 0
    unit_mm: float = 30.0
    within_2_sigma: float = math.nan  # share of bases whose error is within twice the predicted sigma
    sigma_median_mm: float = math.nan
    errors_mm: list[float] = field(default_factory=list)
    sigmas_mm: list[float] = field(default_factory=list)


def px_per_mm(camera: Camera) -> float:
    """Pixels per mm of a marker's side where the camera sees the table smallest."""
    return smallest_px(camera, TABLE, 0.0, 10.0) / 10


def marker_sizes(camera: Camera) -> tuple[float, float]:
    """Unit and anchor marker sizes (mm) for this mount: 30 and 40 mm, larger where the camera sees
    the table so small that they would fall under 22 and 28 px, as docs/camera.md tells users to print."""
    scale = px_per_mm(camera)
    return max(30.0, math.ceil(22 / scale)), max(40.0, math.ceil(28 / scale))


def _hand_over(camera: Camera, anchor: Anchor, table_mm: tuple[float, float]) -> Occluder:
    """A hand (ellipse) over one anchor, in ideal pixels."""
    px = ideal_projection(camera, np.array([[anchor.x, anchor.y, 0.0]]))[0]
    return Occluder(float(px[0]), float(px[1]), 45 * camera.K[0, 0] / 950, 60 * camera.K[0, 0] / 950)


def calibration_frame(mount: Mount, rng: np.random.Generator) -> tuple[Camera, list[Any], np.ndarray]:
    """The mount's camera, the anchors as they should lie, and the frame it sees of them: the
    moved one moved, the covered ones under a hand."""
    camera = framed_camera(mount)
    _, anchor_mm = marker_sizes(camera)
    anchors = default_anchors(TABLE, anchor_mm, inset=anchor_mm)
    moved_id, shift = mount.moved
    placed = [
        SceneMarker(a.id, a.x + (shift if a.id == moved_id else 0), a.y, 0.0, a.facing_deg, a.size_mm) for a in anchors
    ]
    hands = [_hand_over(camera, a, TABLE) for a in anchors if a.id in mount.covered]
    image, _ = render(Scene(camera, placed, TABLE, hands), rng)
    return camera, anchors, image


def remounted(mount: Mount, seed: int) -> Mount:
    """The mount as hung again for frame ``seed``: within 5 mm and a few tenths of a degree of its
    numbers.  A marker's detection error depends on where its edges fall between pixels, which is
    fixed for one exact camera placement; so the frames of one row must place the camera afresh,
    or the row measures one draw of that error however many frames it renders."""
    jitter = np.random.default_rng(1000 + seed)
    dx, dy, dh = jitter.uniform(-5, 5, 3)
    return replace(
        mount,
        offset_mm=(mount.offset_mm[0] + dx, mount.offset_mm[1] + dy),
        height_mm=mount.height_mm + dh,
        rotation_deg=mount.rotation_deg + jitter.uniform(-0.3, 0.3),
        tilt_deg=mount.tilt_deg + jitter.uniform(-0.1, 0.1),
    )


def board_lens(camera: Camera, rng: np.random.Generator, views: int) -> Calibration:
    """The lens as a user calibrates it: ``views`` photos of the ChArUco board, held as far from
    the camera in mm as 0.47-0.78 of its focal length in px (450-750 mm at 960 px), so the board
    fills the same share of the frame at any zoom."""
    board = cv.charuco_board()
    f = float(camera.K[0, 0])
    photos = board_views(camera, board, rng, views, reach=(0.44 * f, 0.24 * f), depth=(0.47 * f, 0.78 * f))
    return calibrate_lens(photos, board)


def _table_with_verdict(
    result: MountResult, image: np.ndarray, lens: Calibration, anchors: Sequence[Anchor]
) -> Calibration | None:
    """The table calibration, its refusal noted in ``result``: with a moved anchor named, the pose
    from the others (it must still be right); with no pose at all, None."""
    try:
        return calibrate_table(image, lens, anchors, TABLE)
    except MovedAnchorError as exc:
        result.accepted, result.message = False, str(exc)
        result.named_moved = tuple(sorted(set(exc.calibration.residuals_mm) - set(exc.calibration.used_anchors)))
        return exc.calibration
    except CalibrationError as exc:
        result.accepted, result.message = False, str(exc)
        return None


def run_mount(mount: Mount, seed: int = 0, units: int = 24, lens_views: int = 0) -> MountResult:
    """Calibrate the table from a rendered frame, then locate every base of a second frame with
    the result and compare with ground truth.  The lens is the true one, or with ``lens_views``
    calibrated from that many board photos.  The row's mount is hung again for each seed
    (``remounted``); the result keeps the row's own mount."""
    rng = np.random.default_rng(seed)
    row, mount = mount, remounted(mount, seed)
    camera, anchors, image = calibration_frame(mount, rng)
    unit_mm, _ = marker_sizes(camera)
    if lens_views:
        lens = board_lens(camera, rng, lens_views)
    else:
        lens = ideal_lens(camera)
    result = MountResult(row, True)
    cal = _table_with_verdict(result, image, lens, anchors)
    if cal is None:
        return result
    result.centre_error_mm = float(np.linalg.norm(cal.camera().centre - camera.centre))
    result.unit_mm = unit_mm
    locate_and_score(result, cal, camera, rng, units, unit_mm)
    return result


def laid_off(mount: Mount, off_by_mm: float, seed: int) -> MountResult:
    """The mount calibrated from anchors laid by hand, each up to ``off_by_mm`` off its mark in
    x and y (the true lens), then 24 bases located with it: what careless anchors cost, and
    whether sigma says so.  An anchor slipped far enough is named as moved (``accepted`` False),
    and the bases are located with the pose from the others, as a referee would go on."""
    rng = np.random.default_rng(seed)
    camera = framed_camera(remounted(mount, seed))
    anchors = default_anchors(TABLE, 40.0, inset=40.0)
    slips = rng.uniform(-off_by_mm, off_by_mm, (len(anchors), 2))
    placed = [
        SceneMarker(a.id, a.x + dx, a.y + dy, 0.0, a.facing_deg, a.size_mm) for a, (dx, dy) in zip(anchors, slips)
    ]
    image, _ = render(Scene(camera, placed, TABLE), rng)
    result = MountResult(mount, True)
    cal = _table_with_verdict(result, image, ideal_lens(camera), anchors)
    if cal is not None:
        locate_and_score(result, cal, camera, rng, 24, 30.0)
    return result


def lens_share(mount: Mount, draws: int, views: int = 18) -> tuple[float, float]:
    """The error a board-calibrated lens leaves on the table once the table fit has made up what it
    can, against the share of sigma the station gives the lens (RMS over ``draws`` calibrations
    of ``views`` photos each, bases on a grid at 0 and 60 mm).  The anchors' corners are given
    exactly, so the lens is the only error in it: whether its covariance is honest."""
    camera = framed_camera(mount)
    _, anchor_mm = marker_sizes(camera)
    seen = []
    for a in default_anchors(TABLE, anchor_mm, inset=anchor_mm):
        corners = marker_corners(np.array([a.x, a.y]), a.facing_deg, a.size_mm, 0.0)
        seen.append(SeenAnchor(a.id, corners, camera.project(corners)))
    grid = np.linspace(60.0, TABLE[0] - 60.0, 8)
    xy = np.column_stack([np.repeat(grid, len(grid)), np.tile(grid, len(grid))])
    actual, predicted = [], []
    for draw in range(draws):
        lens = board_lens(camera, np.random.default_rng(500 + draw), views)
        if lens.lens_covariance is None:
            raise ValueError("the board calibration gave no lens covariance")
        pose = fit_table_pose(seen, lens.K, lens.dist)
        fitted = Camera(lens.K, lens.dist, pose.R, pose.tvec, camera.image_size)
        model = ErrorModel(
            lens.K, lens.dist, pose.rvec, pose.tvec, np.zeros((6, 6)), pose.lens_sensitivity, lens.lens_covariance, 0.0
        )
        for height in MAP_HEIGHTS_MM:
            points = np.column_stack([xy, np.full(len(xy), height)])
            actual += list(np.sum((fitted.on_plane(camera.project(points), height) - xy) ** 2, axis=1))
            predicted += list(model.sigma_mm(xy, height) ** 2)
    return float(np.sqrt(np.mean(actual))), float(np.sqrt(np.mean(predicted)))


def locate_and_score(
    result: MountResult, cal: Calibration, camera: Camera, rng: np.random.Generator, units: int, unit_mm: float
) -> None:
    """Locate ``units`` bases of a fresh frame with ``cal`` and score them against ground truth:
    each base's error and its predicted sigma go into ``result``."""
    scene = random_scene(camera, rng, units=units, table_mm=TABLE, size=unit_mm)
    scene.markers = [m for m in scene.markers if m.id in cv.UNIT_IDS] + [
        SceneMarker(a.id, a.x, a.y, 0.0, a.facing_deg, a.size_mm) for a in cal.anchors
    ]
    image, truth = render(scene, rng)
    bases = [m for m in truth["markers"] if m["id"] in cv.UNIT_IDS]
    specs = {m["id"]: MarkerSpec(m["id"], f"u{m['id']}", "u", "p", m["size"], m["height"]) for m in bases}
    sightings, _ = Locator(cal, specs).locate(image)
    by_id = {m["id"]: m for m in bases}
    model = cal.error_model()
    if model is None:
        raise ValueError("the calibration has no table pose, so no error model")
    errors, facings, sigmas = [], [], []
    for s in sightings:
        m = by_id[s.marker]
        errors.append(math.hypot(s.x_mm - m["x"], s.y_mm - m["y"]))
        facings.append((s.facing_deg - m["facing_deg"] + 180) % 360 - 180)
        sigmas.append(float(model.sigma_mm(np.array([[m["x"], m["y"]]]), m["height"])[0]))
    e, f, sg = np.array(errors), np.array(facings), np.array(sigmas)
    result.bases = len(e)
    result.base_rms_mm = float(np.sqrt(np.mean(e**2)))
    result.base_worst_mm = float(e.max())
    result.facing_rms_deg = float(np.sqrt(np.mean(f**2)))
    result.within_2_sigma = float(np.mean(e <= 2 * sg))
    result.sigma_median_mm = float(np.median(sg))
    result.errors_mm, result.sigmas_mm = errors, sigmas


def honesty(errors_mm: Sequence[float], sigmas_mm: Sequence[float]) -> float:
    """The RMS error over the RMS predicted sigma: 1 when sigma is honest."""
    return float(np.sqrt(np.mean(np.square(errors_mm)) / np.mean(np.square(sigmas_mm))))


def detection_scatter_px(seeds: Sequence[int] = (0,)) -> float:
    """The detector's own centre scatter (px per axis), measured: every row's bases located with
    the true pose, so that no pose error is in them.  ``MARKER_CENTRE_SIGMA_PX`` should be this."""
    errors: list[float] = []
    sigmas: list[float] = []
    for row in MOUNTS:
        for seed in seeds:
            camera = framed_camera(remounted(row, seed))
            cal = ideal_calibration(camera, TABLE)
            cal.pose_covariance, cal.lens_sensitivity = np.zeros((6, 6)), np.zeros((6, 9))
            result = MountResult(row, True)
            locate_and_score(result, cal, camera, np.random.default_rng(seed), 24, marker_sizes(camera)[0])
            errors += result.errors_mm
            sigmas += result.sigmas_mm  # the detector's term alone, at MARKER_CENTRE_SIGMA_PX
    return MARKER_CENTRE_SIGMA_PX * honesty(errors, sigmas)


@dataclass(frozen=True)
class SizeRow:
    """One marker size of the sweep: markers placed, read as themselves, read as another id (a
    misread), and misreads that became a base (a phantom: the target is none)."""

    px: int
    placed: int
    found: int
    misread: int
    phantom: int


def marker_size_sweep(sizes_px: Sequence[int], frames: int, seed: int = 7) -> list[SizeRow]:
    """Markers of random ids drawn at ``sizes_px`` across (a 1080p camera 1.2 m up, 42 a frame on
    the table, turned every way), detected, and located with every unit id in the army: a misread
    id always belongs to some unit, the worst case."""
    rng = np.random.default_rng(seed)
    camera = framed_camera(Mount("sweep"))
    scale = px_per_mm(camera)
    rows = []
    for px in sizes_px:
        size = px / scale
        specs = {i: MarkerSpec(i, f"u{i}", "u", "p", size, 0.0) for i in cv.UNIT_IDS}
        locator = Locator(ideal_calibration(camera, TABLE), specs)
        placed = found = misread = phantom = 0
        for _ in range(frames):
            ids = rng.choice(np.arange(cv.UNIT_IDS.start, cv.UNIT_IDS.stop), 42, replace=False)
            markers = [
                SceneMarker(
                    int(i),
                    90 + (k % 7) * 170 + rng.uniform(-20, 20),
                    110 + (k // 7) * 200 + rng.uniform(-20, 20),
                    float(rng.uniform(0, 60)),
                    float(rng.uniform(0, 360)),
                    size,
                )  # fmt: skip
                for k, i in enumerate(ids)
            ]
            image, _ = render(Scene(camera, markers, TABLE), rng)
            detection = locator.detector.detect(image)
            where = {m.id: camera.project(np.array([[m.x, m.y, m.height]]))[0] for m in markers}
            for marker_id, quad in zip(detection.ids, detection.corners):
                nearest = min(where, key=lambda m: float(np.sum((where[m] - quad.mean(axis=0)) ** 2)))
                found += int(nearest == marker_id)
                misread += int(nearest != marker_id)
            sightings, _ = locator.locate_detection(detection)
            phantom += sum(1 for s in sightings if s.marker not in where)
            placed += len(markers)
        rows.append(SizeRow(px, placed, found, misread, phantom))
    return rows


Row = TypeVar("Row")


def on_every_core(work: Callable[..., Row], *arguments: Sequence[Any]) -> list[Row]:
    """``work`` over the zipped ``arguments`` on every core, in order: the suite itself runs on
    one, and rendering frames is its slowest work.  Spawned, not forked: the test process may hold
    threads (a fork copies their locks held)."""
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1, mp_context=spawn) as pool:
        return list(pool.map(work, *arguments))


def marker_near_the_edge(side_px: int, gap_px: int, edge: str, rng: np.random.Generator) -> np.ndarray:
    """A 1080p frame of a grey table with one printed marker (its one-module white margin around
    it, cut off by the frame where it does not fit) whose black border lies ``gap_px`` from ``edge``."""
    height, width = 1080, 1920
    image = np.full((height, width), 90, np.uint8)
    quiet = max(1, side_px // 6)
    card = np.full((side_px + 2 * quiet, side_px + 2 * quiet), 245, np.uint8)
    card[quiet : quiet + side_px, quiet : quiet + side_px] = cv.marker_image(40, side_px)
    x0, y0 = {
        "left": (gap_px - quiet, height // 2),
        "right": (width - gap_px - side_px - quiet, height // 2),
        "top": (width // 2, gap_px - quiet),
        "bottom": (width // 2, height - gap_px - side_px - quiet),
    }[edge]
    ys = slice(max(y0, 0), min(y0 + card.shape[0], height))
    xs = slice(max(x0, 0), min(x0 + card.shape[1], width))
    image[ys, xs] = card[ys.start - y0 : ys.stop - y0, xs.start - x0 : xs.stop - x0]
    blurred = cv2.GaussianBlur(image, (0, 0), 0.6)
    return np.clip(blurred + rng.normal(0, 2, image.shape), 0, 255).astype(np.uint8)


def edge_sweep(side_px: int, edge: str) -> list[tuple[int, str]]:
    """A ``side_px`` marker 0-30 px from ``edge``: each gap where it was missed, or found off its
    place by a pixel or more (the frame's offset not taken back out)."""
    rng = np.random.default_rng((side_px, EDGE_SEEDS[edge]))
    detector = cv.MarkerDetector()
    wrong = []
    for gap in range(31):
        found = detector.detect(marker_near_the_edge(side_px, gap, edge, rng))
        if list(found.ids) != [40]:
            wrong.append((gap, f"found {list(found.ids)}"))
            continue
        centre = found.corners[0].mean(axis=0)
        expected = {"left": gap, "right": 1920 - gap - side_px, "top": gap, "bottom": 1080 - gap - side_px}[edge]
        along = centre[0] if edge in ("left", "right") else centre[1]
        if abs(along - (expected + side_px / 2)) >= 1.0:
            wrong.append((gap, f"centre {along:.1f} px, not {expected + side_px / 2:.1f}"))
    return wrong


EDGE_SEEDS = {"left": 1, "right": 2, "top": 3, "bottom": 4}
