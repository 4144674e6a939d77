"""A pulled plug loses nothing the station acknowledged (issue 53, item 3), at the process level:
an evening's writes (tests/sim/powercut_writes.py) are recorded with strace, and at every point of
that record the files are rebuilt as a power cut could leave them, after ALICE (tests/sim/powercut.py
says how, under two models of what a file system keeps).  At each cut the station's own readers
must load every file, and find every record and every version it had acknowledged."""

import shutil
import sys
from pathlib import Path

import pytest

from station.config import load_config
from station.journal import Journal
from station.lobby.armies import ArmyShelf
from station.lobby.backup import write_backup
from station.lobby.settings import load_settings
from station.vision.calibration import load_calibration
from tests.sim.powercut import MODELS, cuts, materialize, record
from tests.sim.powercut_writes import ARMY, JOURNAL_RECORDS, TABLES


@pytest.fixture(scope="module")
def evening(tmp_path_factory):
    """The evening's writes recorded once: (the calls, its root, the acks file, the archive's files)."""
    folder = tmp_path_factory.mktemp("power-cut")
    club = folder / "club"
    (club / "armies" / "bronepekhota").mkdir(parents=True)
    shutil.copy(ARMY, club / "armies" / "bronepekhota" / "старая.json")
    (club / "journals").mkdir()
    (club / "journals" / "played.jsonl").write_text('{"seq": 1, "kind": "note", "text": "сыграно"}\n', encoding="utf-8")
    archive = folder / "backup.tar.gz"
    with open(archive, "wb") as out:
        write_backup(out, club, club, club / "no-calibration.json")
    root, acks = folder / "station", folder / "acks"
    root.mkdir()
    calls = record(
        [sys.executable, "-m", "tests.sim.powercut_writes", str(root), str(acks), str(archive)],
        folder / "trace",
    )
    restored = {
        "journals/played.jsonl": (club / "journals" / "played.jsonl").read_bytes(),
        "armies/bronepekhota/старая.json": ARMY.read_bytes(),
    }
    return calls, root, acks, restored, folder


def _acked(marks):
    said = {}
    for mark in marks:
        what, version = mark.split()
        said[what] = max(said.get(what, 0), int(version))
    return said


def _config(cut: Path, version: int, _restored) -> str | None:
    path = cut / "config.json"
    if not path.exists():
        return "config.json is gone"
    config = load_config(path)
    if "claim_code" in config:  # the first start's, on the screen until the claim replaces it
        return None if version == 0 else "config.json went back to the first start's"
    token = config["referee_token"]
    return f"config.json went back to {token}" if int(token.rsplit("-", 1)[1]) < version else None


def _settings(cut: Path, version: int, _restored) -> str | None:
    pairs = load_settings(cut / "data").dice_pairs
    return (
        f"settings.json went back to {pairs}"
        if int(pairs.get("pixels-1", "player-0").split("-")[1]) < version
        else None
    )


def _journal(cut: Path, records: int, _restored) -> str | None:
    path = cut / "data" / "journals" / "game.jsonl"
    if not path.exists():
        return "the journal is gone"
    journal = Journal(path)  # the station's own opening: a torn tail cut off
    seqs = [r["seq"] for r in journal.records]
    journal.close()
    return (
        None
        if seqs[:records] == list(range(1, records + 1))
        else f"the journal holds {len(seqs)} of {records} acknowledged"
    )


def _army(cut: Path, version: int, _restored) -> str | None:
    shelf = ArmyShelf(cut / "data" / "armies")
    names = [
        shelf.load("bronepekhota", a.id)["name"] for a in shelf.armies("bronepekhota") if a.id.startswith("saved:")
    ]
    return None if names and int(names[0].split()[-1]) >= version else f"the saved army is {names or 'gone'}"


def _calibration(cut: Path, version: int, _restored) -> str | None:
    path = cut / "calibration" / "table.json"
    table = tuple(load_calibration(path).table_mm) if path.exists() else None
    return None if table in TABLES[version - 1 :] else f"the calibration is {table or 'gone'}"


def _restore(cut: Path, _version: int, restored: dict[str, bytes]) -> str | None:
    for name, content in restored.items():
        path = cut / "fresh" / "data" / name
        if not path.exists() or path.read_bytes() != content:
            return f"the restored {name} is {'gone' if not path.exists() else 'not whole'}"
    return None


CHECKS = {
    "config": _config,
    "settings": _settings,
    "journal": _journal,
    "army": _army,
    "calibration": _calibration,
    "restore": _restore,
}


def _check(cut: Path, acked: dict[str, int], restored: dict[str, bytes]) -> list[str]:
    """What the station's readers find wrong in the cut's files, given what it had acknowledged."""
    wrong = []
    for what, version in acked.items():
        try:
            said = CHECKS[what](cut, version, restored)
        except Exception as exc:  # noqa: BLE001 - a reader that cannot load a file is what is checked
            said = f"{what}: {type(exc).__name__}: {exc}"
        if said:
            wrong.append(said)
    return wrong


@pytest.mark.parametrize("model", MODELS)
def test_every_cut_of_an_evening_keeps_what_was_acknowledged(evening, model, tmp_path):
    calls, root, acks, restored, _ = evening
    checked, lost = 0, []
    for k, marks, kept in cuts(calls, root, acks, model):
        cut = tmp_path / f"cut-{k}"
        materialize(kept, root, cut, model)
        acked = _acked(marks)
        wrong = _check(cut, acked, restored)
        lost += [f"cut after call {k} ({calls[k].name}), acknowledged {acked}: {w}" for w in wrong]
        shutil.rmtree(cut)
        checked += 1
    assert checked > 100  # the record is an evening's, not a stub's
    assert _acked(marks)["journal"] == JOURNAL_RECORDS and "restore" in _acked(marks)  # the writes all ran
    assert not lost, f"{len(lost)} of {checked} cuts lose something:\n" + "\n".join(lost[:20])
