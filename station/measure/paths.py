"""A move's path walked finely against the bases that stood still: what it touched on the way
and what it went through, for the rules that judge the path and not only its ends (Бронепехота
§4.1, Alpha Strike §5.5).

The camera journals a position whenever a model moves more than its noise, so two positions
may be a hand's sweep apart.  The path between them is taken as straight and walked every
``SAMPLE_MM`` (a tenth of a Бронепехота step, under a fifth of an inch), which is finer than
any base, so no base between two journaled positions is skipped."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .bases import Base
from .pairwise import pair_distances

Pose = tuple[float, float, float]  # x, y mm and facing in degrees, as the camera journals them
SAMPLE_MM = 5.0


def along(path: Sequence[Pose], every_mm: float = SAMPLE_MM) -> list[Pose]:
    """The path's positions every ``every_mm``, facing as at each leg's start."""
    if not path:
        return []
    samples = [path[0]]
    for (x0, y0, f0), (x1, y1, _) in zip(path, path[1:]):
        n = max(1, math.ceil(math.hypot(x1 - x0, y1 - y0) / every_mm))
        samples += [(x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n, f0) for k in range(1, n + 1)]
    return samples


def gaps_along(mover: Base, samples: Sequence[Pose], others: Sequence[Base]) -> np.ndarray:
    """The edge gap (mm, 0 where they overlap) between the mover's base at each sample and each
    other base: a (samples, others) array, in one vectorised pass."""
    bases = [mover.at(*pose) for pose in samples] + list(others)
    rows, cols = np.meshgrid(np.arange(len(samples)), np.arange(len(others)), indexing="ij")
    gaps: np.ndarray = pair_distances(bases, rows.ravel(), cols.ravel() + len(samples))
    return gaps.reshape(len(samples), len(others))


def centres_inside(samples: Sequence[Pose], others: Sequence[Base]) -> np.ndarray:
    """Whether the mover's centre was inside each other base at each sample: (others, samples)."""
    centres = np.array([(x, y) for x, y, _ in samples])
    return np.array([other.contains_many(centres) for other in others]).reshape(len(others), len(samples))


def went_through(mover: Base, path: Sequence[Pose], others: Sequence[Base], margins_mm: Sequence[float]) -> list[int]:
    """The others whose base the mover's overlapped somewhere along the path by more than each
    one's margin (the camera's doubt about the two positions): the mover's base shrunk by the
    margin on every side still meets it, or its centre crossed it."""
    samples = along(path)
    if len(samples) < 2 or not others:
        return []
    through: np.ndarray = np.asarray(centres_inside(samples, others).any(axis=1))
    for n, (other, margin) in enumerate(zip(others, margins_mm)):
        if through[n]:
            continue
        core = Base(
            mover.kind, max(mover.length - 2 * margin, 1.0), max(mover.width - 2 * margin, 1.0), mover.x, mover.y,
            mover.facing_deg,
        )  # fmt: skip
        through[n] = bool((gaps_along(core, samples, [other]) <= 0.0).any())
    return [int(n) for n in np.flatnonzero(through)]
