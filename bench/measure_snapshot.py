"""Everything the rules may ask of one TableSnapshot, for 80 bases (two sides of 40) and 30
terrain pieces, on one core: every pairwise edge-to-edge and centre distance, every bearing (so
every arc test), and a line of sight from every base to every enemy base.  Target: at most
10 ms per snapshot.  Side by side, the same distances pair by pair with GJK, for the ratio, and
the usual next snapshot, in which one unit has moved.

    python bench/measure_snapshot.py [--bases 80] [--terrain 30] [--repeat 15]
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from results import Figure as Result
from results import save

from station.measure.bases import Base, closest_points
from station.measure.measurement import Placed
from station.measure.pairwise import edge_distances
from station.measure.table import Figure, TableGeometry, Terrain
from station.measure.terrain import Piece


def scene(n_bases: int, n_terrain: int, rng: np.random.Generator) -> tuple[list[Figure], list[Piece]]:
    """A crowded table: round infantry, oval and rectangular vehicles (none overlapping, as on a
    real table, though many nearly touch), and convex terrain pieces covering about a fifth of a
    1.2 m square table."""
    kinds = ["round"] * 6 + ["oval", "rect"]
    figures: list[Figure] = []
    while len(figures) < n_bases:  # bases stand where a hand can put them: never on top of another
        i = len(figures)
        kind = kinds[i % len(kinds)]
        length = {"round": 32.0, "oval": 75.0, "rect": 100.0}[kind]
        width = {"round": 32.0, "oval": 42.0, "rect": 60.0}[kind]
        base = Base(kind, length, width, *rng.uniform(50, 1170, 2), rng.uniform(0, 360))
        if any(closest_points(base, f.placed.base)[0] <= 0 for f in figures):
            continue
        figures.append(Figure(Placed(f"b{i}", base), "red" if i % 2 else "blue", 40.0 if kind == "round" else 60.0))
    pieces = []
    for j in range(n_terrain):
        cx, cy = rng.uniform(100, 1100, 2)
        sides = int(rng.integers(4, 8))
        angles = np.sort(rng.uniform(0, 2 * np.pi, sides))
        radius = rng.uniform(30, 90)
        poly = np.column_stack([cx + radius * np.cos(angles), cy + radius * np.sin(angles)])
        pieces.append(
            Piece(f"t{j}", ["woods", "building", "hill", "obstacle"][j % 4], float(rng.uniform(20, 150)), poly)
        )
    return figures, pieces


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bases", type=int, default=80)
    parser.add_argument("--terrain", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    figures, pieces = scene(args.bases, args.terrain, np.random.default_rng(7))
    terrain = Terrain(pieces)
    bases = [f.placed.base for f in figures]
    pairs = args.bases * (args.bases - 1) // 2
    table, full = _best(lambda: TableGeometry.of(figures, terrain), args.repeat)
    _, distances = _best(lambda: edge_distances(bases), args.repeat)
    _, gjk = _best(lambda: [closest_points(a, b) for a, b in itertools.combinations(bases, 2)], 2)
    moving = [f if k >= 5 else _shifted(f) for k, f in enumerate(figures)]  # one unit of five bases moves
    _, step = _best(lambda: table.update(moving), args.repeat)
    sight = int(np.isfinite(table.hidden).sum())
    print(f"whole snapshot : {full * 1000:7.2f} ms  (target 10 ms; best of {args.repeat})")
    print(
        f"  edge distances: {distances * 1000:6.2f} ms for {pairs} pairs; pair-by-pair GJK {gjk * 1000:.0f} ms "
        f"({gjk / distances:.0f}x slower)"
    )
    print(f"next snapshot  : {step * 1000:7.2f} ms  (one unit of 5 bases moved; only their pairs are measured again)")
    print(
        f"  lines of sight: {sight} shooter-target pairs: {int((table.hidden >= 1).sum())} blocked, "
        f"{int(((table.hidden > 0) & (table.hidden < 1)).sum())} partly hidden, {int((table.woods_mm > 0).sum())} through woods"
    )
    save(
        "measure_snapshot",
        f"one table snapshot of {args.bases} bases and {len(pieces)} terrain pieces: every distance, bearing and "
        f"line of sight, on one core",
        [
            Result(
                "whole snapshot",
                full * 1000,
                f"{full * 1000:.1f} ms",
                f"edge distances alone {distances * 1000:.1f} ms; pair-by-pair GJK {gjk * 1000:.0f} ms "
                f"({gjk / distances:.0f}× slower)",
            ),
            Result("next snapshot, one unit of 5 bases moved", step * 1000, f"{step * 1000:.1f} ms"),
        ],
        "10 ms",
    )


def _shifted(figure: Figure) -> Figure:
    base = figure.placed.base
    return Figure(
        Placed(figure.id, base.at(base.x + 30, base.y + 10, base.facing_deg + 20)), figure.side, figure.height_mm
    )


def _best(work, repeat: int):
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - start)
    return result, best


if __name__ == "__main__":
    main()
