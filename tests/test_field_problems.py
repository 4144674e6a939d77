"""What is wrong with a field, said so a page can say it in its language (issue 49, What 3): the
loaders' problems keep their template and values (station/datafile.py ``problem``), an id two
armies share is blamed on the later army and names the first, in every game, and saving a force
says whether it can meet the armies chosen beside it."""

import json

import pytest

from station.datafile import DataFileError, Fields, problem
from station.dice import DiceBook
from station.lobby.lobby import Hardware, Lobby
from station.rules.base import ArmyError
from station.rules.registry import make_ruleset
from station.web.app import create_app
from tests.conftest import ROOT

CATALOG = json.loads((ROOT / "station" / "web" / "i18n" / "ru.json").read_text(encoding="utf-8"))
DATA = ROOT / "station" / "data"
TOKEN = "field-problems-token"


def said_in_russian(message):
    """The page's sayMessage, in Python: the template from the catalog, the values filled in."""
    template = CATALOG.get(message["key"], message["key"])
    for name, value in message["args"].items():
        template = template.replace(f"{{{name}}}", said_in_russian(value) if isinstance(value, dict) else str(value))
    return template


def test_a_field_out_of_its_limits_keeps_its_template_and_values():
    with pytest.raises(DataFileError) as caught:
        Fields("армия.json", {"armour": 25}).integer("armour", 0, 20)
    wrong = caught.value.problem
    assert str(caught.value) == "армия.json: armour: is 25; expected 0 to 20"  # the English, as before
    assert wrong.message() == {
        "key": "is {value}; expected {low} to {high}",
        "args": {"value": 25, "low": 0, "high": 20},
    }
    assert said_in_russian(wrong.message()) == "25 — вне пределов: от 0 до 20"


def test_a_value_of_the_wrong_kind_is_said_in_a_players_words():
    with pytest.raises(DataFileError) as caught:
        Fields("a.json", {"rank": "много"}).get("rank", (int, float))
    assert caught.value.problem == "must be a whole number or a number, not text"  # not "int", "str"
    assert said_in_russian(caught.value.problem.message()) == "здесь нужно целое число или число, а не текст"
    assert problem("is required").message() == {"key": "is required", "args": {}}


def test_a_dice_expression_that_is_not_one_is_said_at_its_field(tmp_path):
    army = json.loads((DATA / "demo" / "blue-protectorate.json").read_text(encoding="utf-8"))
    army["units"][0]["members"][0]["power"] = "много"
    path = tmp_path / "армия-ивана.json"
    path.write_text(json.dumps(army, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ArmyError) as caught:
        make_ruleset("bronepekhota", DiceBook()).load_army(str(path))
    assert caught.value.where == "units[0].members[0].power"
    assert said_in_russian(caught.value.problem.message()).startswith("«много» — это не кубик; напишите, например, D6")


# each game's two sample armies, and where the first id of the second army's is kept in its file
CLASHES = {
    "bronepekhota": ("demo/blue-protectorate.json", "demo/red-polaris.json", ("units", 0, "id"), "units[0].id"),
    "bronepekhota_quick": ("quick/blue-patrol.json", "quick/red-raiders.json", ("units", 0, "id"), "units[0]"),
    "alpha_strike": (
        "alpha_strike/training-day-defender.json",
        "alpha_strike/training-day-attacker.json",
        ("units", 0, "id"),
        "units[0].id",
    ),
    "price_of_a_mile": (
        "price_of_a_mile/central.json",
        "price_of_a_mile/entente.json",
        ("squads", 0, "id"),
        "squads[0].id",
    ),
    "steel_warriors": ("steel_warriors/keno.json", "steel_warriors/steel.json", ("squads", 0, "id"), "squads[0].id"),
}


@pytest.mark.parametrize("game", sorted(CLASHES))
def test_an_id_two_armies_share_is_blamed_on_the_later_naming_the_first(game, tmp_path):
    first_file, second_file, key, where = CLASHES[game]
    ruleset = make_ruleset(game, DiceBook())
    first = ruleset.load_army(str(DATA / first_file))
    document = json.loads((DATA / second_file).read_text(encoding="utf-8"))
    node = document
    for step in key[:-1]:
        node = node[step]
    shared = next(iter(_ids(first)))
    node[key[-1]] = shared
    (tmp_path / "mine.json").write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    mine = ruleset.load_army(str(tmp_path / "mine.json"))
    with pytest.raises(ArmyError) as caught:
        ruleset.initial_state([first, mine], {})
    assert caught.value.path == "mine.json" and caught.value.where == where, caught.value
    assert shared in caught.value.problem and (first["name"] in caught.value.problem or game == "bronepekhota_quick")


def _ids(army):
    for unit in army.get("units") or army.get("squads"):
        yield unit["id"]


def test_saving_a_force_says_which_army_beside_it_shares_an_id(tmp_path):
    lobby = Lobby(tmp_path / "journals", tmp_path / "armies", Hardware(seed=3))
    try:
        client = create_app(lobby, TOKEN).test_client()
        force = json.loads((DATA / "alpha_strike" / "training-day-attacker.json").read_text(encoding="utf-8"))
        force["units"][0]["id"] = "commando"  # the defender sample's unit
        body = {"name": "мои", "army": force, "alongside": ["sample:training-day-defender.json"]}
        saved = client.post("/api/armies/alpha_strike", json=body, headers={"X-Referee-Token": TOKEN})
        assert saved.status_code == 200 and (tmp_path / "armies" / "alpha_strike" / "мои.json").exists()
        clash = saved.get_json()["clash"]
        assert clash["field"] == "units[0].id" and clash["file"] == "мои.json"
        assert said_in_russian(clash["problem_message"]) == (
            "id «commando» есть и в армии «Учебный день: обороняющиеся»: в одной игре у армий id не должны совпадать"
        )
        alone = client.post(
            "/api/armies/alpha_strike", json={**body, "alongside": []}, headers={"X-Referee-Token": TOKEN}
        )
        assert "clash" not in alone.get_json()
        force["units"][0]["id"] = "locust-2"
        fine = client.post("/api/armies/alpha_strike", json={**body, "army": force}, headers={"X-Referee-Token": TOKEN})
        assert "clash" not in fine.get_json()
        wrong = client.post(
            "/api/armies/alpha_strike", json={**body, "alongside": "x"}, headers={"X-Referee-Token": TOKEN}
        )
        assert wrong.status_code == 400 and wrong.get_json()["field"] == "alongside"
    finally:
        lobby.close()
