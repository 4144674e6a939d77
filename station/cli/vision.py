"""The camera commands of ``station``: markers, calibrate lens|table, locate."""

from __future__ import annotations

import itertools
import json
import logging
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..datafile import DataFileError
from ..dice import DiceBook
from ..measure.bases import MM_PER_INCH
from ..rules.registry import RULESETS, make_ruleset
from ..vision import DEFAULT_BOARD
from .common import fail

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger("station")


def _pair(text: str, what: str) -> tuple[float, float]:
    match = re.fullmatch(r"\s*([0-9.]+)\s*[xX]\s*([0-9.]+)\s*", text)
    if not match:
        raise click.BadParameter(f"{text!r} is not WIDTHxHEIGHT in mm", param_hint=what)
    return float(match.group(1)), float(match.group(2))


def _ids(text: str) -> list[int]:
    ids: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        if not low.strip().isdigit() or (high and not high.strip().isdigit()):
            raise click.BadParameter(f"{part!r} is not an id or a range like 16-47", param_hint="--ids")
        ids.extend(range(int(low), int(high or low) + 1))
    return ids


def _frames(image: str | None = None, camera: str | None = None, images_dir: str | None = None) -> Iterable[np.ndarray]:
    from ..vision.sources import SourceError, open_source, read_image

    try:
        if image:
            return [read_image(image)]
        if images_dir:
            return list(open_source(images_dir))
        if camera is not None:
            return open_source(camera)
    except SourceError as exc:
        fail(str(exc))
    fail("give an image (or images) or a camera")


def uncertainty_report(maps: list[dict[str, Any]]) -> list[str]:
    """The error maps as text: a grid at the table's height (far edge on top), then each height's
    median and worst."""
    if not maps:
        return []
    table = maps[0]
    lines = [
        f"expected position error, 1 sigma in mm, at {table['height_mm']:g} mm (far edge on top, "
        f'{table["step_mm"] / MM_PER_INCH:g}" cells):'
    ]
    lines += ["  " + " ".join(f"{v:4.2f}" for v in row) for row in reversed(table["sigma_mm"])]
    lines += [f"at {m['height_mm']:g} mm: median {m['median_mm']:.2f} mm, worst {m['worst_mm']:.2f} mm" for m in maps]
    return lines


@click.command()
@click.option("--out", type=click.Path(file_okay=False), default="markers", show_default=True)
@click.option("--ids", default="16-39", show_default=True, help="Unit marker ids, e.g. 16-39,60.")
@click.option("--size-mm", default=30.0, show_default=True, help="Printed side of unit markers.")
@click.option("--table-mm", default="1219.2x1219.2", show_default=True, help="Table size, for anchor positions.")
@click.option("--anchor-mm", default=40.0, show_default=True)
@click.option("--dpi", default=300, show_default=True)
@click.option(
    "--board",
    default=DEFAULT_BOARD,
    show_default=True,
    help="The lens board to print: COLSxROWS:SQUARE_MM:MARKER_MM:DICT.",
)
def markers(out: str, ids: str, size_mm: float, table_mm: str, anchor_mm: float, dpi: int, board: str) -> None:
    """Printable A4 sheets at exact scale: unit markers, table anchors, the ChArUco board."""
    from ..vision.calibration import default_anchors
    from ..vision.markers import write_anchors, write_charuco, write_unit_markers

    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        files = write_unit_markers(folder, _ids(ids), size_mm, dpi)
        files += write_anchors(folder, default_anchors(_pair(table_mm, "--table-mm"), anchor_mm), dpi)
        files.append(write_charuco(folder, dpi, board))
    except ValueError as exc:
        fail(str(exc))
    for f in files:
        click.echo(f"wrote {f}")
    click.echo("Print at 100 % (actual size) and check the 100 mm bar with a ruler.")


@click.group()
def calibrate() -> None:
    """Calibrate the overhead camera: first the lens, then the table."""


@calibrate.command("lens")
@click.option(
    "--images",
    "images_dir",
    type=click.Path(exists=True, file_okay=False),
    help="Folder of photos of the ChArUco board.",
)
@click.option("--camera", help="Camera index: take --frames photos from it instead.")
@click.option("--frames", default=20, show_default=True)
@click.option(
    "--board",
    default=DEFAULT_BOARD,
    show_default=True,
    help="Your ChArUco board: COLSxROWS:SQUARE_MM:MARKER_MM:DICT, with :legacy for boards "
    "printed by OpenCV before 4.6.",
)
@click.option("--out", type=click.Path(dir_okay=False), default="calibration/lens.json", show_default=True)
def calibrate_lens_cmd(images_dir: str | None, camera: str | None, frames: int, board: str, out: str) -> None:
    """Intrinsics and distortion from ChArUco views; reports the RMS reprojection error."""
    from ..vision import cv
    from ..vision.calibration import RMS_WARN_PX, CalibrationError, calibrate_lens

    try:
        charuco = cv.parse_board(board)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--board") from None
    source = _frames(camera=camera, images_dir=images_dir)
    views = list(source) if images_dir else list(itertools.islice(source, frames))
    try:
        cal = calibrate_lens(views, charuco)
    except CalibrationError as exc:
        fail(str(exc))
    cal.save(out)
    click.echo(
        f"lens: {cal.views} views, RMS reprojection error {cal.rms_px:.3f} px, "
        f"fx {cal.K[0, 0]:.1f} fy {cal.K[1, 1]:.1f} px -> {out}"
    )
    if cal.rms_px > RMS_WARN_PX:
        click.echo(f"warning: RMS above {RMS_WARN_PX} px; retake the photos (sharp, varied tilts, frame corners)")


@calibrate.command("table")
@click.option("--image", type=click.Path(exists=True, dir_okay=False), help="Photo of the table with anchors.")
@click.option("--camera", help="Camera index, instead of --image.")
@click.option(
    "--lens", "lens_path", type=click.Path(dir_okay=False), default="calibration/lens.json", show_default=True
)
@click.option("--table-mm", default="1219.2x1219.2", show_default=True)
@click.option("--anchor-mm", default=40.0, show_default=True)
@click.option("--max-residual-mm", default=3.0, show_default=True)
@click.option("--without", default="", help="Anchor ids to leave out, e.g. 3 (one named as moved).")
@click.option("--out", type=click.Path(dir_okay=False), default="calibration/table.json", show_default=True)
def calibrate_table_cmd(
    image: str | None,
    camera: str | None,
    lens_path: str,
    table_mm: str,
    anchor_mm: float,
    max_residual_mm: float,
    without: str,
    out: str,
) -> None:
    """The camera's pose over the table from the anchors; residual per anchor in mm, and the
    expected position error over the table."""
    from ..vision.calibration import (
        CalibrationError,
        calibrate_table,
        default_anchors,
        load_calibration,
        missing_anchors,
    )

    frame = next(iter(_frames(image=image, camera=camera)))
    size = _pair(table_mm, "--table-mm")
    left_out = _ids(without) if without.strip() else []
    try:
        cal = calibrate_table(
            frame,
            load_calibration(lens_path),
            default_anchors(size, anchor_mm),
            size,
            max_residual_mm,
            without=left_out,
        )
    except CalibrationError as exc:
        fail(str(exc))
    cal.save(out)
    for anchor_id, residual in sorted(cal.residuals_mm.items()):
        click.echo(f"  anchor {anchor_id}: {residual:.2f} mm")
    for missing in missing_anchors(cal, left_out):
        click.echo(f"  anchor {missing.id}: {missing.said()}")
    used = [cal.residuals_mm[k] for k in cal.used_anchors]
    laid_count = len(cal.anchors) - len(set(left_out))
    laid = f" of {laid_count}" if len(used) < laid_count else ""
    click.echo(f"table pose from {len(used)}{laid} anchors, worst {max(used):.2f} mm -> {out}")
    for line in uncertainty_report(cal.uncertainty_maps()):
        click.echo(line)


@click.command()
@click.argument("image", type=click.Path(dir_okay=False))
@click.option(
    "--calibration",
    "cal_path",
    type=click.Path(dir_okay=False),
    default="calibration/table.json",
    show_default=True,
)
@click.option("--army", "armies", multiple=True, required=True, type=click.Path(dir_okay=False))
@click.option("--game", type=click.Choice(sorted(RULESETS)), default="bronepekhota", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["json", "text"]), default="text", show_default=True)
def locate(image: str, cal_path: str, armies: tuple[str, ...], game: str, fmt: str) -> None:
    """Every base in one photo: unit, x and y in mm and inches, facing, tipped, confidence."""
    from ..vision.calibration import CalibrationError, load_calibration
    from ..vision.locate import Locator, specs_from
    from ..vision.sources import SourceError, read_image

    try:
        ruleset = make_ruleset(game, DiceBook())
        specs = specs_from(ruleset.marker_specs([ruleset.load_army(a) for a in armies]))
        sightings, warnings = Locator(load_calibration(cal_path), specs).locate(read_image(image), image)
    except (DataFileError, CalibrationError, SourceError) as exc:
        fail(str(exc))
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)
    if fmt == "json":
        click.echo(
            json.dumps({"image": image, "bases": [s.as_dict() for s in sightings], "warnings": warnings}, indent=2)
        )
        return
    for s in sorted(sightings, key=lambda s: s.element):
        click.echo(
            f"{s.element:<14} {s.unit:<12} x {s.x_mm:7.1f} mm ({s.x_mm / MM_PER_INCH:6.2f} in)  "
            f"y {s.y_mm:7.1f} mm ({s.y_mm / MM_PER_INCH:6.2f} in)  facing {s.facing_deg:5.1f} deg  "
            f"{'TIPPED ' if s.tipped else ''}conf {s.confidence:.2f}"
        )
