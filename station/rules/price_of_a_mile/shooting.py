"""The Price of a Mile shooting and damage (seed 003 digest §6-7): the target among the three
nearest enemy bases (four when aiming), the range and cover the camera measures, the hit rolls,
casualties nearest the shooter first, Wavering and the panic it spreads."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...dice import Roller
from ...measure.relations import nearest
from ...measure.terrain import line_of_sight
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..input_args import BY_THE_REFEREE
from ..inputs import Args
from ..text import NOTHING, Text, joined, say
from . import vehicles
from .state import INCH, INPUTS, Activation, Fighter, MileState, Rules, RulesOf
from .where import placed, placed_many

TARGETS = 3  # §6.1
AIMED_TARGETS = 4  # §6.5
HIT = {(False, False): 7, (False, True): 8, (True, False): 9, (True, True): 10}  # §6.3: (long, cover)
COVER_TYPES = ("woods", "building", "trench")  # §6.4, §5.6: terrain giving cover (and any obstacle on the line)
PREPARED_IN = 4.0  # §6.3: firing from a prepared position (a trench)
WOODS_SIGHT_IN = 2.0  # §6.2
HIGH_GROUND = ("hill", "building")  # §6.2: from or onto these, fire passes over friendly models
LINE_STEP_MM = 2.0  # how finely the line of fire is checked against friendly bases
PANIC_EVERY = 3  # §7.2
SMALL_ARMS = ("pistol", "rifle", "obsolete_rifle", "carbine")  # §9.1: +1 against flamethrowers
EYE_MM = 25.0


def spend(state: MileState, fighter: Fighter, actions: int, section: str) -> MileState:
    """Take actions from the fighter's activation budget (§4.4), or refuse."""
    act = state.activation
    if act is None or fighter.id not in act.actions:
        raise Refused(say("{fighter} is not acting in this activation", fighter=fighter.id), "§4.3")
    left = act.actions[fighter.id]
    if left < actions:
        raise Refused(
            say(
                "{fighter} has {left} action(s) left; this needs {actions}",
                fighter=fighter.id,
                left=left,
                actions=actions,
            ),
            section,
        )
    return state.evolve(activation=replace(act, actions={**act.actions, fighter.id: left - actions}))


def attacked_neutral(state: MileState, target: Fighter, attacker: str) -> tuple[MileState, list[Text]]:
    """§16.8 «Я с тобой говорю!»: a neutral squad attacked by either side goes over to the other."""
    if not state.neutral(target) or target.squad is None:
        return state, []
    other = next(p for p in state.players if p != attacker)
    return state.with_side(target.squad, other), [
        say(
            "squad {squad}, neutral, was attacked by {attacker}: it goes over to {other} (§16.8)",
            squad=target.squad,
            attacker=attacker,
            other=other,
        )
    ]


def visible(state: MileState, shooter: Fighter, target: Fighter) -> tuple[bool, float, tuple[str, ...]]:
    """§6.2: true line of sight against solid terrain, and nobody is seen more than 2" inside woods."""
    a, t = placed(state, shooter.id), placed(state, target.id)
    if a is None or t is None:
        raise Refused(say("the camera has not placed both bases"), "§6")
    if deep_in_woods(state, shooter) or deep_in_woods(state, target):
        return False, 1.0, ()
    sight = line_of_sight(a, EYE_MM, t, EYE_MM, list(state.terrain))
    return sight.hidden_fraction <= 2 / 3, sight.hidden_fraction, tuple(sight.blockers)


def friends_in_the_way(state: MileState, shooter: Fighter, target: Fighter) -> list[str]:
    """§6.2 «Базы не могут вести огонь сквозь дружественные модели»: the shooter's friendly bases
    the line from its centre to the target's crosses.  None when a vehicle fires or is fired at,
    or when either stands on high ground (a hill, a building), as the rule excepts."""
    if shooter.vehicle or target.vehicle:
        return []
    if any(state.stands_in(f.id, HIGH_GROUND) for f in (shooter, target)):
        return []
    a, b = state.positions[shooter.id], state.positions[target.id]
    steps = max(2, int(math.hypot(b[0] - a[0], b[1] - a[1]) / LINE_STEP_MM))
    line = np.linspace((a[0], a[1]), (b[0], b[1]), steps + 1)
    friends = placed_many(
        state,
        [
            f.id
            for f in state.fighters.values()
            if f.player == shooter.player and f.standing and f.id != shooter.id and not state.neutral(f)
        ],
    )
    return sorted(f.id for f in friends if f.base.contains_many(line).any())


def deep_in_woods(state: MileState, fighter: Fighter) -> str | None:
    """§6.2: the wood a base stands more than 2" inside, where nobody sees it or is seen from it."""
    where = state.positions[fighter.id][:2]
    return next((p.id for p in state.terrain if p.type == "woods" and p.depth_mm(where) > WOODS_SIGHT_IN * INCH), None)


def legal_targets(state: MileState, shooter: Fighter, aimed: bool) -> list[tuple[str, float]]:
    """§6.1: the three nearest enemy bases the shooter can see (four when aiming), nearest first."""
    origin = placed(state, shooter.id)
    if origin is None:
        raise Refused(say("the camera has not placed {shooter}", shooter=shooter.id), "§6.1")
    enemies = placed_many(  # a neutral squad is anybody's target (§16.8)
        state,
        [f.id for f in state.fighters.values() if (f.player != shooter.player or state.neutral(f)) and f.standing],
    )
    seen = [e for e in enemies if visible(state, shooter, state.fighters[e.id])[0]]
    picks = nearest(origin, seen, AIMED_TARGETS if aimed else TARGETS)
    vehicle = vehicles.nearest_vehicle(state, shooter, {e.id for e in seen})  # §6.1, §15.4
    if vehicle and vehicle not in [p for p, _ in picks]:
        picks.append(next(item for item in nearest(origin, seen, len(seen)) if item[0] == vehicle))
    return picks


@dataclass(frozen=True)
class Volley:
    shots: int
    bonus: int
    parts: tuple[Text, ...]


def volley(
    state: MileState,
    shooter: Fighter,
    target: Fighter,
    weapon: Mapping[str, Any],
    actions: int,
    aimed: bool,
    rules: tuple[str, ...],
) -> Volley:
    """§6.5-6.7: how many dice and what is added to each."""
    shooting = state.stat(shooter, "shooting")
    act = state.activation
    out_of_command = bool(act and act.out_of_command and shooter.squad is not None and shooter.squad == act.squad)
    # the -1 out of command (§3.2) is shown as its own modifier, not hidden in the Shooting
    parts = [say("Shooting {what}", what=shooting + 1 if out_of_command else shooting)] + (
        [say("out of command -1")] if out_of_command else []
    )
    parts.append(say("Accuracy {accuracy}", accuracy=f"{weapon['accuracy']:+d}"))
    bonus = shooting + weapon["accuracy"]
    if aimed:
        shots = 1
        bonus += 2
        parts.append(say("aimed +2"))
    else:  # §6.7-6.8: shots per action; an anti-tank rifle's one shot takes both actions
        shots = actions * (1 if weapon.get("actions_per_shot") else weapon["shots"])
        if shooter.vehicle == "tank" and shooter.mounts > 1:  # §15.2: every weapon on board, in one action
            shots *= shooter.mounts
            parts.append(say("all {mounts} weapons", mounts=shooter.mounts))
        if weapon.get("rapid_fire") and actions >= 2 and "no_rapid_fire" not in rules:
            shots += 1  # §6.6: one free shot; a Hero gets only the one, however many actions
            parts.append(say("rapid fire +1 shot"))
    if shooter.mounted:
        bonus -= 1
        parts.append(say("mounted -1"))
    if target.mounted:
        bonus += 1
        parts.append(say("cavalry target +1"))
    if target.vehicle:  # §15.4
        bonus += 1
        parts.append(say("vehicle +1"))
    if target.weapon == "flamethrower" and shooter.weapon in SMALL_ARMS:
        bonus += 1
        parts.append(say("flamethrower target +1"))
    return Volley(shots, bonus, tuple(parts))


def take_hits(
    state: MileState,
    seq: int,
    hits: int,
    power: int,
    victim_squad: str | None,
    victim: Fighter,
    source: tuple[float, float] | None,
    roller: Roller,
    key: str,
    hand_held: bool = True,
) -> tuple[MileState, list[Text], int]:
    """§7.1, §6.1: each hit falls on the squad's standing base nearest the source; d10 + Power >=
    Toughness takes it out, otherwise it Wavers (falls back 2").  Returns the state, what
    happened, and how many wavered."""
    words: list[Text] = []
    wavered = 0
    for k in range(hits):
        pool = (
            state.standing(victim_squad) if victim_squad else ([victim] if state.fighters[victim.id].standing else [])
        )
        if not pool:
            break
        target = _nearest_to(state, pool, source)
        if target.vehicle:  # §15.4
            state, said = vehicles.damage(state, target, power, hand_held, roller, f"{key}/{k}")
            words.append(said)
            continue
        rolls = [roller.roll(10, f"{key}/{k}/damage")]
        if target.hero:  # §12.1: a Hero rolls two dice, and only both at Toughness take him out
            rolls.append(roller.roll(10, f"{key}/{k}/damage/2"))
        shown = "/".join(map(str, rolls))
        if all(r + power >= state.stat(target, "toughness") for r in rolls):
            state = state.with_fighter(replace(target, status="out"))
            words.append(say("{target} out (d10 {shown}+{power})", target=target.id, shown=shown, power=power))
        elif target.hero:
            words.append(
                say(
                    '{target} falls back 6" unharmed (d10 {shown}+{power}, §12.1)',
                    target=target.id,
                    shown=shown,
                    power=power,
                )
            )
        else:
            wavered += 1
            words.append(
                say('{target} wavers (d10 {shown}+{power}): falls back 2"', target=target.id, shown=shown, power=power)
            )
    return state, words, wavered


def _nearest_to(state: MileState, pool: list[Fighter], source: tuple[float, float] | None) -> Fighter:
    if source is None:
        return pool[0]

    def gap(f: Fighter) -> float:
        where = state.positions.get(f.id)
        return ((where[0] - source[0]) ** 2 + (where[1] - source[1]) ** 2) ** 0.5 if where else float("inf")

    return min(pool, key=gap)


def panic(
    state: MileState, squad_id: str | None, wavered: int, source: tuple[float, float] | None
) -> tuple[MileState, Text]:
    """§7.2, §10.1: for every 3 bases forced back in one fight, one base of the squad flees."""
    count = wavered // PANIC_EVERY
    if not count or squad_id is None:
        return state, NOTHING
    pool = sorted(state.standing(squad_id), key=lambda f: -_distance(state, f, source))[:count]
    for f in pool:
        state = state.with_fighter(replace(f, status="fled"))
    return (
        state,
        say(
            "panic: {names} {what} the field (§7.2)",
            names=", ".join(f.id for f in pool),
            what=say("flees") if len(pool) == 1 else say("flee"),
        )
        if pool
        else NOTHING,
    )


def _distance(state: MileState, f: Fighter, source: tuple[float, float] | None) -> float:
    where = state.positions.get(f.id)
    return 0.0 if not where or not source else ((where[0] - source[0]) ** 2 + (where[1] - source[1]) ** 2) ** 0.5


@dataclass(frozen=True)
class Shot:
    """One declared Shoot or Aim order, checked and measured before any die is rolled."""

    shooter: Fighter
    target: Fighter
    weapon: Mapping[str, Any]
    aimed: bool
    cost: int
    edge_in: float
    long: bool
    cover: bool
    need: int
    volley: Volley
    taped: bool = False  # the range and cover are the referee's (the camera has not placed both bases)

    def chance(self) -> float:
        """One die's chance to hit: d10 + bonus >= need."""
        return sum(1 for r in range(1, 11) if r + self.volley.bonus >= self.need) / 10


def plan_shot(state: MileState, args: Mapping[str, Any], weapons: Mapping[str, Any], rules_of: RulesOf) -> Shot:
    """§6.1-6.7: the target's legality, range, cover and the dice, or why the order is refused."""
    shooter, target = state.fighters.get(str(args.get("shooter"))), state.fighters.get(str(args.get("target")))
    aimed, actions = bool(args.get("aimed", False)), args.get("actions", 1)
    if (
        shooter is None
        or target is None
        or not shooter.standing
        or not target.standing
        or (shooter.player == target.player and not state.neutral(target))
    ):
        raise Refused(say("give a standing shooter and a standing enemy target"), "§6")
    weapon = weapons[shooter.weapon]
    if shooter.silenced:
        raise Refused(
            say(
                "{shooter}'s {replace} is out of action for the rest of the game",
                shooter=shooter.id,
                replace=shooter.weapon.replace("_", " "),
            ),
            "§6.10",
        )
    if weapon.get("flame") or weapon.get("artillery"):
        raise Refused(say("a {replace} fires with its own input", replace=shooter.weapon.replace("_", " ")), "§9")
    if actions not in (1, 2) or (aimed and actions != 1):
        raise Refused(say("shoot with 1 or 2 actions; aiming takes both and is declared with actions 1"), "§4.4")
    if aimed and (not weapon.get("aim") or state.stat(shooter, "shooting") <= 0):
        raise Refused(say("only rifles aim, and not with Shooting 0"), "§6.5")
    if weapon.get("heavy") and state.activation and shooter.id in state.activation.moved:
        raise Refused(
            say("{shooter}'s heavy machine gun cannot fire after moving this activation", shooter=shooter.id), "§6.7"
        )
    if state.activation and shooter.id in state.activation.threw and shooter.weapon != "pistol":
        raise Refused(
            say(
                "{shooter} threw grenades this activation: it may shoot only pistols until it ends", shooter=shooter.id
            ),
            "§8.1",
        )
    if shooter.vehicle == "tank" and (shooter.id in state.tanks_fired or actions != 1):
        raise Refused(say("{shooter} fires all its weapons with one action, once a turn", shooter=shooter.id), "§15.2")
    if placed(state, shooter.id) is None or placed(state, target.id) is None:
        return _by_the_tape(state, shooter, target, weapon, aimed, actions, args, rules_of)
    legal = legal_targets(state, shooter, aimed)
    hidden_in = deep_in_woods(state, target) if target.id in state.positions else None
    if target.id not in [t for t, _ in legal] and hidden_in:
        raise Refused(
            say('{target} is more than 2" inside {wood}, where nobody is seen', target=target.id, wood=hidden_in),
            "§6.2",
        )
    if target.id not in [t for t, _ in legal]:
        raise Refused(
            say(
                "{target} is not among the {what} nearest enemies {shooter} can see ({value})",
                target=target.id,
                what=AIMED_TARGETS if aimed else TARGETS,
                shooter=shooter.id,
                value=", ".join((t for t, _ in legal)) or say("none"),
            ),
            "§6.1",
        )
    friends = friends_in_the_way(state, shooter, target)
    if friends:
        raise Refused(
            say(
                "{shooter} would fire through {names}: no fire through friendly models",
                shooter=shooter.id,
                names=", ".join(friends),
            ),
            "§6.2",
        )
    edge_in = dict(legal)[target.id] / INCH
    long = edge_in > weapon["range_in"] + (PREPARED_IN if state.stands_in(shooter.id, ("trench",)) else 0.0)
    cover = state.stands_in(target.id, COVER_TYPES) or bool(visible(state, shooter, target)[2])
    return Shot(
        shooter,
        target,
        weapon,
        aimed,
        2 if aimed else actions * weapon.get("actions_per_shot", 1),
        edge_in,
        long,
        cover,
        HIT[(long, cover)],
        volley(state, shooter, target, weapon, actions, aimed, rules_of(shooter)),
    )


def _by_the_tape(
    state: MileState,
    shooter: Fighter,
    target: Fighter,
    weapon: Mapping[str, Any],
    aimed: bool,
    actions: int,
    args: Mapping[str, Any],
    rules_of: RulesOf,
) -> Shot:
    """§6.1-6.3 with no camera on the two bases: the referee has checked that the target is one of
    the nearest the shooter sees with no friend in the way, and gives the range (inches, edge to
    edge, from the tape) and whether the target is in cover.  Asked for by name when missing."""
    distance = arg.given_number(args, "distance")
    if distance is None:
        unseen = shooter if placed(state, shooter.id) is None else target
        raise Refused(
            say(
                "the camera has not placed {base}: give the distance in inches, edge to edge, from the tape (and cover)",
                base=unseen.id,
            ),
            "§6.3",
        )
    long = distance > weapon["range_in"] + (PREPARED_IN if bool(args.get("prepared")) else 0.0)
    cover = bool(args.get("cover", False))
    return Shot(
        shooter,
        target,
        weapon,
        aimed,
        2 if aimed else actions * weapon.get("actions_per_shot", 1),
        distance,
        long,
        cover,
        HIT[(long, cover)],
        volley(state, shooter, target, weapon, actions, aimed, rules_of(shooter)),
        taped=True,
    )


def preview(state: MileState, args: Mapping[str, Any], weapons: Mapping[str, Any], rules_of: RulesOf) -> dict[str, Any]:
    """The dashboard's shooting helper for one shot (the map's enemy, or the action panel's
    choice with the referee's tape): legal or not, and the dice it would take."""
    try:
        shot = plan_shot(state, args, weapons, rules_of)
    except Refused as no:
        return {"refused": say("{why} ({section})", why=no.text, section=no.section)}
    v = shot.volley
    return {
        "summary": say(
            "{need}+ · {shots}d10 {bonus} · {n} % a die",
            need=shot.need,
            shots=v.shots,
            bonus=f"{v.bonus:+d}",
            n=round(shot.chance() * 100),
        ),
        "lines": [
            say(
                '{edge_in}" at {what} range',
                edge_in=f"{shot.edge_in:.1f}",
                what=say("long") if shot.long else say("effective"),
            )
            + (say(", in cover") if shot.cover else ""),
            joined(v.parts),
            say(
                "Power {power} against Toughness {stat}",
                power=shot.weapon["power"],
                stat=state.stat(shot.target, "toughness"),
            ),
        ],
        "doubts": [],
        "need": shot.need,
        "bonus": v.bonus,
        "shots": v.shots,
        "input": {"type": "shoot", "label": "Shoot", "args": dict(args)},
    }


def _misfire(state: MileState, shooter: Fighter, rolls: list[int], roller: Roller, key: str) -> str:
    """§6.10: a squad short of ammunition rolls a d10 for each natural 1; a 1-3 silences the
    weapon for the rest of the game."""
    if not shooter.squad or "short_of_ammo" not in state.squads[shooter.squad].rules or 1 not in rolls:
        return ""
    checks = [roller.roll(10, f"{key}/{k}") for k in range(rolls.count(1))]
    if any(c <= 3 for c in checks):
        return say(
            "Misfire d10 {checks}: the {replace} is out of action for good (§6.10).",
            checks=checks,
            replace=shooter.weapon.replace("_", " "),
        )
    return say("Misfire check d10 {checks}: it still works (§6.10).", checks=checks)


@INPUTS.register(
    "shoot",
    "§6",
    arg.model("shooter", "the base that shoots", required=True),
    arg.model("target", "the enemy base shot at", required=True),
    arg.integer("actions", "actions spent: 1 or 2 (1 when left out)", 1, 2),
    arg.flag("aimed", "aimed: both actions, declared with actions 1"),
    arg.taped(
        arg.number("distance", "edge to edge, by the referee's tape, when the camera has not placed both", 0, 200, True)
    ),
    arg.taped(arg.flag("cover", "the target is in cover (the referee's word, when the camera has not placed both)")),
    arg.taped(
        arg.flag("prepared", "the shooter fires from a prepared position, a trench (the referee's word, likewise)")
    ),
)
def shoot(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, Ruling]:
    """§6: one Shoot (or Aim) order of one base: its dice against 7+/8+/9+/10+, then damage."""
    roller = rules.roller
    weapons = rules.data["weapons"]
    rules_of = rules.rules_of(state)
    shot = plan_shot(state, args, weapons, rules_of)
    shooter, target, weapon, v, need = shot.shooter, shot.target, shot.weapon, shot.volley, shot.need
    state = spend(state, shooter, shot.cost, "§4.4")
    if shooter.vehicle == "tank":
        state = state.evolve(tanks_fired=state.tanks_fired | {shooter.id})
    rolls = [roller.roll(10, f"{seq}/shot/{k}/hit") for k in range(v.shots)]
    hits = sum(1 for r in rolls if r + v.bonus >= need)
    misfire = _misfire(state, shooter, rolls, roller, f"{seq}/misfire")
    if misfire:
        state = state.with_fighter(replace(state.fighters[shooter.id], silenced=True))
    where = state.positions.get(shooter.id)
    source = (where[0], where[1]) if where is not None and not shot.taped else None  # no camera: the squad's own order
    state, words, wavered = take_hits(
        state,
        seq,
        hits,
        weapon["power"],
        target.squad,
        target,
        source,
        roller,
        f"{seq}/shot",
        bool(weapon.get("hand_held")),
    )
    state, fled = panic(state, target.squad, wavered, source)
    act: Activation = state.activation  # type: ignore[assignment]
    shaken = act.shaken | ({target.squad} if shooter.vehicle == "tank" and target.squad else set())  # §13.1: tank fire
    state = state.evolve(
        activation=replace(
            act, shaken=shaken, shot_with={**act.shot_with, shooter.id: act.shot_with.get(shooter.id, 0) + shot.cost}
        )
    )
    text = say(
        '{shooter} {what} {replace} at {value} ({target} {edge_in}", {what2} range{what3}): {shots} d10 {rolls} + {bonus} ({parts}) against {need}+: {hits} hit(s)',
        shooter=shooter.id,
        what=say("aims and fires") if shot.aimed else say("fires"),
        replace=shooter.weapon.replace("_", " "),
        value=target.squad or target.id,
        target=target.id,
        edge_in=f"{shot.edge_in:.1f}",
        what2=say("long") if shot.long else say("effective"),
        what3=say(", in cover") if shot.cover else "",
        shots=v.shots,
        rolls=rolls,
        bonus=v.bonus,
        parts=joined(v.parts),
        need=need,
        hits=hits,
    )
    state, turned = attacked_neutral(state, target, shooter.player)
    words += turned
    text += (". " + joined(words, "; ") if words else "") + ("; " + fled if fled else "") + "."
    if shot.taped:
        text += say(" Range and cover by the referee's tape.")
    if misfire:
        text += f" {misfire}"
    return state, Ruling(
        f"{seq}:shot",
        seq,
        RulingKind.SHOT,
        text,
        "§6 §7",
        element=shooter.id,
        details={
            "shooter": shooter.id,
            "target": target.id,
            "rolls": rolls,
            "need": need,
            "bonus": v.bonus,
            "hits": hits,
            "wavered": wavered,
            "long": shot.long,
            "cover": shot.cover,
            **(BY_THE_REFEREE if shot.taped else {}),  # the range and the cover were the referee's
        },
    )
