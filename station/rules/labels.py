"""The words a game's forms show: its army-file fields, their enum values, its options and their
values, and the game's own name, in the page's language.  The API keeps the English keys
(``tilt_node``, ``unlimited``); a page shows the label.

Each game keeps its labels next to its rules (``station/rules/<game>/labels.ru.json``), the
words several games share in ``station/rules/labels.ru.json``; English needs a file only where a
key does not read as words once its underscores are spaces (``labels.en.json``: "TMM", "MUL id").
A JSON file rather than gettext for the reason web/i18n.py gives: the same file serves Python and
the pages, and a label is one word or a short phrase, never a sentence with parts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import Any

RULES = resources.files("station") / "rules"


@cache
def _file(*parts: str) -> dict[str, str]:
    path = RULES.joinpath(*parts)
    return dict(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else {}


@cache
def labels(language: str, game: str | None = None) -> dict[str, str]:
    """Every label of ``game`` (and the shared ones) in ``language``; English keys as words."""
    name = f"labels.{language}.json"
    return {**_file(name), **(_file(game, name) if game else {})}


def label(key: Any, language: str, game: str | None = None) -> str:
    """``key``'s label: the catalog's word, else the key with its underscores as spaces."""
    text = str(key)
    return labels(language, game).get(text) or labels("en", game).get(text) or text.replace("_", " ")


def _schemas(node: Any) -> Iterator[dict[str, Any]]:
    """Every sub-schema a form is drawn from (properties, items, the variants), each after the
    ones inside it, so a parent may title its properties once they have been seen to."""
    if not isinstance(node, dict):
        return
    for sub in (node.get("properties") or {}).values():
        yield from _schemas(sub)
    yield from _schemas(node.get("items"))
    for option in node.get("oneOf", []) + node.get("anyOf", []):
        yield from _schemas(option)
    yield node


def _kind(node: dict[str, Any]) -> str | None:
    """A variant's constant that names a kind (squad, vehicle, gun), not a format tag."""
    const = node.get("const")
    return const if isinstance(const, str) and "/" not in const else None


def wanted(schema: Any) -> set[str]:
    """The keys a form made from ``schema`` shows: its properties, their enum values, variant
    constants and titles (the JSON Schema keywords themselves are never shown)."""
    found: set[str] = set()
    for node in _schemas(schema):
        if isinstance(node.get("title"), str):
            found.add(node["title"])
        found.update(str(v) for v in node.get("enum", ()) if not str(v).isdigit())
        if _kind(node):
            found.add(node["const"])
        found.update(node.get("properties") or {})
        found.update(f"{key}[]" for key, sub in (node.get("properties") or {}).items() if _listed(sub))
    return found


def _listed(sub: Any) -> bool:
    """A property that is a list of things: each of them gets its own title, ``"<key>[]"`` in the
    catalogs ("отряд 2" in the list of «отряды»), so the form says what one of them is."""
    return isinstance(sub, dict) and isinstance(sub.get("items"), dict)


def titled(schema: dict[str, Any], language: str, game: str | None = None) -> dict[str, Any]:
    """``schema`` with what the form shows said in ``language``: a ``title`` for every property,
    ``x-enum-titles`` beside every enum, ``x-const-title`` beside a kind's constant, and titles
    translated.  The keys stay as they are."""
    # not deepcopy: a sub-schema shared by several fields (ID, TEXT) needs a title for each
    out: dict[str, Any] = json.loads(json.dumps(schema))
    for node in _schemas(out):
        if isinstance(node.get("title"), str):
            node["title"] = label(node["title"], language, game)
        if "enum" in node:
            node["x-enum-titles"] = [label(v, language, game) for v in node["enum"]]
        if _kind(node):
            node["x-const-title"] = label(node["const"], language, game)
        for key, sub in (node.get("properties") or {}).items():
            if isinstance(sub, dict):
                sub.setdefault("title", label(key, language, game))
            if _listed(sub):
                sub["items"].setdefault("title", label(f"{key}[]", language, game))
    return out
