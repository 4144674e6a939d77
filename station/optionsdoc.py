"""Each game's options and inputs as tables, made from what the game declares (rules/options.py,
rules/input_args.py): ``station options GAME`` prints the options, and the manual's page of
each game carries both, between ``<!-- options:GAME:begin -->`` and ``<!-- options:GAME:end -->``
and between ``<!-- inputs:GAME:begin -->`` and ``<!-- inputs:GAME:end -->``, rewritten by
``station options --write-docs docs`` (tests/test_options_doc.py keeps them the same, as
bench/table.py keeps docs/performance.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .dice import DiceBook
from .rules.input_args import Arg
from .rules.registry import RULESETS, make_ruleset


def _default(option: dict[str, Any]) -> str:
    value = option["default"]
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "none"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _values(option: dict[str, Any]) -> str:
    """What the option may be set to, as a referee types it after ``--option NAME=``."""
    kind = option["kind"]
    if option.get("choices"):
        return " \\| ".join(f"`{c}`" for c in option["choices"])
    if kind == "flag":
        return "`true` \\| `false`"
    if kind == "side":
        return "a player's name"
    if kind == "names":
        return "names, comma-separated"
    if kind == "table":
        return f"`Armour: steps` pairs, {option['low']:g}–{option['high']:g} steps"
    return f"{option['low']:g}–{option['high']:g}"


def options_table(game: str) -> str:
    """The game's options in the order it declares them, as a Markdown table."""
    lines = ["| option | default | values | section | meaning |", "|---|---|---|---|---|"]
    for option in make_ruleset(game, DiceBook()).options.describe():
        help_text = option["help"].replace("|", "\\|")
        lines.append(
            f"| `{option['name']}` | `{_default(option)}` | {_values(option)} | {option['section']} | {help_text} |"
        )
    return "\n".join(lines)


ARG_VALUES = {
    "model": "a model's id",
    "unit": "a unit's id",
    "player": "a player",
    "models": "models' ids",
    "units": "units' ids",
    "players": "players, in order",
    "weapon": "a weapon's id",
    "piece": "a terrain piece's id",
    "flag": "`true` | `false`",
    "text": "text",
    "point": "`[x, y]` in mm",
    "points": "`[[x, y], …]` in mm",
    "object": "an object",
}
UNITS = {"inch": "inches", "step": "steps"}


def _arg_values(arg: Arg, unit: str) -> str:
    """What an argument takes, as a referee reads it."""
    if arg.kind == "choice":
        return " | ".join(f"`{c}`" for c in arg.choices)
    if arg.kind in ("number", "integer"):
        low, high = ("" if v is None else f"{v:g}" for v in (arg.low, arg.high))
        whole = "a whole number" if arg.kind == "integer" else "a number"
        return f"{whole} {low}–{high}" + (f" ({unit})" if arg.distance else "")
    return ARG_VALUES[arg.kind]


def _arg_row(arg: Arg, unit: str) -> str:
    needed = " (needed)" if arg.required else ""
    return f"`{arg.name}`{needed}: {_arg_values(arg, unit)}, {arg.help}"


def inputs_table(game: str) -> str:
    """The game's operator inputs in the order it registers them, each with its arguments."""
    ruleset = make_ruleset(game, DiceBook())
    unit = UNITS.get(ruleset.convention.unit.name, ruleset.convention.unit.name)
    lines = ["| input | section | arguments |", "|---|---|---|"]
    for declared in ruleset.declared_inputs.values():
        args = "; ".join(_arg_row(a, unit) for a in declared.args) or "none"
        lines.append(f"| `{declared.type}` | {declared.section} | {args.replace('|', chr(92) + '|')} |")
    return "\n".join(lines)


def page_of(game: str) -> str:
    """The manual's page of a game: its name with hyphens (docs/price-of-a-mile.md)."""
    return f"{game.replace('_', '-')}.md"


def index_table() -> str:
    """docs/options.md's index: each game, a link to its table, and how many options it has."""
    lines = ["| game | options |", "|---|---|"]
    for game in sorted(RULESETS):
        ruleset = make_ruleset(game, DiceBook())
        lines.append(f"| [{ruleset.title}]({page_of(game)}#options) | {len(ruleset.options.describe())} |")
    return "\n".join(lines)


def with_table(text: str, name: str, table: str, what: str = "options") -> str:
    """``text`` with ``table`` put between the markers ``what:name`` (a game, or "index");
    ValueError without them."""
    begin, end = f"<!-- {what}:{name}:begin -->", f"<!-- {what}:{name}:end -->"
    pattern = re.compile(re.escape(begin) + r"\n.*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise ValueError(f"no {begin} … {end} in the page")
    return pattern.sub(lambda _: f"{begin}\n{table}\n{end}", text)


def pages(folder: Path) -> dict[Path, str]:
    """Each page the tables belong in, as it should read now."""
    wanted = {}
    for game in sorted(RULESETS):
        page = folder / page_of(game)
        text = with_table(page.read_text(encoding="utf-8"), game, options_table(game))
        wanted[page] = with_table(text, game, inputs_table(game), "inputs")
    index = folder / "options.md"
    wanted[index] = with_table(index.read_text(encoding="utf-8"), "index", index_table())
    return wanted


def write_docs(folder: Path) -> list[Path]:
    """Every page in ``folder`` with its tables rewritten; the pages changed."""
    changed = []
    for page, text in pages(folder).items():
        if page.read_text(encoding="utf-8") != text:
            page.write_text(text, encoding="utf-8")
            changed.append(page)
    return changed
