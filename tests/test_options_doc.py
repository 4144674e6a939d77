"""Each game's options table in the manual is the one its option declarations make
(station/optionsdoc.py, `station options`), and docs/options.md indexes all five (issue #34)."""

import pytest
from click.testing import CliRunner

from station.cli import main
from station.optionsdoc import options_table, pages, with_table
from station.rules.registry import RULESETS

from .conftest import ROOT

DOCS = ROOT / "docs"


def test_every_page_carries_the_table_its_game_declares():
    stale = [page.name for page, text in pages(DOCS).items() if page.read_text(encoding="utf-8") != text]
    assert not stale, f"run `station options --write-docs docs`: {', '.join(stale)} differ from the declarations"


@pytest.mark.parametrize("game", sorted(RULESETS))
def test_the_table_lists_every_declared_option_with_its_section(game):
    declared = RULESETS[game](None).options.describe()
    table = options_table(game)
    assert len(table.splitlines()) == 2 + len(declared)
    for option in declared:
        assert f"| `{option['name']}` |" in table and f"| {option['section']} |" in table


def test_a_page_without_the_markers_is_named_not_rewritten_blindly():
    with pytest.raises(ValueError, match="no <!-- options:steel_warriors:begin -->"):
        with_table("# a page\n", "steel_warriors", "| table |")


def test_station_options_prints_a_games_table_and_asks_for_one():
    printed = CliRunner().invoke(main, ["options", "price_of_a_mile"])
    assert printed.exit_code == 0 and printed.output.strip() == options_table("price_of_a_mile")
    bare = CliRunner().invoke(main, ["options"])
    assert bare.exit_code == 2 and "name a game" in bare.output
