"""Reading hand-written JSON data (armies, options, terrain, sessions, config) with errors a
player can act on.

Every error says which file, which field (as a path like ``units[2].durability.max``) and what
is wrong, because the person reading it is holding a text editor, not a debugger.  It sits below
everything that reads data files; an army's loader raises its own kind, ``ArmyError``.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

_MISSING = object()


def data_dir() -> Path:
    """Where the station keeps the club's data: saved armies, the card library and, for
    ``station serve``, the journals (``STATION_DATA``, default ``./data``)."""
    return Path(os.environ.get("STATION_DATA", "data"))


def write_text_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` all at once, synced: a crash leaves the old file or the
    new one, never half of either."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(out.name, path)


@contextmanager
def one_writer(path: Path) -> Iterator[None]:
    """Hold the writers' lock of ``path`` (``.<name>.lock`` beside it) for a read, change and
    write: threads and processes that change the same file (the lobby and ``station
    import-mul``, ten phones pasting at once) take turns, so none loses another's change."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.with_name(f".{path.name}.lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing lets the lock go


class DataFileError(ValueError):
    """A bad data file: always names the file, the field and what is wrong with it."""

    def __init__(self, path: str, where: str, problem: str) -> None:
        super().__init__(f"{path}: {where}: {problem}")
        self.path, self.where, self.problem = path, where, problem


def load_json_file(path: str | Path, error: type[DataFileError] = DataFileError) -> Any:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(str(p), "file", "does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(str(p), "file", f"cannot be read ({exc})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(str(p), f"line {exc.lineno} column {exc.colno}", f"not valid JSON ({exc.msg})") from None


class Fields:
    """A cursor over one JSON object that remembers where it is in the file; its errors are
    ``error`` (an army's loader passes ``ArmyError``)."""

    def __init__(self, path: str, data: Any, where: str = "", error: type[DataFileError] = DataFileError) -> None:
        self.path = path
        self.where = where
        self.error = error
        if not isinstance(data, dict):
            self.fail(f"must be an object, not {type(data).__name__}")
        self.data: dict[str, Any] = data

    def _at(self, name: str) -> str:
        return f"{self.where}.{name}" if self.where else name

    def fail(self, problem: str, name: str | None = None) -> NoReturn:
        raise self.error(self.path, self._at(name) if name else (self.where or "top level"), problem)

    def get(
        self,
        name: str,
        kind: type | tuple[type, ...],
        default: Any = _MISSING,
        check: Callable[[Any], str | None] | None = None,
    ) -> Any:
        value = self.data.get(name, _MISSING)
        if value is _MISSING:
            if default is _MISSING:
                self.fail("is required", name)
            return default
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds:
            self.fail(f"must be {' or '.join(k.__name__ for k in kinds)}, not true/false", name)
        if not isinstance(value, kinds):
            self.fail(f"must be {' or '.join(k.__name__ for k in kinds)}, not {type(value).__name__}", name)
        if check is not None:
            problem = check(value)
            if problem:
                self.fail(problem, name)
        return value

    def choice(self, name: str, options: Sequence[str], default: Any = _MISSING) -> str:
        value: str = self.get(
            name, str, default, lambda v: None if v in options else f"is {v!r}; expected one of {', '.join(options)}"
        )
        return value

    def integer(self, name: str, low: int, high: int, default: Any = _MISSING) -> int:
        value: int = self.get(
            name, int, default, lambda v: None if low <= v <= high else f"is {v}; expected {low} to {high}"
        )
        return value

    def child(self, name: str) -> Fields:
        return Fields(self.path, self.get(name, dict), self._at(name), self.error)

    def items(self, name: str, min_len: int = 0, max_len: int | None = None) -> Iterator[Fields]:
        values = self.get(name, list)
        if len(values) < min_len or (max_len is not None and len(values) > max_len):
            span = f"exactly {min_len}" if min_len == max_len else f"at least {min_len}"
            self.fail(f"has {len(values)} entries; expected {span}", name)
        for index, value in enumerate(values):
            yield Fields(self.path, value, f"{self._at(name)}[{index}]", self.error)

    def reject_unknown(self, known: Sequence[str]) -> None:
        """Typos such as "armor" for "armour" must not be silently ignored."""
        for key in self.data:
            if key not in known:
                self.fail(f"unknown field; known fields are {', '.join(known)}", key)


def load_bundled(relative: str, expected_format: str, error: type[DataFileError] = DataFileError) -> dict[str, Any]:
    """A data file shipped in ``station/data`` (e.g. ``price_of_a_mile/rules-data.json``), checked
    for its format, so a damaged install says which file is wrong."""
    with resources.as_file(resources.files("station") / "data" / relative) as path:
        data = load_json_file(path, error)
        if not isinstance(data, dict) or data.get("format") != expected_format:
            raise error(str(path), "format", f"expected {expected_format!r}")
        return data
