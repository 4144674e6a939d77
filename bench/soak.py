"""Load and soak: 1,000 hub events a second, 20 dashboard streams and the camera replaying at
30 fps, together against one `station run` daemon on loopback, for 10 minutes.

Prints the daemon's RSS curve, the queues (engine inbox, dashboard streams, the hub's unACKed
ring), events lost or doubled, and the latency from a hub line to its update on every stream.

    python bench/soak.py [--minutes 10] [--rate 1000] [--clients 20] [--fps 30]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.faults.load import run_in_temp  # noqa: E402  (the harness the test suite uses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=1000.0, help="hub events per second")
    parser.add_argument("--clients", type=int, default=20, help="dashboard streams")
    parser.add_argument("--fps", type=float, default=30.0, help="camera replay rate (0: no camera)")
    args = parser.parse_args()
    start = time.monotonic()
    print(f"{args.minutes:g} min: {args.rate:g} events/s, {args.clients} streams, camera {args.fps:g} fps", flush=True)
    report = run_in_temp(
        args.minutes * 60,
        rate=args.rate,
        clients=args.clients,
        fps=args.fps,
        progress=lambda line: print(line, flush=True),
    )
    for line in report.lines():
        print(line)
    print(f"took {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
