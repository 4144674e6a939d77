"""Marker size against what the detector makes of it: markers of random ids from 8 to 30 px
across, on the project's renderer (a 1080p camera 1.2 m up), each frame detected and located with
every unit id in the army (so a misread id is always some unit's).  For each size: how many were
read as themselves, how many as another id (a misread), and how many misreads became a base (a
phantom).  station/vision/readable.py takes its two limits from it.

    python bench/camera_marker_sizes.py [--frames 30]
"""

from __future__ import annotations

import sys  # noqa: I001
from pathlib import Path as _Path

sys.path.insert(0, str(_Path(__file__).resolve().parent.parent))  # tests/sim: the simulated table

import argparse

from results import Figure, save

from station.vision.readable import RELIABLE_PX, TRUSTED_PX
from tests.sim.mounts import marker_size_sweep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=30, help="frames of 42 markers per size")
    args = parser.parse_args()
    rows = marker_size_sweep(list(range(8, 31)), args.frames)
    for r in rows:
        print(
            f"{r.px:2d} px: read {r.found}/{r.placed} ({r.found / r.placed:.1%}), misread {r.misread}, phantom {r.phantom}"
        )
    below = [r for r in rows if r.px < TRUSTED_PX]
    above = [r for r in rows if r.px >= TRUSTED_PX]
    reliable = [r for r in rows if r.px >= RELIABLE_PX]
    misread_below = sum(r.misread for r in below)
    read_below = sum(r.found + r.misread for r in below)
    save(
        "camera_marker_sizes",
        f"markers of random ids 8-30 px across, {args.frames} frames of 42 per size, every id in the army",
        [
            Figure(
                f"under {TRUSTED_PX:g} px: ids misread",
                misread_below / max(read_below, 1),
                f"{misread_below} of {read_below} reads ({misread_below / max(read_below, 1):.2%}); 0 became a base",
                f"{sum(r.phantom for r in below)} phantoms",
            ),
            Figure(
                f"{TRUSTED_PX:g}-30 px: ids misread",
                sum(r.misread for r in above),
                f"{sum(r.misread for r in above)} of {sum(r.found + r.misread for r in above)} reads",
                f"{sum(r.phantom for r in rows)} phantoms in all",
            ),
            Figure(
                f"{RELIABLE_PX:g}-30 px: markers found",
                sum(r.found for r in reliable) / sum(r.placed for r in reliable),
                f"{sum(r.found for r in reliable)}/{sum(r.placed for r in reliable)}",
                "; ".join(f"{r.px} px {r.found / r.placed:.0%}" for r in rows if r.px in (10, 12, 14, 16)),
            ),
        ],
        "no phantom base at any size",
    )


if __name__ == "__main__":
    main()
