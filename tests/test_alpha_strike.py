"""Alpha Strike (seed 004): cards, the target number and damage, with the digest's worked examples."""

import json

import pytest

from station.datafile import Fields
from station.rules.alpha_strike.attack import (
    Geometry,
    apply_damage,
    band_of,
    critical_hit,
    target_number,
    weapon_damage,
)
from station.rules.alpha_strike.cards import Card, UnitState, parse_card, skill_pv
from station.rules.alpha_strike.mul import parse_mul
from station.rules.base import ArmyError

from .conftest import ScriptedRoller


def card(name="Test", damage=("3", "3", "2"), armour=4, structure=5, tmm=1, move=10, specials=(), ov=0, size=3):
    return Card(name, "BM", size, tmm, move, 0, "", damage, ov, armour, structure, tuple(specials))


def unit(c, skill=4, **changes):
    u = UnitState.fresh(c.name, "p", c, skill)
    return u.__class__(**{**u.__dict__, **changes}) if changes else u


def test_6_4_worked_example_cataphract_against_the_anvil_needs_7():
    """Skill 3, 2" away (short, +0), the Anvil jumped (TMM 2 +1), standing in water (+1): TN 7."""
    cataphract = unit(card("Cataphract CTF-3L"), skill=3)
    anvil = unit(card("Anvil ANV-5M", tmm=2))
    tn = target_number(cataphract, anvil, Geometry(edge_in=2.0, target_in_water=True), "ground", "jump")
    assert tn.value == 7 and tn.band == "short"
    assert dict(tn.parts) == {"skill": 3, "target TMM +1 for jumping": 3, "partial cover": 1}


@pytest.mark.parametrize(
    "inches, band", [(6.0, "short"), (6.01, "medium"), (24.0, "medium"), (42.0, "long"), (42.1, None)]
)
def test_6_3_range_bands(inches, band):
    found = band_of(inches)
    assert (found[2] if found else None) == band


def test_6_4_every_modifier_and_the_reasons_for_no_attack():
    attacker = unit(card(damage=("3", "2", "-")), skill=4, heat=2, fire_control_hits=1)
    target = unit(card(tmm=2))
    tn = target_number(
        attacker,
        target,
        Geometry(edge_in=10.0, woods_in=3.0, target_in_woods=True, hidden_fraction=0.4),
        "still",
        "ground",
    )
    assert tn.value == 4 - 1 + 2 + 1 + 1 + 2 + 2 + 2  # woods counted once (A6)
    assert target_number(attacker, target, Geometry(edge_in=30.0), "ground", "ground").why_not.startswith("Test has no")
    assert (
        "woods block"
        in target_number(attacker, target, Geometry(edge_in=10.0, woods_in=7.0), "ground", "ground").why_not
    )
    assert (
        "a third"
        in target_number(attacker, target, Geometry(edge_in=10.0, hidden_fraction=0.8), "ground", "ground").why_not
    )
    shut = target_number(attacker, unit(card(), shutdown=True), Geometry(edge_in=3.0), "ground", "ground")
    assert ("target immobile", -4) in shut.parts


def test_7_2_worked_example_the_rifleman():
    """Rifleman RFL-3N, A 4 S 5, hit at medium by a Stalker (3) then a Bushwacker (3): armour 4→1,
    then 1 armour and 2 structure; structure damaged, so a crit roll: 10 is a Fire Control hit."""
    roller = ScriptedRoller(4, 6)
    rifleman = unit(card("Rifleman RFL-3N", armour=4, structure=5))
    rifleman, words = apply_damage(rifleman, 3, False, False, roller, "stalker")
    assert (rifleman.armour, rifleman.structure) == (1, 5) and not any("critical" in w for w in words)
    rifleman, words = apply_damage(rifleman, 3, False, False, roller, "bushwacker")
    assert (rifleman.armour, rifleman.structure, rifleman.fire_control_hits) == (0, 3, 1)
    assert "fire control hit" in words[-1]


def test_7_4_the_critical_hit_table_and_its_effects():
    mech = unit(card(move=10, tmm=2))
    hit, said = critical_hit(mech, ScriptedRoller(3, 4), "k")  # 7: motive
    assert (hit.move_in, hit.tmm) == (5, 1) and "motive" in said
    hit, _ = critical_hit(hit, ScriptedRoller(3, 4), "k")  # at least 2" and 1 TMM
    assert (hit.move_in, hit.tmm) == (2, 0)  # half of 5, rounded half up, is 3
    twice, said = critical_hit(unit(card(), engine_hits=1), ScriptedRoller(5, 6), "k")  # 11: a second engine hit
    assert twice.destroyed and "second engine" in said
    assert critical_hit(mech, ScriptedRoller(1, 1), "k")[0].destroyed  # 2: ammo, no CASE
    cased, said = critical_hit(unit(card(specials=["CASE"])), ScriptedRoller(1, 1), "k")
    assert not cased.destroyed and cased.armour == 3
    assert critical_hit(mech, ScriptedRoller(6, 6), "k")[0].destroyed  # 12
    unarmed, said = critical_hit(
        unit(card(damage=("0", "0", "-"))), ScriptedRoller(3, 3), "k"
    )  # weapon hit, nothing to lose
    assert unarmed.armour == 3 and "cannot apply" in said


def test_6_6_minimal_damage_rear_and_overheat():
    attacker = unit(card(damage=("0*", "3", "2"), ov=2, specials=["OVL"]))
    assert weapon_damage(attacker, "short", False, 0, ScriptedRoller(3), "k")[:2] == (0, True)
    assert weapon_damage(attacker, "short", True, 0, ScriptedRoller(4), "k")[:2] == (2, False)
    assert weapon_damage(attacker, "medium", True, 2, ScriptedRoller(), "k")[0] == 3 + 1 + 2
    assert weapon_damage(attacker, "long", False, 2, ScriptedRoller(), "k")[0] == 2 + 2  # OVL: overheat at long
    hurt = unit(card(damage=("0*", "3", "2")), weapon_hits=1)
    assert hurt.damage_at(0) == "0" and hurt.damage_at(1) == "2"  # A11


def test_pv_for_pilot_skill():
    assert skill_pv(30, 4) == 30 and skill_pv(30, 3) == 36 and skill_pv(30, 5) == 27


def test_cards_in_the_project_format_and_from_the_master_unit_list():
    mul = {
        "Name": "Stalker",
        "Variant": "STK-3F",
        "BFType": "BM",
        "BFSize": 4,
        "BFTMM": 1,
        "BFMove": '8"',
        "BFArmor": 8,
        "BFStructure": 6,
        "BFDamageShort": 3,
        "BFDamageMedium": 4,
        "BFDamageLong": 2,
        "BFOverheat": 3,
        "BFAbilities": "IF1, LRM1/1/1",
        "BFPointValue": 45,
        "Role": {"Name": "Missile Boat"},
    }
    stalker = parse_mul(Fields("mul.json", mul))
    assert stalker.name == "Stalker STK-3F" and stalker.damage == ("3", "4", "2") and stalker.overheat == 3
    assert stalker.role == "Missile Boat" and stalker.has("IF")
    locust = parse_mul(
        Fields(
            "mul.json",
            {
                **mul,
                "BFDamageLong": 0,
                "BFDamageLongMin": True,
                "BFDamageShortMin": False,
                "BFAbilities": "C3S, ENE, TUR(1/1/1), CK15-D, MHQ3, IF1, OMNI",
            },
        )
    )
    assert locust.damage == ("3", "4", "0*") and locust.has("ENE") and len(locust.specials) == 7
    assert (locust.extreme, locust.threshold) == ("-", 0)
    far = parse_mul(Fields("mul.json", {**mul, "BFDamageExtreme": 1, "BFThreshold": 2}))
    assert (far.extreme, far.threshold) == ("1", 2)
    own = parse_card(
        Fields(
            "cards.json",
            {
                "name": "Locust LCT-1E",
                "size": 1,
                "tmm": 3,
                "move_in": 16,
                "role": "Scout",
                "damage": {"S": 1, "M": 1, "L": "0*"},
                "armour": 2,
                "structure": 2,
            },
        )
    )
    assert own.damage == ("1", "1", "0*") and own.sample_data


@pytest.mark.parametrize(
    "change, where, problem",
    [
        (lambda c: c.pop("armour"), "armour", "required"),
        (lambda c: c["damage"].update(M="4x"), "damage.M", "0*"),
        (lambda c: c.update(specials=["GLOWING"]), "specials", "unknown special"),
        (lambda c: c.update(specials=["CASEY"]), "specials", "unknown special 'CASEY'"),
        (lambda c: c.update(size=7), "size", "1"),
    ],
)
def test_bad_cards_name_the_field(change, where, problem):
    data = {
        "name": "Locust",
        "size": 1,
        "tmm": 3,
        "move_in": 16,
        "damage": {"S": 1, "M": 1, "L": "0*"},
        "armour": 2,
        "structure": 2,
    }
    change(data)
    with pytest.raises(ArmyError) as err:
        parse_card(Fields("cards.json", json.loads(json.dumps(data)), error=ArmyError))
    assert where in str(err.value) and problem in str(err.value)


def test_9_1_stalker_overheat_example():
    """Stalker STK-3F, 3/4/2, OV 3, no OVL: up to 6 at short, 7 at medium, still 2 at long; at
    heat 3 next turn it may use only 1 point."""
    from station.rules.alpha_strike.heat import max_overheat

    stalker = unit(card("Stalker STK-3F", damage=("3", "4", "2"), ov=3))
    assert max_overheat(stalker) == 3
    assert [
        weapon_damage(stalker, band, False, 3, ScriptedRoller(), "k")[0] for band in ("short", "medium", "long")
    ] == [6, 7, 2]
    assert max_overheat(unit(stalker.card, heat=3)) == 1


def test_9_4_loki_prime_heat_example():
    """Overheat 2: heat 2 next turn (-4" MV, TMM -1, +2 to hit); 2 more the next turn shuts it
    down; shut down, it restarts at 0 in the following End Phase."""
    from station.rules.alpha_strike.heat import TurnHeat, end_phase, ground_move_in, heat_effects

    loki = unit(card("Loki Prime", ov=3, move=10))
    loki, _ = end_phase(loki, TurnHeat(overheat_used=2, fired_weapons=True))
    assert (
        loki.heat == 2 and heat_effects(loki) == {"to_hit": 2, "move_in": -4, "tmm": -1} and ground_move_in(loki) == 6
    )
    kept, _ = end_phase(loki, TurnHeat(fired_weapons=True))
    assert kept.heat == 2  # fired without overheat, not in water: unchanged
    loki, said = end_phase(loki, TurnHeat(overheat_used=2, fired_weapons=True))
    assert loki.heat == 4 and loki.shutdown and "shuts down" in said
    loki, said = end_phase(loki, TurnHeat())
    assert loki.heat == 0 and not loki.shutdown and "restarts" in said


def test_9_4_cooling_water_engine_and_ht():
    from station.rules.alpha_strike.heat import TurnHeat, end_phase

    hot = unit(card(ov=2), heat=2)
    assert end_phase(hot, TurnHeat())[0].heat == 0  # no weapon attack
    assert end_phase(hot, TurnHeat(fired_weapons=True, in_water=True))[0].heat == 1
    assert end_phase(hot, TurnHeat(fired_weapons=True, in_water=True), deep_water_only=True)[0].heat == 2
    assert end_phase(hot, TurnHeat(overheat_used=1, fired_weapons=True, in_water=True))[0].heat == 2
    engine = unit(card(ov=2), heat=1, engine_hits=1)
    assert end_phase(engine, TurnHeat(fired_weapons=True, ht_received=3))[0].heat == 1 + 1 + 2  # HT capped at 2


def test_9_2_a_hot_target_is_easier_to_hit_and_heat_can_immobilise():
    attacker = unit(card(), skill=4)
    hot = unit(card(tmm=2, move=10), heat=2)
    assert ("target TMM", 1) in target_number(attacker, hot, Geometry(edge_in=3.0), "ground", "ground").parts
    assert ("target TMM +1 for jumping", 3) in target_number(
        attacker, hot, Geometry(edge_in=3.0), "ground", "jump"
    ).parts
    stuck = unit(card(tmm=2, move=4), heat=2)  # 4" - 4" = 0: immobile
    assert ("target immobile", -4) in target_number(attacker, stuck, Geometry(edge_in=3.0), "ground", "ground").parts


def test_8_2_physical_attacks_their_reach_damage_and_self_damage():
    from station.rules.alpha_strike.melee import melee_plan, self_damage

    heavy = unit(card(size=3), skill=4)
    target = unit(card(size=3, tmm=1))
    standard = melee_plan(heavy, target, "standard", 0.8, 0.0, "ground", "ground")
    assert standard.damage == 3 and standard.tn == 4 + 0 + 1
    assert 'reaches 1"' in melee_plan(heavy, target, "standard", 1.5, 0, "ground", "ground").why_not
    assert "only units with MEL" in melee_plan(heavy, target, "melee_weapon", 1.0, 0, "ground", "ground").why_not
    brawler = unit(card(size=3, specials=["MEL"]))
    assert melee_plan(brawler, target, "melee_weapon", 1.8, 0, "ground", "ground").damage == 4
    charge = melee_plan(heavy, target, "charge", 0.0, 6.0, "ground", "ground")  # §8.2: 6 x 3 / 8 = 2.25 -> 2
    assert charge.damage == 2 and ("charge", 1) in charge.parts
    dfa = melee_plan(heavy, target, "dfa", 0.0, 6.0, "jump", "ground")
    assert dfa.damage == 3 and dfa.tn == 4 + 2 + 1 + 1  # A5: the jump's +2 applies too
    assert (
        self_damage(heavy, target, "charge", True) == 1 and self_damage(heavy, unit(card(size=2)), "charge", True) == 0
    )
    assert self_damage(heavy, target, "dfa", True) == 3 and self_damage(heavy, target, "dfa", False) == 2


def test_10_3_battlemaster_rear_example():
    """BattleMaster BLR-1G, 3/3/1, OV 1, REAR 1/1/-: REAR hits the Commando behind at short for 1,
    so the forward shot on the Shadow Hawk at medium deals 2, or 3 with its 1 overheat."""
    from station.rules.alpha_strike.combat import rear_points

    blr = unit(card("BattleMaster BLR-1G", damage=("3", "3", "1"), ov=1, specials=["REAR 1/1/-"]))
    rear = tuple(blr.card.special_values("REAR"))
    cut = rear_points(rear, "short")
    forward, _, _ = weapon_damage(blr, "medium", False, 0, ScriptedRoller(), "k")
    boosted, _, _ = weapon_damage(blr, "medium", False, 1, ScriptedRoller(), "k")
    assert cut == 1 and forward - cut == 2 and boosted - cut == 3
    assert rear_points(rear, "long") == 0  # no REAR at long
    assert rear_points(("0*", "0*", "-"), "short") == 1  # a 0* REAR still takes 1 (A21)


def test_a13_a_critical_on_a_full_track_deals_one_damage_instead():
    full = unit(card(), fire_control_hits=4)
    hurt, said = critical_hit(full, ScriptedRoller(2, 2), "k")  # 4: fire control
    assert hurt.fire_control_hits == 4 and hurt.armour == full.armour - 1 and "cannot apply" in said
    hurt, said = critical_hit(unit(card(), fire_control_hits=3), ScriptedRoller(2, 2), "k")
    assert hurt.fire_control_hits == 4 and hurt.armour == 4
