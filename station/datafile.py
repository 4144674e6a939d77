"""Reading hand-written JSON data (armies, options, terrain, sessions, config) with errors a
player can act on.

Every error says which file, which field (as a path like ``units[2].durability.max``) and what
is wrong, because the person reading it is holding a text editor, not a debugger.  It sits below
everything that reads data files; an army's loader raises its own kind, ``ArmyError``.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

from .durable import make_folders, replace_synced, sync_folder

_MISSING = object()


def data_dir() -> Path:
    """Where the station keeps the club's data: saved armies, the card library and, for
    ``station serve``, the journals (``STATION_DATA``, default ``./data``)."""
    return Path(os.environ.get("STATION_DATA", "data"))


def write_text_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` all at once, synced: a crash leaves the old file or the
    new one, never half of either."""
    replace_synced(_written_aside(path, text), path)


def _written_aside(path: Path, text: str) -> str:
    """``text`` in a new synced file beside ``path`` (its folders made, mode 0600); its name."""
    make_folders(path.parent)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False, suffix=".tmp") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    return out.name


def create_text_synced(path: Path, text: str) -> bool:
    """Make ``path`` with ``text`` unless it exists (False then, the file left as it is): written
    aside, synced, linked in under its name (which fails where another process made it first) and
    its folder synced, so a pulled plug leaves it whole or absent.  Mode 0600, as
    ``NamedTemporaryFile`` makes it."""
    aside = _written_aside(path, text)
    try:
        os.link(aside, path)
    except FileExistsError:
        return False
    finally:
        os.unlink(aside)
    sync_folder(path.parent)
    return True


def file_sha256(path: Path) -> str:
    """``path``'s SHA-256 in hex, read a MiB at a time (backups and updates list their files so)."""
    digest = hashlib.sha256()
    with open(path, "rb") as data:
        for chunk in iter(lambda: data.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def copy_file_atomic(source: Path, destination: Path) -> None:
    """Copy ``source`` to ``destination`` (its folders made), written aside, synced, then
    renamed: a pulled plug leaves the file whole or absent, never half of it."""
    make_folders(destination.parent)
    partial = destination.with_name(f".{destination.name}.part")
    shutil.copy2(source, partial)
    with open(partial, "rb") as written:
        os.fsync(written.fileno())
    replace_synced(partial, destination)


@contextmanager
def one_writer(path: Path) -> Iterator[None]:
    """Hold the writers' lock of ``path`` (``.<name>.lock`` beside it) for a read, change and
    write: threads and processes that change the same file (the lobby and ``station
    import-mul``, ten phones pasting at once) take turns, so none loses another's change."""
    make_folders(path.parent)
    fd = os.open(path.with_name(f".{path.name}.lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing lets the lock go


class Problem(str):
    """What is wrong with a field, in English (the command line, the logs and the tests read it
    as a ``str``), keeping its template and values so that a page can say it in its own language
    (station/web/i18n: the template is the catalog's key).  Made by :func:`problem`."""

    key: str = ""
    args: dict[str, Any] = {}

    def message(self) -> dict[str, Any]:
        """The template and values as JSON, in the shape the pages' ``sayMessage`` reads (a value
        that is a problem's words is said in the page's language in its turn)."""
        args = {name: v.message() if isinstance(v, Problem) else v for name, v in self.args.items()}
        return {"key": self.key, "args": args}


def problem(template: str, /, **args: str | int | float) -> Problem:
    """``template`` (a literal: tests/test_i18n.py finds it and wants its translation) filled with
    ``args``: names, numbers, lists already joined, or other problems' words."""
    said = Problem(template.format_map(args))
    said.key, said.args = template, args
    return said


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
        raise error(str(p), "file", problem("does not exist")) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(str(p), "file", f"cannot be read ({exc})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(str(p), f"line {exc.lineno} column {exc.colno}", f"not valid JSON ({exc.msg})") from None


KIND_WORDS: dict[type, Problem] = {  # what a JSON value is, in the words a player knows
    dict: problem("an object"),
    list: problem("a list"),
    str: problem("text"),
    int: problem("a whole number"),
    float: problem("a number"),
    bool: problem("true/false"),
    type(None): problem("nothing (null)"),
}


def _kind_word(value: Any) -> Problem:
    return _type_word(type(value))


def _type_word(kind: type) -> Problem:
    return KIND_WORDS.get(kind) or problem("{value}", value=kind.__name__)


def _kinds_words(kinds: Sequence[type]) -> Problem:
    """ "a whole number or text": the kinds a field takes."""
    said = _type_word(kinds[0])
    for kind in kinds[1:]:
        said = problem("{one} or {other}", one=said, other=_type_word(kind))
    return said


class Fields:
    """A cursor over one JSON object that remembers where it is in the file; its errors are
    ``error`` (an army's loader passes ``ArmyError``)."""

    def __init__(self, path: str, data: Any, where: str = "", error: type[DataFileError] = DataFileError) -> None:
        self.path = path
        self.where = where
        self.error = error
        if not isinstance(data, dict):
            self.fail(problem("must be an object, not {kind}", kind=_kind_word(data)))
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
                self.fail(problem("is required"), name)
            return default
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds:
            self.fail(
                problem("must be {kinds}, not {kind}", kinds=_kinds_words(kinds), kind=KIND_WORDS[bool]),
                name,
            )
        if not isinstance(value, kinds):
            self.fail(
                problem(
                    "must be {kinds}, not {kind}",
                    kinds=_kinds_words(kinds),
                    kind=_kind_word(value),
                ),
                name,
            )
        if check is not None:
            wrong = check(value)
            if wrong:
                self.fail(wrong, name)
        return value

    def choice(self, name: str, options: Sequence[str], default: Any = _MISSING) -> str:
        value: str = self.get(
            name,
            str,
            default,
            lambda v: (
                None
                if v in options
                else problem("is '{value}'; expected one of {options}", value=v, options=", ".join(options))
            ),
        )
        return value

    def integer(self, name: str, low: int, high: int, default: Any = _MISSING) -> int:
        value: int = self.get(
            name,
            int,
            default,
            lambda v: (
                None
                if low <= v <= high
                else problem("is {value}; expected {low} to {high}", value=v, low=low, high=high)
            ),
        )
        return value

    def child(self, name: str) -> Fields:
        return Fields(self.path, self.get(name, dict), self._at(name), self.error)

    def items(self, name: str, min_len: int = 0, max_len: int | None = None) -> Iterator[Fields]:
        values = self.get(name, list)
        if len(values) < min_len or (max_len is not None and len(values) > max_len):
            count = len(values)
            self.fail(
                problem("has {count} entries; expected exactly {low}", count=count, low=min_len)
                if min_len == max_len
                else problem("has {count} entries; expected at least {low}", count=count, low=min_len),
                name,
            )
        for index, value in enumerate(values):
            yield Fields(self.path, value, f"{self._at(name)}[{index}]", self.error)

    def reject_unknown(self, known: Sequence[str]) -> None:
        """Typos such as "armor" for "armour" must not be silently ignored."""
        for key in self.data:
            if key not in known:
                self.fail(problem("unknown field; known fields are {known}", known=", ".join(known)), key)


def load_bundled(relative: str, expected_format: str, error: type[DataFileError] = DataFileError) -> dict[str, Any]:
    """A data file shipped in ``station/data`` (e.g. ``price_of_a_mile/rules-data.json``), checked
    for its format, so a damaged install says which file is wrong."""
    with resources.as_file(resources.files("station") / "data" / relative) as path:
        data = load_json_file(path, error)
        if not isinstance(data, dict) or data.get("format") != expected_format:
            raise error(str(path), "format", f"expected {expected_format!r}")
        return data
