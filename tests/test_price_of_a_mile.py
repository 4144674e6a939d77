"""The Price of a Mile (seed 003) through the fold, section by section of the digest, with the
sample armies and simulated table snapshots."""

import json
from pathlib import Path

import pytest

from station.rules.price_of_a_mile import PriceOfAMile
from station.rules.price_of_a_mile.army import load_army

from .conftest import FoldDriver, ScriptedRoller, assert_bad_file

DATA = Path(__file__).resolve().parent.parent / "station" / "data" / "price_of_a_mile"
INCH = 25.4

LAYOUT = {
    **{f"p{k}": (40 + 60 * k, 200, 90) for k in range(1, 7)},
    **{f"g{k}": (560 + 60 * k, 200, 90) for k in range(1, 5)},
    "capitaine": (420, 120, 90),
    **{f"l{k}": (40 + 60 * k, 600, 270) for k in range(1, 7)},
    "m1": (800, 650, 270),
    "m2": (860, 650, 270),
    **{f"s{k}": (440 + 60 * k, 760, 270) for k in range(1, 5)},
    "leutnant": (1000, 800, 270),
}


class Mile(FoldDriver):
    table_mm = (1200, 900)

    def __init__(self, options=None, armies=None):
        super().__init__(
            PriceOfAMile, armies or [load_army(DATA / "entente.json"), load_army(DATA / "central.json")], options
        )

    def seen(self, **moved):
        """A snapshot of the sample layout, with the models moved so far and now."""
        self.placed = {**getattr(self, "placed", LAYOUT), **moved}
        return self.snapshot(self.placed)

    def f(self, fighter):
        return self.state.fighters[fighter]


@pytest.fixture
def game():
    g = Mile()
    g.seen()
    g.do("roll_initiative", 5, 3)  # entente 5 + 2 = 7, central 3 + 1 = 4
    return g


def test_4_2_initiative_adds_the_senior_commanders_resourcefulness_and_4_more_gives_two_activations():
    g = Mile()
    ruling = g.do("roll_initiative", 5, 3)[0]
    assert ruling.details["totals"] == {"entente": 7, "central": 4} and g.state.order == ("entente", "central")
    g = Mile({"tactical_superiority": "central"})
    g.do("roll_initiative", 6, 5, 2, 2, first_two="central")  # a tie (8, 8) rolls again: 4 against 5
    assert g.state.order == ("central", "entente")  # 1 apart: no double
    g = Mile()
    g.do("roll_initiative", 9, 1, first_two="central")  # 11 against 2: the winner gives central the first two
    assert g.state.order == ("central", "central", "entente")


def test_4_3_activations_alternate_one_squad_and_one_character(game):
    ruling = game.do("activate", squad="poilus", character="capitaine")[0]
    assert game.state.activation.actions["capitaine"] == 3 and game.state.activation.actions["p1"] == 2  # §12.1 Hero
    assert "entente activates squad poilus (6 bases) and capitaine" in ruling.text
    game.do("end_activation")
    assert "central" in game.rules.state_view(game.state)["active_player"]
    refused = game.do("activate", squad="grenadiers")[0]
    assert refused.needs_referee and "not a squad of central" in refused.text
    assert "only once its side has no squads" in game.do("activate", character="leutnant")[0].text


def test_3_2_a_squad_out_of_command_distance_fights_at_minus_one(game):
    game.seen(p6=(700, 350, 90))  # far from p5
    ruling = game.do("activate", squad="poilus")[0]
    assert ruling.kind == "warning" and "p6" in ruling.text and game.state.activation.out_of_command
    assert game.state.stat(game.f("p1"), "shooting") == 0  # 1 - 1


def test_6_1_the_target_is_one_of_the_three_nearest_and_casualties_fall_nearest_first(game):
    game.do("activate", squad="poilus")
    refused = game.do("shoot", shooter="p1", target="l6")[0]
    assert "not among the 3 nearest" in refused.text and game.state.activation.actions["p1"] == 2
    ruling = game.do("shoot", 6, 5, shooter="p1", target="l2")[0]  # d10 6 + SB 1 = 7 hits; 5 + 1 >= 6: out
    assert ruling.details["hits"] == 1 and game.f("l1").status == "out" and game.f("l2").status == "ok"  # l1 is nearest
    assert "effective range" in ruling.text and game.state.activation.actions["p1"] == 1


def test_6_7_a_heavy_machine_gun_cannot_fire_after_moving(game):
    """§6.7: «A heavy machine gun cannot fire at all if it has moved» (in that activation)."""
    game.do("activate", squad="poilus")
    game.do("end_activation")
    game.do("activate", squad="mg-crew")
    game.seen(m1=(800, 600, 270))  # 2" towards the enemy
    assert game.do("move", base="m1")[0].kind == "move"
    refused = game.do("shoot", shooter="m1", target="p6")[0]
    assert "cannot fire after moving" in refused.text and refused.section == "§6.7" and refused.needs_referee
    assert game.state.activation.actions["m1"] == 1  # the shot cost nothing


def test_6_3_long_range_and_cover_raise_the_target_number(game):
    game.do(
        "terrain",
        format="station-terrain/1",
        pieces=[
            {"id": "copse", "type": "woods", "height_mm": 60, "polygon": [[60, 560], [140, 560], [140, 640], [60, 640]]}
        ],
    )
    game.do("activate", squad="poilus", character="capitaine")
    ruling = game.do("shoot", 8, 9, shooter="p2", target="l1")[0]  # l1 in woods (1.6" deep, still seen): 8+
    assert ruling.details["need"] == 8 and ruling.details["cover"] and ruling.details["hits"] == 1
    far = game.do("shoot", 7, shooter="capitaine", target="l6")[0]  # pistol 6", l6 17.4" away: long, 9+
    assert far.details["need"] == 9 and far.details["long"] and far.details["hits"] == 0


def test_6_2_nobody_is_seen_more_than_2_inches_inside_woods(game):
    game.do(
        "terrain",
        format="station-terrain/1",
        pieces=[
            {"id": "forest", "type": "woods", "height_mm": 60, "polygon": [[0, 480], [500, 480], [500, 900], [0, 900]]}
        ],
    )
    game.do("activate", squad="poilus")
    refused = game.do("shoot", shooter="p1", target="l1")[0].text  # the landser stand 4.7" deep
    assert 'l1 is more than 2" inside forest, where nobody is seen' in refused  # the reason, not "not among the 3"


def test_6_6_rapid_fire_gives_a_free_shot_for_both_actions_and_6_5_aiming(game):
    game.do("activate", squad="poilus", character="capitaine")
    ruling = game.do("shoot", 1, 1, 1, shooter="capitaine", target="l6", actions=2)[0]  # l5 is behind p6 (§6.2)
    assert len(ruling.details["rolls"]) == 3 and "rapid fire" in ruling.text  # pistol: 2 actions, 3 shots
    aimed = game.do("shoot", 5, 1, shooter="p3", target="l4", aimed=True)[0]  # 5 + 1 + 2 = 8 hits; 1 + 1 < 6 wavers
    assert aimed.details["bonus"] == 3 and "aimed +2" in aimed.text and game.state.activation.actions["p3"] == 0
    assert "wavers" in aimed.text


def test_7_2_three_waverers_in_one_fight_make_one_flee(game):
    game.do("activate", squad="poilus")
    ruling = game.do("shoot", 9, 9, 9, 9, 1, 1, 1, 1, shooter="p6", target="l5", actions=2)[
        0
    ]  # automatic rifle: 4 shots
    assert ruling.details["hits"] == 4 and ruling.details["wavered"] == 4
    assert "panic" in ruling.text and sum(1 for k in range(1, 7) if game.f(f"l{k}").status == "fled") == 1


def test_13_morale_after_losing_a_third_disorder_then_flight(game):
    game.do("activate", squad="poilus")
    game.do("shoot", 9, 9, 9, 9, 9, 9, 9, 9, shooter="p6", target="l5", actions=2)  # 4 out of 6
    game.do("shoot", 1, shooter="p1", target="l2")  # a miss
    rulings = game.do("end_activation", 3)  # d10 3 + Morale 0 = 3 < 8
    morale = next(r for r in rulings if r.id.endswith(":morale:landser"))
    assert "Disordered" in morale.text and game.state.squads["landser"].disordered
    game.state = game.state.evolve(activation=None)
    from station.rules.price_of_a_mile.state import Activation
    from station.rules.price_of_a_mile.turns import morale_test

    game.state = game.state.evolve(activation=Activation("central", "landser", None, {}))
    game.state, again = morale_test(game.state, 99, "landser", ScriptedRoller(4), "test")
    assert "fails again while Disordered, 5 bases flee" in again.text  # 4 + 0 - 1 = 3: 8 - 3 = 5, two are left


def test_10_melee_in_contact_the_loser_falls_back_or_is_taken_out(game):
    game.seen(g1=(500, 705, 90))  # 5 mm from s1
    game.do("activate", squad="grenadiers")
    assert "not in contact" in game.do("melee", attacker="g2", defender="s1")[0].text
    assert game.state.activation.out_of_command  # g1 ran ahead of its squad: -1 (§3.2)
    ruling = game.do("melee", 8, 3, attacker="g1", defender="s1")[0]  # 8 - 1 against 3 + 0: margin 4, critical
    assert "critical" in ruling.text and game.f("s1").status == "out"
    assert game.state.activation.actions["g1"] == 0  # §5.4: contact ends its actions


def test_10_tie_goes_to_the_attacker_unless_the_defender_holds_and_heroes_roll_twice(game):
    game.seen(capitaine=(500, 715, 90))
    game.do("activate", squad="poilus", character="capitaine")
    # sabre +1: capitaine 4 + 1 = 5 against s1 5 + 0: the capitaine wins; s1 d10 9 + 1 + trench 0... out
    ruling = game.do("melee", 4, 5, 9, attacker="capitaine", defender="s1")[0]
    assert ruling.details["winner"] == "capitaine" and game.f("s1").status == "out"
    game.seen(capitaine=(560, 715, 90))  # now on s2
    held = game.do("melee", 4, 5, 9, 9, attacker="capitaine", defender="s2", defender_holds=True)[0]
    assert held.details["winner"] == "s2" and game.f("capitaine").status == "out"  # 9 + 1 + 1 >= 6 twice


def test_8_1_grenades_need_difficult_terrain_and_scatter(game):
    game.do("activate", squad="grenadiers")
    assert "in the open" in game.do("grenade", thrower="g1", at=[620, 360])[0].text
    game.do(
        "terrain",
        format="station-terrain/1",
        pieces=[
            {
                "id": "crater",
                "type": "woods",
                "height_mm": 10,
                "polygon": [[560, 300], [700, 300], [700, 420], [560, 420]],
            }
        ],
    )
    game.seen(l6=(620, 360, 270))
    assert "reaches 6" in game.do("grenade", thrower="g1", at=[620, 560])[0].text
    ruling = game.do("grenade", 12, 1, 7, 9, thrower="g1", at=[620, 360])[
        0
    ]  # scatter 1 - 0 = 1" up; l6 in cover: 7 >= 6, hit 9 + 1
    assert game.f("l6").status == "out" and ruling.details["hit"] == ["l6"]
    assert ruling.details["template"] == {"circle": [620.0, 385.4, 50.8]}  # drawn on the map with "show on map"


def test_9_1_flame_hits_and_shakes_the_squad(game):
    game.do("activate", squad="poilus")
    game.do("end_activation")
    game.seen(s1=(340, 330, 270))  # 4.1" in front of p5
    game.do("activate", squad="sturm")
    ruling = game.do("flame", 9, 8, operator="s1", bearing_deg=270)[0]  # p5 hit: 9 + 2 >= 6 out; fuel 8 left
    assert ruling.details["hit"] == ["p5"] and game.f("p5").status == "out" and not game.f("s1").fuel_spent
    rulings = game.do("end_activation", 9)
    assert any(
        r.id.endswith(":morale:poilus") and "lost 1 of 6, under artillery, tank or flame fire" in r.text
        for r in rulings
    )


def test_18_victory_points_when_the_last_turn_ends():
    g = Mile({"turns": 1})
    g.seen()
    g.do("roll_initiative", 5, 3)
    g.do("activate", squad="poilus", character="capitaine")
    g.do("shoot", 9, 9, shooter="p1", target="l1")
    g.do("end_activation")
    for squad, character in (("landser", "leutnant"), ("grenadiers", None), ("mg-crew", None), ("sturm", None)):
        g.do("activate", squad=squad, **({"character": character} if character else {}))
        rulings = g.do("end_activation")
    assert g.state.over and g.state.winner == "entente"
    assert any("victory points entente 10, central 0" in r.text for r in rulings)


@pytest.mark.parametrize(
    "change, where, problem",
    [
        ({"format": "x"}, "format", "price-of-a-mile-army/1"),
        ({"squads": [{"id": "a", "type": "veterans", "bases": [{"id": "b"}]}]}, "squads[0].type", "veterans"),
        (
            {"squads": [{"id": "a", "type": "regulars", "bases": [{"id": f"b{k}"} for k in range(11)]}]},
            "squads[0].bases",
            "at most 10",
        ),
        (
            {"squads": [{"id": "a", "type": "regulars", "rules": ["brave"], "bases": [{"id": "b"}]}]},
            "squads[0].rules[0]",
            "brave",
        ),
        (
            {"squads": [{"id": "a", "type": "regulars", "bases": [{"id": "b", "weapon": "laser"}]}]},
            "squads[0].bases[0].weapon",
            "laser",
        ),
        (
            {"squads": [{"id": "a", "type": "regulars", "bases": [{"id": "b", "stats": {"luck": 2}}]}]},
            "squads[0].bases[0].stats.luck",
            "unknown",
        ),
    ],
)
def test_bad_army_files_name_the_file_and_field(tmp_path, change, where, problem):
    assert_bad_file(load_army, DATA / "entente.json", tmp_path, change, where, problem)


def test_sample_data_says_so():
    raw = json.loads((DATA / "rules-data.json").read_text())
    assert "SAMPLE DATA" in raw["sample_data"] and raw["weapons"]["heavy_mg"]["accuracy"] == 1  # the source's +1
    assert (
        raw["troop_types"]["recruits"]["rules"] == ["no_rapid_fire"]
        and raw["troop_types"]["recruits"]["cost_base"] == 8.5
    )


def test_the_recorded_firefight_replays_to_the_ententes_win_on_points():
    """tests/data/sessions/price-of-a-mile.jsonl: station/data/price_of_a_mile/session.json played
    with table snapshots and the players' own d10s (make sessions)."""
    from station.fold import fold
    from station.journal import read_records

    records = read_records(Path(__file__).parent / "data" / "sessions" / "price-of-a-mile.jsonl")
    assert not [r for r in records if r["kind"] == "dice" and not r.get("physical")]
    result = fold(records)
    state = json.loads(result.state_json())
    assert state["game"] == "price_of_a_mile" and state["over"] and state["winner"] == "entente"
    assert state["victory_points"] == {"entente": 25, "central": 20}
    status = {e["id"]: e["status"] for u in state["units"] for e in u["elements"]}
    assert [k for k, v in sorted(status.items()) if v != "in play"] == ["g4", "l1", "l2", "l6", "p3"]
    assert {u["id"]: u["disordered"] for u in state["units"] if u["kind"] == "squad"}["landser"]
    assert not any(r.needs_referee for r in result.rulings)


def test_5_moves_are_checked_against_speed_difficult_terrain_and_contact(game):
    game.do(
        "terrain",
        format="station-terrain/1",
        pieces=[
            {
                "id": "hedge",
                "type": "obstacle",
                "height_mm": 20,
                "polygon": [[60, 300], [200, 300], [200, 310], [60, 310]],
            },
            {
                "id": "wall",
                "type": "obstacle",
                "height_mm": 80,
                "polygon": [[200, 300], [330, 300], [330, 310], [200, 310]],
            },
        ],
    )
    game.do("activate", squad="poilus")
    game.seen(p1=(100, 200 + 6 * INCH, 90))  # 6" through the hedge: 6 - 1 DTM = 5" allowed
    over = game.do("move", base="p1")[0]
    assert (
        over.needs_referee and "Difficult-Terrain Mode through hedge" in over.text and 'more than its 5"' in over.text
    )
    game.seen(p2=(160, 200 + 5 * INCH, 90))
    assert game.do("move", base="p2")[0].kind == "move"  # 5" in the open
    game.seen(p3=(220, 275, 90))  # up to the wall, its base touching it
    game.do("move", base="p3")
    game.seen(p3=(220, 335, 90))  # over it, touching its far side: the whole second Move
    wall = game.do("move", base="p3")[0]
    assert "a high obstacle takes the whole Move" in wall.text and not wall.needs_referee
    game.seen(l5=(340, 420, 270))  # the landser came forward last turn
    game.seen(p5=(340, 350, 90))  # 5.9" to within 0.8" of them
    contact = game.do("move", base="p5")[0]
    assert (
        "in contact with l5" in contact.text and game.state.activation.actions["p5"] == 0 and not contact.needs_referee
    )
    assert "has 0 action(s) left" in game.do("move", base="p5")[0].text


def _with_artillery(tmp_path):
    entente = json.loads((DATA / "entente.json").read_text())
    central = json.loads((DATA / "central.json").read_text())
    entente["squads"].append(
        {"id": "gun-crew", "type": "regulars", "bases": [{"id": "fg1", "weapon": "field_gun"}, {"id": "fg2"}]}
    )
    central["squads"].append(
        {"id": "mortar-crew", "type": "regulars", "bases": [{"id": "mo1", "weapon": "mortar"}, {"id": "mo2"}]}
    )
    paths = []
    for army in (entente, central):
        path = tmp_path / f"{army['player']}.json"
        path.write_text(json.dumps(army))
        paths.append(load_army(path))
    g = Mile(armies=paths)
    g.seen(fg1=(900, 100, 90), fg2=(960, 100, 90), mo1=(600, 850, 270), mo2=(660, 850, 270))
    return g


def test_9_2_the_mortar_needs_12_inches_scatters_less_when_aimed_and_shakes_who_it_falls_on(tmp_path):
    g = _with_artillery(tmp_path)
    g.do("roll_initiative", 1, 9)  # entente 3, central 10: central takes the first two activations
    g.do("activate", squad="mortar-crew")
    assert '12" or more' in g.do("mortar", gunner="mo1", at=[620, 700])[0].text
    ruling = g.do("mortar", 5, 12, 9, gunner="mo1", at=[340, 200], aimed=True)[0]  # 5 - (2 + 1) = 2" up the table
    assert 'scatter 2"' in ruling.text and g.f("p5").status == "out" and g.f("p4").status == "ok"
    assert g.state.activation.actions == {"mo1": 0, "mo2": 1}  # Load, Lay, Fire across the crew
    rulings = g.do("end_activation", 9)
    assert any(r.id.endswith(":morale:poilus") for r in rulings)


def test_9_2_a_mortar_d10_of_10_is_a_dud(tmp_path):
    g = _with_artillery(tmp_path)
    g.do("roll_initiative", 1, 9)
    g.do("activate", squad="mortar-crew")
    assert "dud" in g.do("mortar", 10, 3, gunner="mo1", at=[340, 200])[0].text


def test_9_3_the_field_gun_fires_like_a_rifle_minus_2_unaimed_and_a_miss_lands_off_target(tmp_path):
    g = _with_artillery(tmp_path)
    g.do("roll_initiative", 9, 1)
    g.do("activate", squad="gun-crew")
    ruling = g.do("field_gun", 6, 1, 12, 9, 2, gunner="fg1", target="l6")[0]  # 6 + 1 - 2 = 5 < 7: 1" off, up
    assert not ruling.details["hit"] and g.f("l5").status == "out" and g.f("l6").status == "ok"
    assert "l6 wavers" in ruling.text and "landser test Morale" in ruling.text


def test_9_3_a_natural_1_misfires(tmp_path):
    g = _with_artillery(tmp_path)
    g.do("roll_initiative", 9, 1)
    g.do("activate", squad="gun-crew")
    assert "misfire" in g.do("field_gun", 1, gunner="fg1", target="l6", aimed=True)[0].text
    assert "need 3" in g.do("field_gun", gunner="fg1", target="l6", aimed=True)[0].text


def _with_rules(tmp_path, rules, options=None):
    central = json.loads((DATA / "central.json").read_text())
    central["squads"][0]["rules"] = rules  # the landser
    path = tmp_path / "central.json"
    path.write_text(json.dumps(central))
    g = Mile(options, armies=[load_army(DATA / "entente.json"), load_army(path)])
    g.seen()
    return g


def test_14_gas_attack_costs_models_and_starts_squads_disordered(tmp_path):
    g = Mile({"gas_attack": "central"})
    ruling = g.do("gas_attack", 3, 2, 9, protection="poor", year="1917")[0]  # landser 3, mg-crew 2, sturm 9
    assert "landser d10 3: loses l6, l5, l4" in ruling.text and g.state.squads["landser"].disordered
    assert [g.f(m).status for m in ("m1", "m2")] == ["out", "out"] and not g.state.squads["sturm"].disordered
    assert g.state.stat(g.f("s1"), "morale") == 0 - 1  # -1 Morale all game
    assert "comes once" in g.do("gas_attack", protection="none")[0].text


def test_16_2_sluggish_and_16_5_hold_the_line(tmp_path):
    g = _with_rules(tmp_path, ["sluggish", "hold_the_line"])
    g.do("roll_initiative", 1, 9)  # central first, twice
    ruling = g.do("activate", 1, squad="landser")[0]
    assert "Sluggish: d6 1" in ruling.text and g.state.activation.actions["l1"] == 1
    assert g.state.stat(g.f("l1"), "speed") == 5


def test_16_6_enthusiasm_and_16_7_defend_the_homeland(tmp_path):
    g = _with_rules(tmp_path, ["defend_homeland"])
    assert g.state.stat(g.f("g1"), "morale") == 1 + 1  # inspired recruits +1, enthusiasm +1
    from station.rules.price_of_a_mile.turns import morale_test

    g.state, ruling = morale_test(g.state, 9, "landser", ScriptedRoller(1), "test")
    assert "defends its homeland: 2 base(s) flee" in ruling.text and not g.state.squads["landser"].disordered


def test_16_8_unreliable_squads_may_run_or_change_sides(tmp_path):
    g = _with_rules(tmp_path, ["unreliable"])
    g.do("roll_initiative", 1, 9)
    ruling = g.do("activate", 1, 1, squad="landser")[0]  # not within 8": one d10 of 1, then "Run!"
    assert "Run!" in ruling.text and sum(g.f(f"l{k}").status == "fled" for k in range(1, 7)) == 2
    g = _with_rules(tmp_path, ["unreliable"])
    g.do("roll_initiative", 1, 9)
    ruling = g.do("activate", 1, 10, squad="landser")[0]
    assert "Treason" in ruling.text and g.state.squads["landser"].player == "entente" and g.f("l1").player == "entente"


def test_16_1_random_game_length_from_turn_3():
    g = Mile({"random_length": True, "turns": 9})
    g.seen()
    for _turn, ending_dice in ((1, ()), (2, ()), (3, (4,)), (4, (5, 1))):
        g.do("roll_initiative", 5, 3)
        for squad in ("poilus", "landser", "grenadiers", "mg-crew", "sturm"):
            g.do(
                "activate",
                squad=squad,
                **(
                    {"character": "capitaine"}
                    if squad == "poilus"
                    else {"character": "leutnant"}
                    if squad == "landser"
                    else {}
                ),
            )
            rulings = g.do("end_activation", *(ending_dice if squad == "sturm" else ()))
    assert g.state.over and g.state.turn == 4 and any("2d10 [5, 1]" in r.text for r in rulings)


def _with_vehicles(tmp_path, tank_at=(1100, 450, 270)):
    entente = json.loads((DATA / "entente.json").read_text())
    central = json.loads((DATA / "central.json").read_text())
    entente["characters"].append({"id": "ac", "vehicle": "armoured_car_i"})
    central["characters"].append({"id": "tank", "vehicle": "mark_v_female"})
    armies = []
    for army in (entente, central):
        path = tmp_path / f"{army['player']}.json"
        path.write_text(json.dumps(army))
        armies.append(load_army(path))
    g = Mile(armies=armies)
    g.seen(ac=(700, 380, 90), tank=tank_at)
    return g


def test_15_any_shooter_may_pick_the_nearest_vehicle_and_a_tank_takes_d6_points(tmp_path):
    g = _with_vehicles(tmp_path)
    g.do("roll_initiative", 5, 3)
    g.do("activate", squad="poilus")
    ruling = g.do("shoot", 8, 9, 3, shooter="p1", target="tank")[0]  # 8 + 1 + vehicle 1 = 10 >= 9 (long); 9 + 1 >= 9
    assert "vehicle +1" in ruling.text and g.f("tank").damage == 3 and not g.f("tank").immobilised
    assert "3 damage point(s)" in ruling.text


def test_15_vehicle_damage_immobilises_destroys_and_shakes_the_crew(tmp_path):
    from station.rules.price_of_a_mile import vehicles

    g = _with_vehicles(tmp_path)
    state, said = vehicles.damage(g.state, g.f("ac"), 0, False, ScriptedRoller(1, 4), "k", direct_hit=True)
    assert state.fighters["ac"].damage == 1 and state.fighters["ac"].immobilised  # a direct hit always does 1
    assert "Disordered" in said  # morale d10 4 + 2 = 6 < 8
    state, said = vehicles.damage(g.state, g.f("ac"), 1, True, ScriptedRoller(9, 2, 9), "k")  # rifle fire: 2 points
    assert state.fighters["ac"].damage == 2 and not state.fighters["ac"].immobilised and "holds" in said
    state, said = vehicles.damage(state, state.fighters["ac"], 1, True, ScriptedRoller(9, 10), "k")
    assert state.fighters["ac"].status == "out" and "destroyed" in said


def test_13_1_an_enemy_tank_within_12_inches_tests_a_squad_when_it_activates(tmp_path):
    g = _with_vehicles(tmp_path, tank_at=(340, 480, 270))
    g.do("roll_initiative", 5, 3)
    rulings = g.do("activate", 3, squad="poilus")
    assert any('enemy tank tank within 12"' in r.text and "Disordered" in r.text for r in rulings)


def test_15_a_vehicle_that_loses_a_melee_takes_power_3_and_one_that_wins_does_no_harm(tmp_path):
    g = _with_vehicles(tmp_path, tank_at=(700, 470, 270))  # nose to nose with the armoured car
    g.do("roll_initiative", 5, 3)
    g.do("activate", 9, squad="grenadiers", character="ac")  # the tank is within 12": the grenadiers hold (9 + 2)
    ruling = g.do("melee", 2, 6, 9, 2, 9, attacker="ac", defender="tank")[
        0
    ]  # the tank wins; ac takes 9 + 3 >= 8: 2 points
    assert "drives" not in ruling.text and g.f("ac").damage == 2 and g.f("tank").damage == 0
    g.seen(g1=(700, 545, 90))  # a grenadier goes for the tank's rear and is beaten off
    beaten = g.do("melee", 1, 5, attacker="g1", defender="tank")[0]
    assert "drives them off without harm" in beaten.text and g.f("g1").status == "ok"


def test_15_vehicles_cannot_cross_obstacles_and_pay_3_inches_for_difficult_terrain(tmp_path):
    g = _with_vehicles(tmp_path)
    g.do(
        "terrain",
        format="station-terrain/1",
        pieces=[
            {
                "id": "fence",
                "type": "obstacle",
                "height_mm": 20,
                "polygon": [[680, 480], [720, 480], [720, 490], [680, 490]],
            }
        ],
    )
    g.do("roll_initiative", 5, 3)
    g.do("activate", squad="grenadiers", character="ac")
    g.seen(ac=(700, 380 + 8 * INCH, 90))
    ruling = g.do("move", base="ac")[0]
    assert "cannot cross obstacles" in ruling.text and '-3"' in ruling.text


def test_5_7_barbed_wire_is_crossed_on_6_or_the_base_is_stuck_and_5_8_cut(game):
    from dataclasses import replace as swap

    game.do(
        "terrain",
        format="station-terrain/1",
        pieces=[
            {"id": "wire", "type": "wire", "height_mm": 30, "polygon": [[60, 255], [150, 255], [150, 275], [60, 275]]},
            {
                "id": "wire2",
                "type": "wire",
                "height_mm": 30,
                "polygon": [[130, 280], [190, 280], [190, 290], [130, 290]],
            },
        ],
    )
    game.do("activate", squad="poilus")
    game.seen(p1=(100, 300, 90))  # 100 mm, straight over the wire: d10 3 + Res 0 < 6
    ruling = game.do("move", 3, base="p1")[0]
    assert "stuck on wire" in ruling.text and game.f("p1").stuck
    assert game.state.stat(game.f("p1"), "melee") == -1 and "stuck on the wire" in game.do("move", base="p1")[0].text
    assert "free (§5.7)" in game.do("free", 6, base="p1")[0].text and not game.f("p1").stuck
    game.state = game.state.with_fighter(swap(game.f("p2"), wire_cutters=True))
    game.seen(p2=(160, 250, 90))
    game.do("move", base="p2")
    assert "a gap is made" in game.do("cut_wire", 8, base="p2", wire="wire2")[0].text and "wire2" in game.state.cut_wire


def test_5_6_trenches_give_range_cover_and_channel_blasts(game):
    from station.rules.price_of_a_mile.blasts import blast_area
    from station.rules.price_of_a_mile.where import placed_many

    game.do(
        "terrain",
        format="station-terrain/1",
        pieces=[
            {"id": "sap", "type": "trench", "height_mm": 0, "polygon": [[560, 150], [800, 150], [800, 250], [560, 250]]}
        ],
    )
    game.seen(capitaine=(600, 200, 90), l1=(600, 460, 270))
    game.do("activate", squad="poilus", character="capitaine")
    shot = game.do("shoot", 1, shooter="capitaine", target="l1")[0]
    assert not shot.details["long"]  # 8.8" with a 6" pistol, but from a trench: +4" (§6.3)
    everyone = placed_many(game.state, list(game.state.fighters))
    hit, extra, where = blast_area(game.state, (680, 200), everyone)  # in the sap: 3", +1, only those in it
    assert extra == 1 and "sap" in where and set(hit) == {"g1", "g2", "g3", "capitaine"}
    hit, extra, _ = blast_area(game.state, (680, 270), everyone)  # outside: 2"
    assert extra == 0 and set(hit) == {"g2"}
    from station.rules.price_of_a_mile.blasts import hit_under

    state, words, _ = hit_under(game.state, ["g2"], ScriptedRoller(7), "k", 1, (680, 270), True)
    assert "escapes" in words[0]  # in a trench, a blast from outside needs 8+ (§8.2)


def test_12_1_a_hero_hit_by_fire_rolls_two_dice_and_falls_back_6_inches(game):
    game.do("activate", squad="poilus", character="capitaine")
    game.do("end_activation")
    game.seen(capitaine=(420, 300, 90), l6=(420, 420, 270))  # he ran ahead of his men
    game.do("activate", squad="landser")
    ruling = game.do("shoot", 9, 9, 2, shooter="l6", target="capitaine")[0]  # one die of two fails: unharmed
    assert 'falls back 6" unharmed' in ruling.text and game.f("capitaine").status == "ok"


def test_12_2_cavalry_dismount_for_good_keeping_half_mounted(tmp_path):
    entente = json.loads((DATA / "entente.json").read_text())
    entente["squads"].append(
        {
            "id": "hussars",
            "type": "regulars",
            "bases": [
                {"id": f"h{k}", "mounted": True, "melee_weapon": "sabre", "weapon": "carbine"} for k in range(1, 5)
            ],
        }
    )
    path = tmp_path / "entente.json"
    path.write_text(json.dumps(entente))
    g = Mile(armies=[load_army(path), load_army(DATA / "central.json")])
    g.seen(h1=(100, 380, 90), h2=(160, 380, 90), h3=(220, 380, 90), h4=(280, 380, 90))
    g.do("roll_initiative", 5, 3)
    g.do("activate", squad="hussars")
    assert g.f("h1").stats["speed"] == 9  # +3" mounted
    assert "at least half mounted" in g.do("dismount", bases=["h1", "h2", "h3"])[0].text
    g.do("dismount", bases=["h1", "h2"])
    assert not g.f("h1").mounted and g.f("h1").stats["speed"] == 6 and g.f("h3").mounted


def test_the_dashboard_sees_command_links_cut_off_bases_markers_and_templates(game):
    game.seen(p6=(700, 350, 90))
    view = game.rules.state_view(game.state)
    assert ["p1", "p2"] in view["links"] and view["cut_off"] == ["p6"]
    game.do("activate", squad="poilus")
    units = {u["id"]: u for u in game.rules.state_view(game.state)["units"]}
    assert units["poilus"]["markers"] == ["out of command"] and units["landser"]["markers"] == []
    game.state = game.state.with_squad(
        game.state.squads["landser"].__class__(**{**game.state.squads["landser"].__dict__, "disordered": True})
    )
    assert {u["id"]: u for u in game.rules.state_view(game.state)["units"]}["landser"]["markers"] == ["Disordered"]


def test_6_10_a_squad_short_of_ammunition_may_misfire_for_good(tmp_path):
    g = _with_rules(tmp_path, ["short_of_ammo"])
    g.do("roll_initiative", 1, 9)
    g.do("activate", squad="landser")
    ruling = g.do("shoot", 1, 2, shooter="l1", target="p1")[0]  # a natural 1, then d10 2: the rifle is done
    assert "out of action for good" in ruling.text and g.f("l1").silenced
    assert "out of action for the rest of the game" in g.do("shoot", shooter="l1", target="p1")[0].text


def test_17_2_inspired_recruits_who_advance_as_one_may_lose_their_disorder(game):
    from dataclasses import replace as swap

    game.state = game.state.with_squad(swap(game.state.squads["grenadiers"], disordered=True))
    game.do("activate", squad="grenadiers")
    for k in range(1, 5):
        x, y, f = LAYOUT[f"g{k}"]
        game.seen(**{f"g{k}": (x, y + 2 * INCH, f)})
        game.do("move", base=f"g{k}")
    rulings = game.do("end_activation", 8)
    assert any("advanced as one: d10 8, its Disorder is lifted" in r.text for r in rulings)
    assert not game.state.squads["grenadiers"].disordered


def test_16_9_war_of_wits_insults_a_target_into_a_bad_charge(game):
    game.seen(capitaine=(100, 510, 90))  # 2.1" from l1
    game.do("activate", squad="poilus", character="capitaine")
    assert "never a Hero" in game.do("wits", character="capitaine", target="capitaine", choice="insult")[0].text
    ruling = game.do("wits", 5, character="capitaine", target="l1", choice="insult")[0]  # 5 + 2 x 2 = 9 >= 6 + 0
    assert "makes the target charge" in ruling.text and game.f("l1").insulted
    assert "once an activation" in game.do("wits", character="capitaine", target="l2", choice="deceive")[0].text
    game.seen(l1=(100, 545, 270))  # it charges the capitaine at once
    melee = game.do("melee", 9, 2, 4, 3, attacker="l1", defender="capitaine")[0]  # 2d10 9 and 2: it keeps the 2
    assert melee.details["totals"]["l1"] == 2 and melee.details["winner"] == "capitaine" and not game.f("l1").insulted


def test_16_4_artillery_support_drifts_its_markers_and_shells_every_turn():
    g = Mile({"artillery_support": "entente"})
    g.seen()
    ruling = g.do("artillery_markers", 1, 1, 12, 1, 1, 12, 1, 1, 12, markers=[[340, 600], [1150, 50], [1150, 850]])[0]
    assert ruling.details["markers"][0] == [340.0, 650.8]  # 2" up the table
    rulings = g.do(
        "roll_initiative", 5, 3, 1, 6, 9, 1, 9, 1, 12, 1, 12, 9
    )  # shell 1 lands 1" back: l4, l5, l6 under it
    shell = next(r for r in rulings if r.id.endswith(":shell:0"))
    assert "l4 out" in shell.text and "l5 wavers" in shell.text and "l6 out" in shell.text
    assert any(r.id.endswith(":morale:landser") and "artillery" in r.text for r in rulings)
    assert "at most 3" in g.do("move_marker", marker=0, to=[340, 800])[0].text
    g.do("move_marker", marker=0, to=[340, 700])
    assert g.state.support_markers[0] == (340.0, 700.0)


def with_a_truck(tmp_path):
    """The sample game with a truck, "lorry", and a two-base squad, "section", for the entente."""
    entente = json.loads((DATA / "entente.json").read_text())
    entente["characters"].append({"id": "lorry", "vehicle": "truck"})
    entente["squads"].append({"id": "section", "type": "regulars", "bases": [{"id": "r1"}, {"id": "r2"}]})
    path = tmp_path / "entente.json"
    path.write_text(json.dumps(entente))
    return Mile(armies=[load_army(path), load_army(DATA / "central.json")])


def test_15_1_a_truck_carries_a_squad_and_its_damage_hits_the_passengers(tmp_path):
    g = with_a_truck(tmp_path)
    g.seen(lorry=(900, 420, 90), r1=(870, 345, 90), r2=(930, 345, 90))
    g.do("roll_initiative", 5, 3)
    g.do("activate", squad="section")
    g.do("embark", squad="section", truck="lorry")
    assert g.f("r1").aboard == "lorry" and g.state.activation.actions["r1"] == 1
    from station.rules.price_of_a_mile.where import placed

    assert placed(g.state, "r1") is None  # off the table: nobody can target it
    from station.rules.price_of_a_mile import vehicles

    state, said = vehicles.damage(g.state, g.f("lorry"), 5, False, ScriptedRoller(9, 2, 7, 2, 9), "k")
    assert "passengers: r1 out (d10 7), r2 unhurt (d10 2)" in said and state.fighters["lorry"].immobilised


def test_11_non_combat_tasks_16_3_treacherous_ground_and_16_10_popular_commanders():
    g = Mile({"treacherous": ["bog"], "popular": ["capitaine"], "popularity_vp": 15})
    g.do(
        "terrain",
        format="station-terrain/1",
        pieces=[
            {"id": "bog", "type": "water", "height_mm": 0, "polygon": [[60, 240], [140, 240], [140, 300], [60, 300]]}
        ],
    )
    g.seen()
    g.do("roll_initiative", 5, 3)
    g.do("activate", squad="poilus", character="capitaine")
    assert "success" in g.do("task", 8, base="p2", task="searching the farm")[0].text  # 8 + 0 >= 8
    g.seen(p1=(100, 200 + 4 * INCH, 90))  # through the bog
    moved = g.do("move", 1, 7, base="p1")[0]  # a 1: a Power 0 hit, 7 >= Toughness 6
    assert "treacherous bog: d10 1, then 7: p1 is lost" in moved.text and g.f("p1").status == "out"
    assert "popular commander" in g.do("carry_body", commander="capitaine")[0].text  # he is not down
    from dataclasses import replace as swap

    g.state = g.state.with_fighter(swap(g.f("capitaine"), status="out"))
    g.do("carry_body", commander="capitaine")
    from station.rules.price_of_a_mile.turns import victory_points

    assert victory_points(g.state, "entente") == 15 and victory_points(g.state, "central") == 10 + 10  # p1 and him


def test_15_2_a_tank_fires_every_weapon_with_one_action_once_a_turn(tmp_path):
    g = _with_vehicles(tmp_path, tank_at=(340, 480, 270))
    g.do("roll_initiative", 1, 9)  # central first
    g.do("activate", squad="landser", character="tank")
    ruling = g.do("shoot", *([1] * 15), shooter="tank", target="p5")[0]  # 5 machine guns x 3 shots, all missing
    assert len(ruling.details["rolls"]) == 15 and "all 5 weapons" in ruling.text
    assert "once a turn" in g.do("shoot", shooter="tank", target="p5")[0].text


def test_16_6_and_16_7_victory_point_variants(tmp_path):
    from dataclasses import replace as swap

    from station.rules.price_of_a_mile.turns import victory_points

    for options, points in (({}, 10 + 5), ({"homeland_variant": True, "enthusiasm_variant": True}, 20 + 10)):
        g = _with_rules(tmp_path, ["defend_homeland"], options)
        g.state = g.state.with_fighter(swap(g.f("l1"), status="out"))  # a Homeland landser killed
        g.state = g.state.with_fighter(swap(g.f("g1"), status="fled"))  # an Enthusiastic grenadier fled
        assert victory_points(g.state, "entente") + victory_points(g.state, "central") == points


def test_6_3_with_no_camera_the_referees_tape_gives_the_range_and_cover():
    """Issue 48: no camera placed the bases.  The shot asks for the range by name (it was refused
    with "the camera has not placed p1"), then takes the referee's tape and word for cover."""
    g = Mile()
    g.do("roll_initiative", 5, 3)
    g.do("activate", squad="poilus")
    asked = g.do("shoot", shooter="p1", target="l2")[0]
    assert asked.refused and "give the distance in inches" in asked.text and g.state.activation.actions["p1"] == 2
    ruling = g.do("shoot", 1, shooter="p1", target="l2", distance=14.5, cover=True)[0]
    assert ruling.kind == "shot" and not ruling.refused and ruling.details["need"] == 8  # §6.3: effective, in cover
    assert ruling.details["measured_by"] == "referee" and "referee's tape" in ruling.text
    assert '14.5"' in ruling.text and ruling.details["hits"] == 0
    far = g.do("shoot", 1, shooter="p2", target="l3", distance=40)[0]  # beyond the rifle's range: long, no cover
    assert far.details["need"] == 9 and far.details["long"] and not far.details["cover"]


def test_6_3_a_shot_the_referee_tapes_takes_its_casualties_without_positions():
    g = Mile()
    g.do("roll_initiative", 5, 3)
    g.do("activate", squad="poilus")
    ruling = g.do("shoot", 10, 9, shooter="p1", target="l2", distance=6)[0]  # a hit; d10 9 + Power beats Toughness
    assert ruling.details["hits"] == 1 and sum(g.f(f"l{k}").status == "out" for k in range(1, 7)) == 1


def test_5_with_no_camera_a_move_takes_the_referees_tape_and_word_for_contact():
    """Issue 48: with no camera a move measured 0" and could not be told otherwise."""
    g = Mile()
    g.do("roll_initiative", 5, 3)
    g.do("activate", squad="poilus")
    moved = g.do("move", base="p1", inches=4)[0]
    assert moved.kind == "move" and '4.0"' in moved.text and moved.details["measured_by"] == "referee"
    assert "p1" in g.state.activation.moved and "referee's tape" in moved.text
    far = g.do("move", base="p2", inches=12)[0]
    assert far.kind == "warning" and far.needs_referee and "more than its" in far.text
    touching = g.do("move", base="p3", inches=3, contact="l1")[0]
    assert touching.details["contact"] == ["l1"] and g.state.activation.actions["p3"] == 0
