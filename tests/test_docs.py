"""The manual as a user meets it: every link and anchor leads somewhere, every `station …`
command shown parses, and no internal jargon (issue numbers, "seed 004", "digest §13") is left
in what a referee reads."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from station.cli import main
from tests.conftest import ROOT

DOCS = [ROOT / "README.md", ROOT / "hardware.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _slug(title: str) -> str:
    """A heading's anchor, as GitHub makes it."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def _outside_fences(text: str) -> list[str]:
    lines, fence = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        elif not fence:
            lines.append(line)
    return lines


def _anchors(path: Path) -> set[str]:
    return {
        _slug(m.group(1))
        for line in _outside_fences(path.read_text(encoding="utf-8"))
        if (m := re.match(r"#{1,6} (.*)", line))
    }


def _commands(path: Path) -> list[str]:
    """The station's command lines a reader may copy: lines of the code blocks, and inline code
    (not the reference's synopses, with their ``[…]`` and ``A|B``)."""
    found, fence = [], False
    text = path.read_text(encoding="utf-8").replace("\\\n", " ")  # a command continued on the next line
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
            continue
        candidates = [line.split("#", 1)[0]] if fence else re.findall(r"`([^`]+)`", line)
        for words in candidates:
            words = re.sub(r"^(sudo )?(\S*/)?station ", "station ", words.strip())
            if words.startswith("station ") and not re.search(r"[\[|…]|\.\.\.", words):
                found.append(words)
    return found


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_and_anchor_resolves(doc):
    broken = []
    for target in LINK.findall("\n".join(_outside_fences(doc.read_text(encoding="utf-8")))):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        where = (doc.parent / path).resolve() if path else doc
        if not where.exists():
            broken.append(f"{target}: no such file")
        elif anchor and where.suffix == ".md" and anchor not in _anchors(where):
            broken.append(f"{target}: no such heading")
    assert not broken, broken


def test_every_station_command_shown_parses(capsys):
    shown = [(doc, line) for doc in DOCS for line in _commands(doc)]
    assert len(shown) >= 10  # the manual shows commands, and this test finds them
    wrong = []
    for doc, line in shown:
        args = shlex.split(line)[1:]
        if args[0].isupper():
            continue  # `station COMMAND --help`, a placeholder
        try:  # the subcommand and every option must exist and parse; --help stops before running
            with click.Context(main) as ctx:
                name, command, rest = main.resolve_command(ctx, args)
                command.make_context(name, [*rest, "--help"], parent=ctx)
        except click.exceptions.Exit:
            pass  # the help was printed: everything before it parsed
        except click.ClickException as exc:
            wrong.append(f"{doc.name}: {line}: {exc.format_message()}")
    assert not wrong, wrong


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_internal_jargon(doc):
    text = doc.read_text(encoding="utf-8")
    for jargon in (r"\bseed 00\d", r"\bdigest\b", r"\bissue #?\d", r"\.\./shared"):
        assert not re.search(jargon, text), f"{doc.name}: {re.search(jargon, text).group(0)!r}"
