"""Crash safety, the long run: SIGKILL the station daemon 100 times at random moments of a game
while the simulated hub keeps firing, restarting it with `station run --resume` each time.

Prints what tests/faults/crash.py checked: the journal whole after every kill (at most a torn last
line), every checked restart equal to a clean replay, every event applied once and in order.

    python bench/crash_loop.py [--kills 100] [--rate 10] [--seed 1]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.faults.crash import crash_loop  # noqa: E402  (the harness the test suite uses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--rate", type=float, default=10.0, help="hub events per second")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        print(f"{args.kills} kills, {args.rate:g} events/s from the hub", flush=True)
        report = crash_loop(
            Path(folder), args.kills, args.seed, args.rate, progress=lambda line: print(line, flush=True)
        )
    for line in report.lines():
        print(line)
    print(f"took {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
