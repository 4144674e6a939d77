"""Terrain, table snapshots from a session, and the selected model's reach, through the API."""

import json

import pytest

from station.fold import fold
from station.journal import read_records
from station.session import load_session

from .conftest import REFEREE as REF

WALL = {
    "format": "station-terrain/1",
    "pieces": [
        {
            "id": "wall",
            "type": "building",
            "height_mm": 150,
            "polygon": [[590, 100], [610, 100], [610, 500], [590, 500]],
        }
    ],
}


def _table(*units):
    return {
        "table_mm": [1200, 900],
        "units": [
            {"element": e, "x_mm": x, "y_mm": y, "facing_deg": f, "status": "up", "confidence": 1.0}
            for e, x, y, f in units
        ],
    }


def test_terrain_is_read_by_anyone_and_set_only_by_the_referee(client, station):
    assert client.get("/api/terrain").get_json()["pieces"] == []
    assert client.put("/api/terrain", json=WALL).status_code == 401
    assert client.put("/api/terrain", json=WALL, headers={"X-Referee-Token": "nope"}).status_code == 403
    response = client.put("/api/terrain", json=WALL, headers=REF)
    assert response.status_code == 200 and response.get_json()["changed"] is True
    assert client.put("/api/terrain", json=WALL, headers=REF).get_json()["changed"] is False  # the same again
    assert client.get("/api/terrain").get_json()["pieces"][0]["id"] == "wall"
    records = read_records(station.journal.path)
    assert [r["by"] for r in records if r["kind"] == "terrain"] == ["dashboard"]
    assert json.loads(fold(records).state_json())["terrain"] == ["wall"]  # the fold knows it too


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["pieces"][0].update(type="lava"), "pieces[0].type"),
        (lambda d: d["pieces"][0].update(height_mm=-1), "pieces[0].height_mm"),
        (lambda d: d["pieces"][0].update(polygon=[[0, 0], [10, 10], [10, 0], [0, 10]]), "crosses itself"),
        (lambda d: d.update(format="terrain/9"), "format"),
        (lambda d: d.update(extra=1), "extra"),
    ],
)
def test_a_bad_terrain_is_refused_with_the_field_and_changes_nothing(client, station, change, message):
    document = json.loads(json.dumps(WALL))
    change(document)
    before = len(read_records(station.journal.path))
    response = client.put("/api/terrain", json=document, headers=REF)
    assert response.status_code == 400 and message in response.get_json()["error"]
    assert len(read_records(station.journal.path)) == before
    assert client.get("/api/terrain").get_json()["pieces"] == []


def test_reach_lists_each_enemy_with_distance_arc_and_cover(client, station):
    assert client.get("/api/reach?element=gryphon").status_code == 404  # no snapshot yet
    station.game.set_terrain(WALL)
    station.game.observe_table(
        _table(
            ("gryphon", 300, 300, 0), ("salamander", 900, 300, 180), ("varan", 250, 800, 0), ("clone-1", 100, 300, 0)
        )
    )
    data = client.get("/api/reach?element=gryphon").get_json()
    assert data["unit"] == "step" and data["arcs"][0]["label"].startswith("weapon traverse")
    assert data["rings"][0]["mm"] == 250.0  # speed 5 in the green sector: 5 steps of 5 cm
    assert len(data["rings"][0]["outline"]) == 96
    targets = {t["element"]: t for t in data["targets"]}
    assert {t["player"] for t in data["targets"]} == {"red"} and "clone-1" in targets  # enemies only
    behind_wall = targets["salamander"]
    assert behind_wall["cover"]["armour"] is None and behind_wall["blockers"] == ["wall"]
    assert behind_wall["value"] == 10.0  # 600 mm between centres less 2 x 50 mm: 500 mm = 10 steps
    beside = targets["varan"]
    assert beside["hidden_fraction"] == 0 and not beside["in_front"]  # ahead-left, past 90 degrees: not in front
    assert [t["edge_mm"] for t in data["targets"]] == sorted(t["edge_mm"] for t in data["targets"])
    assert client.get("/api/reach?element=nobody").status_code == 404
    assert client.get("/api/reach").status_code == 400


def test_a_demo_session_brings_its_terrain_and_its_table(tmp_path):
    session = load_session("station/data/demo/session.json")
    assert session.terrain["format"] == "station-terrain/1" and len(session.terrain["pieces"]) >= 4
    tables = [s for s in session.steps if s.kind == "table"]
    assert len(tables) > 10 and all(u["status"] == "up" for u in tables[0].args["units"])


@pytest.mark.parametrize(
    "step, message",
    [
        ({"at": 1, "table": {"units": []}}, "units"),
        ({"at": 1, "table": {"units": [{"element": "gryphon", "x": 1}]}}, "units[0].y"),
        ({"at": 1, "table": {"units": [{"element": "gryphon", "x": 1, "y": 2, "status": "flying"}]}}, "status"),
        ({"at": 1, "table": {"table_mm": [5], "units": [{"element": "gryphon", "x": 1, "y": 2}]}}, "table_mm"),
    ],
)
def test_bad_table_steps_in_a_session_name_the_field(tmp_path, step, message):
    from station.datafile import DataFileError

    script = json.loads(open("station/data/demo/session.json").read())
    script["armies"] = [str((tmp_path / "..").resolve())]  # not read before the steps fail
    script["steps"] = [step]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(script))
    with pytest.raises(DataFileError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_session(path)


def test_a_ruling_that_measured_links_to_a_picture_of_that_table(client, station):
    from station.devices import protocol as p

    game = station.game
    game.set_terrain(WALL)
    game.operator_input("begin_round")
    game.observe_table(_table(("gryphon", 300, 300, 0), ("salamander", 401, 300, 180)))  # 1 mm apart
    shot = p.Shot(1, "L1", 1, "shell", 1, 1000)
    rulings = game.observe(game.journal.append("rx", line=p.encode(shot).decode().strip(), verdict="event"))
    refused = next(r for r in rulings if r.section == "§6.2")
    game.observe_table(_table(("gryphon", 100, 100, 0), ("salamander", 900, 800, 180)))  # they move on
    response = client.get(f"/api/rulings/{refused.id}/picture.svg")
    assert response.status_code == 200 and response.mimetype == "image/svg+xml"
    picture = response.text
    assert "§6.2" in picture and "gryphon→salamander" in picture and "<line" in picture
    assert f"table snapshot record {refused.details['measured']['table_seq']}" in picture
    assert 'x1="350.0"' in picture  # gryphon's front edge where it stood then, not where it is now
    assert picture.count("<polygon") >= 3  # the wall and both bases
    other = next(r for r in game.snapshot()["rulings"] if "measured" not in r["details"])
    assert client.get(f"/api/rulings/{other['id']}/picture.svg").status_code == 404
    assert client.get("/api/rulings/nope/picture.svg").status_code == 404


def test_reach_shows_a_weapons_range_dice_and_the_chance_to_hit_each_enemy(client, station):
    """§7.4, Рис. 40: D6+2 against a target counted at 5 steps hits on 3-6, four chances in six."""
    station.game.observe_table(_table(("cyber-3", 300, 300, 0), ("clone-4", 300 + 12.5 + 4.1 * 50 + 12.5, 300, 180)))
    data = client.get("/api/reach?element=cyber-3").get_json()
    assert data["weapon"] == "personal weapon D6+2/2D6"
    labels = [ring["label"] for ring in data["rings"]]
    assert any("every shot hits within 3 steps" in label for label in labels)
    assert any("may hit within 8 steps" in label for label in labels)
    target = data["targets"][0]
    assert target["value"] == 5.0 and target["hit_chance"] == pytest.approx(4 / 6, abs=1e-3)
    assert next(r for r in data["rings"] if "within 8" in r["label"])["mm"] == 400.0
