"""Every game's army format as JSON Schema (Ruleset.army_schema) against its loader.

The schema is what the lobby and an editor check an upload with; the loader is what the station
plays from.  They must agree: a file the loader accepts is never refused by the schema, and a
file the schema accepts is refused by the loader only for what a schema cannot say (ids used
once, sectors that cover every cell).  Each bundled army is broken hundreds of ways to check it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from station.rules.base import ArmyError
from station.rules.registry import RULESETS

from .conftest import ScriptedRoller

DATA = Path(__file__).parent.parent / "station" / "data"
ARMIES = {
    "bronepekhota": ["demo/blue-protectorate.json", "demo/red-polaris.json"],
    "bronepekhota_quick": ["quick/blue-patrol.json", "quick/red-raiders.json"],
    "price_of_a_mile": ["price_of_a_mile/entente.json", "price_of_a_mile/central.json"],
    "steel_warriors": ["steel_warriors/steel.json", "steel_warriors/keno.json"],
    "alpha_strike": ["alpha_strike/training-day-attacker.json", "alpha_strike/training-day-defender.json"],
}
# What only the loader can check: relations between fields that a JSON Schema cannot express.
LOADER_ONLY = (
    "sectors must cover",  # Бронепехота §2.2: every durability cell in exactly one sector
    "must not exceed 'from'",
    "share an id",
    "more than one commander",
    "a striker lance names",  # Alpha Strike §11.3: exactly two different units
    "is not a unit of this force",
    "unknown special",  # an ability name is checked whole, with its numbers
    "is not a base",  # a base's sizes must be 5-500 mm
    "is not an infantryman of this army",  # Бронепехота §2.3: a pilot is one of the army's own
)


def mutations(doc: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[str, Any]]:
    """Broken copies of ``doc``: each field removed, an unknown field added to each object, and
    each value replaced by one of the wrong type or far out of range."""
    if isinstance(doc, dict):
        yield f"{path}+typo", {**doc, "armor_typo": 1}
        for key, value in doc.items():
            yield f"{path}-{key}", {k: v for k, v in doc.items() if k != key}
            for name, broken in mutations(value, path + (key,)):
                yield name, {**doc, key: broken}
    elif isinstance(doc, list):
        yield f"{path}=[]", []
        for index, value in enumerate(doc):
            for name, broken in mutations(value, path + (index,)):
                yield name, doc[:index] + [broken] + doc[index + 1 :]
    elif isinstance(doc, bool):
        yield f"{path}=yes", "yes"
    elif isinstance(doc, (int, float)):
        yield f"{path}=big", 100000
        yield f"{path}=negative", -100000
        yield f"{path}=text", "7"
        yield f"{path}=true", True
    elif isinstance(doc, str):
        yield f"{path}=number", 12345
        yield f"{path}=blank", ""


def loader_verdict(ruleset: Any, doc: Any, tmp_path: Path) -> str | None:
    path = tmp_path / "army.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    try:
        ruleset.load_army(str(path))
    except ArmyError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("game", sorted(ARMIES))
def test_every_bundled_army_matches_its_schema(game):
    ruleset = RULESETS[game](ScriptedRoller())
    schema = ruleset.army_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    for name in ARMIES[game]:
        ruleset.load_army(str(DATA / name))
        errors = [
            e.message
            for e in jsonschema.Draft202012Validator(schema).iter_errors(json.loads((DATA / name).read_text()))
        ]
        assert errors == [], name


@pytest.mark.parametrize("game", sorted(ARMIES))
def test_schema_and_loader_agree_on_broken_armies(game, tmp_path):
    ruleset = RULESETS[game](ScriptedRoller())
    validator = jsonschema.Draft202012Validator(ruleset.army_schema())
    tried = refused = 0
    for name, broken in (m for army in ARMIES[game] for m in mutations(json.loads((DATA / army).read_text()))):
        tried += 1
        schema_ok = validator.is_valid(broken)
        problem = loader_verdict(ruleset, broken, tmp_path)
        refused += problem is not None
        if problem is None:
            assert schema_ok, (
                f"{game} {name}: the loader accepts it, the schema refuses: {next(validator.iter_errors(broken)).message}"
            )
        elif schema_ok:
            assert any(words in problem for words in LOADER_ONLY), (
                f"{game} {name}: the schema accepts what the loader refuses: {problem}"
            )
    assert tried > 60 and refused > tried // 2, (tried, refused)


def test_a_schema_names_the_field_a_lobby_must_fix():
    schema = RULESETS["steel_warriors"](ScriptedRoller()).army_schema()
    army = json.loads((DATA / ARMIES["steel_warriors"][0]).read_text())
    army["squads"][0]["quality"] = 5
    (error,) = jsonschema.Draft202012Validator(schema).iter_errors(army)
    assert list(error.absolute_path) == ["squads", 0, "quality"]
