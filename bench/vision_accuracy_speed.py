"""Overhead camera: accuracy against synthetic ground truth, and speed on one core.

Synthetic 1920x1080 frames of a 48"x48" table, camera 1.2 m up with real lens distortion,
markers 30 mm at heights 0-60 mm and any facing, noise, blur and uneven lighting.
* Accuracy: base-centre error (RMS, p99, worst, mm) and facing error (RMS, p99, worst, deg).
  Targets: centre <= 0.5 mm RMS and <= 1.5 mm worst; facing <= 1 deg.
* Speed: the locator and the whole tracker per frame, and bare ArUco detection on the same
  frames, side by side with OpenCV on one thread; target >= 30 fps and a ratio <= 1.3.

    python bench/vision_accuracy_speed.py [--frames 30] [--units 24]
"""

from __future__ import annotations

import sys  # noqa: I001
from pathlib import Path as _Path

sys.path.insert(0, str(_Path(__file__).resolve().parent.parent))  # tests/sim: the simulated table

import argparse
import statistics
import time

import cv2
import numpy as np
from results import Figure, save

from station.vision import cv as V
from station.vision.geometry import overhead_camera
from station.vision.locate import Locator, MarkerSpec
from station.vision.tracker import Tracker
from tests.sim.synthetic import ideal_calibration, random_scene, render

TABLE = (1219.2, 1219.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--units", type=int, default=24)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    camera = overhead_camera()
    calibration = ideal_calibration(camera, TABLE)
    rng = np.random.default_rng(2026)
    frames, truths = [], []
    print(f"rendering {args.frames} frames of {args.units} units ...", flush=True)
    for _ in range(args.frames):
        image, truth = render(random_scene(camera, rng, units=args.units), rng)
        frames.append(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
        truths.append(truth)
    centre, facing, missed, total = [], [], 0, 0
    detector = V.MarkerDetector()
    bare, whole, tracked = [], [], []
    tracker = None
    for gray, truth in zip(frames, truths):
        units = [m for m in truth["markers"] if m["id"] in V.UNIT_IDS]
        specs = {m["id"]: MarkerSpec(m["id"], f"u{m['id']}", "u", "p", m["size"], m["height"]) for m in units}
        locator = Locator(calibration, specs, detector)
        start = time.perf_counter()
        detector.detect(gray)
        bare.append(time.perf_counter() - start)
        start = time.perf_counter()
        sightings, _ = locator.locate(gray)
        whole.append(time.perf_counter() - start)
        tracker = tracker or Tracker(locator)
        tracker.locator = locator
        start = time.perf_counter()
        tracker.update(gray)  # the whole tracker: locating, smoothing, stillness, occluders, falls
        tracked.append(time.perf_counter() - start)
        seen = {s.marker: s for s in sightings}
        for m in units:
            total += 1
            s = seen.get(m["id"])
            if s is None:
                missed += 1
                continue
            centre.append(np.hypot(s.x_mm - m["x"], s.y_mm - m["y"]))
            facing.append(abs((s.facing_deg - m["facing_deg"] + 180) % 360 - 180))
    c, f = np.array(centre), np.array(facing)
    print(f"markers: {total - missed}/{total} located")
    print(
        f"base centre error: RMS {np.sqrt((c**2).mean()):.3f} mm, p99 {np.percentile(c, 99):.3f} mm, "
        f"worst {c.max():.3f} mm  (targets 0.5 RMS, 1.5 worst)"
    )
    print(
        f"facing error:      RMS {np.sqrt((f**2).mean()):.3f} deg, p99 {np.percentile(f, 99):.3f} deg, "
        f"worst {f.max():.3f} deg  (target 1)"
    )
    b, w, t = statistics.median(bare), statistics.median(whole), statistics.median(tracked)
    print(
        f"one core: bare ArUco detection {b * 1000:.1f} ms/frame; locator {w * 1000:.1f} ms ({w / b:.2f}x); "
        f"whole tracker {t * 1000:.1f} ms = {1 / t:.0f} fps, ratio {t / b:.2f}x  (targets >= 30 fps, <= 1.3x)"
    )
    save(
        "vision_accuracy_speed",
        f'{args.frames} synthetic 1920×1080 frames of a 48"×48" table, {args.units} markers of 30 mm at 0–60 mm, '
        "lens distortion, noise, blur, uneven light",
        [
            Figure("located", total - missed, f"{total - missed}/{total}"),
            Figure(
                "base centre error",
                float(np.sqrt((c**2).mean())),
                f"{np.sqrt((c**2).mean()):.3f} mm RMS, {c.max():.3f} mm worst",
            ),
            Figure(
                "facing error",
                float(np.sqrt((f**2).mean())),
                f"{np.sqrt((f**2).mean()):.2f}° RMS, {f.max():.2f}° worst",
            ),
            Figure(
                "whole tracker, one core",
                t * 1000,
                f"{t * 1000:.1f} ms/frame = {1 / t:.0f} fps",
                f"bare ArUco detection {b * 1000:.1f} ms: {t / b:.2f}×",
            ),
        ],
        "0.5 mm RMS, 1.5 mm worst; 1°; ≥ 30 fps, ≤ 1.3×",
    )


if __name__ == "__main__":
    main()
