"""The dashboard's languages: English, in which the pages are written, and Russian, from a
message catalog (``i18n/ru.json``: English text → Russian text).

The rulings' words are the engines' own: each ruling carries its English and its message (the
template and values, station/rules/text.py), and each game has its catalog next to its rules.
A page that shows rulings names its game (``ruling_game``), gets that catalog as
``#ruling-catalog`` and says each ruling in the page's language; the report, drawn here, does the
same through the ``said`` filter.

A plain JSON catalog rather than gettext (Babel, flask-babel): the same file serves the Jinja
templates and the plain-JS pages, which gettext's compiled ``.mo`` files do not reach without a
build step, and a missing or unused entry is caught by a test that reads every ``_("…")`` in the
templates and every ``t("…")`` in the scripts.  Placeholders are ``{name}``, filled after the
lookup, so word order can change in translation.  Section references (``§6.7``) are the
rulebooks' own and are never translated.

The language is the ``lang`` cookie the switch sets (remembered per browser), else the
browser's Accept-Language, else English.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources
from typing import Any, cast

from flask import Flask, request

from ..rules import text as ruling_text

LANGUAGES = ("en", "ru")
COOKIE = "lang"


@cache
def catalog(language: str) -> dict[str, str]:
    if language == "en":
        return {}
    text = (resources.files("station.web") / "i18n" / f"{language}.json").read_text(encoding="utf-8")
    return cast(dict[str, str], json.loads(text))


def language() -> str:
    """The page's language: ``?lang=`` (a stream overlay's address, where no cookie is set), the
    language cookie, or the browser's."""
    chosen = request.args.get("lang") or request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES, default="en") or "en"


def translate(text: str, **values: Any) -> str:
    """``text`` in the request's language, with ``{name}`` placeholders filled."""
    translated = catalog(language()).get(text, text)
    return translated.format(**values) if values else translated


def ruling_words(game: str) -> dict[str, str]:
    """The rulings' catalog of ``game`` in the request's language (empty for English)."""
    return ruling_text.catalog(language(), game)


def said(text: str, game: str, names: dict[str, str] | None = None) -> str:
    """A ruling's text in the request's language (its English if it has no message), naming
    models by ``names`` (``model_names`` of the game's view)."""
    return text.said(ruling_words(game) or None, names) if isinstance(text, ruling_text.Text) else text


def section(reference: str) -> str:
    """A rulebook reference as the request's language's rulebook prints it ("Таблица 4" for
    "Table 4"); referee.js's ``sectionText`` does the same in the pages."""
    return re.sub(r"\bTable (\d+)", r"Таблица \1", reference) if language() == "ru" else reference


def spoken(text: ruling_text.Text) -> str:
    """A sentence of the web layer's own (said with ``say``) in the request's language, from the
    pages' catalog."""
    return text.said(catalog(language()) or None)


def install(app: Flask) -> None:
    """``_``, ``lang`` and the rulings' catalog in every template, and the catalogs for the page's
    scripts."""
    app.add_template_filter(said, "said")
    app.add_template_filter(section, "section")

    @app.context_processor
    def _i18n() -> dict[str, Any]:
        current = language()
        return {
            "_": translate,
            "lang": current,
            "catalog": catalog(current),
            "languages": LANGUAGES,
            "ruling_words": ruling_words,
        }
