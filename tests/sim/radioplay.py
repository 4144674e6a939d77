"""Play a radio table in simulation (``station simulate-radio``, tests/test_radio.py,
bench/radio_in_the_loop.py): a stimulus script of shots and falls on the radio nodes, and the
check that every one of them reached the journal exactly once, in order per node.

The nodes are the images ``make firmware`` builds (firmware/Makefile RADIO_NODES).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from station.devices import protocol as p

# a barrel's trigger and gate on a radio node (firmware/avr/node_config.h)
_PINS = {1: ("D2", "D3"), 2: ("D4", "D5")}
_FALLEN, _UPRIGHT = "x=1.0 y=0.0 z=0.1", "x=0.0 y=0.0 z=1.0"
SETTLE_S = 0.4  # a tilt state holds this long before the node reports it (core/tilt.c 300 ms, with margin)
SHOT_MADE_S = 0.024  # after the trigger: the gate blocked 20 ms in, for 4 ms (shot_lines)
TILT_MADE_S = 0.300  # after the fall: core/tilt.c settle_ms


@dataclass
class Expected:
    """What the script makes each node report, in order."""

    events: dict[str, list[tuple[str, int, str]]] = field(default_factory=dict)
    made_at: dict[tuple[str, tuple[str, int, str], int], float] = field(default_factory=dict)

    def add(self, node: str, what: tuple[str, int, str], at: float = 0.0) -> None:
        """``at``: the simulated second the node makes the event (its gate opens again, or its
        tilt has held long enough to be reported); keyed by the event and how many came before it."""
        done = self.events.setdefault(node, [])
        self.made_at[(node, what, done.count(what))] = at
        done.append(what)

    @property
    def total(self) -> int:
        return sum(len(v) for v in self.events.values())


def shot_lines(node: str, t: float, barrel: int = 1, gate_ms: float = 4.0) -> list[str]:
    """A shot from a launcher: the trigger pressed for 30 ms, the gate blocked 20 ms in.  ``node``
    names a radio node's board; "" is a wired board's script, whose first barrel has the same pins."""
    trigger, gate = _PINS[barrel]
    board = f"{node} " if node else ""
    return [f"t={t:.3f} {board}pin {trigger} low 30ms", f"t={t + 0.02:.3f} {board}pin {gate} low {gate_ms:g}ms"]


def tilt_line(node: str, t: float, fallen: bool) -> str:
    """A tilt node's model falling over (or set upright), its accelerometer on A0-A2 ("" as above)."""
    board = f"{node} " if node else ""
    return f"t={t:.3f} {board}adc A0 {_FALLEN if fallen else _UPRIGHT}"


def reported(message: p.Message) -> tuple[str, int, str] | None:
    """What Expected calls an event: a shot by its barrel and count, a tilt by its state (a
    node's first posture after it starts is a report, counted in ``Delivery.reports``)."""
    if isinstance(message, p.Shot):
        return ("SHOT", message.barrel, str(message.count))
    if isinstance(message, p.Tilt) and not message.first:
        return ("TILT", 0, message.state)
    return None


def play_script(
    nodes: Mapping[str, int],
    start: float,
    seconds: float,
    per_node_s: float,
    seed: int = 1,
    shot_gap_s: float = 0.45,
    after: Expected | None = None,
) -> tuple[list[str], Expected]:
    """Script lines for ``seconds`` of play from ``start``: every node acts about every
    ``per_node_s`` (a launcher fires one of its barrels, no sooner than ``shot_gap_s`` after its
    last shot; a tilt node falls or gets up), at random moments, and what each should report.
    ``after``: the Expected of the script's earlier part, which this one goes on from (the shot
    counters, a model still down)."""
    rng = random.Random(seed)
    lines: list[str] = []
    expected = after or Expected()
    for name, barrels in nodes.items():
        done = expected.events.get(name, [])
        shots = {b: sum(1 for e in done if e[:2] == ("SHOT", b)) for b in (1, 2)}
        fallen = bool(done) and done[-1] == ("TILT", 0, "fallen")
        t = start + rng.uniform(0, per_node_s)
        gap = max(per_node_s, shot_gap_s if barrels else SETTLE_S + 0.2)
        while t < start + seconds:
            if barrels:
                barrel = rng.randint(1, barrels)
                lines += shot_lines(name, t, barrel)
                shots[barrel] += 1
                expected.add(name, ("SHOT", barrel, str(shots[barrel])), t + SHOT_MADE_S)
            else:
                fallen = not fallen
                lines.append(tilt_line(name, t, fallen))
                expected.add(name, ("TILT", 0, "fallen" if fallen else "upright"), t + TILT_MADE_S)
            t += gap * rng.uniform(1.0, 2.0)
    return lines, expected


@dataclass
class Delivery:
    """What reached the journal, against what the script made."""

    delivered: dict[str, list[tuple[str, int, str]]]
    doubled: int
    missing: int
    out_of_order: int
    overflows: int  # OVF events: what a ring could not keep, reported
    joins: list[str]
    reports: list[str]  # the tilt nodes whose first posture after starting reached the journal, in order

    @property
    def exactly_once(self) -> bool:
        return not (self.doubled or self.missing or self.out_of_order)


def journaled_events(
    records: Sequence[Mapping[str, Any]], hub: str | None = None
) -> list[tuple[p.Message, Mapping[str, Any]]]:
    """Every hub event the station took (journaled with the verdict ``event``), with its record;
    with ``hub``, that hub's only (a record's ``hub`` is the id its HELLO said)."""
    return [
        (p.decode(r["line"]), r)
        for r in records
        if r.get("kind") == "rx" and r.get("verdict") == "event" and hub in (None, r.get("hub"))
    ]


def delays(
    records: Sequence[Mapping[str, Any]], expected: Expected, ready_at: float, hub: str | None = None
) -> list[float]:
    """Seconds from each event's making in the simulation to its journal record (its ``mono``,
    the station's monotonic clock, which ``ready_at`` ties to simulated time 0)."""
    seen: dict[tuple[str, tuple[str, int, str]], int] = {}
    out = []
    for message, record in journaled_events(records, hub):
        what = reported(message)
        if what is None:
            continue
        key = (getattr(message, "node", ""), what)
        made = expected.made_at.get((key[0], what, seen.get(key, 0)))
        seen[key] = seen.get(key, 0) + 1
        if made is not None:
            out.append(record["mono"] - ready_at - made)
    return out


def check_delivery(records: Sequence[Mapping[str, Any]], expected: Expected, hub: str | None = None) -> Delivery:
    delivered: dict[str, list[tuple[str, int, str]]] = {}
    overflows, joins, reports = 0, [], []
    for message, _ in journaled_events(records, hub):
        what = reported(message)
        if isinstance(message, p.Tilt) and message.first:
            reports.append(message.node)
        elif what is not None:
            delivered.setdefault(getattr(message, "node", ""), []).append(what)
        elif isinstance(message, p.Overflow):
            overflows += 1
        elif isinstance(message, p.Join):
            joins.append(message.node)
    doubled = missing = out_of_order = 0
    for node, want in expected.events.items():
        got = delivered.get(node, [])
        once = _once(got)
        doubled += len(got) - len(once)
        if want[0][0] == "SHOT":  # each shot is its own, by its count
            missing += len(set(want) - set(once))
            once, want = [g for g in once if g in want], [w for w in want if w in once]
        else:  # a tilt node's states are told apart only by where they come
            missing += max(0, len(want) - len(once))
        out_of_order += sum(1 for a, b in zip(once, want, strict=False) if a != b)
    return Delivery(delivered, doubled, missing, out_of_order, overflows, joins, reports)


def _once(events: list[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    """A node's events with the repeats taken out: a shot counted twice (its count says which), or a
    tilt node's same state twice running (it alternates between fallen and upright)."""
    if events and events[0][0] == "SHOT":
        return list(dict.fromkeys(events))
    return [e for i, e in enumerate(events) if i == 0 or events[i - 1] != e]
