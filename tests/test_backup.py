"""Backup and restore from the settings page (issue 53, item 4; station/lobby/backup.py): a backup
restored onto a fresh card gives the same history, armies, settings and calibration; a damaged or
hostile archive is refused by name with nothing written; a card's own different file is never
overwritten; and only the referee, between games, may do either."""

import io
import json
import os
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request

import pytest

from station.lobby.backup import MANIFEST
from station.lobby.lobby import Lobby
from station.lobby.settings import Settings, load_settings, save_settings
from station.web.app import create_app
from station.web.server import DashboardServer
from tests.conftest import EXAMPLES, ROOT
from tests.test_bodies import MB, _ask, _head

TOKEN = "backup-token"
REFEREE = {"X-Referee-Token": TOKEN}
SESSIONS = ROOT / "tests" / "data" / "sessions"


@pytest.fixture(autouse=True)
def _data_folder_env(monkeypatch):
    monkeypatch.setenv("STATION_DATA", os.environ.get("STATION_DATA", "data"))


def _card(folder, monkeypatch):
    """A station's card: its data folder and, where the service runs, its calibration."""
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)  # the calibration path is the service's working folder's
    lobby = Lobby(folder / "data" / "journals", folder / "data" / "armies")
    return lobby, create_app(lobby, TOKEN).test_client()


@pytest.fixture
def club(tmp_path, monkeypatch):
    lobby, client = _card(tmp_path / "club", monkeypatch)
    data = tmp_path / "club" / "data"
    (data / "journals").mkdir(parents=True)
    for name in ("demo.jsonl", "training-day.jsonl"):
        shutil.copy(SESSIONS / name, data / "journals" / f"played-{name}")
    (data / "armies" / "bronepekhota").mkdir(parents=True)
    shutil.copy(EXAMPLES / "blue-protectorate.json", data / "armies" / "bronepekhota" / "армия-ивана.json")
    (tmp_path / "club" / "calibration").mkdir()
    (tmp_path / "club" / "calibration" / "table.json").write_text('{"table_mm": [1219.2, 1219.2]}')
    save_settings(data, Settings().changed({"dice": True, "dice_pairs": {"pixels-5eed0001": "red"}}))
    yield lobby, client
    lobby.close()


def _backup(client):
    answer = client.get("/api/backup", headers=REFEREE)
    assert answer.status_code == 200 and answer.mimetype == "application/gzip"
    assert "station-backup-" in answer.headers["Content-Disposition"]
    return answer.data


def _what_it_holds(lobby):
    return (
        sorted((g.name, g.records, g.rulings) for g in lobby.history.games()),
        sorted(a.path.name for a in lobby.shelf.armies("bronepekhota") if a.id.startswith("saved:")),
        (lobby.folder / "settings.json").read_text() if (lobby.folder / "settings.json").exists() else None,
    )


def test_a_backup_restored_onto_a_fresh_card_holds_the_same(club, tmp_path, monkeypatch):
    lobby, client = club
    archive = _backup(client)
    before = _what_it_holds(lobby)
    assert len(before[0]) == 2 and before[1] == ["армия-ивана.json"]
    fresh, fresh_client = _card(tmp_path / "fresh", monkeypatch)
    try:
        assert _what_it_holds(fresh)[0] == []
        answer = fresh_client.post(
            "/api/restore", data=archive, headers={**REFEREE, "Content-Type": "application/gzip"}
        )
        assert answer.status_code == 200, answer.get_json()
        said = answer.get_json()
        assert said["written"] == 5 and said["kept"] == [] and said["station"]  # 2 games, 1 army, settings, calibration
        assert _what_it_holds(fresh) == before
        assert (tmp_path / "fresh" / "calibration" / "table.json").read_text() == '{"table_mm": [1219.2, 1219.2]}'
        assert fresh.settings is not None and fresh.settings.dice_pairs == {"pixels-5eed0001": "red"}  # in force
        again = fresh_client.post("/api/restore", data=archive, headers=REFEREE).get_json()
        assert (again["written"], again["same"], again["kept"]) == (0, 5, [])  # twice is harmless
    finally:
        fresh.close()


def _rewritten(archive, change):
    """The archive with ``change(name, bytes) -> (name, bytes) | None`` applied to each member."""
    out = io.BytesIO()
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as old, tarfile.open(fileobj=out, mode="w:gz") as new:
        for member in old.getmembers():
            data = old.extractfile(member).read()
            changed = change(member.name, data)
            if changed is None:
                continue
            info = tarfile.TarInfo(changed[0])
            info.size = len(changed[1])
            new.addfile(info, io.BytesIO(changed[1]))
    return out.getvalue()


@pytest.mark.parametrize(
    "change, said",
    [
        (
            lambda n, d: (n, d[:-2] + b"X\n") if n.endswith("played-demo.jsonl") else (n, d),
            "played-demo.jsonl: its contents",
        ),
        (lambda n, d: None if n == MANIFEST else (n, d), "MANIFEST.json: missing"),
        (
            lambda n, d: None if n.endswith("армия-ивана.json") else (n, d),
            "армия-ивана.json: in the archive or its manifest",
        ),
        (lambda n, d: ("data/../../escaped.json", d) if n.endswith("армия-ивана.json") else (n, d), "escaped.json"),
        (lambda n, d: (n, b"[]") if n == MANIFEST else (n, d), "a JSON list, not an object"),
    ],
    ids=["damaged", "no-manifest", "file-missing", "path-outside", "manifest-a-list"],
)
def test_an_archive_that_is_not_whole_is_refused_by_name_and_nothing_is_written(
    club, tmp_path, monkeypatch, change, said
):
    lobby, client = club
    archive = _rewritten(_backup(client), change)
    fresh, fresh_client = _card(tmp_path / "fresh", monkeypatch)
    try:
        answer = fresh_client.post("/api/restore", data=archive, headers=REFEREE)
        assert answer.status_code == 400 and said in answer.get_json()["error"], answer.get_json()
        assert answer.get_json()["field"] == "backup"
        written = [p for p in (tmp_path / "fresh").rglob("*") if p.is_file()]
        assert written == [] and not (tmp_path / "escaped.json").exists()
    finally:
        fresh.close()
    garbage = client.post("/api/restore", data=b"not an archive", headers=REFEREE)
    assert garbage.status_code == 400 and "not a station backup" in garbage.get_json()["error"]


def test_a_card_s_own_different_file_is_kept_never_overwritten(club, tmp_path, monkeypatch):
    lobby, client = club
    archive = _backup(client)
    journal = tmp_path / "club" / "data" / "journals" / "played-demo.jsonl"
    mine = journal.read_bytes() + b'{"seq": 99999}\n'
    journal.write_bytes(mine)  # the card played on after the backup
    said = client.post("/api/restore", data=archive, headers=REFEREE).get_json()
    assert said["kept"] == ["data/journals/played-demo.jsonl"] and said["written"] == 0 and said["same"] == 4
    assert journal.read_bytes() == mine


def test_only_the_referee_between_games(club):
    lobby, client = club
    assert client.get("/api/backup").status_code == 401
    assert client.post("/api/restore", data=b"x").status_code == 401
    archive = _backup(client)
    started = client.post(
        "/api/games",
        json={
            "game": "bronepekhota",
            "armies": ["sample:blue-protectorate.json", "sample:red-polaris.json"],
            "force": True,
            "note": "t",
        },
        headers=REFEREE,
    )
    assert started.status_code == 201, started.get_json()
    assert client.get("/api/backup", headers=REFEREE).status_code == 200  # a backup during a game is fine
    refused = client.post("/api/restore", data=archive, headers=REFEREE)
    assert refused.status_code == 409 and "end the game first" in refused.get_json()["error"]
    assert load_settings(lobby.folder).dice_pairs == {"pixels-5eed0001": "red"}
    assert json.loads((lobby.folder / "settings.json").read_text())["dice"] is True


def test_a_link_in_the_archive_is_refused(club, tmp_path, monkeypatch):
    lobby, client = club
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        link = tarfile.TarInfo("data/journals/x.jsonl")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
    answer = client.post("/api/restore", data=out.getvalue(), headers=REFEREE)
    assert answer.status_code == 400 and "not a plain file" in answer.get_json()["error"]
    assert not (lobby.data / "journals" / "x.jsonl").exists()


def test_an_archive_cut_short_is_refused(club):
    lobby, client = club
    archive = _backup(client)
    answer = client.post("/api/restore", data=archive[: len(archive) // 2], headers=REFEREE)
    assert answer.status_code == 400 and "cut short or damaged" in answer.get_json()["error"]


def test_a_club_sized_backup_restores_through_the_station_s_own_server_spooled_to_its_card(club, tmp_path, monkeypatch):
    """Under ``station serve`` the server's parser caps other bodies at 1 MiB and keeps them in
    memory; a restore is the referee's, up to 4 GB, and past 1 MiB goes to a file on the card's
    own folder, never the temporary folder (memory on many a Pi)."""
    lobby, client = club
    photo = os.urandom(3 * MB)  # does not compress: the archive is over 3 MiB
    (lobby.data / "photos").mkdir(parents=True)
    (lobby.data / "photos" / "стол.jpg").write_bytes(photo)
    archive = _backup(client)
    assert len(archive) > 3 * MB
    spooled = []
    temporary_file = tempfile.TemporaryFile

    def noted(*args, **kwargs):
        spooled.append(kwargs.get("dir"))
        return temporary_file(*args, **kwargs)

    monkeypatch.setattr(tempfile, "TemporaryFile", noted)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-temporary-files-here"))  # missing: any use fails
    fresh, _ = _card(tmp_path / "fresh", monkeypatch)
    server = DashboardServer(fresh, TOKEN, port=0).start()
    try:
        status, said, _ = _ask(server.port, _head("/api/restore", len(archive)), archive)
        assert status == 413 and "needs the referee's token" in said["error"]  # a spectator's, from the headers
        status, said, _ = _ask(
            server.port, _head("/api/restore", 4 * 1024**3 + 1, f"X-Referee-Token: {TOKEN}"), send_body=False
        )
        assert status == 413 and "larger than" in said["error"]  # past 4 GB, before a byte is read
        request = urllib.request.Request(
            f"{server.url}/api/restore",
            data=archive,
            method="POST",
            headers={**REFEREE, "Content-Type": "application/gzip"},
        )
        with urllib.request.urlopen(request, timeout=60) as answer:
            said = json.loads(answer.read())
        assert said["written"] == 6 and said["kept"] == [], said  # the photo with the five of the club
        assert (fresh.data / "photos" / "стол.jpg").read_bytes() == photo
        assert _what_it_holds(fresh) == _what_it_holds(lobby)
        assert spooled and all(folder == fresh.folder for folder in spooled), spooled  # the server's and the view's
        status, said, _ = _ask(
            server.port, _head("/api/dice", len(archive), f"X-Referee-Token: {TOKEN}"), send_body=False
        )
        assert status == 413 and "larger than 1024 kB" in said["error"]  # any other body still stops at 1 MiB
    finally:
        server.stop()
        fresh.close()
