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


def _refusals(path: Path) -> list[tuple[int, str]]:
    """Every sentence a ``raise Refused(say(...))`` in a rules module says, with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Raise)
            and isinstance(node.exc, ast.Call)
            and getattr(node.exc.func, "id", "") == "Refused"
        ):
            for inner in ast.walk(node.exc):
                if isinstance(inner, ast.Call) and getattr(inner.func, "id", "") == "say" and inner.args:
                    if isinstance(inner.args[0], ast.Constant) and isinstance(inner.args[0].value, str):
                        found.append((node.lineno, inner.args[0].value))
    return found


def test_no_rule_refuses_for_want_of_the_camera_without_asking_for_the_fact_by_name():
    """Issue 48, What 3: «a rule that needs a fact nobody gave asks for it by name; it never refuses
    because the camera did not locate».  A refusal that mentions the camera says what to give."""
    bare = [
        f"{path.relative_to(RULES)}:{line}: {text!r}"
        for path in sorted(RULES.rglob("*.py"))
        for line, text in _refusals(path)
        if any(w in text for w in ("camera has not", "camera cannot", "camera did not"))
        and ":" not in text.split("camera", 1)[1]
    ]
    internal = {"price_of_a_mile/shooting.py"}  # reached only once both bases are placed (plan_shot tapes first)
    assert [b for b in bare if b.split(":")[0] not in internal] == []


@pytest.mark.parametrize("game", sorted(RULESETS))
def test_what_the_camera_measures_is_declared_taped_and_so_tucked_away_while_it_watches(game):
    """An argument the referee gives in place of the camera (its help says the tape, the
    referee's word or no camera) is declared taped, so the panel asks for it only without a
    camera; a needed argument never is."""
    said_by_hand = (
        "referee's tape",
        "referee's word",
        "no camera",
        "camera has not",
        "camera saw no",
        "no camera sees",
    )
    for declared in make_ruleset(game, DiceBook()).declared_inputs.values():
        for a in declared.args:
            by_hand = any(words in a.help for words in said_by_hand) and not a.required
            assert a.taped == by_hand, f"{game} {declared.type}.{a.name}: {a.help!r}"
            assert a.schema().get("x-taped", False) == a.taped
