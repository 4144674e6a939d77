"""Fuzzing the station's inputs (issue 9): army and card files of every game, terrain, calibration
files, session scripts and every JSON API endpoint get random and mutated documents.  Nothing may
crash: each bad input ends in the loader's own named error, or in a 4xx with a JSON message."""

import json
import os
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from station.datafile import DataFileError
from station.measure.terrain import parse_terrain
from station.rules.alpha_strike.army import load_army
from station.rules.base import ArmyError
from station.rules.bronepekhota.army import load_army as load_bronepekhota
from station.rules.bronepekhota_quick.army import load_army as load_quick
from station.rules.price_of_a_mile.army import load_army as load_mile
from station.rules.steel_warriors.army import load_army as load_war
from station.vision.calibration import CalibrationError, load_calibration

from .conftest import REFEREE

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = int(os.environ.get("STATION_FUZZ_EXAMPLES", "150"))  # per property; `make fuzz` runs 1500
FAST = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=10), inner, max_size=5)),
    max_leaves=20,
)


def _paths(doc, here=()):
    yield here
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, here + (k,))
    elif isinstance(doc, list):
        for k, v in enumerate(doc):
            yield from _paths(v, here + (k,))


@st.composite
def mutated(draw, original):
    """A good document with one place replaced by a random value, or removed."""
    doc = json.loads(json.dumps(original))
    paths = [p for p in _paths(doc) if p]
    path = draw(st.sampled_from(paths))
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if draw(st.booleans()) and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = draw(json_values)
    return doc


def _survives(loader, tmp_path, doc, errors=(ArmyError,)):
    path = tmp_path / "input.json"
    path.write_text(json.dumps(doc, allow_nan=True))
    try:
        loader(path)
    except errors as exc:
        assert str(path) in str(exc), exc  # it names the file


GAMES = [
    (load_bronepekhota, ROOT / "examples" / "blue-protectorate.json"),
    (load_quick, ROOT / "station" / "data" / "quick" / "blue-patrol.json"),
    (load_army, ROOT / "station" / "data" / "alpha_strike" / "training-day-attacker.json"),
    (load_mile, ROOT / "station" / "data" / "price_of_a_mile" / "entente.json"),
    (load_war, ROOT / "station" / "data" / "steel_warriors" / "keno.json"),
]


@pytest.mark.parametrize(
    "loader, sample", GAMES, ids=["bronepekhota", "quick", "alpha_strike", "price_of_a_mile", "steel_warriors"]
)
def test_army_files_mutated_get_named_errors(tmp_path, loader, sample):
    original = json.loads(sample.read_text())

    @FAST
    @given(st.one_of(mutated(original), json_values))
    def check(doc):
        _survives(loader, tmp_path, doc)

    check()


def test_alpha_strike_inline_cards_and_mul_records_get_named_errors(tmp_path):
    card = {
        "id": "x",
        "card": {
            "name": "T",
            "size": 2,
            "tmm": 1,
            "move_in": 10,
            "damage": {"S": "2", "M": "2", "L": "0*"},
            "overheat": 1,
            "armour": 3,
            "structure": 3,
            "specials": ["CASE", "REAR 1/1/-"],
        },
    }
    mul = {
        "id": "y",
        "mul": {
            "Name": "L",
            "BFType": "BM",
            "BFSize": 1,
            "BFTMM": 3,
            "BFMove": '16"',
            "BFArmor": 2,
            "BFStructure": 2,
            "BFDamageShort": 1,
            "BFDamageMedium": 1,
            "BFDamageLong": 0,
            "BFDamageLongMin": True,
            "BFAbilities": "ENE, TUR(1/1/1)",
        },
    }
    original = {"format": "alpha-strike-force/1", "player": "p", "units": [card, mul]}

    @FAST
    @given(mutated(original))
    def check(doc):
        _survives(load_army, tmp_path, doc)

    check()


def test_terrain_documents_get_named_errors():
    original = json.loads((ROOT / "station" / "data" / "demo" / "terrain.json").read_text())

    @FAST
    @given(st.one_of(mutated(original), json_values))
    def check(doc):
        try:
            parse_terrain(doc, "the fuzzed terrain")
        except DataFileError as exc:  # terrain is a data file, not an army
            assert "the fuzzed terrain" in str(exc)

    check()


def test_calibration_files_get_named_errors(tmp_path):
    original = {
        "format": "station-calibration/1",
        "created": "2026-11-21T10:00:00+00:00",
        "lens": {
            "image_size": [1280, 720],
            "K": [[900, 0, 640], [0, 900, 360], [0, 0, 1]],
            "dist": [0, 0, 0, 0, 0],
            "rms_px": 0.4,
            "views": 12,
        },
        "table": {
            "R": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
            "t": [0, 0, 900],
            "size_mm": [1200, 900],
            "anchors": [],
            "residuals_mm": {"0": 0.5},
        },
    }

    @FAST
    @given(st.one_of(mutated(original), json_values))
    def check(doc):
        _survives(load_calibration, tmp_path, doc, (CalibrationError,))

    check()


WRITERS = [
    ("post", "/api/input"),
    ("post", "/api/dice"),
    ("put", "/api/terrain"),
    ("post", "/api/rulings/1:x/confirm"),
    ("post", "/api/rulings/1:x/override"),
    ("post", "/api/login"),
]
READERS = ["/api/measure", "/api/reach", "/api/events", "/api/rulings/{}/picture.svg"]


def test_every_json_endpoint_answers_bad_bodies_with_a_4xx(client):
    @FAST
    @given(st.sampled_from(WRITERS), json_values, st.booleans())
    def check(endpoint, body, raw):
        method, path = endpoint
        text = json.dumps(body)  # Python's JSON: NaN and Infinity too, which the station must refuse
        kwargs = {"data": text[::-1] if raw else text, "content_type": "application/json"}
        response = getattr(client, method)(path, headers=REFEREE, **kwargs)
        assert response.status_code < 500, (path, body, response.data[:200])
        if response.status_code >= 400:
            assert "error" in response.get_json()

    check()


def test_every_reading_endpoint_answers_odd_queries_without_crashing(client):
    @FAST
    @given(
        st.sampled_from(READERS),
        st.dictionaries(
            st.sampled_from(["a", "b", "kind", "element", "since", "limit"]), st.text(max_size=12), max_size=4
        ),
        st.text(max_size=12),
    )
    def check(path, query, ruling):
        response = client.get(path.format(quote(ruling, safe="") or "x"), query_string=query)
        assert response.status_code < 500, (path, query, response.data[:200])

    check()


@pytest.mark.parametrize(
    "change",
    [
        {
            "table": {
                "R": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
                "t": [0, 0, 900],
                "size_mm": [1200, 900],
                "anchors": [],
                "residuals_mm": None,
            }
        },  # found by the fuzzer: an AttributeError escaped
    ],
)
def test_regressions_calibration(tmp_path, change):
    doc = {
        "format": "station-calibration/1",
        "lens": {
            "image_size": [1280, 720],
            "K": [[900, 0, 640], [0, 900, 360], [0, 0, 1]],
            "dist": [0, 0, 0, 0, 0],
            "rms_px": 0.4,
        },
        **change,
    }
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(CalibrationError, match="damaged calibration"):
        load_calibration(path)


# -- what a club's broker can carry (station/tournament/messages.py, subscriber.py) ---------------
good_record = st.fixed_dictionaries(
    {
        "journal": st.just("g.jsonl"),
        "record": st.fixed_dictionaries(
            {"seq": st.integers(1, 10**6), "kind": st.sampled_from(["rx", "game", "end", "judge"])},
            optional={"armies": json_values, "winner": json_values, "note": json_values, "wall": json_values},
        ),
    }  # fmt: skip
)
payloads = st.one_of(
    st.binary(max_size=200),
    json_values.map(lambda v: json.dumps(v).encode()),
    mutated({"journal": "g.jsonl", "record": {"seq": 3, "kind": "end", "winner": "red"}}).map(
        lambda v: json.dumps(v).encode()
    ),
    good_record.map(lambda v: json.dumps(v).encode()),
    st.integers(1, 5000).map(lambda n: b"[" * n + b"]" * n),
)
topics = st.one_of(
    st.sampled_from(["station/t1/records", "station/t1/state", "station/t1/health"]),
    st.text(max_size=30),
    st.builds(
        lambda table, what: f"station/{table}/{what}", st.text(max_size=8), st.sampled_from(["records", "health"])
    ),
)


def test_no_broker_message_raises_out_of_the_tournament(tmp_path):
    from station.tournament.store import Store
    from station.tournament.subscriber import Subscriber

    store = Store(tmp_path / "t.sqlite")
    subscriber = Subscriber.__new__(Subscriber)  # its taking, without a broker
    subscriber.store = store

    @FAST
    @given(topics, payloads)
    def check(topic, payload):
        subscriber.take(topic, payload)  # kept or set aside; nothing else

    check()
    kept, aside = store.counters().get("records", 0), store.counters().get("malformed", 0)
    assert kept + aside > 0 and len(store.rejects()) == min(aside, 1000)


# -- a data folder as a club leaves it (station/lobby/entries.py) -----------------------------------
entries = st.lists(
    st.tuples(
        st.sampled_from(["journals", "armies/bronepekhota"]),
        st.sampled_from(["a.jsonl", "b.jsonl", "a.json", "b.json"]),
        st.sampled_from(["bytes", "journal", "link-out", "dangling", "loop", "fifo", "folder"]),
        st.binary(max_size=64),
    ),
    max_size=6,
)


def test_no_data_folder_takes_the_lobby_down(tmp_path):
    from station.lobby.lobby import Lobby

    demo = (ROOT / "tests" / "data" / "sessions" / "demo.jsonl").read_bytes()
    runs = iter(range(10**9))

    @FAST
    @given(entries)
    def check(made):
        data = tmp_path / f"run-{next(runs)}"
        for folder, name, kind, content in made:
            path = data / folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.exists() or path.is_symlink():
                continue
            if kind == "bytes":
                path.write_bytes(content)
            elif kind == "journal":
                path.write_bytes(demo[: len(content) * 97] if content else demo)
            elif kind == "link-out":
                path.symlink_to("/etc/hostname")
            elif kind == "dangling":
                path.symlink_to(data / "nowhere")
            elif kind == "loop":
                path.symlink_to(path)
            elif kind == "fifo":
                os.mkfifo(path)
            else:
                path.mkdir()
        lobby = Lobby(data / "journals", data / "armies")
        try:
            for game in lobby.history.games():
                assert game.path.is_file() and not game.path.is_symlink()
            for army in lobby.shelf.armies("bronepekhota"):
                assert not army.path.is_symlink()
            lobby.status()
        finally:
            lobby.close()

    check()
