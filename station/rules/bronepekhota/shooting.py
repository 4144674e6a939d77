"""§6 real shooting: which shots are legal, which model a shot hit, and what the hit does.

Attribution: a TILT or IMPACT from a model within ``hit_window_ms`` after a SHOT (hub time) is
evidence that the shot hit it.  A fall (infantry: fell or leaning) is ruled at once as "fell".
An IMPACT alone waits ``settle_ms`` for a fall; if none comes the target "stood".  A hit on a model
already lying is "lying".  Then §6.7 Table 4 decides.  Every hit ruling asks for the referee.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...dice import Roller
from ...events import Impact, Shot, Tilt, wired
from ..base import Ruling, RulingKind
from ..hits import (
    NO_DOUBT,
    ClockDoubt,
    Resolve,
    Stamp,
    Unexplained,
    clock_doubt,
    rule_late_shot,
    time_moves_on,
    unknown_launcher,
)
from ..text import Text, joined, say, trimmed
from . import contact, missions, turns
from .damage import emergency_landing
from .panic import after_survival
from .roster import dismount, name
from .state import REPAIR_MARK, Element, GameState, Launcher, Problem, ShotRecord
from .tables import (
    CHARGE_NAMES,
    CHARGE_POWER,
    FELL,
    LYING,
    RESULT_WORDS,
    STOOD,
    TABLE_4,
    VERDICT_WORDS,
    TestResult,
    armour_test,
    survival_test,
)


def _shot_problem(state: GameState, shot: Shot, element: Element) -> Problem:
    """The first rule this shot breaks, with its section, or (None, "")."""
    launcher = wired(state.setup.launchers, shot.node)
    assert launcher is not None  # on_shot refused a shot from a launcher in no army
    return (
        _readiness_problem(state, shot, launcher, element)
        or _contact_problem(state, element)
        or _fire_rate_problem(state, shot, element)
        or (None, "")
    )


def _readiness_problem(state: GameState, shot: Shot, launcher: Launcher, element: Element) -> Problem | None:
    """Whether the model and its launcher can fire this charge at all (§3, §5.1, §6, §6.7, §9.3)."""
    if shot.barrel > launcher.barrels:
        return say("launcher {node} has no barrel {barrel}", node=shot.node, barrel=shot.barrel), "§6.4"
    if state.round == 0:
        return say("no round has begun"), "§3"
    if element.destroyed:
        return say("it is destroyed"), "§5.1"
    if element.posture == "fallen" or element.needs_repair:
        return say("a fallen vehicle or gun cannot fire"), "§6.7"
    if REPAIR_MARK in element.fired:
        return say("its pilot is repairing it this round, so it skips its turn"), "§9.3"
    if element.kind == "vehicle" and element.pilot is None:
        return say("a vehicle without a pilot cannot shoot"), "§1.6"
    if shot.charge == "bomb" and element.kind == "vehicle":
        return say("firing mortar bombs from combat-vehicle launchers is forbidden"), "§6"
    if shot.charge not in launcher.charges:
        return say(
            "a {kind} launcher cannot fire a {charge}", kind=launcher.kind, charge=CHARGE_NAMES[shot.charge]
        ), "§6"
    return None


def _contact_problem(state: GameState, element: Element) -> Problem | None:
    """§6.2, §8.2: what touches the model forbids it to fire."""
    touching = contact.touching_enemy_machines(state, element)
    if touching:
        names = ", ".join(name(state, t) for t in touching)
        return say("it touches enemy {names}; machines in contact with enemy machines cannot fire", names=names), "§6.2"
    if element.kind == "gun" and len({state.elements[m].player for m in contact.crew_touching_any(state, element)}) > 1:
        return say("infantrymen of both sides touch it"), "§6.2"
    in_melee = [t for t in contact.touching_enemies(state, element) if state.elements[t].kind == "infantry"]
    if element.kind == "vehicle" and in_melee:  # §8.2: in close combat with enemy infantry
        return say("it is in close combat with {names}", names=", ".join(name(state, t) for t in in_melee)), "§6.2 §8.2"
    return None


def _fire_rate_problem(state: GameState, shot: Shot, element: Element) -> Problem | None:
    """§6.4, §6.5: the barrel, the rate of fire and the ammunition this round."""
    if f"{shot.node}/{shot.barrel}" in element.fired:
        return say("barrel {barrel} of {node} has already fired this round", barrel=shot.barrel, node=shot.node), "§6.4"
    rate = state.setup.rate_of_fire[element.id]
    if len([f for f in element.fired if "/" in f]) >= rate:  # barrels only
        return (say("rate of fire {rate}: it cannot fire this round", rate=rate) if rate == 0
                else say("rate of fire {rate} already used this round", rate=rate)), "§6.4"  # fmt: skip
    if state.options.ammo == "limited":
        if element.ammo == 0:
            return say("its ammunition is exhausted"), "§6.5"
        if (
            element.ammo is not None
            and element.ammo < CHARGE_POWER[shot.charge]
            and state.options.ammo_shortfall == "refuse"
        ):
            return (
                say(
                    "{ammo} ammunition left, a {charge} costs {power}",
                    ammo=element.ammo,
                    charge=CHARGE_NAMES[shot.charge],
                    power=CHARGE_POWER[shot.charge],
                ),
                "§6.5 §Z.9",
            )
    return None


def _whose_turn(state: GameState, seq: int, element: Element) -> tuple[GameState, list[Ruling], str | None]:
    """§3.2: only the acting unit shoots.  A vehicle that fires with no unit acting is activated
    by its shot; a gun (not a unit, §2) fires during its owner's turn."""
    if element.kind == "gun":
        ok = state.active_player() == element.player
        return state, [], None if ok else say("it is {active_player}'s turn", active_player=state.active_player())
    if state.active_unit == element.unit:
        return state, [], None
    if state.active_unit is None and element.unit is not None:
        new, rulings = turns.activate(state, seq, element.unit, implicit=True)
        if new.active_unit == element.unit:
            return new, rulings, None
        return state, [], trimmed(rulings[0].text) if rulings else say("out of turn")
    return state, [], say("{active_unit} is acting, not {unit}", active_unit=state.active_unit, unit=element.unit)


def on_shot(state: GameState, seq: int, shot: Shot, when: Stamp, roller: Roller) -> tuple[GameState, list[Ruling]]:
    launcher = wired(state.setup.launchers, shot.node)
    if launcher is None:
        return state, [unknown_launcher(seq, shot.node, "§6")]
    element = state.elements[launcher.element]
    rulings = _reconcile_counter(state, seq, shot) + _crew_check(state, seq, element)
    state = state.evolve(counters={**state.counters, f"{shot.node}/{shot.barrel}": shot.count})
    problem, section = _shot_problem(state, shot, element)
    if problem is None:
        state, turn_rulings, problem = _whose_turn(state, seq, element)
        rulings += turn_rulings
        section = "§3.2"
    rid = f"{seq}:shot"
    override = state.overrides.get(rid)
    verdict = override[1].verdict if override else None
    legal = problem is None
    if verdict in ("allow", "void"):
        legal = verdict == "allow"
    who = name(state, element.id)
    what = say(
        "{who} fired a {charge} from {node} barrel {barrel}",
        who=who,
        charge=CHARGE_NAMES[shot.charge],
        node=shot.node,
        barrel=shot.barrel,
    )
    details: dict[str, Any] = {
        "shooter": element.id,
        "node": shot.node,
        "barrel": shot.barrel,
        "charge": shot.charge,
        "power": CHARGE_POWER[shot.charge],
        "legal": legal,
    }
    if legal:
        element = state.elements[element.id]
        ammo = element.ammo
        if state.options.ammo == "limited":
            ammo = max(0, (element.ammo or 0) - CHARGE_POWER[shot.charge])
            what += say(": ammunition {ammo}→{ammo2}", ammo=element.ammo, ammo2=ammo)
            details.update(ammo_before=element.ammo, ammo_after=ammo)
        state = state.with_element(replace(element, ammo=ammo, fired=element.fired | {f"{shot.node}/{shot.barrel}"}))
        text, section = what + ".", "§6.4 §6.5 Table 3"
    else:
        reason = problem or say("voided by the referee")
        text = say("{what}, but {reason}: the shot does not count.", what=what, reason=reason)
        details["problem"] = reason
        touching = contact.touching_enemy_machines(state, element) if section == "§6.2" else []
        if touching:
            details["measured"] = contact.contact_measurement(state, element, touching[0])
    if override:
        text += (
            say(" Referee: {verdict}", verdict=VERDICT_WORDS.get(override[1].verdict, override[1].verdict))
            + (f" ({override[1].note})" if override[1].note else "")
            + "."
        )
    record = ShotRecord(
        seq=seq, shooter=element.id, t=when, node=shot.node, barrel=shot.barrel, charge=shot.charge, legal=legal
    )
    state = state.evolve(hits=state.hits.fire(record))
    state, explained = _late_shot(state, record, roller)
    rulings.append(
        Ruling(
            rid,
            seq,
            RulingKind.SHOT,
            text,
            section,
            needs_referee=not legal,
            element=element.id,
            details=details,
            overridden=verdict,
        )
    )
    if legal:
        rulings += _contact_in_doubt(state, seq, element)
    return state, rulings + explained


def _resolver(roller: Roller) -> Resolve[GameState]:
    """How a piece of evidence that waited for late shots is ruled, once a shot is found for it
    (hits.time_moves_on, hits.rule_late_shot): as it would have been had the lines come in order."""

    def resolve(
        state: GameState, evidence: Unexplained, shot: ShotRecord, doubt: ClockDoubt, count: int
    ) -> tuple[GameState, list[Ruling]] | None:
        element = state.elements[evidence.target]
        if element.destroyed:
            return state, []
        if not evidence.fell and element.posture != "fallen":
            return None
        result = FELL if evidence.fell else LYING
        return resolve_hit(
            state, evidence.seq, element.id, shot, result, roller, candidates=count, how=evidence.how, doubt=doubt
        )

    return resolve


def _late_shot(state: GameState, shot: ShotRecord, roller: Roller) -> tuple[GameState, list[Ruling]]:
    """Evidence ruled with no shot that this shot, come later still, explains (hits.rule_late_shot)."""
    return rule_late_shot(state, shot, state.options.hit_window_ms, _resolver(roller))


def _contact_in_doubt(state: GameState, seq: int, element: Element) -> list[Ruling]:
    """§6.2: a shooter within the camera's uncertainty of touching an enemy machine.  The shot
    counts unless the referee rules it was touching (override: void)."""
    return [
        Ruling(
            f"{seq}:contact:{m['b']}",
            seq,
            RulingKind.WARNING,
            say(
                "Too close to call: {element} is {mm} mm (±{n}) from {b}. If they touch, the shot does not count (§6.2).",
                element=name(state, element.id),
                mm=f"{m['mm']:.1f}",
                n=f"{2 * m['sigma_mm']:.1f}",
                b=name(state, m["b"]),
            ),
            "§6.2",
            needs_referee=True,
            element=element.id,
            details={"measured": m},
        )
        for m in contact.too_close_to_call(state, element)
    ]


def _crew_check(state: GameState, seq: int, element: Element) -> list[Ruling]:
    """§6.1: a gun fires only while a crewman of sufficient rank touches it.  The camera may not
    see every crewman (no marker), so a gun fired with none seen is a question for the referee."""
    if element.kind != "gun" or contact.crew_touching(state, element) != []:
        return []
    return [
        Ruling(
            f"{seq}:crew",
            seq,
            RulingKind.WARNING,
            say(
                "No infantryman of rank {rank}+ was seen touching {element} when it fired.",
                rank=element.rank,
                element=name(state, element.id),
            ),
            "§6.1",
            needs_referee=True,
            element=element.id,
        )
    ]


def _reconcile_counter(state: GameState, seq: int, shot: Shot) -> list[Ruling]:
    """The launcher's counter only increases, so a jump means shots the link never delivered."""
    last = state.counters.get(f"{shot.node}/{shot.barrel}")
    if last is None or shot.count == last + 1:
        return []
    if shot.count > last + 1:
        text = say(
            "{node} barrel {barrel} counted {n} shot(s) the station never received.",
            node=shot.node,
            barrel=shot.barrel,
            n=shot.count - last - 1,
        )
    else:
        text = say(
            "{node} barrel {barrel} counter went from {last} back to {count} (launcher reset?).",
            node=shot.node,
            barrel=shot.barrel,
            last=last,
            count=shot.count,
        )
    return [Ruling(f"{seq}:counter", seq, RulingKind.WARNING, text, "§6.4", needs_referee=True)]


def _falls(element: Element, tilt_state: str) -> bool:
    """Table 4: an infantryman who fell or leaned against an obstacle; a machine that fell over."""
    return tilt_state == "fallen" or (element.kind == "infantry" and tilt_state == "leaning")


def on_tilt(state: GameState, seq: int, tilt: Tilt, when: Stamp, roller: Roller) -> tuple[GameState, list[Ruling]]:
    element_id = wired(state.setup.tilt_nodes, tilt.node)
    if element_id is None:
        return state, [
            Ruling(
                f"{seq}:tilt", seq, RulingKind.WARNING, say("TILT from unknown node {node}.", node=tilt.node), "§6.7"
            )
        ]
    vehicle = state.elements[element_id].aboard
    if tilt.first:  # a node that started again says how its model lies: a report, never a hit
        return posture_reported(state, seq, element_id, tilt.state) if vehicle is None else (state, [])
    if vehicle is not None:  # the pilot figure in the cockpit is part of the machine (§6.7)
        what = say("{vehicle}'s pilot figure was knocked", vehicle=name(state, vehicle))
        return (
            _struck(state, seq, vehicle, when, what, roller, PILOT_FIGURE) if tilt.state != "upright" else (state, [])
        )
    return posture_seen(state, seq, element_id, tilt.state, when, roller)


def posture_seen(
    state: GameState, seq: int, element_id: str, posture: str, t: Stamp, roller: Roller
) -> tuple[GameState, list[Ruling]]:
    """A model's posture changed at ``t``, by its tilt node or, for a model without one,
    by the camera: a fall soon after a shot is that shot's hit (§6.7)."""
    element = state.elements[element_id]
    if element.destroyed:
        return state, []
    falls = _falls(element, posture)
    rulings: list[Ruling] = []
    if falls and element.posture == "upright":
        impact = state.hits.impact_on(element_id)
        state = _set_posture(state, element, "fallen")
        no_shot = Ruling(
            f"{seq}:fall",
            seq,
            RulingKind.STATUS,
            say("{element_id} fell with no shot in the hit window: no damage.", element_id=name(state, element_id)),
            "§6.7",
            element=element_id,
        )
        if impact is None and state.hits.may_be_late(t):  # another hub's shot may still be on the wire
            return state.evolve(hits=state.hits.park(Unexplained(seq, element_id, t, True, no_shot))), rulings
        if impact is not None:
            hits, fired = state.hits.take(impact)
            return resolve_hit(
                state.evolve(hits=hits), impact.seq, element_id, fired, FELL, roller, how=impact.how, doubt=impact.doubt
            )
        found, count = state.hits.shot_for(element_id, t, state.options.hit_window_ms)
        if found is not None:
            doubt = state.hits.doubt(found, t, state.options.hit_window_ms)
            return resolve_hit(state, seq, element_id, found, FELL, roller, candidates=count, doubt=doubt)
        rulings.append(no_shot)
    elif not falls and element.posture == "fallen":
        state = _set_posture(state, element, "upright")
        if element.needs_repair:
            rulings.append(
                Ruling(
                    f"{seq}:upright",
                    seq,
                    RulingKind.WARNING,
                    say(
                        "{element_id} was set upright before any repair; it still may not act.",
                        element_id=name(state, element_id),
                    ),
                    "§6.7 §9.3",
                    needs_referee=True,
                    element=element_id,
                )
            )
    elif not falls and posture == "leaning":
        if state.hits.may_be_late(t):
            state = state.evolve(hits=state.hits.park(Unexplained(seq, element_id, t, False)))
        else:
            state = state.evolve(hits=state.hits.struck(seq, element_id, t, state.options.hit_window_ms))
    return state, rulings


def posture_reported(state: GameState, seq: int, element_id: str, posture: str) -> tuple[GameState, list[Ruling]]:
    """A tilt node's first posture since it started (it was off, or its hub restarted): the
    model may have been set up or knocked over meanwhile.  What the node says is taken, never as
    a hit; when it differs from what the station believed, the referee is told (§6.7)."""
    element = state.elements[element_id]
    falls = _falls(element, posture)
    if element.destroyed or falls == (element.posture == "fallen"):
        return state, []
    state = _set_posture(state, element, "fallen" if falls else "upright")
    if falls:
        text = say(
            "{element_id}'s tilt node started again and finds it lying, though it stood before: taken as lying, not as a hit. Check the table.",
            element_id=name(state, element_id),
        )
    else:
        text = say(
            "{element_id}'s tilt node started again and finds it standing, though it lay before: taken as standing. Check the table.",
            element_id=name(state, element_id),
        )
    details = {"posture": posture, "was": element.posture}
    ruling = Ruling(
        f"{seq}:posture", seq, RulingKind.WARNING, text, "§6.7", needs_referee=True, element=element_id, details=details
    )
    return state, [ruling]


def _set_posture(state: GameState, element: Element, posture: str) -> GameState:
    """§6.7: «Поднять свою машину (орудие) и вернуть ей способность вести боевые действия
    игрок-хозяин сможет только после Ремонта»: a fallen vehicle, or gun, needs a Repair (§9.3)."""
    machines = ("vehicle", "gun") if state.options.fallen_gun_needs_repair else ("vehicle",)
    fallen_machine = posture == "fallen" and element.kind in machines
    return state.with_element(replace(element, posture=posture, needs_repair=element.needs_repair or fallen_machine))


def on_impact(
    state: GameState, seq: int, impact: Impact, when: Stamp, roller: Roller
) -> tuple[GameState, list[Ruling]]:
    element_id = wired(state.setup.tilt_nodes, impact.node)
    if element_id is None:
        return state, [
            Ruling(
                f"{seq}:impact",
                seq,
                RulingKind.WARNING,
                say("IMPACT from unknown node {node}.", node=impact.node),
                "§6.7",
            )
        ]
    vehicle = state.elements[element_id].aboard
    if vehicle is not None:  # §6.7: «снаряд попал в фигурку пилота … засчитывается как попадание в машину»
        what = say("{vehicle}'s pilot figure was struck ({g} g)", vehicle=name(state, vehicle), g=f"{impact.g:.1f}")
        return _struck(state, seq, vehicle, when, what, roller, PILOT_FIGURE)
    return _struck(
        state,
        seq,
        element_id,
        when,
        say("{element_id} was struck ({g} g)", element_id=name(state, element_id), g=f"{impact.g:.1f}"),
        roller,
    )


PILOT_FIGURE = say(" (on its pilot figure, which counts as the vehicle, §6.7)")


def _struck(
    state: GameState, seq: int, element_id: str, t: Stamp, what: str, roller: Roller, how: str = ""
) -> tuple[GameState, list[Ruling]]:
    """Evidence that something hit the model at ``t``: a hit if a shot explains it,
    ruled at once on a model already lying, else waiting ``settle_ms`` for a fall (hits.py)."""
    element = state.elements[element_id]
    if element.destroyed or state.hits.impact_on(element_id) is not None:
        return state, []
    text = say("{what} with no shot in the hit window: ignored.", what=what)
    ignored = Ruling(f"{seq}:impact", seq, RulingKind.STATUS, text, "§6.7", element=element_id)
    if state.hits.may_be_late(t):  # another hub's shot may still be on the wire
        return state.evolve(hits=state.hits.park(Unexplained(seq, element_id, t, False, ignored, how))), []
    shot, count = state.hits.shot_for(element_id, t, state.options.hit_window_ms)
    if shot is None:
        return state, [ignored]
    if element.posture == "fallen":
        doubt = state.hits.doubt(shot, t, state.options.hit_window_ms)
        return resolve_hit(state, seq, element_id, shot, LYING, roller, candidates=count, how=how, doubt=doubt)
    return state.evolve(hits=state.hits.struck(seq, element_id, t, state.options.hit_window_ms, how)), []


def advance_time(
    state: GameState, now: Stamp, roller: Roller, clock: tuple[Stamp, float] | None = None
) -> tuple[GameState, list[Ruling]]:
    """Hub time moved on: impacts that settled without a fall become 'stood'; old shots expire;
    evidence no late shot explained is ruled as it stands.  ``clock``: the hub time paired with
    the station's, noted in the same step."""
    hits = state.hits
    if not (hits.waiting or hits.unexplained or hits.alone) and now.clock in hits.clocks:
        # no impact waits to settle and no evidence for a late shot (most events): the clocks
        # move and old shots expire, in one copy of the state
        if now.since(state.now)[0] <= 0:
            return (state.evolve(clock=clock) if clock else state), []
        changes: dict[str, Any] = {"now": now, **({"clock": clock} if clock else {})}
        expired = hits.expire(now, state.options.hit_window_ms)
        if expired is not hits:
            changes["hits"] = expired
        return state.evolve(**changes), []
    moved = time_moves_on(
        state, now, state.options.hit_window_ms, _resolver(roller), **({"clock": clock} if clock else {})
    )
    if moved is None:
        return (state.evolve(clock=clock) if clock else state), []
    state, rulings = moved
    for impact in state.hits.settled(now, state.options.settle_ms):  # §6.7: it stood
        hits, shot = state.hits.take(impact)
        state, more = resolve_hit(
            state.evolve(hits=hits), impact.seq, impact.target, shot, STOOD, roller, how=impact.how, doubt=impact.doubt
        )
        rulings += more
    hits = state.hits.expire(now, state.options.hit_window_ms)
    return (state if hits is state.hits else state.evolve(hits=hits)), rulings


def resolve_hit(
    state: GameState,
    cause: int,
    element_id: str,
    shot: ShotRecord,
    result: str,
    roller: Roller,
    candidates: int = 1,
    how: str = "",
    doubt: ClockDoubt = NO_DOUBT,
) -> tuple[GameState, list[Ruling]]:
    """§6.7 Table 4, with §5 damage and the §6.6/§5.3 tests, or the referee's override of it."""
    rid = f"{cause}:hit:{element_id}"
    state = state.evolve(hits=state.hits.mark(shot.seq, element_id))
    override = state.overrides.get(rid)
    verdict = override[1].verdict if override else None
    key = f"{override[0] if override else cause}/{element_id}"
    element = state.elements[element_id]
    target, shooter = name(state, element_id), name(state, shot.shooter)
    head = say(
        "Hit on {target}{how} by {shooter}'s {charge}",
        target=target,
        how=how,
        shooter=shooter,
        charge=CHARGE_NAMES[shot.charge],
    )
    details: dict[str, Any] = {
        "target": element_id,
        "shooter": shot.shooter,
        "shot": shot.seq,
        "charge": shot.charge,
        "result": result,
        "candidates": candidates,
        **doubt.details(),
    }
    if verdict in (STOOD, FELL):
        result = verdict if not (verdict == STOOD and result == LYING) else LYING
        details["result"] = result
    if verdict == "void" or (not shot.legal and verdict not in (STOOD, FELL)):
        why = (
            say("voided by the referee")
            if verdict == "void"
            else say("the shot was illegal, so the hit does not count")
        )
        return state, [
            Ruling(
                rid,
                cause,
                RulingKind.HIT,
                say("{head}: {why}.", head=head, why=why),
                "§6.7",
                needs_referee=True,
                element=element_id,
                details={**details, "applied": False},
                overridden=verdict,
            )
        ]
    if element.kind == "infantry" and result == LYING:
        result = FELL
    state, outcome = _apply_table_4(state, element, shot.charge, result, roller, key, details)
    text = say("{head}, {result}: {outcome}", head=head, result=RESULT_WORDS[result], outcome=outcome)
    if candidates > 1:
        text += say(" ({candidates} shots in the window; the latest was taken.)", candidates=candidates)
    if doubt:
        text += clock_doubt(doubt)
    if override:
        text += (
            say(" Referee: {verdict}", verdict=VERDICT_WORDS.get(verdict or "", verdict))
            + (f" ({override[1].note})" if override[1].note else "")
            + "."
        )
    rulings = [
        Ruling(
            rid,
            cause,
            RulingKind.HIT,
            text,
            "§6.7 Table 4",
            needs_referee=True,
            element=element_id,
            details={**details, "applied": True},
            overridden=verdict,
        )
    ]
    state, more = _check_players_out(state, cause)
    return state, rulings + more


def _apply_table_4(
    state: GameState, element: Element, charge: str, result: str, roller: Roller, key: str, details: dict[str, Any]
) -> tuple[GameState, str]:
    row = TABLE_4[(element.kind, result)]
    if element.kind == "infantry":
        if row.destroyed:
            details["destroyed"] = True
            return state.with_element(replace(element, destroyed=True)), say("destroyed (§6.7 Table 4).")
        test = survival_test(roller, element.armour, f"{key}/survival")
        details["tests"] = [test.as_dict()]
        details["destroyed"] = not test.passed
        if not test.passed:
            state = state.with_element(replace(element, destroyed=True))
        state, panic = after_survival(state, element.id, test)
        fate = (
            say("{test}, survives (§5.3)", test=test.describe())
            if test.passed
            else say("{test}, destroyed (§5.3)", test=test.describe())
        )
        return state, joined([fate, *panic], "; ") + "."
    damage = row.damage_multiplier * CHARGE_POWER[charge]
    armour = max(0, element.armour - damage)  # §5.1: damage past the last cell clamps to 0
    destroyed = armour == 0
    hit = replace(element, armour=armour, destroyed=destroyed)
    hit = replace(hit, speed=state.speed_of(hit))
    details.update(damage=damage, armour_before=element.armour, armour_after=armour, destroyed=destroyed)
    words = [
        say("{damage} damage, armour {armour}→{armour2}", damage=damage, armour=element.armour, armour2=armour)
        + (say(", destroyed (§5.1)") if destroyed else "")
    ]
    tests: list[dict[str, Any]] = []
    if row.armour_test_die and element.pilot and (not destroyed or state.options.pilot_test_on_destruction):
        hit, pilot_words = _pilot_tests(state, hit, row.armour_test_die, roller, key, tests)
        words += pilot_words
    details["tests"] = tests
    state = state.with_element(hit)
    if destroyed and hit.pilot:
        state, climbed_out = dismount(state, hit)
        words.append(climbed_out)
    if hit.pilot is None and element.pilot is not None:
        pilot = state.elements[element.pilot]
        state = state.with_element(replace(pilot, destroyed=True, aboard=None))
        state, landing = emergency_landing(state, hit.id, roller, key)
        words += landing
    survived = [t for t in tests if t["test"] == say("survival test") and t["passed"]]
    if survived and hit.pilot:  # §11.2: a pilot who rolled exactly his Бр panics
        last = survived[-1]
        state, panic = after_survival(
            state, hit.pilot, TestResult(say("survival test"), 6, last["roll"], last["target"], True)
        )
        words += panic
    return state, joined(words, "; ") + "."


def _pilot_tests(
    state: GameState, vehicle: Element, die: int, roller: Roller, key: str, tests: list[dict[str, Any]]
) -> tuple[Element, list[Text]]:
    """§6.6: the Armour Test with the armour after this damage; if pierced, the pilot's §5.3
    Survival Test with his own Бр (§Z.8).  Returns the vehicle, with pilot None if he died."""
    armour = armour_test(roller, vehicle.armour, die, f"{key}/armour-test")
    tests.append(armour.as_dict())
    words = [armour.describe() + (say(" (§6.6), pilot unhurt") if armour.passed else say(" (§6.6)"))]
    if armour.passed or vehicle.pilot is None:  # (a vehicle hit has a pilot: §6.6 tests him)
        return vehicle, words
    pilot = state.elements[vehicle.pilot]
    survival = survival_test(roller, pilot.armour, f"{key}/pilot-survival")
    tests.append(survival.as_dict())
    words.append(
        say("pilot {pilot} {describe}", pilot=name(state, pilot.id), describe=survival.describe())
        + (say(", survives") if survival.passed else say(", dies; the vehicle has no pilot (§9.1)"))
    )
    return (vehicle if survival.passed else replace(vehicle, pilot=None)), words


def _check_players_out(state: GameState, cause: int) -> tuple[GameState, list[Ruling]]:
    """§1.1: a player whose soldiers (infantry and pilots) are all destroyed is out; §12.1: a
    mission to destroy a command vehicle is done when it is destroyed."""
    state, won = missions.command_vehicles_destroyed(state, cause)
    rulings: list[Ruling] = []
    for player in state.setup.players:
        if player in state.out:
            continue
        soldiers = [e for e in state.elements.values() if e.player == player and e.kind == "infantry"]
        if soldiers and all(e.destroyed for e in soldiers):
            state = state.evolve(out=state.out + (player,))
            rulings.append(
                Ruling(
                    f"{cause}:out:{player}",
                    cause,
                    RulingKind.STATUS,
                    say("{player} has no soldiers left and is out of the game.", player=player),
                    "§1.1",
                )
            )
    left = [p for p in state.setup.players if p not in state.out]
    if rulings and len(left) == 1 and not state.mission_won:
        rulings.append(
            Ruling(f"{cause}:victory", cause, RulingKind.STATUS, say("{left} wins the battle.", left=left[0]), "§12.1")
        )
    return state, won + rulings
