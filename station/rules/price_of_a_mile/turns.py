"""The Price of a Mile turn (seed 003 digest §4, §13, §18): initiative, alternating activations
of one squad and one character, command distance checked by the camera when a squad activates,
morale at the end of each activation, and victory points when the last turn ends."""

from __future__ import annotations

from dataclasses import replace

from ...dice import Roller
from ...measure.measurement import too_close_to_call
from ...measure.relations import coherent, nearest_gap
from .. import input_args as arg
from ..base import Ruling, RulingKind
from ..inputs import Args
from ..text import Text, joined, say
from . import optional, vehicles
from .command import command_words, cut_off_bases
from .state import INCH, INPUTS, Activation, Fighter, MileState, Rules
from .where import placed_many

MORALE_TARGET = 8  # §13.2


def _senior_resourcefulness(state: MileState, player: str) -> int:
    """§4.2: the senior commander on the table; without one marked, the best Resourcefulness there."""
    standing = [f for f in state.fighters.values() if f.player == player and f.standing]
    commanders = [f for f in standing if f.commander] or standing
    return max((f.stats["resourcefulness"] for f in commanders), default=0)


def initiative(state: MileState, seq: int, args: Args, roller: Roller) -> tuple[MileState, list[Ruling]]:
    """§4.2: d10 + the senior commander's Resourcefulness (+2 Tactical Superiority); ties roll
    again; winning by 4 or more chooses who makes the first two activations."""
    if state.over or state.activation or (state.turn and not _turn_done(state)):
        return state, [
            Ruling(
                f"{seq}:initiative",
                seq,
                RulingKind.WARNING,
                say("Initiative comes when the turn's activations are done."),
                "§4.2",
                needs_referee=True,
            )
        ]
    totals: dict[str, int] = {}
    attempt = 0
    while len(set(totals.values())) < len(state.players):
        totals = {}
        for p in state.players:
            bonus = _senior_resourcefulness(state, p) + (2 if state.options.tactical_superiority == p else 0)
            totals[p] = roller.roll(10, f"{seq}/init/{attempt}/{p}") + bonus
        attempt += 1
    ranked = sorted(state.players, key=lambda p: -totals[p])
    lead = ranked[0]
    double = totals[lead] - totals[ranked[1]] >= 4
    if double:
        lead = str(args.get("first_two") or lead)
        if lead not in state.players:
            lead = ranked[0]
    other = next(p for p in state.players if p != lead)
    order = (lead, lead, other) if double else (lead, other)
    state = state.evolve(
        turn=state.turn + 1, order=order, activated=frozenset(), activations_made=0, tanks_fired=frozenset()
    )
    text = (
        say("Turn {turn}: initiative ", turn=state.turn)
        + ", ".join(f"{p} {t}" for p, t in totals.items())
        + say("; {lead} activates first", lead=lead)
    )
    text += (
        say(" twice, then {other}, alternating (§4.2).", other=other)
        if double
        else say(", then {other}, alternating (§4.2).", other=other)
    )
    return state, [Ruling(f"{seq}:initiative", seq, RulingKind.INITIATIVE, text, "§4.2", details={"totals": totals})]


def _can_activate(state: MileState, player: str) -> list[str]:
    """The squads and characters of a side that may still act this turn."""
    squads = [
        s.id
        for s in state.squads.values()
        if s.player == player and s.id not in state.activated and state.standing(s.id) and not s.neutral
    ]
    characters = [
        f.id
        for f in state.fighters.values()
        if f.player == player and f.squad is None and f.standing and f.id not in state.activated
    ]
    return squads + characters


def due(state: MileState) -> str | None:
    """§4.2-4.3: whose activation it is; a side with nothing left to activate is skipped."""
    if not state.order:
        return None
    k = state.activations_made
    lead, other = state.order[0], state.order[-1]
    if len(state.order) == 3:  # the first two are the lead's, then alternate from the other
        turn = lead if k < 2 else (other if (k - 2) % 2 == 0 else lead)
    else:
        turn = lead if k % 2 == 0 else other
    if _can_activate(state, turn):
        return turn
    rest = [p for p in state.players if _can_activate(state, p)]
    return rest[0] if rest else None


def _turn_done(state: MileState) -> bool:
    return not any(_can_activate(state, p) for p in state.players)


@INPUTS.register(
    "activate",
    "§4.3",
    arg.unit("squad", "the squad that acts"),
    arg.model("character", "a character that acts with it, or alone"),
    arg.unit("unit", "a squad or a character, as the dashboard's Activate names it"),
)
def activate(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    """§4.3: one squad and, optionally, one character (or a character alone once a side's squads
    are spent); every base gets 2 actions, a Hero 3 (§4.4, §12.1); §3.2 command distance."""
    roller = rules.roller
    squad_id, character_id = args.get("squad"), args.get("character")
    if "unit" in args:  # the dashboard's Activate names a squad or a character
        squad_id, character_id = (args["unit"], None) if args["unit"] in state.squads else (None, args["unit"])
    player = due(state)
    problem = None
    if state.activation:
        problem = say("end the current activation first")
    elif player is None:
        problem = say("no side has anything left to activate this turn: roll initiative for the next")
    elif squad_id is None and character_id is None:
        problem = say("name a squad, a character, or both")
    elif squad_id is not None and (
        squad_id not in state.squads
        or state.squads[squad_id].player != player
        or squad_id in state.activated
        or not state.standing(squad_id)
        or state.squads[squad_id].neutral
    ):
        problem = say(
            "{squad_id} is not a squad of {player} that may still act this turn", squad_id=repr(squad_id), player=player
        )
    elif character_id is not None and (
        character_id not in state.fighters
        or state.fighters[character_id].squad
        or state.fighters[character_id].player != player
        or character_id in state.activated
        or not state.fighters[character_id].standing
    ):
        problem = say(
            "{character_id} is not a character of {player} that may still act this turn",
            character_id=repr(character_id),
            player=player,
        )
    elif squad_id is None and any(
        s.player == player and s.id not in state.activated and state.standing(s.id) and not s.neutral
        for s in state.squads.values()
    ):
        problem = say("a character acts alone only once its side has no squads left to activate (§4.3)")
    if problem or player is None:  # (no side due is one of the problems)
        return state, [
            Ruling(
                f"{seq}:activate",
                seq,
                RulingKind.WARNING,
                say("No activation: {problem}.", problem=problem),
                "§4.3",
                needs_referee=True,
            )
        ]
    near, near_doubt = _near_enemy(state, squad_id)
    state, unsteady, restricted = optional.unreliable(state, seq, squad_id, near, roller)
    near_doubt = near_doubt and bool(unsteady)  # only an Unreliable squad counts its dice by it
    if near_doubt:
        unsteady.append(
            say("the enemy is within the camera's uncertainty of 8\", so the dice were counted as measured")
        )
    if squad_id and state.squads[squad_id].player != player:  # §16.8 "Treason!!!": it changed sides, unactivated
        return state, [
            Ruling(
                f"{seq}:activate",
                seq,
                RulingKind.WARNING,
                say("Squad {squad_id}: ", squad_id=squad_id) + joined(unsteady, "; ") + ".",
                "§16.8",
                needs_referee=True,
            )
        ]
    slow, sluggish = optional.actions_for(state, seq, squad_id, roller)
    members = ([f.id for f in state.standing(squad_id)] if squad_id else []) + ([character_id] if character_id else [])
    actions = {
        m: 3
        if state.fighters[m].hero or state.fighters[m].vehicle == "tank"
        else slow
        if slow and m != character_id
        else 2
        for m in members
    }
    strength = {s: len(state.standing(s)) for s in state.squads}
    cut_off, doubtful = cut_off_bases(state, squad_id) if squad_id else ([], [])
    state = state.evolve(
        activation=Activation(player, squad_id, character_id, actions, bool(cut_off), strength, unreliable=restricted),
        paths={},
        may_follow={},  # a follow-up is made in the melees after the activation that won them
        followed={},
    )  # the camera's paths count from here (§5.1)
    squad_named = say("squad {squad_id} ({n} bases)", squad_id=squad_id, n=len(members) - bool(character_id))
    if squad_id and character_id:
        named = say("{squad} and {character}", squad=squad_named, character=character_id)
    else:
        named = squad_named if squad_id else say("{character}", character=character_id)
    text = say("{player} activates {named} (§4.3).", player=player, named=named)
    if unsteady or sluggish:
        text += " " + joined([*unsteady, *sluggish], "; ") + "."
    text += command_words(cut_off, doubtful)
    rulings = [
        Ruling(
            f"{seq}:activate",
            seq,
            RulingKind.STATUS if not cut_off and not doubtful else RulingKind.WARNING,
            text,
            "§4.3 §3.2",
            needs_referee=(bool(doubtful) and not cut_off) or near_doubt,
            details={"out_of_command": cut_off, **({"command_in_doubt": doubtful} if doubtful else {})},
        )
    ]
    tank, tank_doubt = vehicles.tank_near(state, squad_id) if squad_id else (None, None)
    doubt = (
        say(
            "Too close to call: enemy tank {tank} is within the camera's uncertainty of 12\"; the referee decides (§13.1).",
            tank=tank_doubt,
        )
        if tank_doubt
        else None
    )
    if tank and squad_id:  # §13.1: an enemy tank within 12" tests the squad at once
        state, test = morale_test(state, seq, squad_id, roller, say('enemy tank {tank} within 12"', tank=tank))
        rulings.append(replace(test, text=test.text + " " + doubt, needs_referee=True) if doubt else test)
    elif doubt:
        rulings.append(Ruling(f"{seq}:tank", seq, RulingKind.WARNING, doubt, "§13.1", needs_referee=True))
    return state, rulings


def _near_enemy(state: MileState, squad_id: str | None, inches: float = 8.0) -> tuple[bool, bool]:
    """§16.8: is any base of the squad within 8" of an enemy, and is the nearest within the
    camera's uncertainty of those 8"?"""
    if not squad_id:
        return False, False
    mine = placed_many(state, [f.id for f in state.standing(squad_id)])
    foes = placed_many(
        state, [f.id for f in state.fighters.values() if f.player != state.squads[squad_id].player and f.standing]
    )
    found = nearest_gap(mine, foes)
    if found is None:
        return False, False
    gap, sigma, _, _ = found
    return gap <= inches * INCH, too_close_to_call(gap, inches * INCH, sigma)


def morale_test(
    state: MileState, seq: int, squad_id: str, roller: Roller, why: Text, second_disorder: bool = True
) -> tuple[MileState, Ruling]:
    """§13.2: d10 + Morale (+1 close order), 8+ keeps calm; otherwise Disorder, a natural 1 or a
    total of 1 or less costs a base as well, and failing while Disordered costs 8 - total bases
    (not when ``second_disorder`` is False: a regroup read as only a chance, §13.4).  A Hero in the
    squad passes himself and never flees for it (§12.1; option hero_morale "squad": all pass)."""
    squad = state.squads[squad_id]
    standing = state.standing(squad_id)
    if any(f.hero for f in standing) and state.options.hero_morale == "squad":
        return state, Ruling(
            f"{seq}:morale:{squad_id}",
            seq,
            RulingKind.STATUS,
            say("Squad {squad_id} has a Hero: it passes its Morale test ({why}, §12.1).", squad_id=squad_id, why=why),
            "§13 §12.1",
        )
    close = len(standing) > 1 and len(coherent(placed_many(state, [f.id for f in standing]), 1.0)) == 1
    roll = roller.roll(10, f"{seq}/morale/{squad_id}")
    total = roll + state.stat(standing[0], "morale") + (1 if close else 0)
    text = say(
        "Squad {squad_id} tests Morale ({why}): d10 {roll}, total {total}",
        squad_id=squad_id,
        why=why,
        roll=roll,
        total=total,
    ) + (say(" with close order +1") if close else "")
    fled = 0
    if total >= MORALE_TARGET:
        text += say(": keeps calm (§13.2).")
    elif "defend_homeland" in squad.rules:  # §16.7: no Disorder; one flees, two on a natural 1
        fled = 2 if roll == 1 else 1
        text += say(
            ": fails, but defends its homeland: {fled} base(s) flee and there is no Disorder (§16.7).", fled=fled
        )
    elif squad.disordered and not second_disorder:
        text += say(": fails, and it stays Disordered (§13.4).")
    elif squad.disordered:
        fled = MORALE_TARGET - total
        text += say(": fails again while Disordered, {fled} bases flee (§13.2).", fled=fled)
    else:
        fled = 1 if roll == 1 or total <= 1 else 0
        state = state.with_squad(replace(squad, disordered=True))
        text += say(": Disordered (§13.2)") + (say(", and 1 base flees.") if fled else ".")
    if fled:
        going = [f.id for f in reversed(standing) if not f.hero][:fled]  # §12.1: the Hero passes his test
        state = flee(state, going)
        text += say(" Fled: {going}; the owner may swap them for others.", going=", ".join(going))
        if any(f.hero for f in standing):
            text += say(" The Hero passes his own test and stays (§12.1).")
    return state, Ruling(
        f"{seq}:morale:{squad_id}",
        seq,
        RulingKind.STATUS if total >= MORALE_TARGET else RulingKind.WARNING,
        text,
        "§13",
        details={"roll": roll, "total": total, "fled": fled},
    )


def flee(state: MileState, fighter_ids: list[str]) -> MileState:
    for fid in fighter_ids:
        f = state.fighters[fid]
        state = state.with_fighter(replace(f, status="fled"))
    return state


@INPUTS.register("end_activation", "§13.1")
def end_activation(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, list[Ruling]]:
    """§13.1: every squad that lost a third of its strength this activation, or came under
    artillery, tank or flame fire, tests Morale; then the next side activates."""
    roller = rules.roller
    act = state.activation
    if act is None:
        return state, [
            Ruling(f"{seq}:end", seq, RulingKind.WARNING, say("No activation is running."), "§4.3", needs_referee=True)
        ]
    rulings = []
    for squad_id in sorted(state.squads):
        before, now = act.strength.get(squad_id, 0), len(state.standing(squad_id))
        lost = before - now
        if now and ((lost and lost * 3 >= before) or squad_id in act.shaken):
            why = joined(
                x
                for x in (
                    say("lost {lost} of {before}", lost=lost, before=before) if lost else None,
                    say("under artillery, tank or flame fire") if squad_id in act.shaken else None,
                )
                if x
            )
            state, ruling = morale_test(state, seq, squad_id, roller, why)
            rulings.append(ruling)
    rally = _rally(state, seq, act, roller)
    if rally:
        state, ruling = rally
        rulings.append(ruling)
    done = {x for x in (act.squad, act.character) if x}
    state = state.evolve(activation=None, activated=state.activated | done, activations_made=state.activations_made + 1)
    if _turn_done(state):
        state, over = end_turn(state, seq, roller)
        rulings += over
    else:
        rulings.append(
            Ruling(
                f"{seq}:next", seq, RulingKind.STATUS, say("Next to activate: {due} (§4.2).", due=due(state)), "§4.2"
            )
        )
    return state, rulings


def _rally(state: MileState, seq: int, act: Activation, roller: Roller) -> tuple[MileState, Ruling] | None:
    """§17.2 Inspired Recruits: a Disordered squad that moved towards the enemy, every base of it,
    rolls a d10 and drops its Disorder on 8+."""
    squad = state.squads.get(act.squad) if act.squad else None
    if not squad or not squad.disordered or "rally_advancing" not in squad.rules:
        return None
    standing = [f.id for f in state.standing(squad.id)]
    if not standing or not all(f in act.advanced for f in standing):
        return None
    roll = roller.roll(10, f"{seq}/rally/{squad.id}")
    if roll >= MORALE_TARGET:
        state = state.with_squad(replace(squad, disordered=False))
    return state, Ruling(
        f"{seq}:rally:{squad.id}",
        seq,
        RulingKind.STATUS,
        say("Squad {squad} advanced as one: d10 {roll}, ", squad=squad.id, roll=roll)
        + (say("its Disorder is lifted (§17.2).") if roll >= MORALE_TARGET else say("still Disordered (§17.2).")),
        "§17.2",
    )


def victory_points(state: MileState, player: str) -> float:
    """§18 (settled as the station's option, since the formula was lost): the cost of enemy bases
    taken out, and half the cost of those that fled."""

    def worth(f: Fighter) -> float:
        rules = state.squads[f.squad].rules if f.squad else ()
        if f.status == "out":
            return float(f.cost * (2 if state.options.homeland_variant and "defend_homeland" in rules else 1))
        return float(f.cost if state.options.enthusiasm_variant and "enthusiasm" in rules else f.cost / 2)

    taken = sum(worth(f) for f in state.fighters.values() if f.player != player and f.status != "ok")
    bodies = sum(1 for fid in state.carried if state.fighters[fid].player == player)  # §16.10
    return float(taken + bodies * state.options.popularity_vp)


def end_turn(state: MileState, seq: int, roller: Roller) -> tuple[MileState, list[Ruling]]:
    """§4.1: the turn ends when every squad and character has acted; the game after the last turn
    (5 by default), or as soon as a side has nothing left on the table."""
    alive = [p for p in state.players if any(f.player == p and f.standing for f in state.fighters.values())]
    going_on, said = len(alive) == len(state.players), ""
    if going_on and state.options.random_length and state.turn >= 3:
        going_on, said = optional.game_continues(state, seq, roller)
    elif going_on:
        going_on = state.turn < state.options.turns
    if going_on:
        return state, [
            Ruling(
                f"{seq}:turn",
                seq,
                RulingKind.STATUS,
                say("Turn {turn} is over", turn=state.turn)
                + (f" ({said})" if said else "")
                + say(": roll initiative (§4.1)."),
                "§4.1",
            )
        ]
    points = {p: victory_points(state, p) for p in state.players}
    best = max(points.values())
    leaders = [p for p, v in points.items() if v == best]
    winner = leaders[0] if len(leaders) == 1 else "draw"
    text = (
        say("Game over")
        + (f" ({said})" if said else "")
        + say(": victory points ")
        + ", ".join(f"{p} {v:g}" for p, v in points.items())
        + (say("; {winner} wins (§18).", winner=winner) if winner != "draw" else say("; a draw (§18)."))
    )
    return state.evolve(over=True, winner=winner), [
        Ruling(f"{seq}:victory", seq, RulingKind.STATUS, text, "§18", details={"points": points})
    ]
