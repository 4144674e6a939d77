"""The seeded game night, many times: the live game, its replay and a resumed game must agree.

``tests/gamenight.py`` plays three hubs with drifting clocks (±2,000 ppm), resets, bad lines and
crossing lines, a camera and two referee phones on one journal, interleaved by a seed, and checks
that the live state and rulings equal the replay's and a resumed game's, that every ruling is
journaled as shown and that none holds a non-finite number.  `make test` runs 1,000 seeds; this
runs 100,000 (``--seeds``) on every core, and prints the seeds run and every failing seed, so a
failure is replayed with ``check_night(seed)``.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.gamenight import Verdict, check_night  # noqa: E402

log = logging.getLogger("game_night")
CHUNK = 500
FAST_DISK = Path("/dev/shm") if Path("/dev/shm").is_dir() else None


def run_chunk(first: int, last: int) -> list[Verdict]:
    logging.disable(logging.WARNING)  # the nights' own warnings (unwired nodes) are expected
    return [v for v in (check_night(seed, FAST_DISK) for seed in range(first, last)) if v.problems]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=100_000)
    parser.add_argument("--first", type=int, default=0, help="the first seed")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    started, done, failing = time.monotonic(), 0, []
    chunks = [(s, min(s + CHUNK, args.first + args.seeds)) for s in range(args.first, args.first + args.seeds, CHUNK)]
    with ProcessPoolExecutor(args.jobs) as pool:
        for (first, last), bad in zip(chunks, pool.map(run_chunk, *zip(*chunks, strict=True)), strict=True):
            done += last - first
            failing += bad
            for verdict in bad:
                log.info("seed %d: %s", verdict.seed, "; ".join(verdict.problems))
            if done % 5000 < CHUNK:
                log.info(
                    "%d of %d seeds, %d failing, %.0f s", done, args.seeds, len(failing), time.monotonic() - started
                )
    seconds = time.monotonic() - started
    log.info(
        "game night: %d seeds (%d-%d) in %.0f s (%.1f ms a seed on %d cores); %d failing%s",
        done,
        args.first,
        args.first + done - 1,
        seconds,
        1000 * seconds * args.jobs / max(done, 1),
        args.jobs,
        len(failing),
        ": " + ", ".join(str(v.seed) for v in failing[:50]) if failing else "",
    )
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
