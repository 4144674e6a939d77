"""A whole table on ten hubs: the example armies wired as hardware.md says, board by board.

Ten boards, five a side, each with the default node table (L1: 2 barrels, L2: 1, T1, T2) and its
own id; "Blue 1" is the real firmware (bronehub/1.2) in simavr, the other nine are simulated hubs
whose crystals run up to ±150 ppm off and were powered up seconds apart.  The armies name their
nodes with their boards ("L1@B001").

1. **A game's pace.**  Every launcher barrel fires once, each shot at a model on *another* board
   that falls 40 ms later; the real board's two tilt nodes fall too, hit by red shots whose lines
   are sent only after the fall's line arrived (the late-shot path); the remaining tilt nodes fall
   with no shot.  A single clock would attribute each fall to the shot fired 40 ms before it: so
   must the station.
2. **A flood**: 1,000 dry fires a second summed over the nine simulated hubs for ``--seconds``,
   the real board heart-beating and answering the clock beside them.  The simulated hubs run in a
   process of their own, as boards do, so the station's share of the machine is what is measured.  Every event must be
   journaled once, in order per hub; from the hub line's journal record to its ruling's, p50/p99.
   Side by side, in the same run: the same 1,000 events/s from one hub alone.

    python bench/many_hubs.py [--seconds 10]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from results import Figure, save  # noqa: E402

from station.devices.board import SimulatedBoard  # noqa: E402
from station.devices.probe import set_hub_id  # noqa: E402
from station.web.server import SWITCH_INTERVAL  # noqa: E402
from tests.sim.tenhubs import BOARDS, ELF, NO_SHOT_ALONE, REAL_BOARD, Table, flood, game_pace  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=1000.0)
    args = parser.parse_args()
    sys.setswitchinterval(SWITCH_INTERVAL)  # what the running station sets (station/web/server.py)
    rng = random.Random(33)
    single = flood(["C001"], args.rate, args.seconds)
    print(f"one hub, {args.rate:,.0f} events/s: {single}")
    with tempfile.TemporaryDirectory() as folder:
        table = Table(Path(folder), rng)
        try:
            pace = game_pace(table)
            print(f"game pace on {len(BOARDS)} hubs: {pace}")
        finally:
            table.stop()
    real_script = Path(tempfile.mkdtemp()) / "idle.txt"
    real_script.write_text(f"t={args.seconds + 60:.0f} end\n")
    board = SimulatedBoard(ELF, real_script).start()
    if not any(set_hub_id(board.path, REAL_BOARD) for _ in range(3)):
        raise SystemExit("the real board did not take its id")
    try:
        flooded = [board_id for board_id in BOARDS if board_id != REAL_BOARD]
        many = flood(flooded, args.rate, args.seconds, board)
    finally:
        board.stop()
    print(f"{len(flooded)} simulated hubs and the real board, {args.rate:,.0f} events/s: {many}")
    alone = flood(flooded, args.rate, args.seconds)  # simavr takes a core of a 2-core machine: without it
    print(f"{len(flooded)} simulated hubs, no simavr, {args.rate:,.0f} events/s: {alone}")
    intact = many["once"] and many["in_order"] and many["journaled"] == many["made"]
    save(
        "many_hubs",
        f"the example armies on {len(BOARDS)} hubs (one the real firmware in simavr), as hardware.md wires them",
        [
            Figure(
                "cross-hub hits attributed as one clock would",
                pace["agreed"],
                f"{pace['agreed']}/{pace['pairs']} ({pace['doubt']} said to be in doubt); "
                f"{pace['no_shot']} of {NO_SHOT_ALONE} models on their own fell with no shot, as scripted",
                "every barrel fires, every tilt node falls",
            ),
            Figure(
                f"{args.rate:,.0f} events/s over {len(flooded)} simulated hubs and the real board, line to ruling",
                many["p99"],
                f"p50 {many['p50']:.1f} ms, p99 {many['p99']:.1f} ms; {many['journaled']:,}/{many['made']:,} "
                + ("journaled once, in order per hub" if intact else "NOT ALL JOURNALED ONCE IN ORDER"),
                f"one hub alone: p50 {single['p50']:.1f} ms, p99 {single['p99']:.1f} ms; the {len(flooded)} hubs "
                f"without simavr (a core of its own): p50 {alone['p50']:.1f} ms, p99 {alone['p99']:.1f} ms",
            ),
        ],
        "every event once, in order per hub; every cross-hub hit as one clock",
    )


if __name__ == "__main__":
    main()
