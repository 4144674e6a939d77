"""Scripted sensor sessions (``station-session/1``): what the hub reports and what the referee
enters, second by second.  The simulated hub plays the sensor side over a real pty, so a session
exercises the same link, journal and rules as a game on a table.  The demo is one of these.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .datafile import Fields, load_json_file
from .devices.hubsim import FAULTS, SimulatedHub
from .devices.protocol import CHARGES, TILT_STATES
from .dice import DIE_SIDES

log = logging.getLogger(__name__)

FORMAT = "station-session/1"
STEP_KINDS = ("input", "shot", "tilt", "impact", "dry", "fault", "disconnect", "table", "dice")
TABLE_STATUSES = ("up", "hidden", "fallen")


@dataclass(frozen=True)
class Step:
    at: float  # seconds from the start of the session
    kind: str
    args: Mapping[str, Any]


@dataclass(frozen=True)
class Session:
    path: Path
    title: str
    game: str
    army_paths: tuple[Path, ...]
    options: Mapping[str, Any]
    boot: str
    steps: tuple[Step, ...] = field(default=())
    terrain: Mapping[str, Any] | None = None  # a station-terrain/1 document

    @property
    def duration(self) -> float:
        return self.steps[-1].at if self.steps else 0.0


def _step(f: Fields) -> Step:
    at = f.get("at", (int, float), check=lambda v: None if v >= 0 else "must not be negative")
    kinds = [k for k in STEP_KINDS if k in f.data]
    if len(kinds) != 1:
        f.fail(f"needs exactly one of {', '.join(STEP_KINDS)}")
    kind = kinds[0]
    f.reject_unknown(["at", kind, "args"])
    if kind == "input":
        return Step(float(at), kind, {"type": f.get("input", str), "args": f.get("args", dict, {})})
    if kind == "disconnect":
        return Step(float(at), kind, {"seconds": f.get("disconnect", (int, float))})
    body = f.child(kind)
    if kind == "table":
        return Step(float(at), kind, _table(body))
    if kind == "dice":  # dice rolled at the table, entered for the next rolls
        body.reject_unknown(["sides", "values"])
        return Step(
            float(at),
            kind,
            {
                "sides": body.get(
                    "sides",
                    int,
                    check=lambda v: None if v in DIE_SIDES else f"must be one of {', '.join(map(str, DIE_SIDES))}",
                ),
                "values": body.get(
                    "values",
                    list,
                    check=lambda v: (
                        None
                        if v and all(isinstance(x, int) and not isinstance(x, bool) for x in v)
                        else "must list whole numbers"
                    ),
                ),
            },
        )
    if kind == "fault":
        body.reject_unknown(["kind", "count"])
        return Step(float(at), kind, {"fault": body.choice("kind", FAULTS), "count": body.integer("count", 1, 100, 1)})
    node = body.get("node", str)
    if kind == "shot":
        body.reject_unknown(["node", "barrel", "charge"])
        return Step(
            float(at),
            kind,
            {
                "node": node,
                "barrel": body.integer("barrel", 1, 9, 1),
                "charge": body.choice("charge", CHARGES, "shell"),
            },
        )
    if kind == "tilt":
        body.reject_unknown(["node", "state", "angle"])
        return Step(
            float(at),
            kind,
            {"node": node, "state": body.choice("state", TILT_STATES), "angle": body.integer("angle", 0, 180, 0)},
        )
    if kind == "impact":
        body.reject_unknown(["node", "g"])
        return Step(float(at), kind, {"node": node, "g": float(body.get("g", (int, float), 5.0))})
    body.reject_unknown(["node", "barrel"])
    return Step(float(at), kind, {"node": node, "barrel": body.integer("barrel", 1, 9, 1)})


def _table(body: Fields) -> dict[str, Any]:
    """A recorded TableSnapshot: where the camera saw each base (mm, degrees)."""
    body.reject_unknown(["table_mm", "units"])
    size = body.get(
        "table_mm",
        list,
        [],
        check=lambda v: (
            None
            if not v or (len(v) == 2 and all(isinstance(c, (int, float)) and 100 <= c <= 10000 for c in v))
            else "must be [width, depth] in mm"
        ),
    )
    units = []
    for u in body.items("units", min_len=1):
        u.reject_unknown(["element", "x", "y", "facing", "status"])
        units.append(
            {
                "element": u.get("element", str),
                "x_mm": float(u.get("x", (int, float))),
                "y_mm": float(u.get("y", (int, float))),
                "facing_deg": float(u.get("facing", (int, float), 0.0)),
                "status": u.choice("status", TABLE_STATUSES, "up"),
                "confidence": 1.0,
            }
        )
    return {"table_mm": list(size), "units": units}


def load_session(path: str | Path) -> Session:
    path = Path(path)
    f = Fields(str(path), load_json_file(path))
    f.reject_unknown(["format", "title", "game", "armies", "options", "hub", "steps", "terrain"])
    f.get("format", str, check=lambda v: None if v == FORMAT else f"is {v!r}; expected {FORMAT!r}")
    armies = f.get(
        "armies",
        list,
        check=lambda v: None if v and all(isinstance(a, str) for a in v) else "must list army file names",
    )
    hub = f.child("hub") if "hub" in f.data else Fields(str(path), {}, "hub")
    hub.reject_unknown(["boot"])
    steps = sorted((_step(s) for s in f.items("steps", min_len=1)), key=lambda s: s.at)
    terrain = f.get("terrain", (str, dict), None)
    if isinstance(terrain, str):  # a terrain file next to the script
        terrain = load_json_file(path.parent / terrain)
    return Session(
        path,
        f.get("title", str, path.stem),
        f.get("game", str),
        tuple(path.parent / a for a in armies),
        f.get("options", dict, {}),
        hub.get("boot", str, "D3M0"),
        tuple(steps),
        terrain,
    )


class SessionPlayer:
    """Plays a session in real time (times ``speed``) on a hub and an input callback."""

    def __init__(
        self,
        session: Session,
        hub: SimulatedHub,
        on_input: Callable[[str, Mapping[str, Any]], Any] | None,
        speed: float = 1.0,
        on_table: Callable[[Mapping[str, Any]], Any] | None = None,
        on_dice: Callable[[int, list[int]], Any] | None = None,
    ) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        self.session, self.hub, self.on_input, self.speed = session, hub, on_input, speed
        self.on_table = on_table
        self.on_dice = on_dice
        self.done = threading.Event()
        self.played = 0
        self._stop = threading.Event()

    def start(self) -> SessionPlayer:
        threading.Thread(target=self.play, name="session-player", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def play(self) -> None:
        start = time.monotonic()
        self.hub.restart_clock(self.speed)  # heartbeat times then agree with the script's times
        total = len(self.session.steps)
        try:
            for index, step in enumerate(self.session.steps, start=1):
                delay = start + step.at / self.speed - time.monotonic()
                if delay > 0 and self._stop.wait(delay):
                    return
                if self._stop.is_set():
                    return
                self._perform(step)
                self.played = index
                if index % 10 == 0 or index == total:
                    log.info("session %s: step %d/%d at %.1f s", self.session.title, index, total, step.at)
        finally:
            self.done.set()

    def _perform(self, step: Step) -> None:
        a, t = step.args, int(round(step.at * 1000))
        if step.kind == "input":
            if self.on_input is None:
                log.info("session input %s skipped: enter it on the dashboard", a["type"])
            else:
                try:
                    self.on_input(a["type"], a["args"])
                except ValueError as exc:
                    log.warning("session input %s refused: %s", a["type"], exc)
        elif step.kind == "shot":
            self.hub.shot(a["node"], a["barrel"], a["charge"], t=t)
        elif step.kind == "tilt":
            self.hub.tilt(a["node"], a["state"], a["angle"], t=t)
        elif step.kind == "impact":
            self.hub.impact(a["node"], a["g"], t=t)
        elif step.kind == "dry":
            self.hub.dry_fire(a["node"], a["barrel"], t=t)
        elif step.kind == "fault":
            self.hub.inject(a["fault"], a["count"])
        elif step.kind == "disconnect":
            self.hub.disconnect(a["seconds"] / self.speed)
        elif step.kind == "table" and self.on_table is not None:
            self.on_table(a)
        elif step.kind == "dice" and self.on_dice is not None:
            self.on_dice(a["sides"], list(a["values"]))
