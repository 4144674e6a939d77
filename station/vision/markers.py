"""Printable targets at exact scale: unit markers, table anchors and the ChArUco board.

Each sheet is an A4 PNG whose pixels are ``dpi`` per inch, with that resolution written into the
file (PNG pHYs) so that printing at "100 %" / "actual size" gives true millimetres, and a 100 mm
scale bar to check with a ruler before trusting it.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path

import cv2
import numpy as np

from ..measure.bases import MM_PER_INCH
from . import DEFAULT_BOARD, cv
from .calibration import Anchor

A4_MM = (210.0, 297.0)
MARGIN_MM = 12.0


def _png_with_dpi(image: np.ndarray, dpi: int) -> bytes:
    ok, data = cv2.imencode(".png", image)
    if not ok:
        raise ValueError("PNG encoding failed")
    png = data.tobytes()
    ppm = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    return png[:33] + chunk + png[33:]  # right after the signature (8) and IHDR (25)


class Sheet:
    def __init__(self, dpi: int, landscape: bool = False) -> None:
        self.dpi = dpi
        w, h = (A4_MM[1], A4_MM[0]) if landscape else A4_MM
        self.size_mm = (w, h)
        self.image = np.full((self.px(h), self.px(w)), 255, np.uint8)

    def px(self, mm: float) -> int:
        return int(round(mm * self.dpi / MM_PER_INCH))

    def paste(self, picture: np.ndarray, x_mm: float, y_mm: float) -> None:
        x, y = self.px(x_mm), self.px(y_mm)
        self.image[y : y + picture.shape[0], x : x + picture.shape[1]] = picture

    def text(self, words: str, x_mm: float, y_mm: float, height_mm: float = 3.0) -> None:
        scale = self.px(height_mm) / 22.0
        cv2.putText(
            self.image,
            words,
            (self.px(x_mm), self.px(y_mm)),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            0,
            max(1, self.px(0.3)),
            cv2.LINE_AA,
        )

    def scale_bar(self) -> None:
        x, y = self.px(MARGIN_MM), self.px(self.size_mm[1] - MARGIN_MM / 2)
        cv2.rectangle(self.image, (x, y - self.px(1.5)), (x + self.px(100), y), 0, -1)
        self.text("100 mm at actual size", MARGIN_MM + 104, self.size_mm[1] - MARGIN_MM / 2)

    def save(self, path: Path) -> Path:
        path.write_bytes(_png_with_dpi(self.image, self.dpi))
        return path


def _grid_sheets(items: Sequence[tuple[int, float, str]], dpi: int) -> list[Sheet]:
    """Markers (id, side mm, label) laid out left to right, top to bottom, over as many pages as needed."""
    sheets, sheet = [], None
    x = y = row = 0.0
    for marker_id, side, label in items:
        cell = side + 2 * side / 6 + 8  # the marker, a one-module white margin, room for the label
        if sheet is None or x + cell > sheet.size_mm[0] - MARGIN_MM:
            x, y = MARGIN_MM, (y + row if sheet is not None else MARGIN_MM)
            row = 0.0
        if sheet is None or y + cell > sheet.size_mm[1] - 2 * MARGIN_MM:
            sheet = Sheet(dpi)
            sheet.scale_bar()
            sheets.append(sheet)
            x, y, row = MARGIN_MM, MARGIN_MM, 0.0
        margin = side / 6
        sheet.paste(cv.marker_image(marker_id, sheet.px(side)), x + margin, y + margin)
        sheet.text(label, x, y + side + 2 * margin + 4)
        x += cell
        row = max(row, cell)
    return sheets


def write_unit_markers(out: Path, ids: Iterable[int], side_mm: float, dpi: int = 300) -> list[Path]:
    for marker_id in ids:
        if marker_id not in cv.UNIT_IDS:
            raise ValueError(f"unit marker ids are {cv.UNIT_IDS.start}-{cv.UNIT_IDS.stop - 1}, not {marker_id}")
    items = [(i, side_mm, f"id {i}  {side_mm:g} mm") for i in ids]
    return [s.save(out / f"units-{n + 1}.png") for n, s in enumerate(_grid_sheets(items, dpi))]


def write_anchors(out: Path, anchors: Sequence[Anchor], dpi: int = 300) -> list[Path]:
    items = [(a.id, a.size_mm, f"anchor {a.id} at x={a.x:g} y={a.y:g} mm, top edge toward +y") for a in anchors]
    return [s.save(out / f"anchors-{n + 1}.png") for n, s in enumerate(_grid_sheets(items, dpi))]


def write_charuco(out: Path, dpi: int = 300, board_spec: str = DEFAULT_BOARD) -> Path:
    """The lens board (``--board`` spec) on one landscape A4 sheet; ValueError if it cannot fit."""
    board = cv.parse_board(board_spec)
    cols, rows = board.getChessboardSize()
    square = board.getSquareLength()
    sheet = Sheet(dpi, landscape=True)
    room = (sheet.size_mm[0] - 2 * MARGIN_MM, sheet.size_mm[1] - 2 * MARGIN_MM)  # the label and scale bar below
    if cols * square > room[0] or rows * square > room[1]:
        raise ValueError(
            f"a {cols}x{rows} board of {square:g} mm squares is {cols * square:g} x {rows * square:g} mm; "
            f"one A4 sheet holds {room[0]:g} x {room[1]:g} mm: use smaller squares"
        )
    picture = cv.charuco_image(board, (sheet.px(cols * square), sheet.px(rows * square)))
    sheet.paste(picture, MARGIN_MM, MARGIN_MM)
    sheet.text(
        f"ChArUco {board_spec}: glue flat to card; calibrate with --board {board_spec}",
        MARGIN_MM,
        MARGIN_MM + rows * square + 6,
    )
    sheet.scale_bar()
    return sheet.save(out / "charuco.png")
