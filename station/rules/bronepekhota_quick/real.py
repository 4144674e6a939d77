"""Quick rules' real shooting (seed 002 digest §11): a spring launcher's SHOT, then how the hit
model ends up, from its tilt node.  A fall within ``hit_window_ms`` of a shot is that shot's
hit: a soldier who fell is killed, one leaning on something is wounded; a vehicle or gun takes an
exploding d6 of damage, +1 because it fell.  An impact with no fall within ``settle_ms`` of the
impact means it stood: no effect on a soldier, an exploding d6 on a machine (the hit window is the
full rules' one, rules/hits.py).  Every hit asks the referee, who
judges ricochets (a ricochet does not count: override *void*).  Each barrel is a weapon and fires
once a turn (§6.1); a gun fires only with a friendly soldier touching it, who then may not use his
own weapon.
"""

from __future__ import annotations

from dataclasses import replace

from ...dice import Roller
from ...events import Impact, Shot, Tilt, wired
from ..base import Ruling, RulingKind, voided
from ..hits import (
    NO_DOUBT,
    ClockDoubt,
    Fired,
    Resolve,
    Stamp,
    Unexplained,
    clock_doubt,
    rule_late_shot,
    time_moves_on,
    unknown_launcher,
)
from ..text import say
from ..view import STATUS_WORDS
from .combat import exploding_d6
from .state import Fighter, QuickState
from .where import operator_of

RESULT_WORDS = {"fell": say("fell"), "leaning": say("leaning"), "stood": say("stood")}  # as the rulings say them


def _owner(state: QuickState, node: str) -> Fighter | None:
    return wired({w.launcher: f for f in state.fighters.values() for w in f.weapons if w.launcher}, node)


def _by_tilt_node(state: QuickState, node: str) -> Fighter | None:
    return wired({f.tilt_node: f for f in state.fighters.values() if f.tilt_node}, node)


def on_shot(state: QuickState, seq: int, shot: Shot, when: Stamp, roller: Roller) -> tuple[QuickState, list[Ruling]]:
    shooter = _owner(state, shot.node)
    if shooter is None:
        return state, [unknown_launcher(seq, shot.node, "§11")]
    problem = None
    if state.winner:
        problem = say("the game is over")
    elif state.turn == 0:
        problem = say("the game has not begun (roll off first)")
    elif shooter.dead:
        problem = say("{name} is destroyed", name=shooter.name)
    elif shooter.player != state.active_player:
        problem = say("it is {active_player}'s turn", active_player=state.active_player)
    elif f"{shot.node}/{shot.barrel}" in shooter.fired:
        problem = say("{node} barrel {barrel} has already fired this turn (§6.1)", node=shot.node, barrel=shot.barrel)
    operator = None
    if problem is None and shooter.kind == "gun":
        operator = operator_of(state, shooter)
        if operator is None:
            problem = say("no friendly fighter was seen next to the gun (§6.1)")
    if problem:
        return state, [
            Ruling(
                f"{seq}:shot",
                seq,
                RulingKind.SHOT,
                say(
                    "{name} fired {node}, but {problem}: the shot does not count.",
                    name=shooter.name,
                    node=shot.node,
                    problem=problem,
                ),
                "§11 §6.1",
                needs_referee=True,
                element=shooter.id,
                details={"legal": False},
            )
        ]
    state = state.with_fighter(replace(shooter, fired=shooter.fired | {f"{shot.node}/{shot.barrel}"}))
    if operator is not None:
        state = state.with_fighter(replace(state.fighters[operator.id], fired_gun=True))
    fired = Fired(seq=seq, shooter=shooter.id, t=when)
    state = state.evolve(hits=state.hits.fire(fired))
    who = say(", served by {name}", name=operator.name) if operator else ""
    state, explained = _late_shot(state, fired, roller)
    return state, [
        Ruling(
            f"{seq}:shot",
            seq,
            RulingKind.SHOT,
            say("{name} fires {node}{who}.", name=shooter.name, node=shot.node, who=who),
            "§11",
            element=shooter.id,
            details={"legal": True},
        ),
        *explained,
    ]


def _resolver(roller: Roller) -> Resolve[QuickState]:
    """How a piece of evidence that waited for late shots is ruled, once a shot is found for it
    (hits.time_moves_on, hits.rule_late_shot): as it would have been had the lines come in order."""

    def resolve(
        state: QuickState, evidence: Unexplained, shot: Fired, doubt: ClockDoubt, count: int
    ) -> tuple[QuickState, list[Ruling]] | None:
        target = state.fighters[evidence.target]
        if target.dead:
            return state, []
        if not evidence.fell:
            return None
        result = "fell" if evidence.how == "fallen" else "leaning"  # the tilt node's state
        return hit(state, evidence.seq, target, shot, result, roller, doubt)

    return resolve


def _late_shot(state: QuickState, shot: Fired, roller: Roller) -> tuple[QuickState, list[Ruling]]:
    """Evidence ruled with no shot that this shot, come later still, explains (hits.rule_late_shot)."""
    return rule_late_shot(state, shot, state.options.hit_window_ms, _resolver(roller))


def on_tilt(state: QuickState, seq: int, tilt: Tilt, when: Stamp, roller: Roller) -> tuple[QuickState, list[Ruling]]:
    target = _by_tilt_node(state, tilt.node)
    if target is None or target.dead or tilt.state == "upright":
        return state, []
    if tilt.first:  # a node that started again says how its model lies: a report, never a hit (§11)
        return state, [_found_down(seq, target, tilt.state)]
    impact = state.hits.impact_on(target.id)
    shot: Fired | None
    no_shot = Ruling(
        f"{seq}:tilt",
        seq,
        RulingKind.STATUS,
        say(
            "{name} went {value} with no shot in the hit window: not a hit (knocked by hand?).",
            name=target.name,
            value=STATUS_WORDS[tilt.state],
        ),
        "§11",
        element=target.id,
    )
    if impact is None and state.hits.may_be_late(when):  # another hub's shot may still be on the wire
        return state.evolve(hits=state.hits.park(Unexplained(seq, target.id, when, True, no_shot, tilt.state))), []
    if impact is not None:  # the fall that followed an impact is that impact's hit
        hits, shot = state.hits.take(impact)
        state, doubt = state.evolve(hits=hits), impact.doubt
    else:
        shot, _ = state.hits.shot_for(target.id, when, state.options.hit_window_ms)
        doubt = state.hits.doubt(shot, when, state.options.hit_window_ms) if shot is not None else NO_DOUBT
    if shot is None:
        return state, [no_shot]
    return hit(state, seq, target, shot, "fell" if tilt.state == "fallen" else "leaning", roller, doubt)


def _found_down(seq: int, target: Fighter, posture: str) -> Ruling:
    """A tilt node's first posture since it started, and the model is down: it may have been
    knocked over while the node was off, so the referee looks; it is not a hit."""
    if posture == "fallen":
        text = say("{name}'s tilt node started again and finds it lying: not a hit. Check the table.", name=target.name)
    else:
        text = say(
            "{name}'s tilt node started again and finds it leaning: not a hit. Check the table.", name=target.name
        )
    return Ruling(
        f"{seq}:posture", seq, RulingKind.WARNING, text, "§11", needs_referee=True, element=target.id,
        details={"posture": posture},
    )  # fmt: skip


def on_impact(state: QuickState, seq: int, impact: Impact, when: Stamp) -> tuple[QuickState, list[Ruling]]:
    target = _by_tilt_node(state, impact.node)
    if target is None or target.dead:
        return state, []
    if state.hits.impact_on(target.id) is not None:
        return state, []
    if state.hits.may_be_late(when):  # another hub's shot may still be on the wire
        return state.evolve(hits=state.hits.park(Unexplained(seq, target.id, when, False))), []
    if state.hits.shot_for(target.id, when, state.options.hit_window_ms)[0] is None:
        return state, []
    return state.evolve(hits=state.hits.struck(seq, target.id, when, state.options.hit_window_ms)), []


def advance_time(state: QuickState, now: Stamp, roller: Roller) -> tuple[QuickState, list[Ruling]]:
    """Impacts that settled with no fall: the target stood."""
    moved = time_moves_on(state, now, state.options.hit_window_ms, _resolver(roller))
    if moved is None:
        return state, []
    state, rulings = moved
    for impact in state.hits.settled(now, state.options.settle_ms):
        hits, shot = state.hits.take(impact)
        target = state.fighters[impact.target]
        state, more = hit(state.evolve(hits=hits), impact.seq, target, shot, "stood", roller, impact.doubt)
        rulings += more
    hits = state.hits.expire(now, state.options.hit_window_ms)
    return (state if hits is state.hits else state.evolve(hits=hits)), rulings


def hit(
    state: QuickState, seq: int, target: Fighter, shot: Fired, result: str, roller: Roller, doubt: ClockDoubt = NO_DOUBT
) -> tuple[QuickState, list[Ruling]]:
    rid = f"{seq}:hit:{target.id}"
    state = state.evolve(hits=state.hits.mark(shot.seq, target.id))
    override = state.overrides.get(rid)
    head = say(
        "Hit on {name} by {name2}, {result}",
        name=target.name,
        name2=state.fighters[shot.shooter].name,
        result=RESULT_WORDS[result],
    )
    void = voided(
        state.overrides,
        seq,
        rid,
        say("{head}: voided by the referee (a ricochet?).", head=head),
        RulingKind.HIT,
        "§11",
        target.id,
    )
    if void:
        return state, [void]
    if target.soldier:
        if result == "fell" or (result == "leaning" and target.wounded):
            state, outcome = state.with_fighter(replace(target, dead=True, wounded=False)), say("killed")
        elif result == "leaning":
            state, outcome = state.with_fighter(replace(target, wounded=True)), say("wounded (face down)")
        else:
            outcome = say("minor damage, no effect")
    else:
        rolls = exploding_d6(roller, f"{override[0] if override else seq}/real/{target.id}")
        damage = sum(rolls) + (1 if result == "fell" else 0)
        total = target.damage + damage
        dead = target.durability is not None and total > target.durability
        state = state.with_fighter(replace(target, damage=total, dead=dead))
        outcome = (
            f"d6 {'+'.join(map(str, rolls))}"
            + (say(" +1 for falling") if result == "fell" else "")
            + say(
                " = {damage} damage ({total} of durability {durability})",
                damage=damage,
                total=total,
                durability=target.durability,
            )
            + (say(", destroyed") if dead else "")
        )
    return state, [
        Ruling(
            rid,
            seq,
            RulingKind.HIT,
            say("{head}: {outcome}.", head=head, outcome=outcome) + (clock_doubt(doubt) if doubt else ""),
            "§11 §9",
            needs_referee=True,
            element=target.id,
            details={"shot": shot.seq, "result": result, **doubt.details()},
        )
    ]
