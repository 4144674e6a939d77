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


def test_simulate_hub_alone_announces_a_whole_table(tmp_path):
    """As the manual shows it, with no army given: the demo's armies' nodes, not one of each."""
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "station", "simulate-hub", "--link", str(tmp_path / "hub")],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        first = proc.stdout.readline()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    announced = first.split("announcing ", 1)[1].strip().split(", ")
    assert len(announced) > 2 and any(n.startswith("L") for n in announced), first


LOADERS = {  # a document's format → the game whose loader reads it
    "bronepekhota-army/1": "bronepekhota",
    "alpha-strike-force/1": "alpha_strike",
    "price-of-a-mile-army/1": "price_of_a_mile",
    "steel-warriors-army/1": "steel_warriors",
}


def _json_examples() -> list[tuple[str, str]]:
    return [
        (doc.name, block)
        for doc in DOCS
        for block in re.findall(r"```json\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    ]


@pytest.mark.parametrize("where, block", _json_examples(), ids=lambda v: v if len(v) < 40 else "")
def test_every_json_example_loads(where, block, tmp_path):
    """A whole document is read by its format's own loader; a fragment ("key": value, shown to
    go into a file) must at least be JSON."""
    import json
    import shutil

    from station.dice import DiceBook
    from station.rules.registry import make_ruleset
    from station.session import load_session

    text = block.strip()
    document = json.loads(text if text.startswith(("{", "[")) else "{" + text + "}")
    kind = document.get("format") if isinstance(document, dict) else None
    if kind is None:
        return  # a fragment, and it parsed
    path = tmp_path / "example.json"
    path.write_text(text, encoding="utf-8")
    if kind == "station-session/1":
        for army in document["armies"]:
            shutil.copy(ROOT / "examples" / army, tmp_path / army)
        assert load_session(path).steps
    else:
        assert kind in LOADERS, f"{where}: no loader known for {kind}"
        make_ruleset(LOADERS[kind], DiceBook()).load_army(str(path))
