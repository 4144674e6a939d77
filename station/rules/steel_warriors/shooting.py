"""Steel Warriors shooting (seed 001 digest §6): a fire group's dice (Quality, the summed rate of
fire rounded down to a die, a die for each support weapon) against the target's Range die by
zone, prone and cover; none beating it does nothing, one suppresses, two or more suppress and
cause casualties, each tested Power against Armour."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ...dice import Roller
from ...measure.measurement import too_close_to_call
from ...measure.pairwise import edge_distances
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..input_args import BY_THE_REFEREE
from ..inputs import Args
from ..text import Text, joined, say
from .army import MORALE_WORDS
from .ladder import ZONES, casualties, range_die, rof_die, zone
from .state import INPUTS, Figure, Rules, WarState
from .turns import spend
from .where import nearest_gap, placed_many

LIGHT_COVER = ("woods",)  # §6.5: forest and bushes
HARD_COVER = ("building", "trench")  # §6.5: thick walls, trenches
COMMANDER_TABLE = (
    (3, 1, say("worse")),
    (5, 0, say("the same")),
    (6, -1, say("better")),
)  # §6.10: d6 -> Leadership change


COVER_STEPS = {"none": 0, "light": 1, "hard": 2}  # §6.5


def _taped_distance(args: Mapping[str, Any]) -> tuple[float, float]:
    """§6.4 with no camera: the referee's tape, from the nearest firer to the nearest target (the
    tape's own error is the referee's to judge: no σ).  Asked for by name when missing."""
    distance = arg.given_number(args, "distance")
    if distance is None:
        raise Refused(
            say(
                "the camera has not placed the fire group and the target: give the distance in inches from the tape (and cover)"
            ),
            "§6.4",
        )
    return distance, 0.0


def _taped_cover(args: Mapping[str, Any], target: list[Figure]) -> tuple[int, list[str]]:
    """§6.5 with no camera: the referee's word for the target squad's cover (none, light, hard);
    its figures are all in it or all in the open."""
    steps = COVER_STEPS[str(args.get("cover") or "none")]
    return steps, [] if steps else [f.id for f in target]


def _edge_in_doubt(distance: float, sigma: float, quality: int) -> int | None:
    """§6.4: the zone edge (a multiple of the Quality die's faces, in inches) the measured distance
    is too close to call against, or None (docs/measuring.md, "Thresholds")."""
    edge = round(distance / quality) * quality
    return edge if 0 < edge <= ZONES * quality and too_close_to_call(distance, edge, sigma) else None


def _cover_steps(state: WarState, target: list[Figure]) -> tuple[int, list[str]]:
    """§6.5, §13.7: hard cover +2, light +1, if every figure (or, by option, most) has it."""

    def cover(f: Figure) -> int:
        return 2 if state.stands_in(f.id, HARD_COVER) else 1 if state.stands_in(f.id, LIGHT_COVER) else 0

    levels = sorted((cover(f) for f in target), reverse=True)
    open_figures = [f.id for f in target if not cover(f)]
    if state.options.cover_rule == "all":
        return (min(levels) if levels else 0), open_figures
    return levels[len(levels) // 2] if levels else 0, open_figures


def _group(
    state: WarState,
    squad: str,
    ids: list[str],
    weapons: Mapping[str, Any],
    distance_in: float,
    zone_number: int,
    reaction: bool = False,
    strict: bool = True,
) -> tuple[list[Figure], list[Figure], list[Text]]:
    """The fire group's small arms and support weapons, each checked for §6.3's once an activation
    (twice for a heavy infantry weapon on the ground), zone-1-only weapons, range limits and ammunition.  A group
    the players named must all be able to fire (``strict``); the whole squad fires with those that
    can, and the others' reasons are returned, for a group left with none to say why."""
    act = state.activation
    on_a_vehicle = state.squads[squad].movement == "vehicle"
    skipped: list[Text] = []
    small: list[Figure] = []
    support: list[Figure] = []
    for fid in ids:
        f = state.figures.get(fid)
        if f is None or f.squad != squad or not f.fighting:
            raise Refused(say("{fid} is not a fighting figure of {squad}", fid=fid, squad=squad), "§6.3")
        w, name = weapons[f.weapon], f.weapon.replace("_", " ")
        why = None
        if not reaction and act is not None and act.fired.get(fid, 0) >= shots_an_activation(w, on_a_vehicle):
            why = (say("{fid}'s {name} has fired this activation", fid=fid, name=name), "§6.3")
        elif w["zone1_only"] and zone_number > 1:
            why = (say("{fid}'s {name} reaches only zone 1", fid=fid, name=name), "§6.6")
        elif w.get("range_in") and distance_in > w["range_in"]:
            why = (say("{fid}'s {name} reaches {range_in}\"", fid=fid, name=name, range_in=w["range_in"]), "§6.6")
        elif f.ammo is not None and f.ammo <= 0:
            why = (say("{fid}'s {name} is out of ammunition", fid=fid, name=name), "§6.10")
        if why and strict:
            raise Refused(*why)
        if why:
            skipped.append(why[0])
        else:
            (support if _own_die(w) else small).append(f)
    return small, support, skipped


def shots_an_activation(weapon: Mapping[str, Any], on_a_vehicle: bool) -> int:
    """§6.3: «никакое оружие не должно стрелять больше одного раза за одну активацию.  Однако …
    установленное на земле (но не на технике!) тяжёлое оружие пехоты (противотанковые пушки,
    станковые пулемёты, артиллерийские орудия, миномёты) два раза за активацию стрелять может».
    The weapons data marks those (``emplaced``); a vehicle squad's fire once."""
    return 2 if weapon.get("emplaced") and not on_a_vehicle else 1


def _own_die(weapon: Mapping[str, Any]) -> int | None:
    """§6.2: the die a weapon adds by itself: a support weapon's, or a heavy weapon's or guided
    missile's guidance-system die; small arms add to the squad's ROF die instead."""
    die = weapon.get("support_die") or weapon.get("guidance_die")
    return int(die) if die else None


def _heavy_alone(
    small: list[Figure], support: list[Figure], weapons: Mapping[str, Any], named: bool
) -> tuple[list[Figure], list[Figure], list[Text]]:
    """§6.2: a heavy weapon or a guided missile is its own fire type, Quality + its guidance die,
    so it fires alone: named with others it is refused; in a squad firing together it stays out."""
    heavy = [f for f in support if weapons[f.weapon].get("guidance_die")]
    if not heavy or len(small) + len(support) == 1:
        return small, support, []
    if named:
        raise Refused(
            say("a heavy weapon or guided missile fires on its own: Quality + its guidance-system die"), "§6.2"
        )
    return (
        small,
        [f for f in support if f not in heavy],
        [say("{fid}'s {name} fires on its own", fid=f.id, name=f.weapon.replace("_", " ")) for f in heavy],
    )


@dataclass(frozen=True)
class Volley:
    """A fire group's declared shot, checked and measured before any die is rolled (§6.2-6.5)."""

    squad: str
    target: str
    small: tuple[Figure, ...]
    support: tuple[Figure, ...]
    distance: float
    zone: int
    pool: tuple[int, ...]
    target_die: int
    power: int
    open_figures: tuple[str, ...]
    alone: Figure | None  # a support weapon firing on its own keeps its special rules
    sniper: bool
    edge_in_doubt: int | None = None  # a zone edge (inches) within the camera's uncertainty of the distance
    evasion: bool = False  # a guided missile: the target rolls its Evasion die, not the Range die (§6.2)
    taped: bool = False  # the distance and cover are the referee's (no camera on the two squads)

    def chances(self) -> tuple[float, float]:
        """The chance that at least one die, and at least two, beat the target's die."""
        one = two = 0.0
        for t in range(1, self.target_die + 1):
            none, exactly_one = 1.0, 0.0
            for d in self.pool:
                beat = max(0, d - t) / d
                none, exactly_one = none * (1 - beat), exactly_one * (1 - beat) + none * beat
            one += (1 - none) / self.target_die
            two += (1 - none - exactly_one) / self.target_die
        return one, two


def plan_volley(state: WarState, args: Mapping[str, Any], weapons: Mapping[str, Any]) -> Volley:
    squad_id, target_id = str(args.get("squad")), str(args.get("target"))
    squad, target = state.squads.get(squad_id), state.squads.get(target_id)
    if squad is None or target is None or squad.player == target.player or not state.fighting(target_id):
        raise Refused(say("give the acting squad and an enemy squad with fighters"), "§6")
    if squad.suppression:
        raise Refused(say("{squad_id} is suppressed and may not shoot", squad_id=squad_id), "§6.7")
    if squad.march:
        raise Refused(say("{squad_id} is in march order and may not shoot", squad_id=squad_id), "§5.4")
    if squad.morale == "fleeing" or (
        squad.morale == "broken" and target_id not in state.fired_on.get(squad_id, frozenset())
    ):
        raise Refused(
            say(
                "{squad_id} is {morale}: it fires only at an enemy that fired on it this turn",
                squad_id=squad_id,
                morale=MORALE_WORDS[squad.morale],
            ),
            "§10",
        )
    named = args.get("figures")
    ids = named or [f.id for f in state.fighting(squad_id)]
    gap = nearest_gap(state, ids, [f.id for f in state.fighting(target_id)])
    taped = gap is None  # no camera on the two squads: the referee's tape and word
    distance, sigma = _taped_distance(args) if gap is None else gap
    zone_number = zone(distance, squad.quality)
    if zone_number > ZONES:
        raise Refused(
            say(
                '{distance}" is beyond the fifth zone of a d{quality} squad',
                distance=f"{distance:.1f}",
                quality=squad.quality,
            ),
            "§6.4",
        )
    small, support, skipped = _group(
        state, squad_id, ids, weapons, distance, zone_number, bool(args.get("reaction")), bool(named)
    )
    small, support, alone_heavy = _heavy_alone(small, support, weapons, bool(named))
    skipped += alone_heavy
    pool = (
        [squad.quality]
        + ([rof_die(sum(weapons[f.weapon]["rof"] for f in small))] if small else [])
        + [_own_die(weapons[f.weapon]) or 0 for f in support]
    )
    if len(pool) < 2:
        if skipped:
            raise Refused(say("the fire group has no weapon that can fire: {why}", why=joined(skipped, "; ")), "§6.2")
        raise Refused(say("the fire group has no weapon"), "§6.2")
    powers = [weapons[f.weapon]["power"] for f in small] or [weapons[f.weapon]["power"] for f in support]
    power = (
        min(powers) if state.options.mixed_power == "lowest" else max(powers)
    )  # §6.10: support takes the rifles' Power
    steps, open_figures = (
        _taped_cover(args, state.fighting(target_id)) if taped else _cover_steps(state, state.fighting(target_id))
    )
    guided = bool(len(support) == 1 and not small and weapons[support[0].weapon].get("guided"))
    if guided and target.evasion_die is None:
        raise Refused(
            say(
                "{target_id} has no evasion die in its army file, which a guided missile is rolled against (the fragment gives no values)",
                target_id=target_id,
            ),
            "§6.2",
        )
    return Volley(
        squad_id,
        target_id,
        tuple(small),
        tuple(support),
        distance,
        zone_number,
        tuple(pool),
        target.evasion_die
        if guided and target.evasion_die
        else range_die(zone_number, steps + (1 if target.prone else 0)),
        power,
        tuple(open_figures),
        None if small or len(support) != 1 else support[0],
        bool(len(small) == 1 and not support and weapons[small[0].weapon].get("sniper")),
        None if taped else _edge_in_doubt(distance, sigma, squad.quality),
        guided,
        taped,
    )


def preview(state: WarState, args: Mapping[str, Any], weapons: Mapping[str, Any]) -> dict[str, Any]:
    """The dashboard's fire helper: a squad's fire at a squad (the whole squad from the map, or
    the action panel's choice with the referee's tape), and its odds."""
    try:
        v = plan_volley(state, args, weapons)
    except Refused as no:
        return {"refused": say("{why} ({section})", why=no.text, section=no.section)}
    one, two = v.chances()
    return {
        "summary": say(
            "{names} v d{target_die} · {n} % casualties",
            names=" + ".join(f"d{d}" for d in v.pool),
            target_die=v.target_die,
            n=round(two * 100),
        ),
        "lines": [
            say('{distance}" away, zone {zone}', distance=f"{v.distance:.1f}", zone=v.zone),
            say("suppressed at least: {n} %", n=round(one * 100)),
            say("Power d{power}", power=v.power),
        ],
        "doubts": [],
        "input": {"type": "shoot", "label": "Fire", "args": dict(args)},
    }


@INPUTS.register(
    "shoot",
    "§6",
    arg.unit("squad", "the squad acting", required=True),
    arg.unit("target", "the enemy squad shot at", required=True),
    arg.models("figures", "the figures that fire (all that can, when left out)"),
    arg.flag("reaction", "a defender's free fire at a charge that fell short (§8.1)"),
    arg.model("victim", "a sniper's chosen victim"),
    arg.taped(
        arg.number(
            "distance", "from the nearest firer to the nearest target, by the referee's tape (no camera)", 0, 200, True
        )
    ),
    arg.taped(
        arg.choice(
            "cover",
            "the target squad's cover by the referee's word (no camera): none, light or hard",
            tuple(COVER_STEPS),
        )
    ),
)
def shoot(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    roller = rules.roller
    weapons = rules.data["weapons"]
    armour = rules.data["armour"]
    reaction = bool(args.get("reaction"))  # §8.1: a defender's free fire at a charge that fell short
    if not reaction:
        state = spend(state, str(args.get("squad")), "§6.3")
    v = plan_volley(state, args, weapons)
    squad_id, target_id, small, support, pool = v.squad, v.target, list(v.small), list(v.support), list(v.pool)
    target_die, zone_number, distance, power, alone = v.target_die, v.zone, v.distance, v.power, v.alone
    rolls = [roller.roll(d, f"{seq}/shot/{k}") for k, d in enumerate(pool)]
    against = roller.roll(target_die, f"{seq}/shot/range")
    beats = sum(1 for r in rolls if r > against)
    if not reaction:
        act = state.acting()
        state = state.evolve(
            activation=replace(act, fired={**act.fired, **{f.id: act.fired.get(f.id, 0) + 1 for f in small + support}})
        )
    state = state.evolve(
        fired_on={**state.fired_on, target_id: state.fired_on.get(target_id, frozenset()) | {squad_id}}
    )
    for f in small + support:
        if f.ammo is not None:
            state = state.with_figure(replace(state.figures[f.id], ammo=f.ammo - 1))
    head = (
        say(
            '{squad_id} fires at {target_id} ({distance}", zone {zone_number}): ',
            squad_id=squad_id,
            target_id=target_id,
            distance=f"{distance:.1f}",
            zone_number=zone_number,
        )
        + " + ".join(f"d{d} {r}" for d, r in zip(pool, rolls))
        + (
            say(" against the evasion d{target_die} {against}", target_die=target_die, against=against)
            if v.evasion
            else say(" against d{target_die} {against}", target_die=target_die, against=against)
        )
    )
    outcome = [say("no effect"), say("suppressed"), say("suppressed, with casualties")][min(beats, 2)]
    if reaction:
        outcome = say("casualties") if beats >= 2 else say("no effect (it cannot suppress)")
    words = [head + ": " + outcome]
    if beats and not reaction:  # §8.1: the free fire at a charge cannot suppress
        state = state.suppress(target_id)
    standing_before = len(state.fighting(target_id))
    if beats >= 2:
        count = casualties(pool, target_die)
        victims = _victims(
            state,
            target_id,
            count,
            list(v.open_figures),
            roller,
            f"{seq}/victim",
            args.get("victim") if v.sniper else None,
        )
        for k, victim in enumerate(victims):
            state, said = hit(
                state,
                victim,
                power,
                weapons,
                armour,
                roller,
                f"{seq}/hit/{k}",
                flame=bool(alone and weapons[alone.weapon].get("flame")),
                fragmentation=bool(alone and weapons[alone.weapon].get("fragmentation")),
            )
            words.append(said)
    charging = state.activation
    if reaction and charging is not None and charging.squad == target_id:  # remembered for the recharge (§8.1)
        lost = standing_before - len(state.fighting(target_id))
        state = state.evolve(activation=replace(charging, free_fire_losses=charging.free_fire_losses + lost))
    if v.taped:
        words.append(say("distance and cover by the referee's tape"))
    if v.edge_in_doubt is not None:
        words.append(
            say(
                '{distance}" is within the camera\'s uncertainty of the {edge}" zone edge: too close to call, the referee decides',
                distance=f"{v.distance:.2f}",
                edge=v.edge_in_doubt,
            )
        )
    return state, [
        Ruling(
            f"{seq}:shot",
            seq,
            RulingKind.SHOT,
            joined(words, "; ") + ".",
            "§6",
            needs_referee=v.edge_in_doubt is not None,
            details={
                "pool": pool,
                "rolls": rolls,
                "target_die": target_die,
                "against": against,
                "beats": beats,
                "zone": zone_number,
                **(BY_THE_REFEREE if v.taped else {}),  # the distance and the cover were the referee's
            },
        )
    ]


def _victims(
    state: WarState, squad_id: str, count: int, open_first: list[str], roller: Roller, key: str, chosen: Any
) -> list[str]:
    """§6.8: hits fall at random on distinct figures, those in the open first; a sniper firing
    alone names his victim (§6.10)."""
    fighting = [f.id for f in state.fighting(squad_id)]
    if chosen in fighting:
        return [str(chosen)]
    picked: list[str] = []
    k = 0
    while len(picked) < min(count, len(fighting)):
        candidates = (
            [f for f in fighting if f in open_first and f not in picked] or [f for f in fighting if f not in picked]
        )[:20]
        die = next(d for d in (4, 6, 8, 10, 12, 20) if d >= len(candidates))
        roll = roller.roll(die, f"{key}/{k}")
        k += 1
        if roll <= len(candidates):  # counted from the left, re-rolled past the last figure (§6.8, §13.18)
            picked.append(candidates[roll - 1])
    return picked


def hit(
    state: WarState,
    figure_id: str,
    power: int,
    weapons: Mapping[str, Any],
    armour: Mapping[str, int],
    roller: Roller,
    key: str,
    flame: bool = False,
    fragmentation: bool = False,
) -> tuple[WarState, Text]:
    """§6.8-6.10: Power against Armour: more wounds, three times kills; a flamethrower always at
    least wounds; a man-sized weapon hit is destroyed; a lost commander is replaced (d6)."""
    figure = state.figures[figure_id]
    if weapons[figure.weapon].get("explodes"):  # §6.10: a Keno backpack flamethrower goes up
        return explode(state, figure_id, weapons, armour, roller, key)
    armour_die = 6 if figure.flak_vest and fragmentation else armour[figure.armour]
    p, a = roller.roll(power, f"{key}/power"), roller.roll(armour_die, f"{key}/armour")
    rolled = say(
        "{figure_id}: Power d{power} {p} against Armour d{armour_die} {a}, ",
        figure_id=figure_id,
        power=power,
        p=p,
        armour_die=armour_die,
        a=a,
    )
    if p >= 3 * a:
        outcome = "killed"
    elif p > a or flame:
        outcome = "unverified"
    else:
        return state, rolled + say("no harm")
    if figure.role == "weapon":
        outcome = "destroyed"
    elif figure.armour == "robot":  # §6.9: a robot's first wound stops it; the next destroys it
        if outcome == "unverified" and not figure.immobile:
            return state.with_figure(replace(figure, immobile=True)), rolled + say(
                "the robot is immobilised (it can still shoot)"
            )
        outcome = "destroyed"
    elif outcome == "unverified" and figure.armour == "bronescaf":  # §6.9: the suit is lost, the man is not
        return state.with_figure(replace(figure, armour="human")), rolled + say(
            "the bronescaf is lost; he fights on as infantry"
        )
    elif outcome == "unverified" and state.squads[figure.squad].movement == "cavalry" and not figure.on_foot:
        return state.with_figure(replace(figure, on_foot=True)), rolled + say("his horse is lost; he fights on foot")
    state = state.with_figure(replace(figure, status=outcome))
    said = (
        rolled
        + {
            "killed": say("killed"),
            "unverified": say("wounded (an unverified casualty)"),
            "destroyed": say("destroyed"),
        }[outcome]
    )
    if figure.role == "commander":
        state, more = new_commander(state, figure.squad, roller, f"{key}/commander")
        said += "; " + more
    return state, said


def new_commander(state: WarState, squad_id: str, roller: Roller, key: str) -> tuple[WarState, Text]:
    """§6.10: a subordinate takes over; d6 1-3 one step worse, 4-5 the same, 6 one step better
    (Leadership stays 1..3)."""
    roll = roller.roll(6, key)
    change, word = next((c, w) for top, c, w in COMMANDER_TABLE if roll <= top)
    squad = state.squads[squad_id]
    leadership = max(1, min(3, squad.leadership + change))
    state = state.with_squad(replace(squad, leadership=leadership))
    return state, say(
        "a new commander (d6 {roll}: {word}), Leadership {leadership}", roll=roll, word=word, leadership=leadership
    )


EXPLOSION_IN = 4.0  # §6.10


def explode(
    state: WarState, figure_id: str, weapons: Mapping[str, Any], armour: Mapping[str, int], roller: Roller, key: str
) -> tuple[WarState, Text]:
    """§6.10: the operator dies at once and every fighter within 4" of him, of either side, takes
    a flamethrower hit (another backpack there goes up in turn)."""
    state = state.with_figure(replace(state.figures[figure_id], status="killed"))
    me = placed_many(state, [figure_id])
    others = placed_many(state, [f.id for f in state.figures.values() if f.fighting])
    if not me or not others:
        return state, say("{figure_id}'s backpack flamethrower explodes: he is killed", figure_id=figure_id)
    gaps = edge_distances([me[0].base] + [o.base for o in others])[0, 1:]
    near = [o.id for o, g in zip(others, gaps) if g <= EXPLOSION_IN * state.unit_mm]
    words = [say("{figure_id}'s backpack flamethrower explodes: he is killed", figure_id=figure_id)]
    for k, victim in enumerate(near):
        if state.figures[victim].fighting:
            flame_power = weapons[state.figures[figure_id].weapon]["power"]
            state, said = hit(state, victim, flame_power, weapons, armour, roller, f"{key}/blast/{k}", flame=True)
            words.append(said)
    return state, joined(words, "; ")
