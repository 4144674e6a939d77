"""Claiming a new station from a phone (station/web/claim.py): the one-time code from the log, or
the station's own machine; the referee's password saved; nobody claims twice."""

import json

import pytest

from station.config import load_config
from station.web.app import create_app
from station.web.claim import Claim

PHONE = {"REMOTE_ADDR": "192.168.1.50"}  # a phone on the club's Wi-Fi, not the station itself


@pytest.fixture
def unclaimed(tmp_path, station):
    path = tmp_path / "config.json"
    config = load_config(path)  # a first start: a token and a claim code
    claim = Claim.of(path)
    assert claim is not None and claim.code == config["claim_code"] and len(claim.code) == 6
    app = create_app(station, config["referee_token"], claim=claim)
    return app, path, config


def test_a_phone_claims_with_the_code_and_sets_the_password(unclaimed):
    app, path, config = unclaimed
    client = app.test_client()
    assert client.get("/api/claim", environ_base=PHONE).get_json() == {"claimed": False, "local": False}
    assert b"claim-code" in client.get("/setup", environ_base=PHONE).data
    wrong = client.post("/api/claim", json={"code": "000000", "password": "long enough"}, environ_base=PHONE)
    assert wrong.status_code == 403 and "claim code" in wrong.get_json()["error"]
    short = client.post("/api/claim", json={"code": config["claim_code"], "password": "short"}, environ_base=PHONE)
    assert short.status_code == 400 and "8 characters" in short.get_json()["error"]
    answer = client.post(
        "/api/claim", json={"code": config["claim_code"], "password": "club night 7"}, environ_base=PHONE
    )
    assert answer.status_code == 200 and answer.get_json()["token"] == "club night 7"
    assert json.loads(path.read_text()) == {"referee_token": "club night 7"}  # the code is gone for good
    assert Claim.of(path) is None  # a restart finds a claimed station
    assert client.get("/api/whoami", headers={"X-Referee-Token": "club night 7"}).status_code == 200
    assert client.get("/api/whoami", headers={"X-Referee-Token": config["referee_token"]}).status_code == 403
    again = client.post("/api/claim", json={"code": config["claim_code"], "password": "mine now!"}, environ_base=PHONE)
    assert again.status_code == 409
    assert client.get("/setup", environ_base=PHONE).status_code == 302  # nothing left to claim
    qr = client.get("/api/referee-qr.svg", headers={"X-Referee-Token": "club night 7"})
    assert qr.status_code == 200 and qr.mimetype == "image/svg+xml"
    assert client.get("/api/referee-qr.svg", environ_base=PHONE).status_code == 401  # the token's QR: referee only


def test_at_the_station_itself_no_code_is_needed_and_the_token_may_stay(unclaimed):
    app, path, config = unclaimed
    client = app.test_client()  # the test client browses from 127.0.0.1
    assert b'id="local"' in client.get("/setup").data
    answer = client.post("/api/claim", json={})
    assert answer.status_code == 200 and answer.get_json()["token"] == config["referee_token"]
    assert json.loads(path.read_text()) == {"referee_token": config["referee_token"]}


def test_guessing_the_code_is_throttled(unclaimed):
    app, path, config = unclaimed
    client = app.test_client()
    codes = [client.post("/api/claim", json={"code": f"{k:06d}"}, environ_base=PHONE).status_code for k in range(7)]
    assert codes[:5] == [403] * 5 and codes[-1] == 429
    right = client.post("/api/claim", json={"code": config["claim_code"]}, environ_base=PHONE)
    assert right.status_code == 429  # even the right code waits out the throttle
    assert "claim_code" in json.loads(path.read_text())


def test_a_station_configured_before_claims_existed_is_claimed(tmp_path, station):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"referee_token": "an old token"}))
    assert Claim.of(path) is None
    client = create_app(station, "an old token", claim=None).test_client()
    assert client.get("/setup").status_code == 302
    assert client.post("/api/claim", json={}).status_code == 409


def test_a_first_start_makes_the_config_once_for_its_owner_alone_and_synced(tmp_path, monkeypatch):
    """The config (token and claim code) is written aside, synced and linked in: mode 0600, no
    temporary file left, the folder synced after the link; a second process starting at the same
    moment (the file appears between its look and its write) keeps the first one's code, which is
    the one on the screen."""
    import os

    from station import datafile

    path = tmp_path / "station" / "config.json"
    synced: list[str] = []
    real_sync = datafile.sync_folder
    monkeypatch.setattr(datafile, "sync_folder", lambda folder: synced.append(str(folder)) or real_sync(folder))
    first = load_config(path)
    assert os.stat(path).st_mode & 0o777 == 0o600 and synced[-1] == str(path.parent)
    assert [p.name for p in path.parent.iterdir()] == ["config.json"]
    real_exists = type(path).exists
    monkeypatch.setattr(type(path), "exists", lambda self: False if self == path else real_exists(self))
    assert load_config(path) == first  # it lost the race: the file as the first process made it
    assert [p.name for p in path.parent.iterdir()] == ["config.json"]
