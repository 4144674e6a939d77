"""The club's own card library: Master Unit List records imported once, then named in force files
by MUL id (``"mul_id": 140``) or by full name (``"card": "Atlas AS7-D"``).

It is one JSON file in the station's data directory (``$STATION_DATA``, default ``./data``),
holding the records as the MUL gave them, so a later fix to the importer applies to cards already
imported.  A force file's header in the journal keeps the resolved card, so a replay never needs
the library.  The lobby's army builder reads it through ``CardLibrary`` too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ...datafile import DataFileError, Fields, data_dir, load_json_file, one_writer, write_text_atomic
from ..base import ArmyError
from ..ruleset import ImportReport
from .cards import Card
from .mul import parse_mul

LIBRARY_FORMAT = "alpha-strike-mul-library/1"
LIBRARY_FILE = "alpha-strike-library.json"


def records_of(data: Any, source: str) -> list[Any]:
    """The records of a pasted MUL response: ``{"Units": [...]}``, a list, or one record."""
    if isinstance(data, Mapping) and isinstance(data.get("Units"), list):
        return list(data["Units"])
    if isinstance(data, list):
        return data
    if isinstance(data, Mapping) and "BFMove" in data:
        return [data]
    raise DataFileError(
        source, "top level", 'expected a MUL response {"Units": [...]}, a list of records or one record'
    )


class CardLibrary:
    """Imported MUL records by id, read from and written to one JSON file (atomically)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else data_dir() / LIBRARY_FILE
        self.records: dict[int, dict[str, Any]] = self._read()

    def _read(self) -> dict[int, dict[str, Any]]:
        if not self.path.exists():
            return {}
        data = load_json_file(self.path, ArmyError)
        f = Fields(str(self.path), data, error=ArmyError)
        f.get("format", str, check=lambda v: None if v == LIBRARY_FORMAT else f"expected {LIBRARY_FORMAT!r}")
        return {int(r["Id"]): r for r in f.get("records", list)}

    def cards(self) -> dict[int, Card]:
        """Every card, by MUL id (a record that no longer parses is left out, and named by ``check``)."""
        return {mul_id: card for mul_id, card in self._parsed() if card is not None}

    def _parsed(self) -> Iterable[tuple[int, Card | None]]:
        for mul_id, record in self.records.items():
            try:
                yield mul_id, parse_mul(Fields(str(self.path), record, f"records[Id={mul_id}]", ArmyError))
            except ArmyError:
                yield mul_id, None

    def by_id(self, mul_id: int) -> Card | None:
        record = self.records.get(mul_id)
        return None if record is None else parse_mul(Fields(str(self.path), record, f"records[Id={mul_id}]", ArmyError))

    def by_name(self, name: str) -> Card | None:
        return next((card for card in self.cards().values() if card.name == name), None)

    def add(self, records: Iterable[Any], source: str) -> ImportReport:
        """Import records (each checked; a bad or card-less one is skipped and said why), then
        save: under the file's writers' lock, on the library as it is on disk then, so two imports
        at once keep both."""
        with one_writer(self.path):
            self.records = self._read()
            return self._add(records, source)

    def _add(self, records: Iterable[Any], source: str) -> ImportReport:
        report = ImportReport()
        for index, record in enumerate(records):
            label = _label(record, index)
            try:
                card = parse_mul(Fields(source, record, f"Units[{index}]", ArmyError))
            except ArmyError as exc:
                report.skipped.append(f"{label}: {exc.where}: {exc.problem}")
                continue
            if card.mul_id is None:
                report.skipped.append(f"{label}: no MUL Id, so a force file could not name it")
                continue
            (report.updated if card.mul_id in self.records else report.added).append(f"{card.mul_id} {card.name}")
            self.records[card.mul_id] = dict(record)
        self.save()
        report.cards = len(self.records)
        return report

    def save(self) -> None:
        text = json.dumps(
            {"format": LIBRARY_FORMAT, "records": [self.records[k] for k in sorted(self.records)]},
            ensure_ascii=False,
            indent=1,
        )
        write_text_atomic(self.path, text)


def _label(record: Any, index: int) -> str:
    if isinstance(record, Mapping):
        return f"record {index + 1} (Id {record.get('Id', '?')}, {str(record.get('Name') or '?').strip()})"
    return f"record {index + 1}"
