"""Smart dice at a busy table (issue 52), on bumble-emulated Bluetooth (tests/sim/bledice.py): a
dozen dice at once, half Pixels read from their advertisements and half GoDice over connections,
all paired with "any roll" into a live Бронепехота game with its journal on disk.

- **Throw to the game:** from the moment a die tells its rest (the advertisement or notification
  leaves the emulated die) to the table die journaled (fsync'd) and published to the screens.
- **False throws:** pick-ups, nudges, GoDice's fake/tilt/move stables, and jolts that make a die
  say "rolling" for a moment (a Pixels die held still then says "rolled": DiceFirmware #78).
- **Exactly once:** GoDice links dropped at random between and during throws; every throw seen
  whole is journaled once, a throw whose link dropped mid-tumble is said, never journaled twice.

    python bench/dice.py [--dice 12] [--throws 40] [--pickups 1000]
"""

from __future__ import annotations

import sys  # noqa: I001
from pathlib import Path as _Path

sys.path.insert(0, str(_Path(__file__).resolve().parent.parent))  # tests/sim: the emulated dice

import argparse
import asyncio
import logging
import random
import tempfile
import time
from pathlib import Path

from results import Figure, save

from station.devices.dice.codec import Motion
from station.devices.dice.rolls import ANY_PLAYER, Roll
from station.devices.dice.source import DiceSource
from station.game import Game
from station.journal import Journal, read_records
from station.records import Kind
from station.rules.bronepekhota.army import load_army
from tests.sim.bledice import BumbleRadio, DieSpec

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _specs(count: int) -> list[DieSpec]:
    return [
        DieSpec("pixels", f"F0:00:00:00:01:{k:02X}", f"Pixel {k}", pixel_id=0xD1CE0000 + k)
        if k % 2 == 0
        else DieSpec("godice", f"F0:00:00:00:02:{k:02X}", f"GoDice_{k}")
        for k in range(count)
    ]


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dice", type=int, default=12)
    parser.add_argument("--throws", type=int, default=40, help="throws per die")
    parser.add_argument("--pickups", type=int, default=1000, help="pick-ups and nudges, over all the dice")
    parser.add_argument("--seed", type=int, default=52)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    rng = random.Random(args.seed)
    specs = _specs(args.dice)
    radio = BumbleRadio(specs)
    folder = Path(tempfile.mkdtemp(prefix="dice-bench-"))
    armies = [load_army(EXAMPLES / "blue-protectorate.json"), load_army(EXAMPLES / "red-polaris.json")]
    game = Game(Journal(folder / "game.jsonl"), "bronepekhota", armies, {}, rng=random.Random(1))
    address_of = {_die_id(s): s.address for s in specs}
    latencies: list[float] = []
    phase = {"name": "pairing"}
    false_throws = 0

    def to_the_game(roll: Roll, player: str) -> str:
        nonlocal false_throws
        why = game.table_die(roll, player)
        latencies.append(time.perf_counter() - radio.dice[address_of[roll.die]].sent_at)
        if phase["name"] == "pickups":
            false_throws += 1
        return why

    source = DiceSource([radio]).start()
    source.on_roll = to_the_game
    deadline = time.monotonic() + 30
    while len(source.nearby()) < len(specs) and time.monotonic() < deadline:
        time.sleep(0.05)
    for die in source.nearby():
        source.assign(die["id"], ANY_PLAYER)
    while any(d["make"] == "godice" and d["link"] != "connected" for d in source.nearby()):
        time.sleep(0.05)
    print(
        f"{len(specs)} dice paired ({sum(s.make == 'pixels' for s in specs)} Pixels, "
        f"{sum(s.make == 'godice' for s in specs)} GoDice)"
    )

    # pick-ups and nudges, spread over the dice: none may count
    phase["name"] = "pickups"
    kinds = [b"FS", b"TS", b"MS"]

    async def pickups() -> None:
        for k in range(args.pickups):
            spec = specs[k % len(specs)]
            await radio.pick_up(
                spec.address, rng.randint(1, 6), rng.choice(kinds), jolt_s=rng.choice([0.0, 0.0, 0.02, 0.05])
            )
            await asyncio.sleep(0.005)

    started = time.monotonic()
    radio.run(pickups(), timeout=600)
    time.sleep(0.5)
    print(f"{args.pickups} pick-ups and nudges in {time.monotonic() - started:.0f} s: {false_throws} counted as throws")
    latencies.clear()

    # throws on every die at once, with GoDice links dropped at random
    phase["name"] = "throws"
    thrown = {s.address: 0 for s in specs}
    lost = {s.address: 0 for s in specs}

    async def throws(spec: DieSpec) -> None:
        for _ in range(args.throws):
            await asyncio.sleep(rng.uniform(0.05, 0.4))
            drop = spec.make == "godice" and rng.random() < 0.1
            if drop and rng.random() < 0.5:  # mid-tumble: the throw is lost, and said
                await radio.tell(spec.address, Motion.ROLLING, godice=b"R")
                await radio.drop_link(spec.address)
                lost[spec.address] += 1
                await _reconnected(source, spec)
                continue
            if drop:
                await radio.drop_link(spec.address)
                await _reconnected(source, spec)
            await radio.throw(spec.address, rng.randint(1, 6), tumble_s=rng.uniform(0.25, 0.6))
            thrown[spec.address] += 1

    async def all_throws() -> None:
        await asyncio.gather(*(throws(s) for s in specs))

    started = time.monotonic()
    radio.run(all_throws(), timeout=900)
    time.sleep(1.0)
    seconds = time.monotonic() - started
    entries = [r for r in read_records(game.journal.path) if r["kind"] == Kind.DICE_ENTRY]
    by_die: dict[str, list[int]] = {}
    for entry in entries:
        by_die.setdefault(entry["die"], []).append(entry["throw"])
    ids = {d["id"]: d for d in source.nearby()}
    expected = sum(thrown.values())
    once = len(entries) == expected and all(t == sorted(set(t)) for t in by_die.values())
    drops = sum(d["drops"] for d in ids.values())
    said_lost = sum(1 for d in ids.values() if d["drops"])  # dice that dropped at least once
    source.stop()
    p50, p99 = _percentile(latencies, 50) * 1000, _percentile(latencies, 99) * 1000
    print(
        f"{expected} throws on {len(specs)} dice in {seconds:.0f} s: {len(entries)} journaled, "
        f"{'each once' if once else 'NOT each once'}; {sum(lost.values())} lost mid-roll, {drops} links dropped"
    )
    print(f"throw to the game: p50 {p50:.0f} ms, p99 {p99:.0f} ms, max {max(latencies) * 1000:.0f} ms")
    save(
        "dice",
        f"{len(specs)} emulated smart dice (bumble), {args.throws} throws each with GoDice links dropped at random, "
        f"{args.pickups} pick-ups and nudges; a Бронепехота game journaling each throw",
        [
            Figure(
                "smart dice: throw to the game, p99", p99, f"{p99:.0f} ms", f"p50 {p50:.0f} ms, {len(latencies)} throws"
            ),
            Figure("smart dice: false throws", false_throws, f"{false_throws} in {args.pickups} pick-ups and nudges"),
            Figure(
                "smart dice: each throw once across dropped links",
                float(once),
                f"{len(entries)} of {expected} journaled once" if once else "NO",
                f"{drops} links dropped on {said_lost} dice, {sum(lost.values())} throws lost mid-roll and said",
            ),
        ],
        "p99 ≤300 ms; 0 false throws; each once",
    )


def _die_id(spec: DieSpec) -> str:
    """The id the station gives the die (station/devices/dice/source.py)."""
    return f"pixels-{spec.pixel_id:08x}" if spec.make == "pixels" else f"godice-{spec.address.replace(':', '').lower()}"


async def _reconnected(source: DiceSource, spec: DieSpec) -> None:
    die = _die_id(spec)
    for _ in range(400):
        if any(d["id"] == die and d["link"] == "connected" for d in source.nearby()):
            return
        await asyncio.sleep(0.025)


if __name__ == "__main__":
    main()
