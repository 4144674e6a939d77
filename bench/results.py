"""Benchmark results kept as data: each benchmark saves ``bench/results/<name>.json`` (when it
ran, on which revision and machine, each figure and its same-run baseline), and ``bench/table.py``
turns them into docs/performance.md's table, so no figure in the docs is typed by hand."""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


@dataclass(frozen=True)
class Figure:
    """One measured figure: ``text`` is how the table prints it (the value, rounded as the
    benchmark chose); ``baseline`` is what it was compared with in the same run, if anything."""

    label: str
    value: float
    text: str
    baseline: str = ""


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _revision() -> str:
    """The commit measured, marked "-dirty" when the code had changes not yet committed."""
    try:

        def git(*args: str) -> str:
            return subprocess.run(["git", *args], capture_output=True, text=True, check=True, cwd=RESULTS.parent).stdout

        changed = git("status", "--porcelain", "--", "station", "firmware", "bench/*.py").strip()
        return git("rev-parse", "--short", "HEAD").strip() + ("-dirty" if changed else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def save(name: str, what: str, figures: list[Figure], target: str = "") -> Path:
    """Write ``bench/results/<name>.json`` and say where."""
    RESULTS.mkdir(exist_ok=True)
    record = {
        "bench": name,
        "what": what,
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d"),
        "revision": _revision(),
        "machine": {"cores": os.cpu_count(), "cpu": _cpu(), "python": platform.python_version()},
        "target": target,
        "figures": [asdict(f) for f in figures],
    }
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"results: {path.relative_to(RESULTS.parent.parent)}")
    return path
