"""§6.7 observation («наблюдение») and communication («выход на связь»): two actions the fragment
names, among the five a suppressed squad may still take, and never describes.  The station
takes each as an action of the squad acting (suppressed or not), journals what the referee
says it was (what was watched, whom the squad called), and leaves its effect to him."""

from __future__ import annotations

from .. import input_args as arg
from ..base import Ruling, RulingKind
from ..inputs import Args
from ..text import Text, say
from .state import INPUTS, Rules, WarState
from .turns import spend


def _taken(state: WarState, seq: int, args: Args, said: Text, kind: str) -> tuple[WarState, list[Ruling]]:
    """One action spent on a named action the fragment gives no rules for."""
    squad_id = str(args.get("squad"))
    state = spend(state, squad_id, "§6.7")
    note = str(args.get("note") or "").strip()
    text = (
        said
        + (f": {note}" if note else "")
        + say(". The fragment gives no rules for it: its effect is the referee's (§6.7).")
    )
    details = {"action": kind, **({"note": note} if note else {})}
    return state, [Ruling(f"{seq}:{kind}", seq, RulingKind.STATUS, text, "§6.7", details=details)]


@INPUTS.register(
    "observe",
    "§6.7",
    arg.unit("squad", "the squad acting", required=True),
    arg.text("note", "what it watches (a note kept in the journal)"),
)
def observe(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """«наблюдение»: an action, allowed while suppressed."""
    return _taken(state, seq, args, say("{squad} observes (an action)", squad=str(args.get("squad"))), "observe")


@INPUTS.register(
    "communicate",
    "§6.7",
    arg.unit("squad", "the squad acting", required=True),
    arg.text("note", "whom it calls, and what for (a note kept in the journal)"),
)
def communicate(rules: Rules, state: WarState, seq: int, args: Args) -> tuple[WarState, list[Ruling]]:
    """«выход на связь»: an action, allowed while suppressed."""
    return _taken(
        state, seq, args, say("{squad} makes contact by radio (an action)", squad=str(args.get("squad"))), "communicate"
    )
