"""Everything the rules may ask of one TableSnapshot: every pairwise edge distance, every front-arc
test and every line of sight, for 80 bases and 30 terrain pieces, on one core.
Target: at most 10 ms per snapshot.

    python bench/measure_snapshot.py [--bases 80] [--terrain 30] [--repeat 3]
"""
from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from station.measure.bases import Base, closest_points
from station.measure.measurement import Placed
from station.measure.relations import front_half
from station.measure.terrain import Piece, line_of_sight


def scene(n_bases: int, n_terrain: int, rng: np.random.Generator) -> tuple[list[Placed], list[Piece]]:
    kinds = ["round"] * 6 + ["oval", "rect"]
    placed = []
    for i in range(n_bases):
        kind = kinds[i % len(kinds)]
        length = {"round": 32.0, "oval": 75.0, "rect": 100.0}[kind]
        width = {"round": 32.0, "oval": 42.0, "rect": 60.0}[kind]
        placed.append(Placed(f"b{i}", Base(kind, length, width, *rng.uniform(50, 1170, 2), rng.uniform(0, 360))))
    pieces = []
    for j in range(n_terrain):
        cx, cy = rng.uniform(100, 1100, 2)
        sides = int(rng.integers(4, 8))
        angles = np.sort(rng.uniform(0, 2 * np.pi, sides))
        radius = rng.uniform(30, 90)
        poly = np.column_stack([cx + radius * np.cos(angles), cy + radius * np.sin(angles)])
        pieces.append(Piece(f"t{j}", ["woods", "building", "hill", "obstacle"][j % 4], float(rng.uniform(20, 150)), poly))
    return placed, pieces


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bases", type=int, default=80)
    parser.add_argument("--terrain", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    placed, pieces = scene(args.bases, args.terrain, rng)
    pairs = list(itertools.combinations(placed, 2))
    timings: dict[str, float] = {}
    for name, work in (("edge distances", lambda: [closest_points(a.base, b.base) for a, b in pairs]),
                       ("front arcs", lambda: [front_half(a, b) for a, b in itertools.permutations(placed, 2)]),
                       ("lines of sight", lambda: [line_of_sight(a, 50, b, 40, pieces) for a, b in pairs])):
        best = min(_timed(work) for _ in range(args.repeat if name != "lines of sight" else 1))
        timings[name] = best
        print(f"{name:15s}: {best * 1000:9.1f} ms  ({len(pairs)} pairs)")
    total = sum(timings.values())
    print(f"per snapshot: {total * 1000:.0f} ms  (target 10 ms): {total / 0.010:.0f}x over")


def _timed(work) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
