"""What each operator input takes, declared once beside its handler, as options are.

A handler registers its arguments with its section (``@INPUTS.register("shoot", "§6",
model("shooter", ...), model("target", ...), flag("aimed", ...))``).  One declaration serves:

* the check of a request before it is journaled (``check``): an argument the input does not
  take, one it needs and lacks, or a value of the wrong kind is refused naming its field, in the
  page's language, and nothing is journaled;
* a JSON Schema of each input (``schema``), served at ``GET /api/rulesets/GAME/inputs``;
* the manual's table of each game's inputs (station/optionsdoc.py), kept equal by a test;
* the phone's controls, which are built from what the rules declare.

The handlers still judge what only the state can say (whether the shooter may shoot now); the
declaration says what a request must look like.  A journal is folded as it was written: old
records are never checked again, so a replay stays exact.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from .text import Text, say

ArgKind = Literal[
    "model", "unit", "player", "models", "units", "players", "weapon", "piece",
    "choice", "number", "integer", "flag", "text", "point", "points", "object",
]  # fmt: skip
TEXT_CHARS = 2000  # a note or a task's words: a paragraph, as a referee's note
# What a ruling's details say when a fact the camera measures came from the referee's tape or word
# (none when the camera gave it, so a ruling the camera measured reads as it always did).
BY_THE_REFEREE = {"measured_by": "referee"}


def given_number(args: Mapping[str, Any], name: str) -> float | None:
    """A referee's measure (a distance by the tape) if the request gives one, else None.  Checked
    here too, not only by ``check``: journals written before an input declared its arguments
    are folded as they were written, and a flag is never read as a distance."""
    value = args.get(name)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass(frozen=True, slots=True)
class Arg:
    """One argument of an input: its name, what kind of value it is, and a line of help.
    ``distance``: a number in the game's unit of length (inches, steps), measured by the camera
    or the referee's tape."""

    name: str
    kind: ArgKind
    help: str
    required: bool = False
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    distance: bool = False
    taped: bool = False  # a fact the camera measures when it sees the models: asked for only without it
    hidden: bool = False  # taken from API clients and old journals; the panel's own fields stand for it

    def schema(self) -> dict[str, Any]:
        """This argument as a JSON Schema property."""
        said: dict[str, Any] = {"description": self.help, "x-kind": self.kind} | (
            {"x-taped": True} if self.taped else {}
        )
        if self.kind in ("model", "unit", "player", "piece", "weapon"):
            return said | {"type": "string", "minLength": 1}
        if self.kind in ("models", "units", "players"):
            return said | {"type": "array", "items": {"type": "string", "minLength": 1}}
        if self.kind == "choice":
            return said | {"type": "string", "enum": list(self.choices)}
        if self.kind in ("number", "integer"):
            bounds = {k: v for k, v in (("minimum", self.low), ("maximum", self.high)) if v is not None}
            return said | {"type": self.kind} | bounds | ({"x-distance": True} if self.distance else {})
        if self.kind == "flag":
            return said | {"type": "boolean"}
        if self.kind == "text":
            return said | {"type": "string", "maxLength": TEXT_CHARS}
        if self.kind == "object":
            return said | {"type": "object"}
        point = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
        return said | (point if self.kind == "point" else {"type": "array", "items": point})

    def problem(self, value: Any, known: Collection[str]) -> Text | None:
        """What is wrong with ``value`` for this argument, or None.  ``known``: the ids of the
        game's players, units and models, which an id must be one of."""
        if self.kind in ("model", "unit", "player"):
            if not isinstance(value, str) or not value:
                return say("an id of this game")
            return None if value in known else say("{value} is not in this game", value=value)
        if self.kind in ("models", "units", "players"):
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                return say("a list of ids of this game")
            unknown = [v for v in value if v not in known]
            return say("{value} is not in this game", value=", ".join(unknown)) if unknown else None
        if self.kind == "choice":
            return None if value in self.choices else say("one of {choices}", choices=", ".join(self.choices))
        if self.kind in ("number", "integer"):
            return self._number_problem(value)
        if self.kind == "flag":
            return None if isinstance(value, bool) else say("true or false")
        if self.kind in ("text", "piece", "weapon"):
            return None if isinstance(value, str) and len(value) <= TEXT_CHARS else say("text")
        if self.kind == "object":
            return None if isinstance(value, dict) else say("an object")
        if self.kind == "point":
            return None if _point(value) else say("a point [x, y] in millimetres")
        return None if isinstance(value, list) and all(_point(p) for p in value) else say("a list of points [x, y]")

    def _number_problem(self, value: Any) -> Text | None:
        whole = self.kind == "integer"
        if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
            return say("a whole number") if whole else say("a number")
        if (
            not math.isfinite(value)
            or (self.low is not None and value < self.low)
            or (self.high is not None and value > self.high)
        ):
            return say("from {low} to {high}", low=_bound(self.low), high=_bound(self.high))
        return None


def _bound(value: float | None) -> str:
    return "…" if value is None else f"{value:g}"


def _point(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)
    )


# The declarations a handler's registration reads as it is written.
def model(name: str, help: str, required: bool = False) -> Arg:
    return Arg(name, "model", help, required)


def unit(name: str, help: str, required: bool = False) -> Arg:
    return Arg(name, "unit", help, required)


def player(name: str, help: str, required: bool = False) -> Arg:
    return Arg(name, "player", help, required)


def models(name: str, help: str, required: bool = False) -> Arg:
    return Arg(name, "models", help, required)


def units(name: str, help: str, required: bool = False) -> Arg:
    return Arg(name, "units", help, required)


def choice(name: str, help: str, choices: tuple[str, ...], required: bool = False) -> Arg:
    return Arg(name, "choice", help, required, choices)


def number(name: str, help: str, low: float | None = 0, high: float | None = None, distance: bool = False) -> Arg:
    return Arg(name, "number", help, low=low, high=high, distance=distance)


def integer(
    name: str, help: str, low: int | None = 0, high: int | None = None, required: bool = False, distance: bool = False
) -> Arg:
    return Arg(name, "integer", help, required, low=low, high=high, distance=distance)


def flag(name: str, help: str, required: bool = False) -> Arg:
    return Arg(name, "flag", help, required)


def text(name: str, help: str, required: bool = False) -> Arg:
    return Arg(name, "text", help, required)


def point(name: str, help: str, required: bool = False) -> Arg:
    return Arg(name, "point", help, required)


def points(name: str, help: str, required: bool = False) -> Arg:
    return Arg(name, "points", help, required)


def players(name: str, help: str, required: bool = False) -> Arg:
    return Arg(name, "players", help, required)


def weapon(name: str, help: str, required: bool = False) -> Arg:
    """One of the actor's weapons, by the id its army gives it."""
    return Arg(name, "weapon", help, required)


def measures(name: str, help: str) -> Arg:
    """The referee's own measures as an object (a game's rule reads its fields)."""
    return Arg(name, "object", help)


def piece(name: str, help: str, required: bool = False) -> Arg:
    """A terrain piece's id (the table's terrain, not the armies)."""
    return Arg(name, "piece", help, required)


def taped(declared: Arg) -> Arg:
    """An argument the referee gives only when no camera sees the models (a distance by the tape,
    cover, contact, who a template caught): the camera's measure wins where there is one, and the
    phone's panel tucks these away while a camera watches the table, so one it needs is never taped."""
    if declared.required:
        raise ValueError(f"{declared.name}: a needed argument is never the referee's measure alone")
    return replace(declared, taped=True)


def hidden(declared: Arg) -> Arg:
    """An argument the panel does not draw: an older way to say what its own fields say (Alpha
    Strike's ``by_hand`` object), still taken from API clients and folded from old journals."""
    return replace(declared, hidden=True)


@dataclass(frozen=True, slots=True)
class Declared:
    """One input as its game declares it: its type, its rulebook section and its arguments."""

    type: str
    section: str
    args: tuple[Arg, ...] = ()

    def schema(self) -> dict[str, Any]:
        """The input's ``args`` object as a JSON Schema."""
        return {
            "type": "object",
            "description": self.section,
            "properties": {a.name: a.schema() for a in self.args},
            "required": [a.name for a in self.args if a.required],
            "x-order": [a.name for a in self.args],  # as declared, the actor first: JSON keeps no key order
            "additionalProperties": False,
        }


class InputProblem(ValueError):
    """A request's arguments do not match the input's declaration: ``field`` is the argument,
    ``text`` what is wrong, said so a page can put it in its language."""

    def __init__(self, field: str, text: Text) -> None:
        super().__init__(text)
        self.field, self.text = field, text


def check(declared: Declared, args: Mapping[str, Any], known: Collection[str]) -> None:
    """Raise ``InputProblem`` at the first argument ``declared`` does not take, lacks, or
    whose value is not of its kind (``known``: the game's ids)."""
    taken = {a.name: a for a in declared.args}
    for name in args:
        if name not in taken:
            takes = ", ".join(taken) or say("no arguments")
            raise InputProblem(
                name, say("{input} takes {takes}, not {name}", input=declared.type, takes=takes, name=name)
            )
    for arg in declared.args:
        if arg.name not in args or args[arg.name] is None:
            if arg.required:
                raise InputProblem(arg.name, say("{name}: needed", name=arg.name))
            continue
        wrong = arg.problem(args[arg.name], known)
        if wrong is not None:
            raise InputProblem(arg.name, say("{name}: {problem}", name=arg.name, problem=wrong))
