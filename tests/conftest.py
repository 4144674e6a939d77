import contextlib
import errno
import itertools
import json
import os
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from station.devices import protocol as p
from station.rules.base import ArmyError, Event, Input
from station.rules.bronepekhota import Bronepekhota
from station.rules.bronepekhota.army import load_army

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SHARED = ROOT.parent / "shared"


class ScriptedRoller:
    """Hands out the given values in order and records what was asked, so a test can say both
    what the dice showed and which tests the rules called for."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)
        self.asked: list[tuple[int, str]] = []

    def roll(self, sides: int, key: str) -> int:
        self.asked.append((sides, key))
        if not self.values:
            raise AssertionError(f"unexpected roll D{sides} for {key}")
        value = self.values.pop(0)
        assert 1 <= value <= sides, f"test bug: {value} on D{sides}"
        return value


@pytest.fixture
def armies():
    return [load_army(EXAMPLES / "blue-protectorate.json"), load_army(EXAMPLES / "red-polaris.json")]


class Table:
    """A game of the example armies driven event by event, as the fold would."""

    def __init__(self, armies, options=None, overrides=None):
        self.roller = ScriptedRoller()
        self.rules = Bronepekhota(self.roller)
        self.state = self.rules.initial_state(armies, options or {}, overrides)
        self.seq = itertools.count(1)
        self.rulings = []

    def send(self, body, *rolls):
        self.roller.values.extend(rolls)
        self.state, rulings = self.rules.apply(self.state, Event(next(self.seq), body))
        self.rulings += rulings
        assert not self.roller.values, f"rolls left unused: {self.roller.values}"
        return rulings

    def begin_round(self, blue=10, red=3):
        return self.send(Input("begin_round"), blue, red)

    def shot(self, node, barrel=1, charge="shell", t=1000, count=None):
        self._counts = getattr(self, "_counts", {})
        key = (node, barrel)
        self._counts[key] = count if count is not None else self._counts.get(key, 0) + 1
        return p.Shot(0, node, barrel, charge, self._counts[key], t)

    def el(self, element_id):
        return self.state.elements[element_id]


def tilt(node, state="fallen", t=1200, angle=80):
    return p.Tilt(0, node, state, angle, t)


def impact(node, t=1200, g=6.0):
    return p.Impact(0, node, g, t)


def hb(up):
    return p.Heartbeat(0, up, 0)


@pytest.fixture
def table(armies):
    return Table(armies)


REFEREE_TOKEN = "test-token-123"
REFEREE = {"X-Referee-Token": REFEREE_TOKEN}


@pytest.fixture
def station(tmp_path, armies):
    """A running station with the example armies and no hub: the API's tests drive it."""
    from station.runtime import Station

    s = Station(tmp_path / "game.jsonl", "bronepekhota", armies, {}, seed=5).start()
    yield s
    s.stop()


@pytest.fixture
def client(station):
    from station.web.app import create_app

    return create_app(station, REFEREE_TOKEN).test_client()


class FoldDriver:
    """A ruleset driven input by input as the fold would, with scripted dice and table snapshots.
    Every roll given must be used, so a test says exactly which dice the rules asked for."""

    table_mm = (1800, 1200)

    def __init__(self, ruleset_class, armies, options=None):
        self.roller = ScriptedRoller()
        self.rules = ruleset_class(self.roller)
        self.state = self.rules.initial_state(armies, options or {})
        self.seq = itertools.count(1)

    def do(self, what, *rolls, **args):
        self.roller.values.extend(rolls)
        self.state, rulings = self.rules.apply(self.state, Event(next(self.seq), Input(what, args)))
        assert not self.roller.values, f"rolls left unused: {self.roller.values}"
        return rulings

    def snapshot(self, where):
        """Models seen standing, ``{element: (x_mm, y_mm, facing_deg)}``."""
        return self.do(
            "snapshot",
            table_mm=list(self.table_mm),
            residual_mm=0.3,
            units=[
                {"element": e, "x_mm": x, "y_mm": y, "facing_deg": f, "status": "up"} for e, (x, y, f) in where.items()
            ],
        )


def assert_bad_file(loader, good_file, tmp_path, change, where, problem):
    """A good army file with ``change`` applied must fail naming the file, the field and the problem."""
    import json

    path = tmp_path / "army.json"
    path.write_text(json.dumps({**json.loads(good_file.read_text()), **change}))
    with pytest.raises(ArmyError) as err:
        loader(path)
    assert str(path) in str(err.value) and where in str(err.value) and problem in str(err.value)


@contextlib.contextmanager
def tmpfs(mount, size="1m"):
    """A tmpfs of ``size`` at ``mount`` (root, or passwordless sudo, as `make test` needs anyway
    for apt-get), unmounted after."""
    mount.mkdir()
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    done = subprocess.run(
        sudo + ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode:
        pytest.fail(f"the disk-full test mounts a small tmpfs and could not: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(sudo + ["umount", "-l", str(mount)], check=True)


@pytest.fixture
def small_disk(tmp_path):
    """A 1 MB tmpfs."""
    with tmpfs(tmp_path / "disk") as mount:
        yield mount


def fill(folder):
    """Fill the disk to the last byte; returns the filler file."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as f:
        for size in (65536, 4096, 512, 1):
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
    return filler


def wait_for(predicate, timeout=10.0, what="condition", poll=0.01):
    """Until ``predicate()`` holds, or fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(poll)
    raise AssertionError(f"timed out waiting for {what}")


def first_pending(url, wanted=lambda ruling: True, timeout=10.0):
    """The id of the first ruling waiting for the referee that is ``wanted``, on a station running
    in another process, within ``timeout`` seconds (a hub's shot takes a moment); None if none."""
    deadline = time.monotonic() + timeout
    while True:
        state = json.loads(urllib.request.urlopen(url + "/api/state", timeout=5).read())
        waiting = [r["id"] for r in state["rulings"] if r.get("status") == "pending" and wanted(r)]
        if waiting or time.monotonic() >= deadline:
            return waiting[0] if waiting else None
        time.sleep(0.2)


def referee_call(url, path, token, body=None, method="POST"):
    """A referee's JSON request to a station running in another process; its JSON answer."""
    request = urllib.request.Request(
        url + path,
        data=json.dumps(body or {}).encode(),
        method=method,
        headers={"Content-Type": "application/json", "X-Referee-Token": token},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())
