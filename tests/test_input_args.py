"""Inputs declared once (station/rules/input_args.py): every argument a handler reads is declared,
every declared one is read, and the schema, the check and the manual's table agree (issue 48)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from station.dice import DiceBook
from station.optionsdoc import inputs_table
from station.rules.input_args import InputProblem, check
from station.rules.registry import RULESETS, make_ruleset

RULES = Path(__file__).resolve().parent.parent / "station" / "rules"


def _functions(game: str) -> tuple[dict[str, ast.FunctionDef], dict[str, ast.FunctionDef]]:
    """Every function of the game's package, and each registered input's handler by input type
    (whatever decorator registers it: INPUTS.register, or a game's own wrapper)."""
    functions: dict[str, ast.FunctionDef] = {}
    handlers: dict[str, ast.FunctionDef] = {}
    for path in sorted((RULES / game).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            functions[node.name] = node
            for decorator in node.decorator_list:
                if isinstance(decorator, ast.Call) and decorator.args and isinstance(decorator.args[0], ast.Constant):
                    if (
                        isinstance(decorator.args[0].value, str)
                        and "register" in ast.dump(decorator.func) + (getattr(decorator.func, "id", ""))
                        or getattr(decorator.func, "id", "") == "fighters_action"
                    ):
                        handlers[decorator.args[0].value] = node
    return functions, handlers


def _reads(function: ast.FunctionDef, functions: dict[str, ast.FunctionDef], name: str, seen: set[str]) -> set[str]:
    """The argument names a function reads from its arguments mapping (``name``), following the
    game's own helpers it hands the mapping to."""
    if function.name in seen:
        return set()
    seen.add(function.name)
    keys: set[str] = set()
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == name
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            keys.add(node.args[0].value)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "given_number"
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id == name
            and isinstance(node.args[1], ast.Constant)
        ):
            keys.add(node.args[1].value)  # arg.given_number(args, "distance")
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name:
            if isinstance(node.slice, ast.Constant):
                keys.add(node.slice.value)
        elif (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Constant)
            and any(isinstance(c, ast.Name) and c.id == name for c in node.comparators)
        ):
            keys.add(node.left.value)  # "unit" in args
        if isinstance(node, ast.Call):
            callee = functions.get(getattr(node.func, "id", getattr(node.func, "attr", "")))
            for k, given in enumerate(node.args):
                if (
                    callee is not None
                    and isinstance(given, ast.Name)
                    and given.id == name
                    and k < len(callee.args.args)
                ):
                    keys |= _reads(callee, functions, callee.args.args[k].arg, seen)
    return keys


@pytest.mark.parametrize("game", sorted(g for g in RULESETS if (RULES / g).is_dir()))
def test_every_argument_a_handler_reads_is_declared_and_every_declared_one_is_read(game):
    functions, handlers = _functions(game)
    declared = make_ruleset(game, DiceBook()).declared_inputs
    assert set(handlers) == set(declared), set(handlers) ^ set(declared)
    for input_type, handler in handlers.items():
        mapping = next((a.arg for a in handler.args.args if a.arg == "args"), handler.args.args[-1].arg)
        read = _reads(handler, functions, mapping, set())
        names = {a.name for a in declared[input_type].args}
        assert read == names, f"{game} {input_type}: reads {sorted(read)}, declares {sorted(names)}"


@pytest.mark.parametrize("game", sorted(RULESETS))
def test_schema_check_and_table_say_the_same(game):
    ruleset = make_ruleset(game, DiceBook())
    table = inputs_table(game)
    for declared in ruleset.declared_inputs.values():
        schema = declared.schema()
        assert list(schema["properties"]) == [a.name for a in declared.args]
        assert schema["required"] == [a.name for a in declared.args if a.required]
        assert f"| `{declared.type}` | {declared.section} |" in table
        for arg in declared.args:
            assert f"`{arg.name}`" in table
            if arg.required:  # what the schema requires, the check refuses without
                with pytest.raises(InputProblem) as refused:
                    check(declared, {}, set())
                assert refused.value.field == next(a.name for a in declared.args if a.required)
        with pytest.raises(InputProblem) as unknown:
            check(declared, {"no_such_argument": 1}, set())
        assert unknown.value.field == "no_such_argument"


@pytest.mark.parametrize(
    "kind_value, ok",
    [
        (("model", "gryphon"), True),
        (("model", "ghost"), False),
        (("model", ""), False),
        (("models", ["gryphon", "t-rex"]), True),
        (("models", ["gryphon", 3]), False),
        (("number", 2.5), True),
        (("number", True), False),
        (("number", float("nan")), False),
        (("number", 300), False),
        (("integer", 2.0), False),
        (("flag", "yes"), False),
        (("point", [10, 20.5]), True),
        (("point", [10]), False),
        (("points", [[1, 2], [3, 4]]), True),
        (("choice", "jump"), True),
        (("choice", "fly"), False),
    ],
)
def test_each_kind_of_argument_takes_what_it_says(kind_value, ok):
    from station.rules.input_args import Arg, Declared

    kind, value = kind_value
    arg = Arg("x", kind, "test", choices=("still", "jump"), low=0, high=200)  # type: ignore[arg-type]
    declared = Declared("probe", "§0", (arg,))
    if ok:
        check(declared, {"x": value}, {"gryphon", "t-rex"})
    else:
        with pytest.raises(InputProblem, match="x: "):
            check(declared, {"x": value}, {"gryphon", "t-rex"})
