"""The radio option end to end, in simavr: a radio hub and six radio nodes (the real firmware on
every board, firmware/sim/radio_sim.c), two wired boards beside them (board-sim, the real hub
firmware), all on one station's many-hubs link; a game's pace, then a flood; at 0 %, 10 % and
30 % of the packets lost on the air.

For each loss it reports the events delivered exactly once (the target is all of them), the
p50/p99 delay from the sensor to the journal (radio and, in the same run, wired), the radio's
retransmissions and packets given up, and any OVF.  From the 0 % run's duty cycles (each node's
time asleep, its radio's time in each mode) and the parts' datasheet currents it computes each
node's average current and the days of play on a stated cell.

    python bench/radio_in_the_loop.py [--pace 20] [--flood 6] [--losses 0,0.1,0.3]
"""

from __future__ import annotations

import sys  # noqa: I001
from pathlib import Path as _Path

sys.path.insert(0, str(_Path(__file__).resolve().parent.parent))  # tests/sim: the simulated table

import argparse
import tempfile
import time
from pathlib import Path

from results import Figure, save

from station.devices.board import RADIO_NODES, SimulatedBoard, SimulatedRadioTable, firmware_images  # noqa: E402
from station.journal import read_records
from station.runtime import Station
from tests.sim.radioplay import (
    SHOT_MADE_S,
    TILT_MADE_S,
    Expected,
    check_delivery,
    delays,
    play_script,
    shot_lines,
    tilt_line,
)

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "firmware" / "build"
WIRED = {"A1A1": 3.0, "B2B2": 5.0}  # two wired boards: their ids, and how often each barrel fires at a game's pace (s)

# Datasheet currents, mA.  ATmega328P at 8 MHz and 3.3 V, read off its Typical Characteristics
# curves ("Active Supply Current vs. Frequency", "Idle Supply Current vs. Frequency"); nRF24L01+
# Product Specification v1.0 §5.2 Table 10 (1 Mbps, 0 dBm); ADXL335 datasheet (350 uA).
MCU_ACTIVE, MCU_IDLE = 3.5, 0.9
RADIO_MA = {
    "power_down_s": 0.0009,
    "standby_1_s": 0.026,
    "standby_2_s": 0.32,
    "tx_settle_s": 8.0,
    "tx_s": 11.3,
    "wait_ack_s": 13.1,
    "rx_settle_s": 8.9,
    "rx_s": 13.1,
    "ack_turnaround_s": 8.0,
    "ack_tx_s": 11.3,
}
REGULATOR_MA = 0.1  # the Pro Mini's regulator at no load (its power LED removed: hardware.md)
ACCELEROMETER_MA = 0.35
GATE_MA = 4.5  # one barrel's IR gate on a node: LED through 470 ohm from 3.3 V, and its phototransistor
CELL_MAH = {"launcher": 500, "tilt": 250}  # the cells hardware.md names for a radio node
USABLE = 0.85  # of the cell above the 3.5 V low-battery warning
HOURS_A_DAY = 6  # a day of play: the nodes switched on for six hours
TARGET = "every event exactly once, in order per node, at every loss; a day of play on a charge"


def wired_script(path: Path, every: float, pace: float, flood: float, start: float) -> Expected:
    """A wired board: L1's first barrel and T1, at a game's pace and then flooding (L1 every 0.1 s).
    Its first barrel and first accelerometer have a radio node's pins, so radioplay's steps serve."""
    lines, expected, shots, fallen = [], Expected(), 0, False
    for first, seconds, gap in ((start, pace, every), (start + pace + 1, flood, 0.1)):
        t = first
        while t < first + seconds:
            lines += shot_lines("", t)
            shots += 1
            expected.add("L1", ("SHOT", 1, str(shots)), t + SHOT_MADE_S)
            t += gap
    t = start + 0.5
    while t < start + pace + flood:
        fallen = not fallen
        lines.append(tilt_line("", t, fallen))
        expected.add("T1", ("TILT", 0, "fallen" if fallen else "upright"), t + TILT_MADE_S)
        t += 2.0
    lines.append(f"t={start + pace + flood + 6:.3f} end")
    path.write_text("\n".join(lines) + "\n")
    return expected


def run(loss: float, pace: float, flood: float, folder: Path) -> dict:
    start = 1.5
    lines, expected = play_script(RADIO_NODES, start, pace, per_node_s=4.0, seed=5)
    flood_start = start + pace + 1
    flood_lines, expected = play_script(
        RADIO_NODES, flood_start, flood, per_node_s=0.1, seed=6, shot_gap_s=0.1, after=expected
    )
    end = flood_start + flood + 6
    (folder / "radio.txt").write_text("\n".join([*lines, *flood_lines, f"t={end:.3f} end"]) + "\n")
    hub, nodes = firmware_images(BUILD)
    table = SimulatedRadioTable(hub, nodes, folder / "radio.txt", folder / "radio", loss, 3, folder / "stats.json")
    wired, wired_expected = [], {}
    for hub_id, every in WIRED.items():
        wired_expected[hub_id] = wired_script(folder / f"{hub_id}.txt", every, pace, flood, start)
        wired.append(SimulatedBoard(BUILD / "hub.elf", folder / f"{hub_id}.txt", folder / hub_id, hub_id=hub_id))
    boards = [table.start(), *(b.start() for b in wired)]
    station = Station(folder / "game.jsonl", "bronepekhota", [], {}, [b.path for b in boards], seed=1).start()
    try:
        for board in boards:
            board.wait(timeout=end + 60)
        time.sleep(0.5)
    finally:
        station.stop()
        for board in boards:
            board.stop()
    records = read_records(folder / "game.jsonl")
    radio_hub = next(r["hub"] for r in records if r.get("kind") == "rx" and "fw=bronehub-radio" in r.get("line", ""))
    delivery = check_delivery(records, expected, radio_hub)
    phase_of = {key: ("flood" if at >= flood_start else "pace") for key, at in expected.made_at.items()}
    radio_delays = delays(records, expected, table.ready_at, radio_hub)
    pace_keys = [k for k, v in phase_of.items() if v == "pace"]
    pace_only = Expected(expected.events, {k: expected.made_at[k] for k in pace_keys})
    wired_delays, wired_once, wired_total = [], 0, 0
    for board, (hub_id, want) in zip(wired, wired_expected.items(), strict=True):
        got = check_delivery(records, want, hub_id)
        wired_total += want.total
        wired_once += want.total - got.missing if got.exactly_once else 0
        wired_delays += delays(records, want, board.ready_at, hub_id)
    stats = table.stats()
    return {
        "loss": loss,
        "expected": expected.total,
        "once": expected.total - delivery.missing - delivery.doubled if delivery.exactly_once else 0,
        "delivery": delivery,
        "pace": delays(records, pace_only, table.ready_at, radio_hub),
        "all": radio_delays,
        "wired": wired_delays,
        "wired_once": wired_once,
        "wired_total": wired_total,
        "stats": stats,
        "simulated_s": end,
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def budget(stats: dict) -> list[dict]:
    """Each node's average current from its duty cycle and the datasheet currents, and its days of play."""
    out = []
    for board in stats["boards"]:
        if board["name"] == "hub":
            continue
        total = stats["simulated_s"]
        asleep = board["asleep_s"] / total
        mcu = MCU_IDLE * asleep + MCU_ACTIVE * (1 - asleep)
        radio = sum(RADIO_MA[mode] * board["radio"][mode] for mode in RADIO_MA) / total
        barrels = RADIO_NODES[board["name"]]
        sensors = GATE_MA * barrels if barrels else ACCELEROMETER_MA
        milliamps = mcu + radio + sensors + REGULATOR_MA
        kind = "launcher" if barrels else "tilt"
        days = CELL_MAH[kind] * USABLE / milliamps / HOURS_A_DAY
        out.append({"node": board["name"], "kind": kind, "asleep": asleep, "mcu": mcu, "radio": radio,
                    "sensors": sensors, "total": milliamps, "days": days})  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pace", type=float, default=20.0, help="seconds at a game's pace")
    parser.add_argument("--flood", type=float, default=6.0, help="seconds of flood")
    parser.add_argument("--losses", default="0,0.1,0.3")
    args = parser.parse_args()
    figures, runs = [], []
    for loss in (float(x) for x in args.losses.split(",")):
        with tempfile.TemporaryDirectory(prefix="radio-bench-") as folder:
            result = run(loss, args.pace, args.flood, Path(folder))
        runs.append(result)
        boards = result["stats"]["boards"]
        retransmits = sum(b["radio"]["retransmits"] for b in boards if b["name"] != "hub")
        given_up = sum(b["radio"]["max_rt"] for b in boards if b["name"] != "hub")
        d = result["delivery"]
        print(
            f"loss {loss:.0%}: {result['once']}/{result['expected']} radio events exactly once "
            f"(doubled {d.doubled}, missing {d.missing}, out of order {d.out_of_order}, OVF {d.overflows}); "
            f"wired {result['wired_once']}/{result['wired_total']}; "
            f"delay p50/p99 pace {percentile(result['pace'], 0.5) * 1000:.0f}/{percentile(result['pace'], 0.99) * 1000:.0f} ms, "
            f"all {percentile(result['all'], 0.5) * 1000:.0f}/{percentile(result['all'], 0.99) * 1000:.0f} ms, "
            f"wired {percentile(result['wired'], 0.5) * 1000:.0f}/{percentile(result['wired'], 0.99) * 1000:.0f} ms; "
            f"{retransmits} retransmissions, {given_up} packets given up; air {result['stats']['air']}"
        )
        figures.append(
            Figure(
                f"radio at {loss:.0%} loss: 6 nodes and 2 wired boards, events exactly once",
                result["once"] / result["expected"],
                f"{result['once']}/{result['expected']} (OVF {d.overflows}); wired {result['wired_once']}/{result['wired_total']}",
                "every event the script made",
            )
        )
        figures.append(
            Figure(
                f"radio at {loss:.0%} loss: sensor to journal p50 / p99",
                percentile(result["all"], 0.99) * 1000,
                f"pace {percentile(result['pace'], 0.5) * 1000:.0f} / {percentile(result['pace'], 0.99) * 1000:.0f} ms, "
                f"with the flood {percentile(result['all'], 0.5) * 1000:.0f} / {percentile(result['all'], 0.99) * 1000:.0f} ms; "
                f"{retransmits} retransmissions, {given_up} given up",
                f"wired, same run: {percentile(result['wired'], 0.5) * 1000:.0f} / {percentile(result['wired'], 0.99) * 1000:.0f} ms",
            )
        )
    clean = runs[0]
    for node in budget(clean["stats"]):
        print(
            f"{node['node']} ({node['kind']}): asleep {node['asleep']:.0%}, MCU {node['mcu']:.2f} mA, "
            f"radio {node['radio']:.3f} mA, sensors {node['sensors']:.2f} mA: {node['total']:.2f} mA, "
            f"{node['days']:.1f} days of {HOURS_A_DAY} h on {CELL_MAH[node['kind']]} mAh"
        )
    nodes = budget(clean["stats"])
    for kind in ("launcher", "tilt"):
        worst = max((n for n in nodes if n["kind"] == kind), key=lambda n: n["total"])
        figures.append(
            Figure(
                f"radio {kind} node: average current, days of play",
                worst["total"],
                f"{worst['total']:.1f} mA ({worst['node']}: CPU asleep {worst['asleep']:.0%}, radio {worst['radio']:.2f} mA); "
                f"{worst['days']:.0f} days of {HOURS_A_DAY} h on {CELL_MAH[kind]} mAh",
                "computed from the simulated duty cycle and datasheet currents",
            )
        )
    save(
        "radio_in_the_loop",
        "a radio hub, 6 radio nodes and 2 wired boards in simavr, a game's pace then a flood, at 0/10/30 % loss",
        figures,
        TARGET,
    )


if __name__ == "__main__":
    main()
