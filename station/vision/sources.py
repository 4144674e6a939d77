"""Where frames come from, behind one interface: a camera index, a video file or a folder of
images.  ``open_source("0")``, ``open_source("session.mp4")``, ``open_source("frames/")``."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import cv2
import numpy as np

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")


class SourceError(ValueError):
    pass


def read_image(path: str | Path) -> np.ndarray:
    """One image file, or a clear error naming it."""
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise SourceError(f"{path}: cannot be read as an image (missing, or not PNG/JPEG/BMP/TIFF)")
    return image


def _camera(index: int, size: tuple[int, int] | None) -> Iterator[np.ndarray]:
    capture = cv2.VideoCapture(index)
    if not capture.isOpened():
        raise SourceError(f"camera {index} cannot be opened (is it connected, and free?)")
    if size:
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
    # Lock what the driver allows: automatic exposure, white balance and focus move markers' edges.
    for prop, value in ((cv2.CAP_PROP_AUTO_EXPOSURE, 1), (cv2.CAP_PROP_AUTO_WB, 0), (cv2.CAP_PROP_AUTOFOCUS, 0)):
        if not capture.set(prop, value):
            log.info("camera %d: the driver does not let property %d be locked", index, prop)
    try:
        while True:
            ok, frame = capture.read()
            if not ok:
                raise SourceError(f"camera {index} stopped delivering frames")
            yield frame
    finally:
        capture.release()


def _video(path: Path) -> Iterator[np.ndarray]:
    capture = cv2.VideoCapture(str(path))
    if not capture.isOpened():
        raise SourceError(f"{path}: cannot be opened as a video")
    try:
        while True:
            ok, frame = capture.read()
            if not ok:
                return
            yield frame
    finally:
        capture.release()


def _folder(path: Path) -> Iterator[np.ndarray]:
    files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise SourceError(f"{path}: no images ({', '.join(IMAGE_SUFFIXES)}) in this folder")
    for file in files:
        yield read_image(file)


def open_source(spec: str, size: tuple[int, int] | None = None) -> Iterator[np.ndarray]:
    """Frames from a camera index ("0"), a video file, or a folder of images (in name order)."""
    if spec.isdigit():
        return _camera(int(spec), size)
    path = Path(spec)
    if path.is_dir():
        return _folder(path)
    if path.is_file():
        return iter([read_image(path)]) if path.suffix.lower() in IMAGE_SUFFIXES else _video(path)
    raise SourceError(f"{spec}: no camera index, file or folder of that name")


def replayed(open_frames: Callable[[], Iterator[np.ndarray]], fps: float, keep: int = 300) -> Iterator[np.ndarray]:
    """A recording played at ``fps`` over and over, as a live camera would deliver it: for
    rehearsals and the soak test.  A recording of at most ``keep`` frames is decoded once and
    kept; a longer one is read again each time round.  Late frames are not made up for."""
    period, due = 1.0 / fps, time.monotonic()

    def paced(frames: Iterable[np.ndarray]) -> Iterator[np.ndarray]:
        nonlocal due
        for frame in frames:
            due = max(due + period, time.monotonic() - period)
            time.sleep(max(0.0, due - time.monotonic()))
            yield frame

    kept: list[np.ndarray] = []
    for frame in paced(open_frames()):
        if len(kept) <= keep:
            kept.append(frame)
        yield frame
    if not kept:
        raise SourceError("the recording has no frames to replay")
    while True:
        yield from paced(kept if len(kept) <= keep else open_frames())


class FrameGrabber:
    """Keeps the latest frame of a source that nothing tracks yet (a camera before its table is
    calibrated), for the dashboard's guided calibration; ``hand_over`` stops it and gives the
    source to the tracker once a calibration exists."""

    def __init__(self, frames: Iterator[np.ndarray]) -> None:
        self.frames = frames
        self.latest: np.ndarray | None = None
        self.error: str | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera-grabber", daemon=True)

    def start(self) -> FrameGrabber:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            for frame in self.frames:
                self.latest = frame
                if self._stop.is_set():
                    return
        except (SourceError, ValueError) as exc:
            self.error = str(exc)
            log.error("camera: %s", exc)

    def latest_frame(self) -> np.ndarray | None:
        return self.latest

    def hand_over(self) -> Iterator[np.ndarray]:
        self._stop.set()
        self._thread.join(timeout=5)
        return self.frames
