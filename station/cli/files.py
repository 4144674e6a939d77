"""The commands about a game's files: ``replay`` a journal, a game's ``options`` and army
``schema``, and ``import-mul`` into the Alpha Strike card library."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import click

from ..datafile import DataFileError, data_dir, load_json_file
from ..dice import DiceBook
from ..fold import fold
from ..journal import JournalError, read_records
from ..records import Kind
from ..rules.registry import RULESETS, make_ruleset
from .common import fail


@click.command()
@click.argument("journal", type=click.Path(exists=True, dir_okay=False))
@click.option("--state-json", type=click.Path(dir_okay=False), help="Write the canonical state JSON here.")
@click.option("--rulings", "show_rulings", is_flag=True, help="Print every ruling.")
def replay(journal: str, state_json: str | None, show_rulings: bool) -> None:
    """Rebuild a game from its journal and print a summary."""
    try:
        records = read_records(journal)
        result = fold(records)
    except (JournalError, DataFileError, ValueError, LookupError) as exc:
        fail(f"{journal}: {exc}")
    text = result.state_json()
    journaled = {r["ruling"]["id"]: r["ruling"] for r in records if r["kind"] == Kind.RULING}
    differing = [
        r.id for r in result.rulings if r.id in journaled and journaled[r.id]["text"] != r.text and not r.overridden
    ]
    counts: dict[str, int] = {}
    for record in records:
        counts[record["kind"]] = counts.get(record["kind"], 0) + 1
    click.echo(f"{journal}: {len(records)} records ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})")
    click.echo(result.ruleset.summary(result.state))
    pending = sum(1 for r in result.rulings if result.status(r) == "pending")
    click.echo(
        f"rulings: {len(result.rulings)} ({pending} awaiting the referee); "
        f"{'all match the journal' if not differing else f'{len(differing)} differ from the journal: ' + ', '.join(differing[:5])}"
    )
    click.echo(f"state sha256: {hashlib.sha256(text.encode()).hexdigest()}")
    if show_rulings:
        for r in result.rulings:
            click.echo(f"  [{r.id}] {r.text}")
    if state_json:
        Path(state_json).write_text(text, encoding="utf-8")


@click.command()
@click.argument("game", type=click.Choice(sorted(RULESETS)), required=False)
@click.option(
    "--write-docs",
    "docs",
    type=click.Path(file_okay=False, exists=True),
    help="Rewrite every game's options and inputs tables in this manual folder (docs/).",
)
def options(game: str | None, docs: str | None) -> None:
    """Print GAME's options: each with its default, the values it takes, its rulebook section and
    what it does (pass them with --option NAME=VALUE)."""
    from ..optionsdoc import options_table, write_docs

    if docs:
        changed = write_docs(Path(docs))
        click.echo(f"{len(changed)} pages rewritten: {', '.join(p.name for p in changed) or 'none needed it'}")
    elif game:
        click.echo(options_table(game))
    else:
        fail("name a game (" + ", ".join(sorted(RULESETS)) + "), or give --write-docs")


@click.command()
@click.argument("game", type=click.Choice(sorted(RULESETS)))
def schema(game: str) -> None:
    """Print the army file format of GAME as a JSON Schema (the lobby's form is made from it)."""
    click.echo(json.dumps(make_ruleset(game, DiceBook()).army_schema(), ensure_ascii=False, indent=1))


@click.command("import-mul")
@click.argument("mul_file", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--library",
    "library_path",
    type=click.Path(dir_okay=False),
    help="The card library to add to (default: $STATION_DATA/alpha-strike-library.json, STATION_DATA=./data).",
)
def import_mul(mul_file: str, library_path: str | None) -> None:
    """Add Master Unit List records to the club's Alpha Strike card library.

    MUL_FILE is a MUL response ({"Units": [...]}), a list of records, or one record.  Force files
    then name a card by "mul_id" or by its full name.  A record with no Alpha Strike values, or
    one the station cannot read, is skipped and said why; the others are added."""
    ruleset = make_ruleset("alpha_strike", DiceBook())  # the Master Unit List is BattleTech's
    library = Path(library_path) if library_path else data_dir() / str(ruleset.card_library)
    click.echo(f"Importing {mul_file} into {library} ...")
    try:
        report = ruleset.import_cards(load_json_file(mul_file), mul_file, library)
    except (DataFileError, OSError) as exc:
        fail(str(exc))
    for name in report.added:
        click.echo(f"  added    {name}")
    for name in report.updated:
        click.echo(f"  updated  {name}")
    for why in report.skipped:
        click.echo(f"  skipped  {why}")
    click.echo(f"{report.summary()}; the library holds {report.cards} records.")
