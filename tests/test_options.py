"""Every game's options, declared once (station.rules.options): the parser, the state's JSON, the
JSON Schema and the lobby's form description all come from the same declaration."""

from __future__ import annotations

import dataclasses

import jsonschema
import pytest

from station.datafile import DataFileError
from station.rules.registry import RULESETS

from .conftest import ScriptedRoller

BAD_VALUES = {
    "choice": ["nope", 3],
    "flag": ["yes", 1],
    "integer": [10**6, -(10**6), 2.5, True],
    "number": [10**6, -(10**6), "5"],
    "side": ["", 7],
    "names": ["trench", [1]],
    "table": [{"x": 1}, {}, {"5": 999}],
}


@pytest.fixture(params=sorted(RULESETS))
def ruleset(request):
    return RULESETS[request.param](ScriptedRoller())


def test_every_option_has_a_kind_a_default_a_section_and_help(ruleset):
    described = ruleset.options.describe()
    assert described, ruleset.name
    for option in described:
        assert option["section"].startswith("§"), option
        assert option["help"] and option["kind"] in BAD_VALUES, option
        if option["kind"] == "choice":
            assert option["default"] == option["choices"][0]


def test_defaults_are_the_options_dataclass_defaults(ruleset):
    built = ruleset.options.build({})
    assert built == type(built)()
    assert ruleset.options.dump(built) == {o["name"]: o["default"] for o in ruleset.options.describe()}


def test_the_schema_accepts_the_defaults_and_every_choice(ruleset):
    schema = ruleset.options.schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid(ruleset.options.dump(ruleset.options.build({})))
    for option in ruleset.options.describe():
        for value in option.get("choices", []):
            assert validator.is_valid({option["name"]: value})
            assert ruleset.options.dump(ruleset.options.build({option["name"]: value}))[option["name"]] == value


def test_a_bad_value_is_refused_by_the_parser_and_the_schema_naming_the_option(ruleset):
    validator = jsonschema.Draft202012Validator(ruleset.options.schema())
    for option in ruleset.options.describe():
        for value in BAD_VALUES[option["kind"]]:
            with pytest.raises(DataFileError) as refused:
                ruleset.options.build({option["name"]: value})
            assert refused.value.where == option["name"], (option, value)
            assert not validator.is_valid({option["name"]: value}), (option, value)


def test_an_unknown_option_names_the_known_ones(ruleset):
    with pytest.raises(DataFileError) as refused:
        ruleset.options.build({"ammunition": "limited"})
    assert refused.value.where == "ammunition"
    assert ruleset.options.describe()[0]["name"] in refused.value.problem
    assert not jsonschema.Draft202012Validator(ruleset.options.schema()).is_valid({"ammunition": "limited"})


def test_a_game_cannot_declare_an_undeclared_option():
    from station.rules.options import declared, flag

    @dataclasses.dataclass(frozen=True)
    class Sloppy:
        fine: bool = flag(True, "§1", "declared")
        forgotten: int = 3

    with pytest.raises(TypeError, match="forgotten"):
        declared(Sloppy, "sloppy")


def test_a_table_option_reads_rows_and_writes_them_back():
    quick = RULESETS["bronepekhota_quick"](ScriptedRoller())
    options = quick.options.build({"maneuver_by_armour": {"9": 1, "5": 6}})
    assert options.maneuver_by_armour == ((5, 6), (9, 1))
    assert quick.options.dump(options)["maneuver_by_armour"] == {"5": 6, "9": 1}
