"""The words the lobby's forms show (station/rules/labels.py): every army-file field, enum value,
option, option value and game name has its Russian label, no label is left unused, and the API
gives them in the page's language while keeping the English keys."""

import json
import re

import pytest

from station.dice import DiceBook
from station.rules.labels import labels, titled, wanted
from station.rules.registry import RULESETS, make_ruleset
from tests.conftest import ROOT

RULES = ROOT / "station" / "rules"
NAMES_KEPT = {"FT-17", "BattleTech Alpha Strike"}  # names said the same in Russian


def shown(game):
    """What the lobby and the action panel show for a game: its army format's words, its options
    and their values, its inputs, their arguments and their choices."""
    ruleset = make_ruleset(game, DiceBook())
    words = wanted(ruleset.army_schema()) | {game}
    for option in ruleset.options.describe():
        words.add(option["name"])
        words.update(str(c) for c in option.get("choices") or () if not str(c).isdigit())
    for declared in ruleset.declared_inputs.values():
        words.add(declared.type)
        for arg in declared.args:
            words.add(arg.name)
            words.update(c for c in arg.choices if not c.isdigit())
    return words


def _file(path):
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


@pytest.mark.parametrize("game", sorted(RULESETS))
def test_every_word_the_form_shows_has_its_russian(game):
    russian = labels("ru", game)
    missing = sorted(shown(game) - set(russian))
    assert missing == [], f"{game}: no Russian for {missing}"
    for key in shown(game):
        said = russian[key]
        assert re.search(r"[А-Яа-яЁё]", said) or said in NAMES_KEPT, f"{game}: {key!r} is not said in Russian: {said!r}"


def test_no_label_is_left_unused_and_the_files_stay_sorted():
    everything = set().union(*(shown(game) for game in RULESETS))
    for language in ("ru", "en"):
        shared = RULES / f"labels.{language}.json"
        assert set(_file(shared)) <= everything, sorted(set(_file(shared)) - everything)
        assert list(_file(shared)) == sorted(_file(shared))
        for game in RULESETS:
            own = RULES / game / f"labels.{language}.json"
            assert set(_file(own)) <= shown(game), f"{own}: {sorted(set(_file(own)) - shown(game))}"
            assert list(_file(own)) == sorted(_file(own)), own
            repeated = [k for k in set(_file(own)) & set(_file(shared)) if _file(own)[k] == _file(shared)[k]]
            assert repeated == [], f"{own} repeats the shared labels {repeated}"


def test_a_schema_is_titled_in_the_language_asked_for_and_keeps_its_keys():
    schema = make_ruleset("bronepekhota", DiceBook()).army_schema()
    russian = titled(schema, "ru", "bronepekhota")
    assert russian["properties"]["units"]["title"] == "отряды"
    assert set(russian["properties"]) == set(schema["properties"])  # the keys are the file's
    squad = next(
        v for v in russian["properties"]["units"]["items"]["oneOf"] if v["properties"]["type"]["const"] == "squad"
    )
    assert squad["properties"]["type"]["x-const-title"] == "отряд"
    english = titled(schema, "en", "bronepekhota")
    assert english["properties"]["units"]["title"] == "units"
    assert "title" not in schema["properties"]["units"]  # the ruleset's own schema is left as it was


def test_the_lobby_api_gives_labels_in_the_pages_language(client):
    client.set_cookie("lang", "ru")
    games = {g["name"]: g for g in client.get("/api/rulesets").get_json()["games"]}
    assert games["price_of_a_mile"]["title"] == "Цена одной мили"
    ammo = next(o for o in games["bronepekhota"]["options"] if o["name"] == "ammo")
    assert ammo["label"] == "боезапас" and ammo["choices"] == ["limited", "unlimited"]
    assert ammo["choice_labels"] == ["ограниченный", "неограниченный"]
    schema = client.get("/api/rulesets/alpha_strike/schema").get_json()
    unit = schema["properties"]["units"]["items"]
    assert unit["properties"]["skill"]["title"] == "навык" and unit["properties"]["skill"]["default"] == 4
    client.set_cookie("lang", "en")
    games = {g["name"]: g for g in client.get("/api/rulesets").get_json()["games"]}
    assert games["price_of_a_mile"]["title"] == "The Price of a Mile"
