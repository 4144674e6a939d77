"""Guided calibration: the dashboard's lens and table steps, on the command line's code path.

A referee holds the ChArUco board under the camera; the desk shows what the camera sees with the
board's corners drawn, and a coverage map of the frame (where accepted views put corners, so the
next view goes where there are none).  Each accepted view refits the lens at once, so the RMS
error and each view's own error are live, and a bad view can be dropped.  Then the table step
runs ``calibrate_table`` on the current frame, draws each anchor with its residual, and saves the
result where ``station run --calibration`` reads it.

The desk never owns the camera: it is handed a function that returns the latest frame.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from . import cv
from .calibration import (
    Anchor,
    Calibration,
    CalibrationError,
    MovedAnchorError,
    board_view,
    calibrate_table,
    lens_from_views,
    missing_anchors,
)
from .quality import image_problems

log = logging.getLogger(__name__)

COVERAGE_GRID = (16, 9)  # cells across and down the frame
VIEW_MAX_AGE_S = 0.5  # the live view is drawn at most twice a second however many watch


@dataclass
class DeskView:
    corners: np.ndarray  # (N, 2) image px
    objects: np.ndarray  # (N, 3) board mm
    rms_px: float | None = None  # this view's error in the current lens fit


@dataclass
class CalibrationDesk:
    latest_frame: Callable[[], np.ndarray | None]
    board: Any = field(default_factory=cv.charuco_board)
    anchors: Sequence[Anchor] = ()
    table_mm: tuple[float, float] = (1219.2, 1219.2)
    out_path: Path = Path("calibration/table.json")
    on_saved: Callable[[Calibration], None] | None = None
    views: list[DeskView] = field(default_factory=list)
    lens: Calibration | None = None
    table: Calibration | None = None
    table_report: dict[str, Any] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _still: tuple[float, bytes] | None = None

    # ---- the lens step ------------------------------------------------------------------------

    def _frame(self) -> np.ndarray:
        frame = self.latest_frame()
        if frame is None:
            raise CalibrationError("no camera frame yet")
        return frame

    def coverage(self) -> list[list[int]]:
        """Accepted corners per cell of the frame (rows top to bottom)."""
        cols, rows = COVERAGE_GRID
        grid = np.zeros((rows, cols), int)
        if not self.views:
            return grid.tolist()
        width, height = self._size()
        for view in self.views:
            cx = np.clip((view.corners[:, 0] / width * cols).astype(int), 0, cols - 1)
            cy = np.clip((view.corners[:, 1] / height * rows).astype(int), 0, rows - 1)
            np.add.at(grid, (cy, cx), 1)
        return grid.tolist()

    def _size(self) -> tuple[int, int]:
        frame = self.latest_frame()
        if frame is not None:
            return frame.shape[1], frame.shape[0]
        return self.lens.image_size if self.lens else (1, 1)

    def accept(self) -> dict[str, Any]:
        """Take the board as the camera sees it now as one more view, and refit the lens."""
        with self._lock:
            frame = self._frame()
            view = board_view(self.board, frame)
            if view is None:
                problems = image_problems(frame)
                raise CalibrationError(
                    "the board is not in view (fewer than 12 corners seen)"
                    + (f": the image is {' and '.join(problems)}" if problems else "")
                )
            self.views.append(DeskView(view[1], view[0]))
            self._refit(frame.shape[1], frame.shape[0])
            return self.state()

    def drop(self, index: int) -> dict[str, Any]:
        with self._lock:
            if not 0 <= index < len(self.views):
                raise CalibrationError(f"there is no view {index + 1}; there are {len(self.views)}")
            del self.views[index]
            width, height = self._size()
            self._refit(width, height)
            return self.state()

    def _refit(self, width: int, height: int) -> None:
        self.table = self.table_report = None
        if not self.views:
            self.lens = None
            return
        self.lens = lens_from_views([(v.objects, v.corners) for v in self.views], (width, height))
        for view, rms in zip(self.views, self.lens.view_rms_px):
            view.rms_px = rms

    # ---- the table step -----------------------------------------------------------------------

    def fit_table(self, without: Sequence[int] = ()) -> dict[str, Any]:
        """Run the table calibration on the current frame with the lens of the views so far."""
        with self._lock:
            if self.lens is None or self.lens.views < 5:
                raise CalibrationError("take at least 5 views of the board first")
            frame = self._frame()
            try:
                self.table = calibrate_table(frame, self.lens, self.anchors, self.table_mm, without=without)
                refused = None
            except MovedAnchorError as exc:
                self.table, refused = None, str(exc)
                self.table_report = self._report(exc.calibration, frame, refused, without)
                raise
            self.table_report = self._report(self.table, frame, refused, without)
            return self.state()

    def _report(
        self, cal: Calibration, frame: np.ndarray, refused: str | None, without: Sequence[int] = ()
    ) -> dict[str, Any]:
        camera = cal.camera()
        missing = {m.id: m.as_dict() for m in missing_anchors(cal, without)}
        anchors = []
        for anchor in self.anchors:
            pixel = camera.project(np.array([[anchor.x, anchor.y, 0.0]]))[0]
            anchors.append(
                {
                    "id": anchor.id,
                    "pixel": [round(float(pixel[0]), 1), round(float(pixel[1]), 1)],
                    "residual_mm": None if anchor.id not in cal.residuals_mm else round(cal.residuals_mm[anchor.id], 2),
                    "used": anchor.id in cal.used_anchors,
                    "why": missing.get(anchor.id),
                }
            )
        return {
            "anchors": anchors,
            "refused": refused,
            "maps": cal.uncertainty_maps(),
            "image_size": [frame.shape[1], frame.shape[0]],
        }

    def save(self) -> dict[str, Any]:
        with self._lock:
            if self.table is None:
                raise CalibrationError("fit the table first; there is nothing accepted to save")
            self.table.save(self.out_path)
            log.info("calibration saved to %s", self.out_path)
            saved = self.table
        if self.on_saved:
            self.on_saved(saved)
        return {**self.state(), "saved": str(self.out_path)}

    # ---- what the dashboard shows -------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        lens = self.lens
        return {
            "views": [
                {"corners": len(v.corners), "rms_px": None if v.rms_px is None else round(v.rms_px, 3)}
                for v in self.views
            ],
            "lens": None
            if lens is None
            else {
                "rms_px": round(lens.rms_px, 3),
                "views": lens.views,
                "fx": round(float(lens.K[0, 0]), 1),
                "fy": round(float(lens.K[1, 1]), 1),
                "ok": lens.rms_px <= 1.0,
                "full_model": lens.views >= 5,
            },
            "coverage": self.coverage(),
            "grid": list(COVERAGE_GRID),
            "table": self.table_report,
            "out": str(self.out_path),
            "board": {
                "squares": list(self.board.getChessboardSize()),
                "square_mm": self.board.getSquareLength(),
                "marker_mm": self.board.getMarkerLength(),
            },
        }

    def view_jpeg(self) -> bytes:
        """The camera's view now, with the board's corners (green) or, after the table step, each
        anchor and its residual drawn: made at most every ``VIEW_MAX_AGE_S``."""
        now = time.monotonic()
        cached = self._still
        if cached and now - cached[0] < VIEW_MAX_AGE_S:
            return cached[1]
        frame = self._frame()
        objects, corners = cv.detect_charuco(self.board, frame)
        labels = [((float(x), float(y)), "", False) for x, y in corners]
        for anchor in (self.table_report or {}).get("anchors", []):
            text = f"{anchor['id']}: " + (
                "not seen" if anchor["residual_mm"] is None else f"{anchor['residual_mm']} mm"
            )
            labels.append((tuple(anchor["pixel"]), text, not anchor["used"]))
        jpeg = cv.annotated_still(frame, labels)
        self._still = (now, jpeg)
        return jpeg
