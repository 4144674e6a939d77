"""A ruling's words: finished English, and what another language needs to say the same.

The engines write English, and the players read Russian as often.  A ruling's text is therefore
a :class:`Text`: a ``str`` holding the English (so the journal, the command line, the API's
``text`` and every test read it as before) that also keeps its *message*, the English template
and the values put into it.  A page in another language looks the template up in that
language's catalog (``station/rules/<game>/ru.json``, English template → translation, shared
entries in ``station/rules/ru.json``) and fills in the same values, so word order can change in
translation.  Values are names, numbers already formatted by the engine, or other texts, which
are translated in their turn: a refusal's reason inside "… refused: {why}" reads in the same
language as the rest.

The engines name a model by its id, which is what the journal, the API and the tests compare and
which no two models share.  The pages say the army's name for it instead ("Salamander" for
``salamander``, "Cyber-infantry 1" for ``cyber-1``): a value that is a model's id is replaced
when the text is said, so the journal keeps ids and the players read names.

Placeholders are ``{name}`` and nothing else (no format specs): the engine formats its numbers
once, and the page's script and this module fill them in the same way.  Section references stay
as the rulebooks write them.  ``station.rules.text`` has no catalog of its own and does no I/O
beyond reading the packaged catalogs on first use.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Any

from .labels import label, labels

PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _fill(template: str, args: Mapping[str, Any], words: Mapping[str, str], names: Mapping[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in args:
            return match.group(0)
        given = args[name]
        if isinstance(given, Text):
            return given.said(words, names)
        return _named(given, args, names) if isinstance(given, str) else str(given)

    return PLACEHOLDER.sub(value, template)


def _named(given: str, args: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """The army's name for ``given`` if it is a model's id, unless the sentence already says that
    name (Alpha Strike's "{name} ({unit})": the id tells two units of one card apart)."""
    called = names.get(given)
    return called if called is not None and called not in args.values() else given


class Text(str):
    """English text that remembers its template and values (see the module's docstring).

    Made by :func:`say` and :func:`joined`, never directly.  ``+`` joins texts and keeps each
    translatable; a plain ``str`` added to one is kept as it is (punctuation, a name), and
    tests/test_ruling_language.py fails if any such piece is English words.
    """

    key: str = ""
    args: Mapping[str, object] = {}  # (read only; each say() gives its own)
    parts: tuple[Text, ...] | None = None
    sep: str = ""
    cap: bool = False  # the first letter upper case, in whatever language it is said
    trim: bool = False  # without its closing full stop (a sentence used inside another)

    def said(self, words: Mapping[str, str] | None, names: Mapping[str, str] | None = None) -> str:
        """This text in the language of ``words`` (a catalog; ``None`` for English), with each
        model named as ``names`` says (an id → the army's name for it, see
        :func:`station.rules.view.model_names`)."""
        if words is None and not names:
            return str.__str__(self)
        words, names = words or {}, names or {}
        if self.parts is not None:
            said = self.sep.join(part.said(words, names) for part in self.parts)
        else:
            said = _fill(words.get(self.key) or self.key, self.args, words, names)
        if self.trim:
            said = said.rstrip(".")
        return said[:1].upper() + said[1:] if self.cap else said

    def message(self) -> dict[str, Any]:
        """The template and values as JSON, for the page's script to render in its language."""
        said: dict[str, Any]
        if self.parts is not None:
            said = {"sep": self.sep, "parts": [part.message() for part in self.parts]}
        else:
            args = {name: _json_value(value) for name, value in self.args.items()}
            said = {"key": self.key, "args": args}
        return {**said, **({"cap": True} if self.cap else {}), **({"trim": True} if self.trim else {})}

    def keys(self) -> Iterable[str]:
        """Every template this text is made of (its own and its values'), for the catalog's tests."""
        if self.parts is not None:
            for part in self.parts:
                yield from part.keys()
            return
        yield self.key
        for value in self.args.values():
            if isinstance(value, Text):
                yield from value.keys()

    def __add__(self, other: str) -> Text:
        return joined((self, _as_text(other)), "")

    def __radd__(self, other: str) -> Text:
        return joined((_as_text(other), self), "")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (str.__str__(self), self.message()))


def say(template: str, /, **args: object) -> Text:
    """``template`` with its ``{name}`` placeholders filled from ``args``: the engines' one way to
    put words in a ruling.  ``template`` must be a literal, so the catalog's test finds it.
    A value other than a text or a whole number is kept as Python writes it (``2.5``, ``[3, 5]``),
    so the page shows exactly what the English shows.

    It runs for most rulings of a fold (a replay makes thousands a second), so it only fills the
    English with ``str.format_map`` and keeps the template and values; values become JSON in
    :meth:`message`."""
    text = Text(template.format_map(args))
    text.key, text.args = template, args
    return text


def word(key: str, game: str | None = None) -> Text:
    """A word of an army file or a game's rules data (a weapon, an armour, a role): its English is
    its label (station/rules/labels.py, "light mg" for ``light_mg``), and another language finds
    it among the game's labels, which :func:`catalog` includes.  A unit card's line is made of
    these, so it is said in the page's language as the army form is."""
    english = label(key, "en", game)
    text = Text(english)
    text.key, text.args = english, {}
    return text


def joined(parts: Iterable[Text], sep: str = ", ") -> Text:
    """The parts one after another with ``sep`` between them (punctuation, the same in every
    language), each part still translatable."""
    kept = tuple([_as_text(part) for part in parts])
    text = Text(sep.join(kept))
    text.parts, text.sep = kept, sep
    return text


def _wrapped(text: Text, english: str, *, cap: bool = False, trim: bool = False) -> Text:
    made = Text(english)
    made.parts, made.cap, made.trim = (text,), cap, trim
    return made


def capitalised(text: Text) -> Text:
    """``text`` starting with a capital letter (a reason that begins a sentence), in any language."""
    english = str.__str__(text)
    return _wrapped(text, english[:1].upper() + english[1:], cap=True)


def trimmed(text: Text) -> Text:
    """``text`` without its closing full stop, in any language (a ruling quoted as a reason)."""
    return _wrapped(text, str.__str__(text).rstrip("."), trim=True)


NOTHING = joined((), "")  # no words: false, like "", where a helper has nothing to say


def _json_value(value: object) -> Any:
    """A value as the message carries it: a text's own message, text and whole numbers as they
    are, anything else as Python writes it (so the page shows what the English shows)."""
    if isinstance(value, Text):
        return value.message()
    if isinstance(value, str) or (type(value) is int):
        return value
    return str(value)


def _as_text(given: str) -> Text:
    """Punctuation or a name put next to a text: the same in every language."""
    if isinstance(given, Text):
        return given
    text = Text(given)
    text.key, text.args = "{value}", {"value": given}
    return text


def _rebuild(english: str, message: Mapping[str, Any]) -> Text:
    return from_message(message)


def from_message(message: Mapping[str, Any]) -> Text:
    """A Text again from :meth:`Text.message` (a pickled ruling, or a client's message read back)."""
    if message.get("cap") or message.get("trim"):
        text = from_message({k: v for k, v in message.items() if k not in ("cap", "trim")})
        text = trimmed(text) if message.get("trim") else text
        return capitalised(text) if message.get("cap") else text
    if "parts" in message:
        return joined((from_message(part) for part in message["parts"]), str(message.get("sep", "")))
    args = {
        name: from_message(value) if isinstance(value, Mapping) else value
        for name, value in dict(message.get("args", {})).items()
    }
    return say(str(message["key"]), **args)


@cache
def catalog(language: str, game: str | None = None) -> dict[str, str]:
    """The rulings' catalog for ``language``: the labels of the game's words (:func:`word`), the
    entries shared by every game, then the game's own (each later one wins where the same English
    needs other words).  English: empty."""
    if language == "en":
        return {}
    words = {label(key, "en", game): said for key, said in labels(language, game).items()}  # see word()
    packages = ["station.rules"] + ([f"station.rules.{game}"] if game else [])
    for package in packages:
        found = resources.files(package) / f"{language}.json"
        if found.is_file():
            words.update(json.loads(found.read_text(encoding="utf-8")))
    return words


def with_messages(value: Any) -> Any:
    """``value`` for JSON with, beside every text that can be said in another language, its
    message: ``label_message`` next to ``label``, ``lines_messages`` next to a list ``lines``
    (``None`` for an item with none).  The rules' words outside rulings (reach rings, cover, an
    attack's preview) reach the page this way."""
    if isinstance(value, list):
        return [with_messages(item) for item in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        out[key] = with_messages(item)
        if isinstance(item, Text):
            out[f"{key}_message"] = item.message()
        elif isinstance(item, list) and any(isinstance(i, Text) for i in item):
            out[f"{key}_messages"] = [i.message() if isinstance(i, Text) else None for i in item]
    return out
