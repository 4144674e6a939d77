"""Game options declared once, next to the field that holds them.

Every game's options are a frozen dataclass whose fields are made by the functions below
(``choice``, ``flag``, ``integer``, ``number``, ``side``, ``names``, ``table``).  Each carries its
type, default, range or choices, the rulebook section and a line of help, so one declaration
serves four readers: the parser of a config or ``--option`` (errors name the option and what is
wrong), the state's JSON (``dump``), a JSON Schema, and the lobby's form (``describe``).  A game
never writes its own parser, and a default cannot differ between the form and the fold.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from ..datafile import Fields

OptionKind = Literal["choice", "flag", "integer", "number", "side", "names", "table"]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Option:
    """One option: what it is, where the rulebook says so, and what values it takes."""

    name: str
    kind: OptionKind
    default: Any
    section: str
    help: str
    choices: tuple[Any, ...] = ()  # words for a choice; the allowed numbers for an integer, if only some
    low: float | None = None
    high: float | None = None

    def read(self, f: Fields) -> Any:
        """The option's value from one options object, checked; the default when it is absent."""
        if self.kind == "choice":
            return f.choice(self.name, self.choices, self.default)
        if self.kind == "flag":
            return f.get(self.name, bool, self.default)
        if self.kind == "integer" and self.choices:
            return f.get(self.name, int, self.default, self._one_of)
        if self.kind == "integer":
            return f.integer(self.name, int(self.low or 0), int(self.high or 0), self.default)
        if self.kind == "number":
            value = f.get(self.name, (int, float), self.default, self._in_range)
            return float(value)
        if self.kind == "side":
            return f.get(self.name, (str, type(None)), self.default, _not_blank)
        if self.kind == "names":
            return tuple(f.get(self.name, list, list(self.default), _all_names))
        return _rows_of(f.get(self.name, dict, self.dump(self.default), self._table_problem))

    def dump(self, value: Any) -> Any:
        """The value as the journal and the API write it (a table as an object, names as a list)."""
        if self.kind == "table":
            return {str(key): steps for key, steps in value}
        if self.kind == "names":
            return list(value)
        return value

    def schema(self) -> dict[str, Any]:
        """This option as a JSON Schema property."""
        described: dict[str, Any] = {"description": f"{self.help} ({self.section})", "default": self.dump(self.default)}
        if self.kind == "choice":
            return described | {"type": "string", "enum": list(self.choices)}
        if self.kind == "flag":
            return described | {"type": "boolean"}
        if self.kind == "integer" and self.choices:
            return described | {"type": "integer", "enum": list(self.choices)}
        if self.kind in ("integer", "number"):
            return described | {
                "type": "integer" if self.kind == "integer" else "number",
                "minimum": self.low,
                "maximum": self.high,
            }
        if self.kind == "side":
            return described | {"type": ["string", "null"], "minLength": 1}
        if self.kind == "names":
            return described | {"type": "array", "items": {"type": "string", "minLength": 1}}
        return described | {
            "type": "object",
            "minProperties": 1,
            "propertyNames": {"pattern": "^[0-9]+$"},
            "additionalProperties": {"type": "integer", "minimum": self.low, "maximum": self.high},
        }

    def describe(self) -> dict[str, Any]:
        """This option for a form: its kind, default, section, help, and choices or range."""
        shown: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "default": self.dump(self.default),
            "section": self.section,
            "help": self.help,
        }
        if self.choices:
            shown["choices"] = list(self.choices)
        if self.low is not None:
            shown["low"], shown["high"] = self.low, self.high
        return shown

    def _one_of(self, value: int) -> str | None:
        return None if value in self.choices else f"is {value}; expected one of {', '.join(map(str, self.choices))}"

    def _in_range(self, value: float) -> str | None:
        assert self.low is not None and self.high is not None
        return None if self.low <= value <= self.high else f"is {value}; expected {self.low:g} to {self.high:g}"

    def _table_problem(self, value: Mapping[str, Any]) -> str | None:
        assert self.low is not None and self.high is not None
        low, high = self.low, self.high
        if value and all(
            str(key).isdigit() and isinstance(n, int) and not isinstance(n, bool) and low <= n <= high
            for key, n in value.items()
        ):
            return None
        example = ", ".join(f'"{key}": {n}' for key, n in self.default)
        return f"must map the lowest value of each row to a whole number {low:g} to {high:g}, e.g. {{{example}}}"


def _not_blank(value: str | None) -> str | None:
    return "must not be empty (leave it out or use null for none)" if value == "" else None


def _all_names(value: list[Any]) -> str | None:
    return None if all(isinstance(v, str) and v for v in value) else "must be a list of names"


def _rows_of(table: Mapping[str, int]) -> tuple[tuple[int, int], ...]:
    return tuple(sorted((int(key), n) for key, n in table.items()))


def _declare(option: Option) -> Any:
    default = option.default
    return dataclasses.field(default=default, metadata={"option": option})


def choice(choices: Sequence[str], section: str, help: str) -> Any:
    """One of a few words; the first is the default."""
    return _declare(Option("", "choice", choices[0], section, help, tuple(choices)))


def flag(default: bool, section: str, help: str) -> Any:
    return _declare(Option("", "flag", default, section, help))


def integer(default: int, low: int, high: int, section: str, help: str) -> Any:
    return _declare(Option("", "integer", default, section, help, low=low, high=high))


def one_of(default: int, allowed: Sequence[int], section: str, help: str) -> Any:
    """A whole number that only some values make sense for (the sides of a die)."""
    return _declare(Option("", "integer", default, section, help, tuple(allowed)))


def number(default: float, low: float, high: float, section: str, help: str) -> Any:
    return _declare(Option("", "number", float(default), section, help, low=low, high=high))


UNCONFIRMED = ("stand", "wait")  # what a ruling still pending when its round ends does (station/fold.py)


def unconfirmed_rulings(section: str) -> Any:
    """Every game's option for a ruling left pending past the end of its round: it stands as ruled
    (a dispute is settled when it arises: Бронепехота §12.2; no rulebook waits for one), or it
    keeps waiting for the referee."""
    return choice(
        UNCONFIRMED, section, "A ruling left unconfirmed when its round ends stands as ruled, or keeps waiting"
    )


def side(section: str, help: str) -> Any:
    """A player (side) named in the armies, or none: the default."""
    return _declare(Option("", "side", None, section, help))


def names(section: str, help: str) -> Any:
    """A list of names (terrain pieces, commanders); empty by default."""
    return _declare(Option("", "names", (), section, help))


def table(default: Mapping[int, int], low: int, high: int, section: str, help: str) -> Any:
    """Rows keyed by the lowest value they cover (e.g. Armour → steps), held as sorted pairs."""
    return _declare(Option("", "table", tuple(sorted(default.items())), section, help, low=low, high=high))


@dataclass(frozen=True, slots=True)
class OptionSet(Generic[T]):
    """A game's declared options, in the order its options dataclass declares them."""

    title: str
    holder: Callable[..., T]
    options: tuple[Option, ...]

    def build(self, data: Mapping[str, Any], source: str = "options") -> T:
        """The game's options dataclass from a config's options, checked."""
        return self.holder(**self.parse(data, source))

    def parse(self, data: Mapping[str, Any], source: str = "options") -> dict[str, Any]:
        """Every option's value from a config's options (absent ones take their default);
        an unknown name or a bad value is a ``DataFileError`` naming the option."""
        f = Fields(source, dict(data))
        f.reject_unknown([option.name for option in self.options])
        return {option.name: option.read(f) for option in self.options}

    def dump(self, values: T) -> dict[str, Any]:
        """An options dataclass as plain JSON, in declaration order."""
        return {option.name: option.dump(getattr(values, option.name)) for option in self.options}

    def schema(self) -> dict[str, Any]:
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": f"{self.title} options",
            "type": "object",
            "additionalProperties": False,
            "properties": {option.name: option.schema() for option in self.options},
        }

    def describe(self) -> list[dict[str, Any]]:
        return [option.describe() for option in self.options]


def declared(options_class: type[T], title: str) -> OptionSet[T]:
    """The ``OptionSet`` of an options dataclass whose fields were all made by this module."""
    found = []
    for f in dataclasses.fields(options_class):  # type: ignore[arg-type]
        option = f.metadata.get("option")
        if option is None:
            raise TypeError(f"{options_class.__name__}.{f.name} is not a declared option")
        found.append(dataclasses.replace(option, name=f.name))
    return OptionSet(title, options_class, tuple(found))
