"""The rulings in Russian: every sentence an engine can say has its translation in its game's
catalog, none is left unused, and the rulings of every recorded game, said in Russian, keep no
English words and no placeholders unfilled (station/rules/text.py says how it works)."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from station.fold import fold
from station.journal import read_records
from station.rules.base import Ruling
from station.rules.registry import RULESETS
from station.rules.text import PLACEHOLDER, Text, catalog, from_message, joined, say, word
from station.rules.view import model_names
from tests.conftest import ROOT

RULES = ROOT / "station" / "rules"
SESSIONS = ROOT / "tests" / "data" / "sessions"
JOURNALS = sorted(SESSIONS.glob("*.jsonl"))


def needs_words(template: str) -> bool:
    """A template with words in it; one of only placeholders and punctuation says itself."""
    return bool(re.search(r"[A-Za-z]", PLACEHOLDER.sub("", template)))


def said_in(package: Path) -> dict[str, list[str]]:
    """Every ``say("…")`` template in a package's own modules (not its sub-packages), with where."""
    found: dict[str, list[str]] = {}
    for path in sorted(set(package.glob("*.py")) - {RULES / "text.py"}):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "say":
                first = node.args[0]
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                assert isinstance(first, ast.Constant) and isinstance(first.value, str), f"{where}: not a literal"
                found.setdefault(first.value, []).append(where)
    return found


PACKAGES = {"": RULES} | {name: RULES / name for name in RULESETS if (RULES / name).is_dir()}


@pytest.mark.parametrize("game", sorted(PACKAGES))
def test_every_sentence_an_engine_says_has_its_russian(game):
    package = PACKAGES[game]
    words = json.loads((package / "ru.json").read_text(encoding="utf-8"))
    templates = {t: where for t, where in said_in(package).items() if needs_words(t)}
    missing = sorted(f"{where[0]}: {t!r}" for t, where in templates.items() if not words.get(t, "").strip())
    assert missing == [], f"{len(missing)} without Russian: {missing[:10]}"
    assert sorted(set(words) - set(templates)) == [], "entries no engine says any more"
    assert list(words) == sorted(words), "keep the catalog sorted, so a diff shows what changed"


@pytest.mark.parametrize("game", sorted(PACKAGES))
def test_translations_keep_their_placeholders_and_sections(game):
    for english, russian in json.loads((PACKAGES[game] / "ru.json").read_text(encoding="utf-8")).items():
        assert set(PLACEHOLDER.findall(english)) == set(PLACEHOLDER.findall(russian)), english
        assert re.findall(r"§[\w.]+", english) == re.findall(r"§[\w.]+", russian), english  # sections stay
        if re.search(r"[a-z]{3,}", PLACEHOLDER.sub("", english)):  # words, not only "HT +{min}" or "REAR "
            assert re.search(r"[А-Яа-яЁё]", russian), f"not translated: {english!r}"


def test_a_text_says_itself_in_english_and_in_russian():
    words = {
        "{who} fired a {charge}": "{who} выстрелил: {charge}",
        "shell": "снаряд",
        "Refused: {why}.": "Отклонено: {why}.",
    }
    shot = say("{who} fired a {charge}", who="Фёдор", charge=say("shell"))
    refused = say("Refused: {why}.", why=shot + ", " + say("shell"))
    assert refused == "Refused: Фёдор fired a shell, shell."  # the English, as a str, for the journal and the API
    assert refused.said(words) == "Отклонено: Фёдор выстрелил: снаряд, снаряд."
    assert refused.said(None) == str(refused)
    assert from_message(json.loads(json.dumps(refused.message()))).said(words) == refused.said(words)
    assert joined([say("shell"), say("shell")], "; ").said(words) == "снаряд; снаряд"
    assert say("{n} mm", n=2.5) == "2.5 mm" and say("{n} left", n=3).args["n"] == 3


def test_a_page_names_models_as_the_army_does_and_the_journal_keeps_ids():
    words = {
        "{unit} ({player}) activated.": "{unit} ({player}) — активация.",
        "{who} fired a {charge}": "{who}: {charge}",
    }
    made = say("{unit} ({player}) activated.", unit="salamander", player="red")
    inner = say("{who} fired a {charge}", who="red", charge="salamander")  # deep inside, too
    names = {"salamander": "Саламандра"}
    assert made == "salamander (red) activated."  # the journal's English, with the id
    assert made.said(None, names) == "Саламандра (red) activated."
    assert made.said(words, names) == "Саламандра (red) — активация."
    assert joined([made, inner], " ").said(words, names) == "Саламандра (red) — активация. red: Саламандра"
    assert made.said(words) == "salamander (red) — активация."  # no names given: the ids
    tagged = say("{name} ({unit}) moves.", name="Саламандра", unit="salamander")
    assert tagged.said(None, names) == "Саламандра (salamander) moves."  # named already: the id tells which


def test_model_names_come_from_the_view_and_leave_players_and_unnamed_models_alone():
    view = {
        "players": ["red", "blue"],
        "units": [
            {"id": "red", "name": "Red squad", "elements": [{"id": "r1", "name": "r1"}, {"id": "r2", "name": "Ivan"}]},
            {"id": "tank", "name": "T-34", "elements": [{"id": "tank-hull", "name": "T-34"}]},  # one model
            {"id": "lct-1", "name": "Locust", "elements": [{"id": "lct-1", "name": "Locust"}]},
            {"id": "lct-2", "name": "Locust", "elements": [{"id": "lct-2", "name": "Locust"}]},  # which Locust?
        ],
    }
    assert model_names(view) == {"r2": "Ivan", "tank": "T-34", "tank-hull": "T-34"}


def test_an_army_word_is_said_with_its_label_in_each_language():
    line = joined([word("light_mg", "steel_warriors"), word("human", "steel_warriors"), say("prone")], " · ")
    assert line == "light mg · human · prone"  # English: the label, underscores as spaces
    assert line.said(catalog("ru", "steel_warriors")) == "ручной пулемёт · человек · залёг"
    assert word("trench_broom", "price_of_a_mile").said(catalog("ru", "price_of_a_mile")) == "траншейная метла"


def english_pieces(text: Text, names: set[str]) -> Iterator[str]:
    """Plain strings inside a ruling that read as English words rather than a name or a number:
    what a Russian page would show untranslated."""
    vocabulary = ENGLISH_WORDS
    if text.parts is not None:
        for part in text.parts:
            yield from english_pieces(part, names)
        return
    for value in text.args.values():
        if isinstance(value, Text):
            yield from english_pieces(value, names)
        elif isinstance(value, str) and value not in names:
            lowered = [w for w in re.findall(r"[A-Za-z]+", value) if w not in names]
            if re.search(r"\b[a-z]{2,} [a-z]{2,}\b", value) or any(w.lower() in vocabulary for w in lowered):
                yield value


ENGLISH_WORDS = {
    w.lower()
    for path in RULES.rglob("ru.json")
    for template in json.loads(path.read_text(encoding="utf-8"))
    for w in re.findall(r"[A-Za-z]{4,}", PLACEHOLDER.sub("", template))
} - {"lance", "bronescaf", "bronescafs", "case", "mech", "mechs", "battlemechs", "hero", "sniper", "snipers"}


def names_in(records: list[dict], data: object) -> set[str]:
    """The names and ids of the armies, their weapons and the terrain, which stay as the players wrote them."""
    names: set[str] = set()

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("id", "name", "player", "unit", "squad", "card", "type", "weapon", "node") and isinstance(
                    item, str
                ):
                    names.add(item)
                    names.update(re.findall(r"[A-Za-z]+", item))
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(records)

    def keys(value):  # the game's bundled data names its weapons and troop types by key ("heavy_mg")
        if isinstance(value, dict):
            for key, item in value.items():
                names.update({str(key), str(key).replace("_", " ")})
                keys(item)

    keys(data)
    return names


@pytest.mark.parametrize("journal", JOURNALS, ids=lambda p: p.name)
def test_every_ruling_of_a_recorded_game_reads_in_russian(journal):
    records = read_records(journal)
    result = fold(records)
    words = catalog("ru", result.ruleset.name)
    names = names_in(records, getattr(result.ruleset, "data", {}))
    untranslated, english, unfilled = set(), set(), set()
    for ruling in result.rulings:
        assert isinstance(ruling.text, Text), ruling.id
        untranslated.update(k for k in ruling.text.keys() if needs_words(k) and k not in words)
        english.update(english_pieces(ruling.text, names))
        russian = ruling.text.said(words)
        unfilled.update(PLACEHOLDER.findall(russian))
    assert untranslated == set() and english == set() and unfilled == set(), (untranslated, english, unfilled)
    assert result.rulings, "a recorded game with no rulings proves nothing"


def test_the_api_carries_the_message_beside_the_english():
    ruling = Ruling("1:shot", 1, "shot", say("{who} fired a {charge}", who="a", charge=say("shell")), "§6")
    body = json.loads(json.dumps(ruling.as_dict()))
    assert body["text"] == "a fired a shell"
    assert body["message"] == {
        "key": "{who} fired a {charge}",
        "args": {"who": "a", "charge": {"key": "shell", "args": {}}},
    }


def test_the_documented_message_is_what_the_station_gives():
    """docs/journal-and-api.md shows a ruling's message; it is one the demo's journal makes."""
    doc = (ROOT / "docs" / "journal-and-api.md").read_text(encoding="utf-8")
    shown = next(json.loads(b) for b in re.findall(r"```json\n(.*?)```", doc, re.S) if '"message"' in b)
    made = {r.text: r.text.message() for r in fold(read_records(SESSIONS / "demo.jsonl")).rulings}
    assert made.get(shown["text"]) == shown["message"]
