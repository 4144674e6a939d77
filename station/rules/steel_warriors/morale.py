"""Steel Warriors morale (seed 001 digest §10): the fragment lost the procedures of the morale
test and of the commander's inspiration (digest §12) but kept what they do: «провал теста
понижает мораль на один или даже два уровня», and a successful inspiration «повышает мораль на
один уровень».  So the referee rolls a morale test as the club agreed and enters its result,
and the station moves the squad along the five states; the inspiration is the referee's result
too, or by option the command test.  The station then enforces what each state forbids
(turns.py)."""

from __future__ import annotations

from dataclasses import replace

from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..inputs import Args
from ..text import Text, say
from .army import MORALE, MORALE_WORDS
from .state import INPUTS, Rules, Squad, WarState
from .turns import command_test


@INPUTS.register(
    "set_morale",
    "§10",
    arg.unit("squad", "the squad acting", required=True),
    arg.choice("morale", "the squad's morale now", MORALE, required=True),
)
def set_morale(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§10: the morale-test procedure is lost (digest §12); the referee records each result."""
    squad = state.squads.get(str(args.get("squad")))
    morale = args.get("morale")
    if squad is None or morale not in MORALE:
        raise Refused(say("give a squad and a morale state: {morale}", morale=", ".join(MORALE)), "§10")
    state = state.with_squad(replace(squad, morale=morale))
    return state, [
        Ruling(
            f"{seq}:morale",
            seq,
            RulingKind.STATUS,
            say("{squad} is now {morale} (§10).", squad=squad.id, morale=MORALE_WORDS[morale]),
            "§10",
        )
    ]


def _shifted(state: WarState, squad: Squad, levels: int) -> tuple[WarState, str]:
    """The squad ``levels`` states down the scale (negative: up), kept within it."""
    now = MORALE.index(squad.morale)
    morale = MORALE[max(0, min(len(MORALE) - 1, now + levels))]
    return state.with_squad(replace(squad, morale=morale)), morale


def _squad(state: WarState, args: Args) -> Squad:
    squad = state.squads.get(str(args.get("squad")))
    if squad is None:
        raise Refused(say("give a squad"), "§10")
    return squad


@INPUTS.register(
    "morale_test",
    "§10",
    arg.unit("squad", "the squad acting", required=True),
    arg.flag("passed", "the test's result", required=True),
    arg.integer("levels", "levels a failure costs: 1 or 2", 1, 2),
    arg.text("cause", "why the squad tests"),
)
def morale_test(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§10 «Изменение морали»: the result of a morale test the referee rolled (``passed``), its
    cause, and on a failure whether it costs one level or two."""
    squad = _squad(state, args)
    passed, levels, cause = args.get("passed"), args.get("levels", 1), str(args.get("cause", ""))
    if not isinstance(passed, bool) or levels not in (1, 2):
        raise Refused(say("passed: true or false; levels a failure costs: 1 or 2"), "§10")
    why = say(" ({cause})", cause=cause) if cause else ""
    if passed:
        text = (
            say("{squad} passes a morale test", squad=squad.id)
            + why
            + say(": it stays {morale} (§10).", morale=MORALE_WORDS[squad.morale])
        )
        return state, [Ruling(f"{seq}:morale", seq, RulingKind.STATUS, text, "§10", details={"passed": True})]
    state, morale = _shifted(state, squad, int(levels))
    text = (
        say("{squad} fails a morale test", squad=squad.id)
        + why
        + say(": {before} → {after} (§10).", before=MORALE_WORDS[squad.morale], after=MORALE_WORDS[morale])
    )
    return state, [
        Ruling(f"{seq}:morale", seq, RulingKind.STATUS, text, "§10", details={"passed": False, "morale": morale})
    ]


@INPUTS.register(
    "inspire",
    "§10",
    arg.unit("squad", "the squad acting", required=True),
    arg.flag("passed", "the inspiration test's result (option inspiration_test)"),
)
def inspire(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """§10 «Воодушевление»: the squad's commander tries to raise its morale by one level; the
    test is the referee's (``passed``) or, by option, the command test."""
    squad = _squad(state, args)
    commander = next((f for f in state.fighting(squad.id) if f.role == "commander"), None)
    if commander is None:
        raise Refused(say("{squad} has no commander to inspire it", squad=squad.id), "§10")
    if squad.morale == MORALE[0]:
        raise Refused(say("{squad} is already {morale}", squad=squad.id, morale=MORALE_WORDS[squad.morale]), "§10")
    test: Text
    if state.options.inspiration_test == "command":
        passed, roll, need = command_test(state, squad.id, rules.roller, f"{seq}/inspire")
        test = say("d{quality} {roll} against Leadership {need}", quality=squad.quality, roll=roll, need=need)
    else:
        given = args.get("passed")
        if not isinstance(given, bool):
            raise Refused(say("passed: the inspiration test's result, true or false (option inspiration_test)"), "§10")
        passed, test = given, say("the referee's test")
    if not passed:
        text = say(
            "{commander} fails to inspire {squad} ({test}); it stays {morale} (§10).",
            commander=commander.id,
            squad=squad.id,
            test=test,
            morale=MORALE_WORDS[squad.morale],
        )
        return state, [Ruling(f"{seq}:inspire", seq, RulingKind.STATUS, text, "§10", details={"passed": False})]
    state, morale = _shifted(state, squad, -1)
    text = say(
        "{commander} inspires {squad} ({test}): {before} → {after} (§10).",
        commander=commander.id,
        squad=squad.id,
        test=test,
        before=MORALE_WORDS[squad.morale],
        after=MORALE_WORDS[morale],
    )
    return state, [
        Ruling(f"{seq}:inspire", seq, RulingKind.STATUS, text, "§10", details={"passed": True, "morale": morale})
    ]
