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


def has_label(key: Any, language: str, game: str | None = None) -> bool:
    return str(key) in labels(language, game)


def wanted(schema: Any) -> set[str]:
    """The keys a form made from ``schema`` shows: its properties, their enum values, variant
    constants and titles (the JSON Schema keywords themselves are never shown)."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if not isinstance(node, dict):
            return
        if isinstance(node.get("title"), str):
            found.add(node["title"])
        found.update(str(v) for v in node.get("enum", ()) if not str(v).isdigit())
        if isinstance(node.get("const"), str) and "/" not in node["const"]:  # a kind, not a format tag
            found.add(node["const"])
        for key, sub in (node.get("properties") or {}).items():
            found.add(key)
            walk(sub)
        walk(node.get("items"))
        for option in node.get("oneOf", []) + node.get("anyOf", []):
            walk(option)

    walk(schema)
    return found


def titled(schema: dict[str, Any], language: str, game: str | None = None) -> dict[str, Any]:
    """``schema`` with what the form shows said in ``language``: a ``title`` for every property,
    ``x-enum-titles`` beside every enum, ``x-const-title`` beside a kind's constant, and titles
    translated.  The keys stay as they are."""
    out: dict[str, Any] = json.loads(
        json.dumps(schema)
    )  # not deepcopy: a shared sub-schema (ID, TEXT) needs a title per use

    def walk(node: Any) -> None:
        if not isinstance(node, dict):
            return
        if isinstance(node.get("title"), str):
            node["title"] = label(node["title"], language, game)
        if "enum" in node:
            node["x-enum-titles"] = [label(v, language, game) for v in node["enum"]]
        if isinstance(node.get("const"), str) and "/" not in node["const"]:  # a kind: squad, vehicle, gun
            node["x-const-title"] = label(node["const"], language, game)
        for key, sub in (node.get("properties") or {}).items():
            walk(sub)
            if isinstance(sub, dict):
                sub.setdefault("title", label(key, language, game))
        walk(node.get("items"))
        for option in node.get("oneOf", []) + node.get("anyOf", []):
            walk(option)

    walk(out)
    return out
