"""Every game is laid out the same way, so a newcomer who has read one has read the plan of all
five (issue #34; docs/development.md "Adding a game"): ``__init__.py`` holds the Ruleset only,
``army.py`` the army file, ``state.py`` the state with its inputs' table, ``view.py`` what the
pages show, ``turns.py`` the turn sequence, then one module per rulebook chapter; every handler
is registered in the module whose rule it is; and no import goes round in a circle."""

import ast
from pathlib import Path

import grimp
import pytest

from station.rules.registry import RULESETS

RULES = Path(__file__).resolve().parents[1] / "station" / "rules"
GAMES = sorted(p.name for p in RULES.iterdir() if (p / "__init__.py").exists())
SHAPE = ("__init__.py", "army.py", "state.py", "view.py", "turns.py")


def test_every_registered_game_is_a_package_here():
    assert GAMES == sorted(RULESETS)


@pytest.mark.parametrize("game", GAMES)
def test_the_game_has_the_common_modules(game):
    missing = [name for name in SHAPE if not (RULES / game / name).exists()]
    assert not missing, f"station/rules/{game} lacks {', '.join(missing)}"


@pytest.mark.parametrize("game", GAMES)
def test_the_package_init_holds_the_ruleset_and_nothing_else(game):
    tree = ast.parse((RULES / game / "__init__.py").read_text(encoding="utf-8"))
    defined = [n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
    assert defined == [RULESETS[game].__name__], f"{game}/__init__.py defines {defined}"


@pytest.mark.parametrize("game", GAMES)
def test_every_input_is_registered_where_its_rule_lives_and_typed(game):
    """No adapter layer: each handler is a chapter's function, and none takes ``game: Any``."""
    for path in (RULES / game).glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and any(
                ast.unparse(d).startswith("INPUTS.register") for d in node.decorator_list
            ):
                assert path.name != "__init__.py", f"{game}: {node.name} is registered in __init__.py"
                first = node.args.args[0]
                assert first.arg == "rules" and ast.unparse(first.annotation) == "Rules", f"{path.name}: {node.name}"


def test_no_import_in_the_rules_goes_round_in_a_circle():
    graph = grimp.build_graph("station")
    modules = sorted(m for m in graph.modules if m.startswith("station.rules"))
    circles = set()
    for importer in modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            if imported.startswith("station.rules") and imported != importer:
                back = graph.find_shortest_chain(importer=imported, imported=importer)
                if back:
                    circles.add(" → ".join((importer, *back[1:])))
    assert not circles, "\n".join(sorted(circles))
