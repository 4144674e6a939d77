"""Fallen-model detection over synthetic sequences: recall on models that tip over, and false
"fallen" on everything else, with hands and arms sweeping across the table all the while.
Targets: recall >= 99 %, no false fall in 1,000 frames with hands passing over.

    python bench/vision_falls.py [--sequences 10] [--frames 100] [--falls 4] [--hands 3]
"""

from __future__ import annotations

import sys  # noqa: I001
from pathlib import Path as _Path

sys.path.insert(0, str(_Path(__file__).resolve().parent.parent))  # tests/sim: the simulated table

import argparse
import time

import numpy as np

from station.vision import cv as V
from station.vision.geometry import overhead_camera
from station.vision.locate import Locator, MarkerSpec
from station.vision.tracker import ModelFell, Tracker
from tests.sim.synthetic import ideal_calibration, sequence

TABLE = (1219.2, 1219.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sequences", type=int, default=10)
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--falls", type=int, default=4)
    parser.add_argument("--hands", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1000, help="first sequence's seed")
    args = parser.parse_args()
    camera = overhead_camera()
    calibration = ideal_calibration(camera, TABLE)
    falls = found = false = frames = hidden_frames = 0
    delays: list[int] = []
    start = time.perf_counter()
    for n in range(args.sequences):
        rng = np.random.default_rng(args.seed + n)
        tracker, fell_at, detected = None, {}, set()
        for base, frame in sequence(camera, rng, frames=args.frames, units=16, falls=args.falls, hands=args.hands):
            if tracker is None:
                specs = {
                    m.id: MarkerSpec(m.id, f"u{m.id}", "u", "p", m.size, m.height)
                    for m in base.markers
                    if m.id in V.UNIT_IDS
                }
                tracker = Tracker(Locator(calibration, specs))
            out = tracker.update(frame.image)
            frames += 1
            hidden_frames += bool(frame.hidden)
            for marker in frame.fallen:
                fell_at.setdefault(marker, out.frame)
            for event in out.events:
                if isinstance(event, ModelFell):
                    marker = int(event.element[1:])
                    if marker in frame.fallen and marker not in detected:
                        detected.add(marker)
                        delays.append(out.frame - fell_at[marker])
                    elif marker not in frame.fallen:
                        false += 1
        falls += len(fell_at)
        found += len(detected)
        print(f"  sequence {n + 1}/{args.sequences}: {len(detected)}/{len(fell_at)} falls found", flush=True)
    print(f"{frames} frames ({hidden_frames} with a marker under a hand), {falls} falls")
    print(
        f"recall {found}/{falls} = {found / max(falls, 1):.1%}  (target >= 99 %); "
        f"false falls: {false}  (target 0); frames from fall to ModelFell: median "
        f"{int(np.median(delays)) if delays else '-'}, worst {max(delays) if delays else '-'}"
    )
    print(f"({time.perf_counter() - start:.0f} s including rendering)")


if __name__ == "__main__":
    main()
