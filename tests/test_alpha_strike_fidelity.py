"""Alpha Strike rulings against the quick-start's own words, over whole turns (issue 51): a move
under 1" is standing still (§5.2), water's depth in a move's cost and in cooling (§5.4, §9.4), a
unit leaving the table has had its move (§4.2), and a motive hit on a unit at MV 0 (§7.3)."""

from __future__ import annotations

import pytest

from station.measure.terrain import parse_terrain
from station.rules.alpha_strike.attack import critical_hit
from station.rules.alpha_strike.heat import TurnHeat, end_phase

from .conftest import ScriptedRoller
from .test_alpha_strike import card, unit
from .test_alpha_strike_game import INCH, LINE_UP, RADIUS, Alpha, _with_edges, in_combat

POND = [[300 + 4 * INCH, 500], [300 + 12 * INCH, 500], [300 + 12 * INCH, 700], [300 + 4 * INCH, 700]]


def _pond(game, **depth):
    piece = {"id": "pond", "type": "water", "height_mm": 0, "polygon": POND, **depth}
    game.do("terrain", format="station-terrain/1", pieces=[piece])


@pytest.fixture
def movement_phase():
    """Training Day's first movement phase: the defender moves first."""
    g = Alpha()
    g.seen(**LINE_UP)
    g.do("roll_initiative", 3, 3, 2, 2)
    return g


@pytest.mark.parametrize("declared", ["ground", "jump"])
def test_5_2_a_move_under_one_inch_is_standing_still(movement_phase, declared):
    """«Способная к перемещению боевая единица, решившая в данный ход переместиться менее чем на 1
    дюйм, считается стоящей на месте»: 0.8" on the ground kept its own -1 and gave no TMM (TN 4
    both ways, as if it had declared still; it was 6)."""
    g = movement_phase
    x, y, f = LINE_UP["thunderbolt"]
    g.seen(thunderbolt=(x + 0.8 * INCH, y, f))
    moved = g.do("move", unit="thunderbolt", mode=declared)[0]
    assert "counts as standing still (§5.2)" in moved.text and moved.details["counted_as"] == "still"
    assert g.state.moves["thunderbolt"] == "still"
    in_combat(g)
    at_it = g.do("attack", 1, 1, attacker="catapult", target="thunderbolt")[0]
    assert at_it.details["tn"] == 4  # skill 3, attacker still -1, medium +2, no TMM
    its_own = g.do("attack", 1, 1, attacker="thunderbolt", target="catapult")[0]
    assert "attacker still -1" in its_own.text


def test_5_2_one_inch_or_more_is_a_move(movement_phase):
    x, y, f = LINE_UP["thunderbolt"]
    movement_phase.seen(thunderbolt=(x + 1.2 * INCH, y, f))
    moved = movement_phase.do("move", unit="thunderbolt", mode="ground")[0]
    assert "counted_as" not in moved.details and movement_phase.state.moves["thunderbolt"] == "ground"


def test_5_4_wading_into_water_is_a_level_change_of_its_one_inch_depth(movement_phase):
    """«плюс дополнительные дюймы за вход в воду и за изменение уровня … глубина воды всегда
    считается равной 1 дюйму»: 6" ending 2" inside a pond is 6 + 2 (water) + 2 (1" down) = 10" of
    the Catapult's 8"; it was charged 8" and accepted."""
    g = movement_phase
    _pond(g)
    g.do("move", unit="thunderbolt", mode="still")
    x, y, f = LINE_UP["catapult"]
    g.seen(catapult=(x + 6 * INCH, y, f))
    ruling = g.do("move", unit="catapult", mode="ground")[0]
    assert ruling.details["cost_in"] == pytest.approx(10.0, abs=0.15)
    assert ruling.needs_referee and 'more than its 8"' in ruling.text and "level change" in ruling.text


def test_5_4_a_map_gives_its_water_a_depth():
    deep = {"id": "p", "type": "water", "height_mm": 0, "polygon": POND, "water_depth_mm": 60}
    assert parse_terrain({"format": "station-terrain/1", "pieces": [deep]}, "map.json")[0].water_depth_mm == 60
    hill = {**deep, "type": "hill"}
    with pytest.raises(ValueError, match=r"map.json.*water_depth_mm.*only water has a depth"):
        parse_terrain({"format": "station-terrain/1", "pieces": [hill]}, "map.json")
    with pytest.raises(ValueError, match=r"water_depth_mm.*more than 0"):
        parse_terrain({"format": "station-terrain/1", "pieces": [{**deep, "water_depth_mm": -5}]}, "map.json")


@pytest.mark.parametrize("depth_mm, cools", [(None, False), (2 * INCH, True)])
def test_9_4_deep_water_only_cools_in_water_two_inches_deep(depth_mm, cools):
    """``deep_water_only``: «стоит в воде глубиной не менее 2 дюймов»; with no depth on the map
    no water could ever cool a unit."""
    g = Alpha({"deep_water_only": True})
    _pond(g, **({"water_depth_mm": depth_mm} if depth_mm else {}))
    g.seen(**{**LINE_UP, "catapult": (300 + 8 * INCH, 600, 0)})
    g.do("roll_initiative", 3, 3, 2, 2)
    g.hurt("catapult", heat=2)
    in_combat(g)
    g.do("attack", 1, 1, attacker="catapult", target="thunderbolt")  # fired, no overheat
    g.do("end_turn")
    assert g.unit("catapult").heat == (1 if cools else 2)


def test_9_4_the_heat_rule_itself_reads_the_depth():
    hot = unit(card(), heat=2)
    shallow = TurnHeat(fired_weapons=True, in_water=True, water_depth_in=1.0)
    assert end_phase(hot, shallow, deep_water_only=True)[0].heat == 2
    deep = TurnHeat(fired_weapons=True, in_water=True, water_depth_in=2.0)
    assert end_phase(hot, deep, deep_water_only=True)[0].heat == 1


def test_4_2_leaving_the_table_is_that_sides_move():
    """«Так игроки по очереди двигают»: the attacker's Locust moved and left by the enemy's edge;
    the defender's next move was flagged out of turn, as if the attacker had not moved."""
    g = _with_edges({})
    g.do("roll_initiative", 3, 3, 2, 2)  # the defender moves first
    g.do("move", unit="thunderbolt", mode="still")
    g.seen(locust=(1800 - RADIUS - 5, 300, 0))
    g.do("move", unit="locust", mode="ground")
    g.do("leave_table", unit="locust")
    commando = g.do("move", unit="commando", mode="still")[0]
    assert "was due to move" not in commando.text and not commando.needs_referee


def test_4_2_leaving_without_a_declared_move_counts_as_its_move():
    g = _with_edges({})
    g.do("roll_initiative", 3, 3, 2, 2)
    g.do("move", unit="thunderbolt", mode="still")
    g.seen(locust=(1800 - RADIUS - 5, 300, 0))
    g.do("leave_table", unit="locust")
    assert "locust" in g.state.moves
    assert not g.do("move", unit="commando", mode="still")[0].needs_referee


def test_7_3_a_motive_hit_on_a_unit_at_mv_0_deals_one_damage_instead():
    """«Если последствие какого-либо критического попадания неприменимо … вместо этого нанесите
    … 1 дополнительное очко урона»: an MP hit at MV 0 did nothing («MV 0→0»)."""
    stopped = unit(card(armour=4), move_in=0)
    hurt, said = critical_hit(stopped, ScriptedRoller(3, 4), "k")  # 7: motive
    assert hurt.armour == 3 and "cannot apply" in said and hurt.mp_hits == stopped.mp_hits
    moving = unit(card(armour=4, move=10))
    assert critical_hit(moving, ScriptedRoller(3, 4), "k")[0].armour == 4  # a real motive hit: no damage


def test_4_3_a_side_passes_its_attacks_and_the_other_attacks():
    """§4.3: the loser attacks with all its units, then the winner.  Passing could only be
    inferred from the winner's first attack; now the referee enters it (issue 51)."""
    g = Alpha()
    g.seen(**LINE_UP)
    g.do("roll_initiative", 3, 3, 2, 2)  # the defender lost: it attacks first
    in_combat(g)
    assert g.rules.active_player(g.state) == "defender"
    g.do("attack", 1, 1, attacker="thunderbolt", target="catapult")
    passed = g.do("pass_attacks")[0]
    assert "The defender side passes: commando did not attack" in passed.text and passed.details["passed"] == [
        "commando"
    ]
    assert g.rules.active_player(g.state) == "attacker" and g.state.combat_side == 1
    late = g.do("attack", 1, 1, attacker="commando", target="catapult")[0]
    assert late.needs_referee and "has begun its attacks" in late.text
    last = g.do("pass_attacks")[0]
    assert last.refused and "end the turn instead" in last.text
    assert "pass_attacks" in g.rules.inputs_now(g.state)


def test_4_3_no_pass_outside_the_combat_phase(movement_phase):
    assert movement_phase.do("pass_attacks")[0].refused
