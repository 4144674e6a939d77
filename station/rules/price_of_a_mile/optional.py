"""The Price of a Mile's gas attack and optional rules (seed 003 digest §14, §16): the rolls the
station makes for them and what they change.  Squad rules are named in the army file
(``"rules": ["sluggish", ...]``); the gas attack and the random game length are game options."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...dice import Roller
from ...measure.relations import in_contact
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..inputs import ACTOR_ARGS, Args
from ..text import NOTHING, Text, joined, say, word
from . import vehicles
from .shooting import spend
from .state import INCH, INPUTS, MileState, Rules
from .where import placed

GAS_TABLE = {
    ("good", "1915"): 1,
    ("good", "1917"): 2,
    ("poor", "1915"): 2,
    ("poor", "1917"): 3,
    ("none", "1915"): 3,
    ("none", "1917"): 4,
}  # §14: the highest d10 that costs models
UNRELIABLE = (
    (1, 1, say("Run!"), say("2 bases flee the field at once")),
    (
        2,
        3,
        say("Go there yourself!"),
        say("the squad does nothing this activation but may shoot once at an enemy within effective range"),
    ),
    (
        4,
        6,
        say("Let's go home!"),
        say("the squad spends every action moving towards its own table edge, shooting once at an enemy in its way"),
    ),
    (
        7,
        9,
        say("I'm talking to you!"),
        say(
            "the squad turns neutral and does nothing for the rest of the game; whoever attacks it sends it over to the other side"
        ),
    ),
    (
        10,
        10,
        say("Treason!!!"),
        say("the squad goes over to the enemy, is no longer Unreliable, and may still activate this turn"),
    ),
)  # §16.8


@INPUTS.register(
    "gas_attack",
    "§14",
    arg.choice("protection", "the defender's gas protection", ("good", "poor", "none"), required=True),
    arg.choice("year", "1915 (1915-1916) or 1917 (from 1917; when left out)", ("1915", "1917")),
)
def gas_attack(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    """§14: before the first turn, each of the defender's squads rolls a d10; within the range for
    its protection and year it loses that many models and starts Disordered."""
    roller = rules.roller
    side, protection, year = state.options.gas_attack, args.get("protection"), str(args.get("year", "1917"))
    if state.turn or side is None or state.gassed:
        raise Refused(
            say("a gas attack comes once, before the first turn, with the option gas_attack naming the defender"), "§14"
        )
    if not isinstance(protection, str) or (protection, year) not in GAS_TABLE:
        raise Refused(
            say('give "protection": good, poor or none, and "year": 1915 (1915-1916) or 1917 (from 1917)'), "§14"
        )
    worst = GAS_TABLE[(protection, year)]
    words = []
    for squad in sorted((s for s in state.squads.values() if s.player == side), key=lambda s: s.id):
        roll = roller.roll(10, f"{seq}/gas/{squad.id}")
        if roll > worst:
            words.append(say("{squad} d10 {roll}: unharmed", squad=squad.id, roll=roll))
            continue
        gone = [f.id for f in reversed(state.standing(squad.id))][:roll]
        for fid in gone:
            state = state.with_fighter(replace(state.fighters[fid], status="out"))
        state = state.with_squad(replace(state.squads[squad.id], disordered=True))
        words.append(
            say(
                "{squad} d10 {roll}: loses {gone} and starts Disordered",
                squad=squad.id,
                roll=roll,
                gone=", ".join(gone),
            )
        )
    text = (
        say("Gas attack on {side} ({protection} protection, {year}): ", side=side, protection=protection, year=year)
        + joined(words, "; ")
        + say(". All its squads fight at -1 Morale (§14).")
    )
    return state.evolve(gassed=True), [Ruling(f"{seq}:gas", seq, RulingKind.STATUS, text, "§14")]


def actions_for(state: MileState, seq: int, squad_id: str | None, roller: Roller) -> tuple[int | None, list[Text]]:
    """§16.2 Sluggish: a d6 of 1 leaves the squad 1 action a base this activation."""
    if not squad_id or "sluggish" not in state.squads[squad_id].rules:
        return None, []
    roll = roller.roll(6, f"{seq}/sluggish/{squad_id}")
    return (
        (1, [say("Sluggish: d6 1, one action a base (§16.2)")])
        if roll == 1
        else (None, [say("Sluggish: d6 {roll}", roll=roll)])
    )


def unreliable(
    state: MileState, seq: int, squad_id: str | None, near_enemy: bool, roller: Roller
) -> tuple[MileState, list[Text], str]:
    """§16.8: on activation an Unreliable squad rolls a d10 (2d10 when Disordered or within 8" of
    the enemy); a 1 rolls on the table, and two 1s cost a base as well.  What the table leaves the
    squad this activation: "shoot_once" (2-3), "go_home" (4-6), or "" (unrestricted); 7-9 makes it
    neutral for the rest of the game."""
    if not squad_id or "unreliable" not in state.squads[squad_id].rules:
        return state, [], ""
    squad = state.squads[squad_id]
    count = 2 if squad.disordered or near_enemy else 1
    rolls = [roller.roll(10, f"{seq}/unreliable/{k}") for k in range(count)]
    words = [say("Unreliable: d10 {rolls}", rolls=rolls)]
    if 1 not in rolls:
        return state, words, ""
    if rolls.count(1) == 2:
        state = _flee_last(state, squad_id, 1)
        words.append(say("both 1s: a base flees"))
    result = roller.roll(10, f"{seq}/unreliable/table")
    low, high, name, effect = next(row for row in UNRELIABLE if row[0] <= result <= row[1])
    words.append(say('table d10 {result}, "{name}": {effect} (§16.8)', result=result, name=name, effect=effect))
    if name == "Run!":
        state = _flee_last(state, squad_id, 2)
    if name == "Treason!!!":
        other = next(p for p in state.players if p != squad.player)
        state = state.with_side(squad_id, other, unreliable=False)
    if 7 <= result <= 9:
        state = state.with_squad(replace(state.squads[squad_id], neutral=True))
    return state, words, UNRELIABLE_ORDERS.get(result, "")


UNRELIABLE_ORDERS = {2: "shoot_once", 3: "shoot_once", 4: "go_home", 5: "go_home", 6: "go_home"}  # §16.8
UNRELIABLE_ALLOWS = {"shoot_once": ("shoot",), "go_home": ("move", "shoot")}


def unreliable_refusal(state: MileState, input_type: str, args: Mapping[str, Any]) -> Text | None:
    """§16.8: what the squad's table result forbids this order, or None.  «Сам иди тудой!»: only
    one Shoot of each base; «Айда по домам!»: only moves (towards its own edge: moving.py) and
    one Shoot at an enemy in its way."""
    act = state.activation
    actor = next((args[a] for a in ACTOR_ARGS if isinstance(args.get(a), str)), None)
    fighter = state.fighters.get(actor) if actor else None
    if act is None or not act.unreliable or fighter is None or fighter.squad != act.squad:
        return None
    if input_type not in UNRELIABLE_ALLOWS[act.unreliable]:
        return say(
            "squad {squad} is Unreliable and its table roll leaves it only {allowed} this activation (§16.8)",
            squad=act.squad,
            allowed=joined(word(t, "price_of_a_mile") for t in UNRELIABLE_ALLOWS[act.unreliable]),
        )
    if input_type == "shoot" and act.shot_with.get(fighter.id):
        return say("{base} has shot once, all the Unreliable squad may do this activation (§16.8)", base=fighter.id)
    return None


def _flee_last(state: MileState, squad_id: str, count: int) -> MileState:
    for f in list(reversed(state.standing(squad_id)))[:count]:
        state = state.with_fighter(replace(f, status="fled"))
    return state


def game_continues(state: MileState, seq: int, roller: Roller) -> tuple[bool, str]:
    """§16.1 random length: from the end of turn 3, d10s (one more each turn); any 1 ends it."""
    dice = 1 + (state.turn - 3) + state.options.random_length_wishers
    rolls = [roller.roll(10, f"{seq}/length/{k}") for k in range(dice)]
    return 1 not in rolls, say("random length: {dice}d10 {rolls}", dice=dice, rolls=rolls) + (
        say(", a 1: the game ends (§16.1)") if 1 in rolls else ""
    )


@INPUTS.register(
    "dismount",
    "§12.2",
    arg.models("bases", "the active squad's mounted bases that dismount", required=True),
)
def dismount(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    """§12.2: cavalry dismount for an action each, for good; a partial dismount keeps at least
    half the squad's troopers mounted."""
    bases = args.get("bases")
    act = state.activation
    if act is None or act.squad is None or not isinstance(bases, list) or not bases:
        raise Refused(say("name the active squad's mounted bases that dismount"), "§12.2")
    named = [state.fighters.get(str(b)) for b in bases]
    chosen = [f for f in named if f is not None and f.mounted and f.squad == act.squad]
    if len(chosen) < len(named):
        raise Refused(say("only mounted bases of the active squad dismount"), "§12.2")
    mounted = [f for f in state.standing(act.squad) if f.mounted]
    if len(chosen) < len(mounted) and len(mounted) - len(chosen) < len(mounted) / 2:
        raise Refused(
            say(
                "a partial dismount keeps at least half mounted: {mounted_count} mounted, {chosen_count} getting down",
                mounted_count=len(mounted),
                chosen_count=len(chosen),
            ),
            "§12.2",
        )
    for f in chosen:
        state = spend(state, f, 1, "§12.2")
        stats = {**f.stats, "speed": f.stats["speed"] - 3}
        state = state.with_fighter(replace(state.fighters[f.id], mounted=False, stats=stats))
    return state, [
        Ruling(
            f"{seq}:dismount",
            seq,
            RulingKind.STATUS,
            say(
                '{names} dismount for the rest of the battle: Speed -3", no cavalry bonuses (§12.2).',
                names=", ".join(f.id for f in chosen),
            ),
            "§12.2",
        )
    ]


WITS_IN = 3.0  # §16.9
WITS_TARGET = 6
WITS_EFFECTS = {
    "outwit": say("learns what it wanted from the target (special scenarios)"),
    "deceive": say('moves the target 6": move it, then enter move_deceived'),
    "insult": say("makes the target charge at once: it rolls 2d10 and keeps the worse, +1 Power if it wins"),
    "charm": say("wins a neutral character over (special scenarios)"),
}


@INPUTS.register(
    "wits",
    "§16.9",
    arg.model("character", "the character acting now", required=True),
    arg.model("target", "a standing enemy within 3 inches, never a Hero", required=True),
    arg.choice("choice", "what the character tries", tuple(WITS_EFFECTS), required=True),
)
def war_of_wits(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    """§16.9: once an activation a character within 3" of a target (never a Hero) rolls d10 +
    Resourcefulness (twice it for a Hero) against 6 + the target's Resourcefulness."""
    roller = rules.roller
    act = state.activation
    me, target = state.fighters.get(str(args.get("character"))), state.fighters.get(str(args.get("target")))
    choice = args.get("choice")
    if act is None or me is None or act.character != me.id or act.wits_used:
        raise Refused(say("the character acting now starts a War of Wits, once an activation"), "§16.9")
    if target is None or not target.standing or target.hero or target.player == me.player:
        raise Refused(say("the target is a standing enemy, and never a Hero"), "§16.9")
    if choice not in WITS_EFFECTS:
        raise Refused(say("choose one of {wits_effects}", wits_effects=", ".join(WITS_EFFECTS)), "§16.9")
    a, b = placed(state, me.id), placed(state, target.id)
    if a is None or b is None or not in_contact(a, b, WITS_IN * INCH):
        raise Refused(say('{me} must come within 3" of {target}', me=me.id, target=target.id), "§16.9")
    state = state.evolve(activation=replace(act, wits_used=True))
    roll = roller.roll(10, f"{seq}/wits")
    total = roll + state.stat(me, "resourcefulness") * (2 if me.hero else 1)
    need = WITS_TARGET + state.stat(target, "resourcefulness")
    won = total >= need
    if won and choice == "insult":
        state = state.with_fighter(replace(target, insulted=True))
    if won and choice == "deceive":  # measured from where it stands now: it is not acting, so no path is kept
        stood = state.positions.get(target.id)
        state = state.evolve(deceived={**state.deceived, target.id: (stood[0], stood[1]) if stood else None})
    text = say(
        "{me} tries to {choice} {target}: d10 {roll} → {total} against {need}: ",
        me=me.id,
        choice=choice,
        target=target.id,
        roll=roll,
        total=total,
        need=need,
    ) + (say("it {wits_effects} (§16.9).", wits_effects=WITS_EFFECTS[choice]) if won else say("it fails (§16.9)."))
    return state, [Ruling(f"{seq}:wits", seq, RulingKind.STATUS, text, "§16.9", element=me.id)]


DECEIVED_IN = 6.0  # §16.9


@INPUTS.register(
    "move_deceived",
    "§16.9",
    arg.model("target", "the base a War of Wits deceived, moved by its deceiver", required=True),
    arg.taped(
        arg.number("inches", "how far it was moved, by the referee's tape, when the camera saw no path", 0, 20, True)
    ),
)
def move_deceived(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    """§16.9 «Обмануть»: «переместить цель на 6"»: the deceiver's player moves the deceived base,
    once, up to 6" (where the camera saw it then and now, or the referee's tape); it spends none
    of its actions."""
    target = state.fighters.get(str(args.get("target")))
    if target is None or target.id not in state.deceived:
        raise Refused(say("only a base a War of Wits has just deceived is moved so"), "§16.9")
    stood, now = state.deceived[target.id], state.positions.get(target.id)
    taped = args.get("inches")
    if isinstance(taped, (int, float)) or now is None or stood is None:  # no camera: the referee's tape
        inches = float(taped) if isinstance(taped, (int, float)) else 0.0
    else:
        inches = math.hypot(now[0] - stood[0], now[1] - stood[1]) / INCH
    state = state.evolve(deceived={k: v for k, v in state.deceived.items() if k != target.id})
    text = say('{target} is moved {inches}" by its deceiver (§16.9).', target=target.id, inches=f"{inches:.1f}")
    far = inches > DECEIVED_IN + 0.2
    if far:
        text += " " + say('More than the 6" a deceit moves it (§16.9).')
    kind = RulingKind.WARNING if far else RulingKind.MOVE
    return state, [Ruling(f"{seq}:move_deceived", seq, kind, text, "§16.9", needs_referee=far, element=target.id)]


TASK_TARGET = 8  # §11


@INPUTS.register(
    "task",
    "§11",
    arg.model("base", "the base that does it", required=True),
    arg.text("task", "what the scenario asks"),
    arg.integer("target", "the total needed (8 when left out)", 1, 30),
)
def non_combat(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    """§11: a scenario's non-combat order (an action): d10 + Resourcefulness, 8+ succeeds, or the
    umpire's own target number."""
    roller = rules.roller
    base = state.fighters.get(str(args.get("base")))
    what = str(args.get("task") or say("a task"))
    need = args.get("target", TASK_TARGET)
    if base is None or not base.standing or not isinstance(need, int) or isinstance(need, bool):
        raise Refused(say("give a standing base, the task, and optionally a whole target number"), "§11")
    state = spend(state, base, 1, "§11")
    roll = roller.roll(10, f"{seq}/task")
    total = roll + state.stat(base, "resourcefulness")
    return state, [
        Ruling(
            f"{seq}:task",
            seq,
            RulingKind.STATUS,
            say(
                "{base} attempts {what}: d10 {roll} → {total} against {need}: ",
                base=base.id,
                what=what,
                roll=roll,
                total=total,
                need=need,
            )
            + (say("success (§11).") if total >= need else say("failure (§11).")),
            "§11",
            element=base.id,
            details={"total": total, "success": total >= need},
        )
    ]


def treacherous(
    state: MileState, seq: int, fighter_id: str, pieces: list[str], roller: Roller
) -> tuple[MileState, Text]:
    """§16.3: moving through treacherous terrain rolls a d10; a 1 is a Power 0 hit (a vehicle also
    takes a damage point at once)."""
    risky = [p for p in pieces if p in state.options.treacherous]
    if not risky:
        return state, NOTHING
    roll = roller.roll(10, f"{seq}/treacherous")
    if roll != 1:
        return state, say("treacherous {risky}: d10 {roll}, safe (§16.3)", risky=", ".join(risky), roll=roll)
    victim = state.fighters[fighter_id]
    if victim.vehicle:
        state = state.with_fighter(replace(victim, damage=victim.damage + 1))
        state, said = vehicles.damage(state, state.fighters[fighter_id], 0, False, roller, f"{seq}/treacherous")
        return state, say(
            "treacherous {risky}: d10 1, 1 damage point and a Power 0 hit: {said} (§16.3)",
            risky=", ".join(risky),
            said=said,
        )
    hit = roller.roll(10, f"{seq}/treacherous/damage")
    if hit >= state.stat(victim, "toughness"):
        state = state.with_fighter(replace(victim, status="out"))
        return state, say(
            "treacherous {risky}: d10 1, then {hit}: {fighter_id} is lost (§16.3)",
            risky=", ".join(risky),
            hit=hit,
            fighter_id=fighter_id,
        )
    return state, say(
        "treacherous {risky}: d10 1, then {hit}: {fighter_id} shaken but unhurt (§16.3)",
        risky=", ".join(risky),
        hit=hit,
        fighter_id=fighter_id,
    )


@INPUTS.register(
    "carry_body", "§16.10", arg.model("commander", "the popular commander carried to the end", required=True)
)
def carry_body(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    """§16.10: a popular commander taken out stays on the table; if his side carries him to the
    end, the referee records it and the side scores (option ``popularity_vp``)."""
    body = state.fighters.get(str(args.get("commander")))
    if body is None or body.id not in state.options.popular or body.status != "out":
        raise Refused(say("give a popular commander (option popular) who has been taken out"), "§16.10")
    state = state.evolve(carried=state.carried | {body.id})
    return state, [
        Ruling(
            f"{seq}:body",
            seq,
            RulingKind.STATUS,
            say(
                "{body}'s men carry his body: +{popularity_vp} victory points if they still have it at the end (§16.10).",
                body=body.id,
                popularity_vp=f"{state.options.popularity_vp:g}",
            ),
            "§16.10",
        )
    ]
