"""Synthetic overhead frames with ground truth, for tests and benchmarks.

Scenes are drawn in an ideal pinhole image (each planar marker by its exact homography), then
bent by the camera's real lens distortion with a remap, then blurred, lit unevenly and given
sensor noise.  Hands and arms are skin-coloured ellipses drawn over everything.  Ground truth
is every marker's 3D placement and its distorted corner pixels, computed independently of the
drawing with ``cv2.projectPoints``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, cast

import cv2
import numpy as np

from station.vision import cv
from station.vision.calibration import Calibration, default_anchors
from station.vision.geometry import Camera, marker_corners

TABLE_BGR = (170, 190, 205)
FLOOR_BGR = (60, 60, 60)
SKIN_BGR = (120, 150, 200)
TEXTURE_MODULE_PX = 16


@dataclass(frozen=True)
class SceneMarker:
    id: int
    x: float
    y: float
    height: float = 0.0
    facing_deg: float = 90.0
    size: float = 30.0  # printed side, black border included, mm
    tilt_deg: float = 0.0  # 0 flat; a fallen model's marker is tipped over (e.g. 80-90)


@dataclass(frozen=True)
class Occluder:
    """A hand or arm over the table: an ellipse in ideal image pixels."""

    cx: float
    cy: float
    rx: float
    ry: float
    angle_deg: float = 0.0


@dataclass
class Scene:
    camera: Camera
    markers: list[SceneMarker]
    table_mm: tuple[float, float] = (1219.2, 1219.2)
    occluders: list[Occluder] = field(default_factory=list)
    noise_sigma: float = 2.0
    blur_sigma: float = 0.6
    lighting: float = 0.25  # strength of the uneven-lighting gradient


def _corners_3d(m: SceneMarker, margin_modules: float = 0.0) -> np.ndarray:
    """3D corners of the marker (optionally grown by a white margin), tipped about its bottom edge."""
    size = m.size * (6 + 2 * margin_modules) / 6
    flat = marker_corners(np.array([m.x, m.y]), m.facing_deg, size, m.height)
    if not m.tilt_deg:
        return flat
    a = np.radians(m.facing_deg)
    forward = np.array([np.cos(a), np.sin(a), 0.0])
    bottom_mid = (flat[2] + flat[3]) / 2
    t = np.radians(m.tilt_deg)
    lifted = []
    for p in flat:
        along = np.dot(p - bottom_mid, forward)  # distance up the marker from its bottom edge
        lifted.append(p - along * forward + along * (np.cos(t) * forward + np.array([0, 0, np.sin(t)])))
    return np.array(lifted)


def truth_corners(camera: Camera, m: SceneMarker) -> np.ndarray:
    return camera.project(_corners_3d(m))


@lru_cache(maxsize=8)
def _distortion_maps(
    K_key: tuple[Any, ...], dist_key: tuple[Any, ...], size: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """For every distorted pixel, the ideal pixel it shows (for cv2.remap).  Undistorted exactly
    on every 8th pixel and interpolated between: the lens field is so smooth that this is within
    0.01 px of undistorting every pixel (a 4K frame's maps: 0.1 s, not 1.7 s; the camera-mount
    matrix renders 152 cameras)."""
    K, dist = np.array(K_key).reshape(3, 3), np.array(dist_key)
    w, h = size
    step = 8
    xs, ys = np.arange(0, w + step, step, dtype=np.float64), np.arange(0, h + step, step, dtype=np.float64)
    grid = np.stack(np.meshgrid(xs, ys), -1).reshape(-1, 1, 2)
    coarse = cv2.undistortPoints(grid, K, dist, P=K).reshape(len(ys), len(xs), 2).astype(np.float32)
    along_x = np.ascontiguousarray(np.broadcast_to(np.arange(w, dtype=np.float32) / step, (h, w)))
    along_y = np.ascontiguousarray(np.broadcast_to((np.arange(h, dtype=np.float32) / step)[:, None], (h, w)))
    ideal = cv2.remap(coarse, along_x, along_y, cv2.INTER_LINEAR)
    return ideal[..., 0], ideal[..., 1]


@lru_cache(maxsize=512)
def _texture(marker_id: int) -> np.ndarray:
    """The printed marker with one module of white margin, as the renderer warps it."""
    inner = cv.marker_image(marker_id, 6 * TEXTURE_MODULE_PX)
    return cv2.copyMakeBorder(
        inner,
        TEXTURE_MODULE_PX,
        TEXTURE_MODULE_PX,
        TEXTURE_MODULE_PX,
        TEXTURE_MODULE_PX,
        cv2.BORDER_CONSTANT,
        value=255,
    )


def ideal_projection(camera: Camera, points: np.ndarray) -> np.ndarray:
    cam = points @ camera.R.T + camera.t
    uv = cam[:, :2] / cam[:, 2:3]
    return cast(np.ndarray, uv @ camera.K[:2, :2].T + camera.K[:2, 2])


def _paste(canvas: np.ndarray, texture: np.ndarray, dst: np.ndarray) -> None:
    """Warp ``texture`` onto the quadrilateral ``dst`` of ``canvas`` (ideal pixels), in its bbox only."""
    h, w = canvas.shape[:2]
    x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    th, tw = texture.shape[:2]
    src = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32) - 0.5
    H = cv2.getPerspectiveTransform(src, (dst - [x0, y0]).astype(np.float32))
    roi = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(texture, H, roi, flags=cv2.INTER_LINEAR)
    alpha = cv2.warpPerspective(np.full_like(texture, 255), H, roi, flags=cv2.INTER_LINEAR).astype(np.float32) / 255
    patch = canvas[y0:y1, x0:x1].astype(np.float32)
    canvas[y0:y1, x0:x1] = (
        patch * (1 - alpha[..., None]) + warped[..., None].astype(np.float32) * alpha[..., None]
    ).astype(np.uint8)


def render(scene: Scene, rng: np.random.Generator | None = None) -> tuple[np.ndarray, dict[str, Any]]:
    """A BGR frame of the scene and its ground truth."""
    rng = rng or np.random.default_rng(0)
    cam = scene.camera
    w, h = cam.image_size
    canvas = np.zeros((h, w, 3), np.uint8)
    canvas[:] = FLOOR_BGR
    tw, th = scene.table_mm
    table = ideal_projection(cam, np.array([[0, 0, 0], [tw, 0, 0], [tw, th, 0], [0, th, 0]], float))
    cv2.fillConvexPoly(canvas, np.round(table * 16).astype(np.int32), TABLE_BGR, cv2.LINE_AA, 4)
    for m in scene.markers:
        _paste(canvas, _texture(m.id), ideal_projection(cam, _corners_3d(m, margin_modules=1.0)))
    for o in scene.occluders:
        cv2.ellipse(
            canvas, (int(o.cx), int(o.cy)), (int(o.rx), int(o.ry)), o.angle_deg, 0, 360, SKIN_BGR, -1, cv2.LINE_AA
        )
    if scene.lighting:  # uneven lighting, applied before the lens like the real table's
        xx = np.arange(w, dtype=np.float32)[None, :]
        yy = np.arange(h, dtype=np.float32)[:, None]
        gain = 1 - scene.lighting * (0.6 * xx / w + 0.4 * yy / h)
        canvas = (canvas.astype(np.float32) * gain[..., None]).astype(np.uint8)
    image = _finish(canvas, cam, rng, scene.noise_sigma, scene.blur_sigma)
    truth = {
        "markers": [
            {
                "id": m.id,
                "x": m.x,
                "y": m.y,
                "height": m.height,
                "facing_deg": m.facing_deg,
                "size": m.size,
                "tilt_deg": m.tilt_deg,
                "corners_px": truth_corners(cam, m).tolist(),
            }
            for m in scene.markers
        ],
        "occluders": [o.__dict__ for o in scene.occluders],
    }
    return image, truth


def _finish(canvas: np.ndarray, camera: Camera, rng: np.random.Generator, noise: float, blur: float) -> np.ndarray:
    """Lens distortion, blur and sensor noise applied to an ideal-pinhole canvas."""
    mapx, mapy = _distortion_maps(tuple(camera.K.ravel()), tuple(camera.dist.ravel()), camera.image_size)
    image: np.ndarray = cv2.remap(canvas, mapx, mapy, cv2.INTER_LINEAR, borderValue=FLOOR_BGR).astype(np.float32)
    if blur:
        image = np.asarray(cv2.GaussianBlur(image, (0, 0), blur))
    if noise:
        grain = np.empty(image.shape, np.float32)
        cv2.setRNGSeed(int(rng.integers(1 << 30)))
        cv2.randn(grain, np.zeros(3), np.full(3, noise))  # per channel; 10x faster than numpy for a frame
        image += grain
    return np.clip(image, 0, 255, out=image).astype(np.uint8)


def render_charuco_view(
    camera: Camera, board: Any, R: np.ndarray, t: np.ndarray, rng: np.random.Generator, px_per_mm: float = 4.0
) -> np.ndarray:
    """The ChArUco board at pose (R, t) (board mm -> camera mm) seen by ``camera``."""
    cols, rows = board.getChessboardSize()
    square = board.getSquareLength()
    w_mm, h_mm = cols * square, rows * square
    texture = cv.charuco_image(board, (int(w_mm * px_per_mm), int(h_mm * px_per_mm)))
    texture = cv2.copyMakeBorder(texture, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    m = 40 / px_per_mm
    outline = np.array([[-m, -m, 0], [w_mm + m, -m, 0], [w_mm + m, h_mm + m, 0], [-m, h_mm + m, 0]], float)
    cam_pts = outline @ R.T + t
    ideal = cam_pts[:, :2] / cam_pts[:, 2:3] @ camera.K[:2, :2].T + camera.K[:2, 2]
    canvas = np.full((camera.image_size[1], camera.image_size[0], 3), FLOOR_BGR, np.uint8)
    _paste(canvas, cv2.cvtColor(texture, cv2.COLOR_GRAY2BGR)[..., 0], ideal)
    return _finish(canvas, camera, rng, noise=2.0, blur=0.6)


def board_views(
    camera: Camera,
    board: Any,
    rng: np.random.Generator,
    count: int,
    reach: tuple[float, float] = (420, 230),
    depth: tuple[float, float] = (450, 750),
) -> list[np.ndarray]:
    """``count`` photos of the ChArUco board as docs/camera.md asks a user to take them: tilted every
    way (up to about 30 degrees), moved up to ``reach`` mm off the camera's axis (into the frame's
    corners), ``depth`` mm from the camera."""
    cols, rows = board.getChessboardSize()
    middle = np.array([cols, rows, 0]) * board.getSquareLength() / 2
    views = []
    for _ in range(count):
        R = cv.rodrigues(rng.uniform([-0.5, -0.5, -0.4], [0.5, 0.5, 0.4]))
        t = (
            np.array([rng.uniform(-reach[0], reach[0]), rng.uniform(-reach[1], reach[1]), rng.uniform(*depth)])
            - R @ middle
        )
        views.append(render_charuco_view(camera, board, R, t, rng))
    return views


def anchor_markers(table_mm: tuple[float, float] = (1219.2, 1219.2)) -> list[SceneMarker]:
    """The default table anchors, as markers to draw."""
    return [SceneMarker(a.id, a.x, a.y, 0.0, a.facing_deg, a.size_mm) for a in default_anchors(table_mm)]


def ideal_lens(camera: Camera) -> Calibration:
    """The lens calibration a perfect job would give for a synthetic camera, with no table pose."""
    return Calibration(camera.image_size, camera.K, camera.dist, 0.2, 10)


def ideal_calibration(camera: Camera, table_mm: tuple[float, float] = (1219.2, 1219.2)) -> Calibration:
    """The calibration a perfect job would give for a synthetic camera: its true lens and pose."""
    return Calibration(
        camera.image_size, camera.K, camera.dist, 0.2, 10, camera.R, camera.t, table_mm, default_anchors(table_mm), {}
    )


def random_scene(
    camera: Camera,
    rng: np.random.Generator,
    units: int = 20,
    table_mm: tuple[float, float] = (1219.2, 1219.2),
    max_height: float = 60.0,
    fallen: int = 0,
    hands: int = 0,
    size: float = 30.0,
) -> Scene:
    """Unit markers spread over the table at random heights and facings, plus anchors."""
    markers = anchor_markers(table_mm)
    placed: list[tuple[float, float]] = []
    gap, edge = max(70.0, 2.0 * size), max(60.0, size)  # large markers (a far camera's) must not overlap
    while len(placed) < units:
        x, y = rng.uniform(edge, table_mm[0] - edge), rng.uniform(edge, table_mm[1] - edge)
        if all((x - a) ** 2 + (y - b) ** 2 > gap**2 for a, b in placed + [(m.x, m.y) for m in markers]):
            placed.append((x, y))
    for k, (x, y) in enumerate(placed):
        markers.append(
            SceneMarker(
                cv.UNIT_IDS.start + k,
                x,
                y,
                float(rng.uniform(0, max_height)),
                float(rng.uniform(0, 360)),
                size,
                85.0 if k < fallen else 0.0,
            )
        )
    w, h = camera.image_size
    occluders = [
        Occluder(rng.uniform(0, w), rng.uniform(0, h), rng.uniform(60, 110), rng.uniform(120, 260), rng.uniform(0, 180))
        for _ in range(hands)
    ]
    return Scene(camera, markers, table_mm, occluders)


@dataclass(frozen=True)
class SequenceFrame:
    image: np.ndarray
    fallen: frozenset[int]  # marker ids whose models are down in this frame
    hidden: frozenset[int]  # marker ids under a hand in this frame


def sequence(
    camera: Camera,
    rng: np.random.Generator,
    frames: int,
    units: int = 16,
    falls: int = 0,
    hands: int = 2,
    table_mm: tuple[float, float] = (1219.2, 1219.2),
) -> Iterator[tuple[Scene, SequenceFrame]]:
    """A still table that hands sweep across, where ``falls`` models tip over at random frames.
    Yields (the still scene, SequenceFrame) per frame."""
    base = random_scene(camera, rng, units=units, table_mm=table_mm)
    unit_markers = [m for m in base.markers if m.id in cv.UNIT_IDS]
    fall_at = {m.id: int(rng.integers(frames // 4, frames // 2)) for m in unit_markers[:falls]}
    w, h = camera.image_size

    def entry() -> tuple[float, float]:  # hands come in from beyond an edge of the frame
        side = rng.integers(4)
        return (
            (-250.0, rng.uniform(0, h)),
            (w + 250.0, rng.uniform(0, h)),
            (rng.uniform(0, w), -250.0),
            (rng.uniform(0, w), h + 250.0),
        )[side]

    sweeps = []
    for _ in range(hands):
        (x0, y0), (x1, y1) = entry(), (rng.uniform(0.15 * w, 0.85 * w), rng.uniform(0.15 * h, 0.85 * h))
        sweeps.append((np.array([x0, x1]), np.array([y0, y1]), rng.uniform(60, 110), rng.uniform(150, 280)))
    for k in range(frames):
        markers, fallen = [], set()
        for m in base.markers:
            if m.id in fall_at and k >= fall_at[m.id]:
                markers.append(SceneMarker(m.id, m.x, m.y, m.height, m.facing_deg, m.size, 85.0))
                fallen.add(m.id)
            else:
                markers.append(m)
        occluders, hidden = [], set()
        for xs, ys, rx, ry in sweeps:
            f = (k / max(frames - 1, 1) * 2) % 2  # there and back
            f = f if f <= 1 else 2 - f
            o = Occluder(
                xs[0] + f * (xs[1] - xs[0]),
                ys[0] + f * (ys[1] - ys[0]),
                rx,
                ry,
                float(np.degrees(np.arctan2(ys[1] - ys[0], xs[1] - xs[0]))) + 90,
            )
            occluders.append(o)
        for m in unit_markers:
            px = camera.project(np.array([[m.x, m.y, m.height]]))[0]
            if any(((px[0] - o.cx) / (o.rx + 25)) ** 2 + ((px[1] - o.cy) / (o.ry + 25)) ** 2 < 1 for o in occluders):
                hidden.add(m.id)  # roughly: near or under an ellipse (its rotation ignored)
        scene = Scene(camera, markers, table_mm, occluders)
        image, _ = render(scene, rng)
        yield base, SequenceFrame(image, frozenset(fallen), frozenset(hidden))


def save_frame(path_stem: str, image: np.ndarray, truth: dict[str, Any]) -> None:
    """Write a rendered frame as STEM.png with its ground truth beside it as STEM.json."""
    import json

    if not cv2.imwrite(f"{path_stem}.png", image):
        raise OSError(f"cannot write {path_stem}.png")
    with open(f"{path_stem}.json", "w") as f:
        json.dump(truth, f, indent=1)
