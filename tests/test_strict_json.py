"""Strict JSON both ways (station/web/strict_json.py): NaN, infinities and absurd numbers are refused
at the boundary naming where they are, and nothing the station writes is JSON a browser cannot read."""

import json

import pytest

from station.devices import protocol as p
from station.journal import Journal
from station.web.strict_json import LARGEST

from .conftest import REFEREE


def _strict(text: str):
    """What a browser's JSON.parse reads: no NaN, no Infinity."""

    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize(
    "method, path, body, field",
    [
        ("put", "/api/terrain", '{"format": "station-terrain/1", "pieces": [{"corners": [[NaN, 0]]}]}',
         "pieces[0].corners[0][0]"),
        ("post", "/api/input", '{"type": "virtual_shot", "args": {"distance": Infinity}}', "args.distance"),
        ("post", "/api/input", '{"type": "virtual_shot", "args": {"distance": -Infinity}}', "args.distance"),
        ("post", "/api/input", '{"type": "virtual_shot", "args": {"distance": 1e300}}', "args.distance"),
        ("post", "/api/dice", '{"sides": 6, "values": [3, 12345678901234567]}', "values[1]"),
    ],
)  # fmt: skip
def test_an_unsafe_number_is_refused_naming_where_it_is_and_changes_nothing(client, station, method, path, body, field):
    before = station.game.snapshot()["records"]
    answer = getattr(client, method)(path, data=body, headers={**REFEREE, "Content-Type": "application/json"})
    assert answer.status_code == 400, answer.data
    said = _strict(answer.data.decode())
    assert said["field"] == field and "not a number the station takes" in said["error"]
    assert station.game.snapshot()["records"] == before


def test_every_answer_of_the_api_is_strict_json(client, station):
    client.post("/api/input", json={"type": "begin_round"}, headers=REFEREE)
    client.post("/api/dice", json={"sides": 6, "values": [2]}, headers=REFEREE)
    read = 0
    for rule in client.application.url_map.iter_rules():
        if "GET" not in rule.methods or rule.arguments or not rule.rule.startswith("/api/"):
            continue
        if rule.rule in ("/api/stream", "/api/referee-qr.svg", "/api/qr.svg", "/api/settings/camera.jpg"):
            continue
        answer = client.get(rule.rule, headers=REFEREE)
        if answer.mimetype == "application/json":
            _strict(answer.data.decode())
            read += 1
    assert read >= 10


def test_the_station_never_writes_a_nan(tmp_path, client):
    with pytest.raises(ValueError):
        client.application.json.dumps({"x": float("nan")})
    journal = Journal(tmp_path / "j.jsonl")
    with pytest.raises(ValueError):
        journal.append("input", type="virtual_shot", args={"distance": float("inf")})
    journal.append("input", type="virtual_shot", args={"distance": LARGEST})
    journal.close()
    assert [_strict(line)["args"] for line in (tmp_path / "j.jsonl").read_text().splitlines()] == [
        {"distance": LARGEST}
    ]


@pytest.mark.parametrize("value", [b"nan", b"inf", b"-inf", b"NaN", b"Infinity"])
def test_a_hub_line_with_a_nan_is_a_bad_field(value):
    with pytest.raises(p.ProtocolError) as err:
        p.decode(p_signed(b"IMPACT 3 node=T1 g=" + value + b" t=5"))
    assert err.value.reason == "field"


def p_signed(body: bytes) -> bytes:
    return body + b"*%04X" % p.crc16(body)
