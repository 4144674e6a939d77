"""The Price of a Mile's moves around a melee, which cost no action: bases of a squad in a melee
close in 2" to the nearest enemy before it is fought (§10.1 step 2); a Hero, or a rider who beat
an infantryman, moves up to 3" after winning to fight a new enemy as a multi-base fight (§12.1,
§12.2); and a stormer takes the place of the defender it beat (§10.4), where a new enemy it
touches fights it with the multi-base bonus."""

from __future__ import annotations

from typing import Any

from ...measure.movement import movement
from ...measure.relations import in_contact
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..inputs import Args
from ..text import Text, capitalised, joined, say
from .moving import SLACK_IN, contact_with
from .state import CONTACT_IN, INCH, INPUTS, Fighter, MileState, Rules
from .where import placed_many

CLOSE_IN_IN = 2.0  # §10.1 step 2
FOLLOW_UP_IN = 3.0  # §12.1, §12.2


def _moved(state: MileState, fighter: Fighter, args: Args) -> tuple[float, bool]:
    """The inches the base moved: the camera's path since its last move, or the referee's tape
    where the camera saw no path (True)."""
    path = state.paths.get(fighter.id, ())
    taped = args.get("inches")
    if len(path) < 2 and isinstance(taped, (int, float)):
        return float(taped), True
    return movement(path).path_mm / INCH, False


def _moved_ruling(
    seq: int,
    input_type: str,
    fighter: Fighter,
    text: Text,
    section: str,
    problems: list[Text],
    doubt: bool,
    details: dict[str, Any],
) -> Ruling:
    """A move made free of actions, as said: its problems appended, a warning for the referee if
    any (or if the camera ``doubt``s a contact)."""
    text += "."
    if problems:
        text += " " + joined((capitalised(p) for p in problems), "; ") + "."
    return Ruling(
        f"{seq}:{input_type}",
        seq,
        RulingKind.WARNING if problems else RulingKind.MOVE,
        text,
        section,
        needs_referee=bool(problems or doubt),
        element=fighter.id,
        details=details,
    )


def _in_a_melee(state: MileState, fighter: Fighter) -> bool:
    """Some base of its squad touches an enemy (§10.1: «базы отрядов, участвующих в рукопашной»)."""
    enemies = placed_many(state, [f.id for f in state.fighters.values() if f.player != fighter.player and f.standing])
    mates = placed_many(state, [f.id for f in (state.standing(fighter.squad) if fighter.squad else [fighter])])
    return any(in_contact(m, e, CONTACT_IN * INCH) for m in mates for e in enemies)


@INPUTS.register(
    "close_in",
    "§10.1",
    arg.model("base", "a base of a squad in the melee, not yet touching an enemy", required=True),
    arg.taped(
        arg.number("inches", "how far it moved, by the referee's tape, when the camera saw no path", 0, 10, True)
    ),
)
def close_in(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, Ruling]:
    """§10.1 step 2: «базы … не находящиеся в контакте с противником, могут переместиться на
    дополнительные 2"», to contact with the nearest enemy, free of actions."""
    fighter = state.fighters.get(str(args.get("base")))
    if fighter is None or not fighter.standing:
        raise Refused(say("give a standing base"), "§10.1")
    inches, taped = _moved(state, fighter, args)
    if not taped and not _in_a_melee(state, fighter):
        raise Refused(say("no base of its squad is in a melee: closing in is for a melee about to be fought"), "§10.1")
    problems: list[Text] = []
    if inches > CLOSE_IN_IN + SLACK_IN:
        problems.append(say('{inches}" is more than the 2" to close in (§10.1)', inches=f"{inches:.1f}"))
    enemy, near = contact_with(state, fighter) if not taped else ([], [])
    if not taped and not enemy and not near:
        problems.append(say("it did not reach an enemy (§10.1)"))
    state = state.evolve(paths={**state.paths, fighter.id: state.paths.get(fighter.id, ())[-1:]})
    text = say(
        '{base} closes in {inches}" to join the melee, free of actions (§10.1)', base=fighter.id, inches=f"{inches:.1f}"
    )
    if enemy:
        text += say(": in contact with {enemy}", enemy=", ".join(enemy))
    details = {"inches": round(inches, 2), "contact": enemy}
    return state, _moved_ruling(seq, "close_in", fighter, text, "§10.1", problems, bool(near), details)


@INPUTS.register(
    "follow_up",
    "§12.1, §12.2, §10.4",
    arg.model("base", "the Hero, rider or stormer that won its melee", required=True),
    arg.taped(
        arg.number("inches", "how far it moved, by the referee's tape, when the camera saw no path", 0, 10, True)
    ),
)
def follow_up(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, Ruling]:
    """After a won melee: a Hero or a rider moves up to 3" to a new enemy (§12.1, §12.2), a stormer
    into the defender's place (§10.4).  Its next melee gets the multi-base bonus: the Hero's or
    rider's own, or the new enemy's against a stormer."""
    fighter = state.fighters.get(str(args.get("base")))
    kind = state.may_follow.get(fighter.id) if fighter is not None else None
    if fighter is None or kind is None or not fighter.standing:
        raise Refused(say("only a Hero, a rider or a stormer that has just won its melee follows up"), "§12.1 §10.4")
    inches, _ = _moved(state, fighter, args)
    problems: list[Text] = []
    if kind != "storm" and inches > FOLLOW_UP_IN + SLACK_IN:
        problems.append(say('{inches}" is more than the 3" a winner follows up (§12.1, §12.2)', inches=f"{inches:.1f}"))
    may = {k: v for k, v in state.may_follow.items() if k != fighter.id}
    state = state.evolve(
        may_follow=may,
        followed={**state.followed, fighter.id: kind},
        paths={**state.paths, fighter.id: state.paths.get(fighter.id, ())[-1:]},
    )
    text = (
        say(
            "{base} takes the beaten defender's place: a new enemy it touches fights it at once, with +1 Melee and +1 Power (§10.4)",
            base=fighter.id,
        )
        if kind == "storm"
        else say(
            '{base} follows up {inches}": its next melee is a multi-base fight, +1 Melee and +1 Power to it (§12.1, §12.2)',
            base=fighter.id,
            inches=f"{inches:.1f}",
        )
    )
    details = {"kind": kind, "inches": round(inches, 2)}
    return state, _moved_ruling(seq, "follow_up", fighter, text, "§12.1 §12.2 §10.4", problems, False, details)
