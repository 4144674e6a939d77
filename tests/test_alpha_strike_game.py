"""Alpha Strike (seed 004) through the fold: the turn (§4), movement checked against the camera
(§5), attacks measured from table snapshots (§6, §8), the End Phase (§4.4, §9.4) and Training
Day's victory (§12)."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from station.rules.alpha_strike import AlphaStrike
from station.rules.alpha_strike.army import card_library, load_army
from station.rules.base import ArmyError

from .conftest import FoldDriver, ScriptedRoller, assert_bad_file

DATA = Path(__file__).resolve().parent.parent / "station" / "data" / "alpha_strike"
INCH = 25.4
RADIUS = 20.0  # round40 bases


class Alpha(FoldDriver):
    def __init__(self, options=None, forces=None):
        super().__init__(
            AlphaStrike,
            forces or [load_army(DATA / "training-day-attacker.json"), load_army(DATA / "training-day-defender.json")],
            options,
        )

    def seen(self, **where):
        """A snapshot: unit=(x, y, facing) in mm and degrees."""
        return self.snapshot(where)

    def unit(self, name):
        return self.state.units[name]

    def hurt(self, name, **changes):
        self.state = self.state.with_unit(replace(self.unit(name), **changes))


def inches_apart(x, edge_in):
    """The x of a base whose edge is ``edge_in`` inches beyond a base centred at x."""
    return x + 2 * RADIUS + edge_in * INCH


LINE_UP = {
    "catapult": (300, 600, 0),
    "locust": (300, 300, 0),
    "thunderbolt": (inches_apart(300, 10), 600, 180),
    "commando": (inches_apart(300, 10), 300, 180),
}


@pytest.fixture
def game():
    g = Alpha()
    g.seen(**LINE_UP)
    g.do("roll_initiative", 3, 3, 2, 2)  # attacker 6, defender 4
    return g


def in_combat(g):
    g.do("end_movement")
    assert g.state.phase == "combat"
    return g


def test_4_1_initiative_2d6_the_loser_moves_first_and_ties_roll_again():
    g = Alpha()
    ruling = g.do("roll_initiative", 3, 3, 2, 2)[0]
    assert g.state.order == ("defender", "attacker") and g.state.turn == 1 and g.state.phase == "movement"
    assert ruling.details["rolls"] == {"attacker": [6], "defender": [4]}
    g = Alpha()
    g.do("roll_initiative", 3, 3, 4, 2, 1, 1, 5, 5)  # 6 each: roll again, 2 against 10
    assert g.state.order == ("attacker", "defender") and g.state.turn == 1


def test_4_initiative_only_in_its_phase(game):
    assert "movement phase" in game.do("roll_initiative")[0].text
    assert game.state.turn == 1


def test_5_ground_move_checked_against_mv_and_the_2_inch_minimum_still(game):
    x, y, f = LINE_UP["locust"]
    game.seen(locust=(x + 6 * INCH, y, f), catapult=(300 + 10 * INCH, 600, 0))
    still = game.do("move", unit="thunderbolt", mode="still")[0]  # the initiative loser moves first
    assert still.kind == "move" and "stands still" in still.text
    locust = game.do("move", unit="locust", mode="ground")[0]
    assert locust.kind == "move" and 'grounds 6.0"' not in locust.text and "6.0" in locust.text
    catapult = game.do("move", unit="catapult", mode="ground")[0]  # MV 8", 10" of path
    assert catapult.needs_referee and 'more than its 8"' in catapult.text


def test_5_a_model_that_moved_cannot_claim_to_have_stood_still(game):
    x, y, f = LINE_UP["commando"]
    game.seen(commando=(x - 2 * INCH, y, f))
    assert "standing still is under 1" in game.do("move", unit="commando", mode="still")[0].text


def test_5_4_woods_cost_an_extra_inch_per_inch(game):
    game.do(
        "terrain",
        format="station-terrain/1",
        pieces=[
            {
                "id": "wood",
                "type": "woods",
                "height_mm": 80,
                "polygon": [[380, 250], [480, 250], [480, 350], [380, 350]],
            }
        ],
    )
    x, y, f = LINE_UP["locust"]
    game.seen(locust=(x + 14 * INCH, y, f))  # 14" of path, about 4" of it (100 mm) in woods: 18" > 16"
    ruling = game.do("move", unit="locust", mode="ground")[0]
    assert (
        ruling.needs_referee
        and "of woods (wood)" in ruling.text
        and ruling.details["cost_in"] == pytest.approx(17.9, abs=0.2)
    )


def test_5_2_jump_is_measured_straight_and_needs_jump_mv(game):
    x, y, f = LINE_UP["catapult"]
    game.seen(catapult=(x + 4 * INCH, y + 4 * INCH, f))
    game.seen(catapult=(x + 7 * INCH, y, f))  # a dog-leg path of 11.3"; 7" straight
    game.do("move", unit="thunderbolt", mode="still")
    assert game.do("move", unit="catapult", mode="jump")[0].kind == "move"
    game.seen(locust=(LINE_UP["locust"][0] + 3 * INCH, LINE_UP["locust"][1], 0))
    assert "cannot jump" in game.do("move", unit="locust", mode="jump")[0].text


def test_6_weapon_attack_from_the_table_hits_and_marks_damage(game):
    in_combat(game)
    ruling = game.do("attack", 3, 3, attacker="catapult", target="thunderbolt")[0]  # TN 3 -1 +2 = 4; 6 hits
    assert ruling.details["tn"] == 4 and ruling.details["hit"]
    assert ruling.details["measured"]["value"] == pytest.approx(10.0, abs=0.05)
    assert "medium range +2" in ruling.text and "attacker still -1" in ruling.text
    assert game.unit("thunderbolt").armour == 7 - 3  # M damage 3
    assert game.state.heat_turn["catapult"].fired_weapons


def test_6_4_moves_feed_the_target_number(game):
    x, y, f = LINE_UP["commando"]
    game.seen(commando=(x, y + 3 * INCH, f))
    game.do("move", unit="commando", mode="ground")
    game.do("move", unit="locust", mode="still")
    in_combat(game)
    ruling = game.do("attack", 1, 1, attacker="locust", target="commando")[0]
    # skill 3, still -1, TMM 2, medium +2 (the commando is now 10.2" away edge to edge)
    assert ruling.details["tn"] == 6 and not ruling.details["hit"]
    assert game.unit("commando").armour == 3


def test_6_refusals_name_the_rule(game):
    assert "movement phase" in game.do("attack", attacker="catapult", target="thunderbolt")[0].text
    in_combat(game)
    assert "enemy units" in game.do("attack", attacker="catapult", target="locust")[0].text
    game.do("attack", 1, 1, attacker="catapult", target="thunderbolt")
    assert "made its attack" in game.do("attack", attacker="catapult", target="commando")[0].text
    game.seen(locust=(300, 300, 180))  # now facing away from the enemy
    refused = game.do("attack", attacker="locust", target="commando")[0]
    assert refused.needs_referee and "firing arc" in refused.text and refused.section == "§6.2 A3"


def test_6_3_beyond_long_range_and_no_damage_at_the_band():
    g = Alpha()
    g.seen(
        catapult=(100, 600, 0),
        thunderbolt=(inches_apart(100, 43), 600, 180),
        locust=(100, 300, 0),
        commando=(inches_apart(100, 30), 300, 180),
    )
    g.do("roll_initiative", 6, 6, 1, 1)
    in_combat(g)
    assert "beyond long range" in g.do("attack", attacker="catapult", target="thunderbolt")[0].text
    ruling = g.do("attack", 6, 5, 6, attacker="locust", target="commando")[0]  # L 0*: 1D6 6 deals 1
    assert "minimal damage" in ruling.text and g.unit("commando").armour == 2


def test_6_1_woods_along_the_line_add_one_and_six_inches_block(game):
    in_combat(game)
    game.do(
        "terrain",
        format="station-terrain/1",
        pieces=[
            {
                "id": "wood",
                "type": "woods",
                "height_mm": 80,
                "polygon": [[400, 560], [500, 560], [500, 640], [400, 640]],
            }
        ],
    )
    ruling = game.do("attack", 1, 1, attacker="catapult", target="thunderbolt")[0]
    assert ruling.details["tn"] == 5 and "woods +1" in ruling.text
    game.do(
        "terrain",
        format="station-terrain/1",
        pieces=[
            {
                "id": "wood",
                "type": "woods",
                "height_mm": 80,
                "polygon": [[330, 560], [520, 560], [520, 640], [330, 640]],
            }
        ],
    )
    assert "woods block" in game.do("attack", attacker="thunderbolt", target="catapult")[0].text


def test_6_6_a_shot_into_the_back_deals_one_more(game):
    x, y, _ = LINE_UP["thunderbolt"]
    game.seen(thunderbolt=(x, y, 0))  # it turned its back on the catapult
    in_combat(game)
    ruling = game.do("attack", 3, 3, attacker="catapult", target="thunderbolt")[0]
    assert "from the rear" in ruling.text and game.unit("thunderbolt").armour == 7 - 4


def test_8_charge_after_a_ground_move_into_contact(game):
    x, y, f = LINE_UP["catapult"]
    contact = LINE_UP["thunderbolt"][0] - 2 * RADIUS
    game.do("move", unit="thunderbolt", mode="still")  # the defender lost initiative: it moves first
    game.seen(catapult=(contact, y, f))  # 10" of ground move ends in base contact
    game.do("move", unit="catapult", mode="ground")
    in_combat(game)
    ruling = game.do("attack", 3, 3, attacker="catapult", target="thunderbolt", kind="charge")[0]
    # TN 3 + ground 0 + charge 1 = 4; damage 10" x SZ 3 / 8 = 3.75 -> 4; 1 self-damage against SZ 3
    assert ruling.details["tn"] == 4 and ruling.details["hit"]
    assert game.unit("thunderbolt").armour == 7 - 4 and game.unit("catapult").armour == 5 - 1
    assert "self-damage" in ruling.text


def charge_into_contact(game, target_moves_first=True):
    x, y, f = LINE_UP["catapult"]
    if target_moves_first:
        game.do("move", unit="thunderbolt", mode="still")
    game.seen(catapult=(LINE_UP["thunderbolt"][0] - 2 * RADIUS, y, f))
    game.do("move", unit="catapult", mode="ground")
    if not target_moves_first:
        game.do("move", unit="thunderbolt", mode="still")
    return in_combat(game)


def test_8_2_a_charges_target_must_already_have_finished_its_movement(game):
    """«Особые атаки ближнего боя»: the charger moves into contact in the Movement Phase, so its
    target must have moved earlier; here the Thunderbolt declared its move after the Catapult."""
    charge_into_contact(game, target_moves_first=False)
    ruling = game.do("attack", attacker="catapult", target="thunderbolt", kind="charge")[0]
    assert "had not finished its movement" in ruling.text and ruling.section == "§8.2" and ruling.needs_referee
    assert game.unit("thunderbolt").armour == 7 and "catapult" not in game.state.attacked


def test_8_2_one_special_melee_attack_per_target_per_turn(game):
    """«Особые атаки ближнего боя»: once declared the target of a charge or DFA, a unit cannot be
    the target of another that turn; the attacker does not take its self-damage twice."""
    game.do("move", unit="thunderbolt", mode="still")
    game.do("move", unit="commando", mode="still")
    x, y, f = LINE_UP["catapult"]
    game.seen(catapult=(LINE_UP["thunderbolt"][0] - 2 * RADIUS, y, f))
    game.do("move", unit="catapult", mode="ground")
    game.seen(locust=(LINE_UP["thunderbolt"][0], y - 2 * RADIUS, 90))  # the Locust ends touching it too
    game.do("move", unit="locust", mode="ground")
    in_combat(game)
    first = game.do("attack", 3, 3, attacker="catapult", target="thunderbolt", kind="charge")[0]
    assert first.details["hit"]
    second = game.do("attack", attacker="locust", target="thunderbolt", kind="charge")[0]
    assert "already been the target of a charge or death from above" in second.text and second.section == "§8.2"
    assert game.unit("locust").armour == game.state.combat_start["locust"].armour


def test_6_3_no_weapon_attack_on_a_target_whose_base_you_touch(game):
    """«Касание подставками»: bases 0.5 mm apart: a weapon attack is refused (melee only), while
    a standard melee attack is allowed."""
    x, y, f = LINE_UP["catapult"]
    game.seen(catapult=(LINE_UP["thunderbolt"][0] - 2 * RADIUS - 0.5, y, f))
    in_combat(game)
    refused = game.do("attack", attacker="catapult", target="thunderbolt")[0]
    assert "touches" in refused.text and "only melee" in refused.text and refused.section == "§6.3"
    assert game.unit("thunderbolt").armour == 7
    melee = game.do("attack", 3, 3, attacker="catapult", target="thunderbolt", kind="standard")[0]
    assert melee.details["hit"]


def test_6_3_base_contact_within_the_cameras_uncertainty_goes_to_the_referee(game):
    """A gap the camera cannot tell from a touch: the attack is ruled, and the referee asked."""
    x, y, f = LINE_UP["catapult"]
    game.seen(catapult=(LINE_UP["thunderbolt"][0] - 2 * RADIUS - 2.5, y, f))  # 2.5 mm: apart, if sure
    in_combat(game)
    game.state = game.state.evolve(sigmas={"catapult": 1.0, "thunderbolt": 1.0})
    ruling = game.do("attack", 3, 3, attacker="catapult", target="thunderbolt")[0]
    assert ruling.needs_referee and "base contact" in ruling.text and ruling.details["hit"]


def test_8_standard_attack_reaches_one_inch(game):
    in_combat(game)
    assert 'reaches 1"' in game.do("attack", attacker="catapult", target="thunderbolt", kind="standard")[0].text


def test_4_4_end_phase_removes_the_destroyed_and_training_day_is_won_on_the_size_3_mech():
    g = Alpha({"victory": "size3"})
    g.seen(**LINE_UP)
    g.do("roll_initiative", 3, 3, 2, 2)
    in_combat(g)
    g.hurt("thunderbolt", armour=0, structure=2)
    ruling = g.do("attack", 3, 3, attacker="catapult", target="thunderbolt")[0]
    assert g.unit("thunderbolt").destroyed and "thunderbolt" not in g.state.removed  # in effect at the End Phase
    reply = g.do("attack", 6, 5, attacker="thunderbolt", target="catapult")[0]  # it still fires back (§4.3)
    assert reply.details["hit"] and g.unit("catapult").armour == 5 - 3 and "hit" in ruling.text
    end = g.do("end_turn")
    assert "thunderbolt" in g.state.removed and g.state.winner == "attacker"
    assert any("size-3" in r.text for r in end) and g.state.phase == "initiative"


def test_4_5_by_default_every_enemy_unit_must_fall(game):
    in_combat(game)
    game.hurt("thunderbolt", armour=0, structure=0, destroyed=True)
    game.do("end_turn")
    assert game.state.winner is None and "thunderbolt" in game.state.removed
    game.do("roll_initiative", 4, 4, 1, 1)  # next turn; only the commando is left to the defender
    assert game.state.turn == 2


def test_9_4_end_phase_heat_from_overheat_and_cooling(game):
    in_combat(game)
    ruling = game.do("attack", 3, 3, attacker="catapult", target="thunderbolt", overheat=1)[0]
    assert game.unit("thunderbolt").armour == 7 - 4 and "+1 overheat" in ruling.text
    refused = game.do("attack", attacker="locust", target="commando", overheat=1)[0]
    assert "overheat by at most 0" in refused.text
    game.do("end_turn")
    assert game.unit("catapult").heat == 1


def test_override_void_undoes_an_attack():
    g = Alpha()
    from station.rules.base import Override

    g.state = g.state.evolve(overrides={"4:attack": (9, Override("4:attack", "void", ""))})
    g.seen(**LINE_UP)
    g.do("roll_initiative", 3, 3, 2, 2)
    g.do("end_movement")
    ruling = g.do("attack", attacker="catapult", target="thunderbolt")[0]
    assert ruling.overridden == "void" and g.unit("thunderbolt").armour == 7


def test_state_view_shows_cards_with_pips_heat_and_crits(game):
    view = game.rules.state_view(game.state)
    cards = {u["id"]: u["elements"][0] for u in view["units"]}
    assert cards["thunderbolt"]["armour_max"] == 7 and cards["thunderbolt"]["structure_max"] == 6
    assert set(cards["catapult"]["crits"]) == {"engine", "fire_control", "mp", "weapons"}
    assert view["phase"] == "movement" and view["order"] == ["defender", "attacker"]


def test_sample_cards_say_they_are_sample_data_and_name_what_comes_from_the_seed():
    raw = json.loads((DATA / "cards.json").read_text())
    assert "SAMPLE DATA" in raw["sample_data"]
    names = set(card_library())
    for seed_unit in (
        "Stalker STK-3F",
        "Rifleman RFL-3N",
        "BattleMaster BLR-1G",
        "Vulture Prime",
        "Cataphract CTF-3L",
        "Loki Prime",
    ):
        assert seed_unit in names


@pytest.mark.parametrize(
    "change, where, problem",
    [
        ({"format": "x"}, "format", "alpha-strike-force/1"),
        ({"units": [{"id": "a", "card": "Nope"}]}, "units[0].card", "no card 'Nope'"),
        ({"units": [{"id": "a"}]}, "units[0]", '"card"'),
        ({"units": [{"id": "a", "card": "Locust LCT-1E", "skill": 9}]}, "units[0].skill", ""),
        (
            {"units": [{"id": "a", "card": {"name": "X", "damage": {"S": "2", "M": "x", "L": "0"}}}]},
            "units[0].card",
            "",
        ),
        ({"colour": "red"}, "colour", "unknown"),
    ],
)
def test_bad_force_files_name_the_file_and_field(tmp_path, change, where, problem):
    assert_bad_file(load_army, DATA / "training-day-attacker.json", tmp_path, change, where, problem)


def test_two_forces_of_one_player_are_refused():
    force = load_army(DATA / "training-day-attacker.json")
    with pytest.raises(ArmyError, match="each player brings one army"):
        AlphaStrike(ScriptedRoller()).initial_state([force, force], {})


def _terrain(game, *pieces):
    game.do(
        "terrain",
        format="station-terrain/1",
        pieces=[{"id": i, "type": t, "height_mm": h, "polygon": poly} for i, t, h, poly in pieces],
    )


def test_5_4_worked_example_vulture_to_the_hilltop_costs_ten():
    """4" to the hill, 4" to climb its 2", 2" across the top: 10" of MV (digest §5.4, point A)."""
    g = Alpha()
    start = 300.0
    hill = start + 4 * INCH
    _terrain(g, ("hill", "hill", 2 * INCH, [[hill, 500], [hill + 200, 500], [hill + 200, 700], [hill, 700]]))
    g.seen(**LINE_UP)
    g.do("roll_initiative", 3, 3, 2, 2)
    g.seen(catapult=(start + 6 * INCH, 600, 0))  # MV 8": 6" + 4" of climbing = 10" is too much
    ruling = g.do("move", unit="catapult", mode="ground")[0]
    assert ruling.details["cost_in"] == pytest.approx(10.0, abs=0.15) and ruling.needs_referee
    assert "level change" in ruling.text


def test_5_4_a_step_higher_than_two_inches_is_impassable_but_a_jump_ignores_it(game):
    _terrain(game, ("cliff", "hill", 4 * INCH, [[380, 500], [600, 500], [600, 700], [380, 700]]))
    x, y, f = LINE_UP["catapult"]
    game.seen(catapult=(x + 5 * INCH, y, f))
    assert "impassable" in game.do("move", unit="catapult", mode="ground")[0].text
    assert game.do("move", unit="catapult", mode="jump")[0].kind == "move"  # declared again: the jump stands


def test_5_3_a_mobile_unit_may_always_move_two_inches(game):
    _terrain(game, ("marsh", "water", 0, [[300, 250], [400, 250], [400, 350], [300, 350]]))
    x, y, f = LINE_UP["locust"]
    game.hurt("locust", heat=3)  # MV 16" - 6" = 10"
    game.seen(locust=(x + 2 * INCH, y, f))
    game.do("move", unit="commando", mode="still")
    assert game.do("move", unit="locust", mode="ground")[0].kind == "move"


def test_4_2_units_alternate_the_loser_first_and_the_larger_side_in_proportion(game):
    late = game.do("move", unit="catapult", mode="still")[0]
    assert late.needs_referee and "defender side was due to move" in late.text
    game.state = game.state.evolve(moves={})
    for unit in ("thunderbolt", "catapult", "commando", "locust"):
        assert game.do("move", unit=unit, mode="still")[0].kind == "move"
    game.hurt("commando", destroyed=True)
    game.state = game.state.evolve(removed=frozenset({"commando"}))
    from station.rules.alpha_strike.turns import next_player

    assert next_player(game.state.evolve(moves={}), set()) == "defender"
    assert next_player(game.state.evolve(moves={}), {"thunderbolt"}) == "attacker"
    assert next_player(game.state.evolve(moves={}), {"thunderbolt", "catapult"}) == "attacker"  # 1 unit against 2


def test_5_2_no_jump_out_of_water_and_5_5_no_overlapping_bases(game):
    _terrain(game, ("pond", "water", 0, [[250, 550], [350, 550], [350, 650], [250, 650]]))
    game.seen(catapult=(300 + 5 * INCH, 600, 0))
    assert "out of water" in game.do("move", unit="catapult", mode="jump")[0].text
    x, y, f = LINE_UP["commando"]
    game.seen(locust=(x - 10, y, 0))
    assert "ends on commando" in game.do("move", unit="locust", mode="ground")[0].text


def test_4_3_the_loser_attacks_with_all_its_units_then_the_winner(game):
    in_combat(game)
    assert not game.do("attack", 1, 1, attacker="thunderbolt", target="catapult")[0].needs_referee
    assert not game.do("attack", 1, 1, attacker="catapult", target="thunderbolt")[0].needs_referee
    late = game.do("attack", 1, 1, attacker="commando", target="locust")[0]
    assert late.needs_referee and "attacker side has begun its attacks" in late.text


def test_4_3_damage_and_crits_take_effect_in_the_end_phase(game):
    game.hurt("thunderbolt", armour=0)
    in_combat(game)
    hit = game.do("attack", 3, 3, 4, 4, attacker="catapult", target="thunderbolt")[0]  # S 6 -> 3, crit 8: weapon hit
    assert "weapon hit" in hit.text and game.unit("thunderbolt").weapon_hits == 1
    game.do("attack", 4, 4, attacker="thunderbolt", target="catapult")  # still fires with its full 3
    assert game.unit("catapult").armour == 5 - 3
    game.do("end_turn")
    game.do("roll_initiative", 4, 4, 1, 1)
    game.do("end_movement")
    game.do("attack", 4, 4, attacker="thunderbolt", target="catapult")  # now 3 - 1 = 2: A 2 -> 0
    assert game.unit("catapult").armour == 0 and game.unit("catapult").structure == 5


def test_the_recorded_training_day_replays_to_the_attackers_victory():
    """tests/data/sessions/training-day.jsonl: station/data/alpha_strike/session.json played with
    table snapshots and the players' own dice (make sessions): three turns, a death from above
    finishes the Thunderbolt, and the attacker wins by §12's condition."""
    from station.fold import fold
    from station.journal import read_records

    records = read_records(Path(__file__).parent / "data" / "sessions" / "training-day.jsonl")
    assert not [r for r in records if r["kind"] == "dice" and not r.get("physical")]  # every roll from the table
    result = fold(records)
    state = json.loads(result.state_json())
    assert state["game"] == "alpha_strike" and state["winner"] == "attacker" and state["round"] == 3
    cards = {u["id"]: u["elements"][0] for u in state["units"]}
    assert cards["thunderbolt"]["status"] == "destroyed" and cards["thunderbolt"]["structure"] == 1
    assert (cards["catapult"]["structure"], cards["catapult"]["heat"]) == (4, 0)
    assert cards["locust"]["structure"] == 2 and cards["commando"]["structure"] == 2
    assert not any(r.needs_referee for r in result.rulings)


def test_the_readme_force_example_loads(tmp_path):
    """docs/alpha-strike.md "Force files": the example is a valid force with a library card, a project card
    and a Master Unit List record, in a Striker lance."""
    readme = (Path(__file__).resolve().parent.parent / "docs" / "alpha-strike.md").read_text()
    block = readme.split("### Force files (`alpha-strike-force/1`, JSON)")[1].split("```json")[1].split("```")[0]
    data = json.loads(block)
    path = tmp_path / "force.json"
    path.write_text(json.dumps(data))
    force = load_army(path)
    cards = {u["id"]: u["card"] for u in force["units"]}
    assert cards["catapult"]["name"] == "Catapult CPLT-K2" and cards["custom"]["specials"] == ["HT 1/1/-"]
    assert cards["imported"]["name"] == "Locust LCT-1V" and cards["imported"]["damage"] == ["1", "1", "0*"]
    assert force["units"][0]["marker"]["id"] == 16 and force["formation"]["type"] == "striker"


def test_3_setup_roll_home_edges_and_the_deployment_zone():
    g = Alpha()
    assert "setup roll" in g.do("home_edge", edge="bottom")[0].text.lower()
    ruling = g.do("setup_roll", 2, 2, 3, 3)[0]  # defender 6 beats attacker 4
    assert g.state.setup_winner == "defender" and "defender chooses" in ruling.text
    g.do("home_edge", edge="top")
    assert g.state.home_edges == {"defender": "top", "attacker": "bottom"}
    # the table is 1800 x 1200: the attacker within 10" (254 mm) of y = 0, the defender of y = 1200
    g.seen(catapult=(300, 100, 90), locust=(600, 300, 90), thunderbolt=(300, 1100, 270), commando=(600, 1000, 270))
    rulings = g.do("roll_initiative", 3, 3, 2, 2)
    deployment = next(r for r in rulings if r.id.endswith(":deployment"))
    assert deployment.needs_referee and 'locust reaches 12.6" from the bottom edge' in deployment.text
    assert "commando" not in deployment.text and "catapult" not in deployment.text
    assert "once" in g.do("setup_roll")[0].text


def test_8_2_a_charge_a_hair_short_of_contact_within_the_uncertainty_goes_to_the_referee(game):
    """No float noise refuses a legal charge: 2.5 mm apart, with the camera's ±2.8 mm, it stands."""
    x, y, f = LINE_UP["catapult"]
    game.do("move", unit="thunderbolt", mode="still")
    game.seen(catapult=(LINE_UP["thunderbolt"][0] - 2 * RADIUS - 2.5, y, f))
    game.do("move", unit="catapult", mode="ground")
    in_combat(game)
    game.state = game.state.evolve(sigmas={"catapult": 1.0, "thunderbolt": 1.0})
    ruling = game.do("attack", 3, 3, attacker="catapult", target="thunderbolt", kind="charge")[0]
    assert ruling.details["hit"] and ruling.needs_referee and "may not quite touch" in ruling.text


def _no_camera():
    """Training Day with no camera: initiative rolled, every unit's move declared, combat begun."""
    g = Alpha()
    g.do("roll_initiative", 3, 3, 2, 2)
    for unit, mode in (("thunderbolt", "still"), ("catapult", "ground"), ("commando", "still"), ("locust", "still")):
        g.do("move", unit=unit, mode=mode)
    return in_combat(g)


def test_6_without_a_camera_the_referee_declares_the_range_and_cover_by_hand():
    g = _no_camera()
    refused = g.do("attack", attacker="locust", target="thunderbolt")[0]
    assert "camera has not placed" in refused.text  # no positions and no word from the referee
    # §6.4: skill 3, attacker still -1, target still (no TMM), woods +1, partial cover +1, medium +2
    ruling = g.do(
        "attack",
        3,
        3,
        attacker="locust",
        target="thunderbolt",
        by_hand={"band": "medium", "woods": True, "partial_cover": True},
    )[0]
    assert ruling.details["tn"] == 3 - 1 + 1 + 1 + 2 and ruling.details["hit"]
    assert ruling.details["by_hand"] == {"band": "medium", "woods": True, "partial_cover": True}
    assert ruling.details["measured"] == {} and "as the referee measured" in ruling.text
    assert "woods +1" in ruling.text and "partial cover +1" in ruling.text and "medium range +2" in ruling.text


def test_6_a_typed_distance_picks_the_band_and_a_shot_from_behind_deals_one_more():
    g = _no_camera()
    # the catapult moved on the ground: skill 3 + 0; thunderbolt stood still; 24.5" is long +4
    ruling = g.do(
        "attack", 4, 4, attacker="catapult", target="thunderbolt", by_hand={"distance_in": 24.5, "from_behind": True}
    )[0]
    assert ruling.details["tn"] == 3 + 4 and "long range +4" in ruling.text
    long_damage = int(g.unit("catapult").card.damage[2])
    assert g.unit("thunderbolt").armour == 7 - (long_damage + 1)  # §6.6: +1 from the rear


@pytest.mark.parametrize(
    "by_hand, problem",
    [
        ({}, "give the distance in inches or the range band"),
        ({"band": "close"}, "one of short, medium, long"),
        ({"distance_in": -1}, "from 0 to 240"),
        ({"distance_in": "ten"}, "from 0 to 240"),
        ({"band": "short", "woods": "yes"}, "by_hand.woods: true or false"),
        ({"band": "short", "cover": True}, "unknown field cover"),
        ("short", "an object with distance_in or band"),
    ],
)
def test_a_bad_declaration_by_hand_is_refused_and_names_the_field(by_hand, problem):
    g = _no_camera()
    ruling = g.do("attack", attacker="locust", target="thunderbolt", by_hand=by_hand)[0]
    assert ruling.needs_referee and problem in ruling.text
    assert "locust" not in g.state.attacked  # nothing was spent


def test_8_a_melee_attack_by_hand_is_in_base_contact():
    g = _no_camera()
    ruling = g.do("attack", 5, 5, attacker="locust", target="thunderbolt", kind="standard", by_hand={})[0]
    assert ruling.details["hit"] and ruling.details["kind"] == "standard"
    far = _no_camera().do(
        "attack", attacker="locust", target="thunderbolt", kind="standard", by_hand={"distance_in": 3}
    )
    assert "reaches" in far[0].text


def test_5_a_move_no_camera_saw_says_so_and_a_taped_one_is_checked():
    g = Alpha()
    g.do("roll_initiative", 3, 3, 2, 2)
    unmeasured = g.do("move", unit="thunderbolt", mode="ground")[0]
    assert "not measured" in unmeasured.text and '0.0"' not in unmeasured.text
    taped = g.do("move", unit="catapult", mode="ground", inches=9.5)[0]  # MV 8"
    assert taped.needs_referee and 'more than its 8"' in taped.text and "as the referee measured" in taped.text
    assert g.state.moved_in["catapult"] == 9.5  # what a charge counts
    bad = g.do("move", unit="locust", mode="ground", inches="far")[0]
    assert bad.needs_referee and "inches: the distance moved" in bad.text and "locust" not in g.state.moves


def test_the_attack_preview_with_no_camera_shows_the_target_number_before_declaring():
    g = _no_camera()
    ruleset = g.rules
    seen = ruleset.preview(
        g.state, "attack", {"attacker": "locust", "target": "thunderbolt", "by_hand": {"distance_in": 5.5}}
    )
    assert seen["tn"] == 3 - 1 and seen["band"] == "short" and seen["band_margin_in"] == [5.5, 0.5]
    assert seen["input"]["args"]["by_hand"] == {"distance_in": 5.5}
    assert "as the referee measured" in seen["lines"][0]
    assert g.state.attacked == set()  # a preview changes nothing
    assert ruleset.preview(g.state, "move", {})["doubts"]  # a dry run: not now, for the referee


def test_6_a_target_is_in_woods_when_any_part_of_its_base_touches_them(game):
    """«Цель считается находящейся на элементе ландшафта, если любая часть её подставки касается
    этого элемента» (issue #35 C16): a wood 8 mm into the thunderbolt's base, behind its centre
    and off the line of fire, gives the woods +1."""
    x, y, _ = LINE_UP["thunderbolt"]
    wood = {"id": "copse", "type": "woods", "height_mm": 40,
            "polygon": [[x + RADIUS - 8, y - 50], [x + 120, y - 50], [x + 120, y + 50], [x + RADIUS - 8, y + 50]]}  # fmt: skip
    game.do("terrain", format="station-terrain/1", pieces=[wood])
    in_combat(game)
    ruling = game.do("attack", 3, 3, attacker="catapult", target="thunderbolt")[0]
    assert ruling.details["tn"] == 4 + 1, ruling.text


@pytest.mark.parametrize(
    "mode, route, through",
    [
        ("ground", [(0, 0)], True),  # straight through the commando
        ("ground", [(-60, 100), (0, 100)], False),  # around it
        ("jump", [(0, 0)], False),  # over it: a jump is at another height
    ],
    ids=["through", "around", "jumped-over"],
)
def test_5_5_a_ground_move_may_not_pass_through_an_enemy_unit(game, mode, route, through):
    """«ГРУППИРОВАНИЕ»: a unit «не может миновать таким образом недружественные боевые единицы»
    at its height; the camera's path says whether it went through or around."""
    x, y, _ = LINE_UP["commando"]
    for dx, dy in route:
        game.seen(locust=(x + dx, y + dy, 0))
    game.seen(locust=(x + 80, y, 0))
    ruling = game.do("move", unit="locust", mode=mode)[0]
    assert ("went through commando" in ruling.text) is through
    assert "ends on" not in ruling.text


def _with_edges(options):
    """A game with the attacker's home edge on the left (x = 0) and the defender's on the right."""
    g = Alpha(options)
    g.seen(**LINE_UP)
    g.do("setup_roll", 6, 6, 1, 1)  # attacker 12, defender 2
    g.do("home_edge", edge="left")
    return g


def test_4_5_breakthrough_a_unit_off_the_enemys_home_edge_wins_and_its_own_edge_is_a_safe_exit():
    """«прорыв»: a set number of units taken across to the opposite table edge."""
    g = _with_edges({"victory": "breakthrough", "breakthrough_units": 2})
    g.seen(catapult=(20 + RADIUS, 600, 180))
    home = g.do("leave_table", unit="catapult")[0]
    assert "by the left edge, its own home edge" in home.text and not home.needs_referee
    g.seen(locust=(1800 - RADIUS - 5, 300, 0))
    through = g.do("leave_table", unit="locust")
    assert "the enemy's home edge: it has broken through" in through[0].text and g.state.winner is None  # 1 of 2
    g = _with_edges({"victory": "breakthrough", "breakthrough_units": 1})
    g.seen(locust=(1800 - RADIUS - 5, 300, 0))
    won = g.do("leave_table", unit="locust")
    assert g.state.winner == "attacker" and "1 units broke through the enemy's home edge, 0 lost" in won[-1].text
    assert "broke through" in g.rules.state_view(g.state)["won_by"] and "locust" in g.state.removed


def test_4_5_leaving_the_table_far_from_any_edge_goes_to_the_referee_and_without_a_camera_needs_the_edge():
    g = _with_edges({})
    far = g.do("leave_table", unit="locust")[0]  # locust stands 300 mm in from the left
    assert far.needs_referee and "from that edge when the camera last saw it" in far.text
    g.state = g.state.evolve(positions={k: v for k, v in g.state.positions.items() if k != "commando"})
    refused = g.do("leave_table", unit="commando")[0]
    assert refused.kind == "warning" and "edge: one of" in refused.text and "commando" not in g.state.removed
    assert "by the right edge" in g.do("leave_table", unit="commando", edge="right")[0].text


def test_4_5_capture_the_flag_held_alone_for_the_set_turns_wins_and_a_contested_flag_counts_again():
    """«захват флага»: units brought to a pre-agreed point and held for a set number of turns."""
    g = Alpha({"victory": "flag", "flag_x_mm": 300, "flag_y_mm": 300, "flag_turns": 2})
    g.seen(**LINE_UP)  # locust (attacker) stands on the point

    def turn():
        g.do("roll_initiative", 3, 3, 2, 2)
        g.do("end_movement")
        return next(r for r in g.do("end_turn") if r.id.endswith(":flag"))

    assert "attacker holds the flag: 1 of 2" in turn().text
    g.seen(commando=(300 + 2 * RADIUS, 300, 180))  # base to base: contested
    assert "contested" in turn().text and g.state.flag_held is None
    g.seen(commando=LINE_UP["commando"])
    turn()
    assert "2 of 2" in turn().text and g.state.winner == "attacker"
    assert "held the flag for 2 turns" in g.rules.state_view(g.state)["won_by"]


def test_4_5_a_unit_at_the_flags_radius_within_the_cameras_doubt_goes_to_the_referee():
    g = Alpha({"victory": "flag", "flag_x_mm": 300 + RADIUS + 2 * INCH, "flag_y_mm": 300, "flag_turns": 3})
    g.seen(**LINE_UP)  # locust's edge exactly 2" from the point
    g.do("roll_initiative", 3, 3, 2, 2)
    g.do("end_movement")
    flag = next(r for r in g.do("end_turn") if r.id.endswith(":flag"))
    assert flag.needs_referee and "Too close to call: locust" in flag.text


@pytest.mark.parametrize("offset, blocked, doubt", [(-0.5, False, True), (0.5, True, True), (-8.0, False, False)])
def test_6_1_woods_within_the_cameras_uncertainty_of_6_inches_go_to_the_referee(game, offset, blocked, doubt):
    """A19: 6" or more of woods along the line block it; a length within 2σ of 6" is ruled as
    measured and put to the referee, whichever side it falls."""
    in_combat(game)
    _terrain(
        game,
        ("wood", "woods", 80, [[400, 560], [400 + 6 * INCH + offset, 560], [400 + 6 * INCH + offset, 640], [400, 640]]),
    )
    ruling = game.do("attack", *(() if blocked else (1, 1)), attacker="catapult", target="thunderbolt")[0]
    assert ("woods block" in ruling.text) is blocked
    assert ("within the camera's uncertainty of the 6\" that blocks it" in ruling.text) is doubt
    assert ruling.needs_referee is (doubt or blocked)


def test_5_2_and_9_a_unit_is_in_water_when_any_part_of_its_base_is():
    """«Цель считается находящейся на элементе ландшафта, если любая часть её подставки касается
    этого элемента»: a base 5 mm into a pond, its centre on the bank, may not jump out of it."""
    g = Alpha()
    g.seen(**{**LINE_UP, "catapult": (350 + RADIUS - 5, 600, 0)})
    g.do("roll_initiative", 3, 3, 2, 2)
    _terrain(g, ("pond", "water", 0, [[250, 550], [350, 550], [350, 650], [250, 650]]))
    g.seen(catapult=(350 + RADIUS - 5 + 5 * INCH, 600, 0))
    assert "out of water" in g.do("move", unit="catapult", mode="jump")[0].text
