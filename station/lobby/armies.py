"""The armies a referee can start a game with: the bundled samples, used as templates, and the
club's own, saved in the data directory (``<data>/armies/<game>/<name>.json``).

An army is saved only after the game's own loader accepted it, so a file on the shelf always
loads; a refused one is reported with the field the loader named, and nothing is written.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..datafile import DataFileError, load_json_file, one_writer, write_text_atomic
from ..dice import DiceBook
from ..rules.registry import RULESETS, make_ruleset
from ..session import load_session
from .entries import Skipped

SAMPLE, SAVED = "sample", "saved"
NAME_CHARS = re.compile(r"[^\w.-]+")  # letters (Cyrillic too), digits, "_", "." and "-"
NAME_MAX = 60


class ShelfError(ValueError):
    """A request for an army the shelf cannot answer: an unknown game or army, or a bad name."""


@dataclass(frozen=True)
class Army:
    """One army on the shelf, as the new-game form lists it."""

    id: str  # "sample:<file>" or "saved:<file>": what the form sends back
    game: str
    player: str
    name: str
    path: Path
    broken: str | None = None  # why a saved file cannot be read: listed, so the referee sees it

    @property
    def sample(self) -> bool:
        return self.id.startswith(SAMPLE + ":")

    def as_dict(self) -> dict[str, Any]:
        said = {"id": self.id, "game": self.game, "player": self.player, "name": self.name, "sample": self.sample}
        return {**said, "broken": self.broken} if self.broken else said


def safe_name(name: str) -> str:
    """A file name from what the referee typed: no folders, no dots in front, at most 60 chars."""
    cleaned = NAME_CHARS.sub("-", name.strip()).strip(".-")[:NAME_MAX]
    if not cleaned:
        raise ShelfError(f"{name!r} cannot name a file; use letters and digits")
    return cleaned


def _bundled_samples() -> dict[str, list[Path]]:
    """Each game's sample armies: the ones its bundled session scripts play."""
    found: dict[str, list[Path]] = {}
    root = Path(str(resources.files("station") / "data"))
    for script in sorted(root.glob("*/*session.json")):
        session = load_session(script)
        paths = found.setdefault(session.game, [])
        paths.extend(p for p in session.army_paths if p not in paths)
    return found


def _describe(game: str, id_: str, path: Path) -> Army:
    """One army as the menu lists it; a file that does not read is listed as broken, with why,
    and costs only itself."""
    try:
        data = load_json_file(path)
    except DataFileError as exc:
        return Army(id_, game, "?", path.stem, path, broken=f"{exc.where}: {exc.problem}")
    data = data if isinstance(data, dict) else {}
    return Army(id_, game, str(data.get("player", "?")), str(data.get("name", path.stem)), path)


class ArmyShelf:
    """Sample and saved armies for every game."""

    def __init__(self, folder: Path, skipped: Skipped | None = None) -> None:
        self.folder = folder
        self.skipped = skipped or Skipped()
        self._samples = _bundled_samples()

    def _game(self, game: str) -> str:
        if game not in RULESETS:
            raise ShelfError(f"unknown game {game!r}; expected one of {', '.join(sorted(RULESETS))}")
        return game

    def armies(self, game: str) -> list[Army]:
        self._game(game)
        samples = [_describe(game, f"{SAMPLE}:{p.name}", p) for p in self._samples.get(game, [])]
        saved_dir = self.folder / game
        files = self.skipped.regular_files(
            f"armies/{game}", sorted(saved_dir.glob("*.json")) if saved_dir.is_dir() else []
        )
        return [_describe(game, f"{SAVED}:{p.name}", p) for p in files] + samples

    def find(self, game: str, army_id: str) -> Army:
        army = next((a for a in self.armies(game) if a.id == army_id), None)
        if army is None:
            raise ShelfError(f"no army {army_id!r} for {game}")
        return army

    def load(self, game: str, army_id: str) -> dict[str, Any]:
        """The army as the game's loader reads it (what a new game's header keeps)."""
        return make_ruleset(game, DiceBook()).load_army(str(self.find(game, army_id).path))

    def document(self, game: str, army_id: str) -> Any:
        """The army's file as written, for the editor to start from."""
        return load_json_file(self.find(game, army_id).path)

    def check(self, game: str, document: Any, label: str) -> dict[str, Any]:
        """Load ``document`` with the game's own loader, as if it were the file ``label``: the
        army it makes, or the loader's error naming ``label`` and the field."""
        self._game(game)
        scratch = self.folder / ".checking"
        scratch.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=scratch, suffix=".json")  # its own file: checks at once never mix
        path = Path(name)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(document, out, ensure_ascii=False, indent=1)
        try:
            return make_ruleset(game, DiceBook()).load_army(str(path))
        except DataFileError as exc:
            raise type(exc)(label, exc.where, exc.problem) from None
        finally:
            path.unlink(missing_ok=True)

    def clash(self, game: str, army_id: str, alongside: Sequence[str]) -> DataFileError | None:
        """Why the army cannot meet those chosen beside it, as it is (an id or a player they
        share): the game's own check across armies, its error blamed on this army; else None.
        An army beside it that no longer loads is left out: the lobby says so when it starts."""
        others = []
        for other in alongside:
            if other != army_id:
                try:
                    others.append(self.load(game, other))
                except (DataFileError, ShelfError):
                    continue
        if not others:
            return None
        mine = self.load(game, army_id)
        try:
            make_ruleset(game, DiceBook()).initial_state([*others, mine], {})
        except DataFileError as exc:
            return exc if exc.path == mine["source"] else None
        return None

    def save(self, game: str, name: str, document: Any) -> Army:
        """Keep an army the loader accepts as ``<name>.json`` (replacing one of that name)."""
        file_name = safe_name(name) + ".json"
        path = self.folder / self._game(game) / file_name  # checked before anything touches the disk
        with one_writer(path):  # checked and written in turn: the last valid save is the file
            self.check(game, document, file_name)
            write_text_atomic(path, json.dumps(document, ensure_ascii=False, indent=1))
        return _describe(game, f"{SAVED}:{file_name}", path)
