"""Each game's operator inputs, registered one function per input with the rulebook section it
implements, in the manner of Klipper's ``register_command``: one table answers what inputs a
game takes, which section each follows, and who handles it, for ``apply``, the dashboard and
the lobby's forms alike.

Each game keeps its table in its ``state.py`` and registers every handler where the rule lives,
in the chapter's module, under the section it follows:

    INPUTS: Inputs[Rules, GameState] = Inputs()          # state.py

    @INPUTS.register("begin_round", "§3.1")              # turns.py
    def begin_round(rules: Rules, state: GameState, seq: int, args: Args) -> tuple[GameState, list[Ruling]]: ...

    @INPUTS.register("activate", "§3.2", unit("unit", "the unit that acts now", required=True))

An input's arguments are declared with it (station/rules/input_args.py): what a request may
carry, checked before it is journaled, and what the page builds its controls from.

A handler is pure like ``apply``: ``(rules, state, seq, args) -> (state, rulings)``.  ``rules`` is
the ruleset itself, seen through the game's ``Rules`` protocol: what a handler may use besides
the state, its injected roller and its rules data.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .base import Input, Overriding, Refused, Ruling, refusal, voided
from .input_args import Arg, Declared
from .table_snapshot import TableState, fold_common
from .text import Text, say

R = TypeVar("R")  # what a game's handlers may use besides the state (its ``Rules`` protocol)
S = TypeVar("S", bound=TableState)  # the game's state, built on the shared table state
Args = Mapping[str, Any]  # an input's fields as the dashboard or the journal gave them: JSON, checked by each handler

# A handler returns the new state and its rulings, or its one ruling.
Handler = Callable[[R, S, int, Args], tuple[S, list[Ruling] | Ruling]]
REFEREE_INPUTS = ("confirm", "override")  # every game takes these; the station journals them


@dataclass(frozen=True)
class InputHandler(Generic[R, S]):
    type: str
    section: str
    handle: Handler[R, S]
    args: tuple[Arg, ...] = ()


# The arguments that name who acts, in the order a refusal looks for them.
ACTOR_ARGS = (
    "shooter",
    "attacker",
    "squad",
    "unit",
    "thrower",
    "operator",
    "gunner",
    "rammer",
    "base",
    "by",
    "element",
)


def refusal_text(no: Refused, args: Mapping[str, Any]) -> Text:
    """ "Refused: …" naming who was refused, when the rule's own words do not already."""
    actor = next((str(args[k]) for k in ACTOR_ARGS if isinstance(args.get(k), str) and args.get(k)), None)
    if actor and actor not in no.text:
        return say("Refused ({actor}): {why}.", actor=actor, why=no.text)
    return say("Refused: {why}.", why=no.text)


class Inputs(Generic[R, S]):
    def __init__(self) -> None:
        self._by_type: dict[str, InputHandler[R, S]] = {}

    def register(self, input_type: str, section: str, *args: Arg) -> Callable[[Handler[R, S]], Handler[R, S]]:
        def add(handle: Handler[R, S]) -> Handler[R, S]:
            if input_type in self._by_type:
                raise ValueError(f"input {input_type!r} is registered twice")
            self._by_type[input_type] = InputHandler(input_type, section, handle, args)
            return handle

        return add

    def get(self, input_type: str) -> InputHandler[R, S] | None:
        return self._by_type.get(input_type)

    def dispatch(
        self,
        rules: R,
        state: S,
        seq: int,
        body: Input,
        known: Collection[str],
        moving: Collection[str],
        voidable: Mapping[str, Overriding] | None = None,
    ) -> tuple[S, list[Ruling]]:
        """The end of a game's ``apply`` for an operator input: its registered handler (whose
        ``Refused`` becomes a warning the referee can override), else the shared table inputs
        (snapshot, terrain, confirm, override) for the models ``known`` and ``moving`` now.
        A game whose inputs the referee may void outright passes its overrides as ``voidable``."""
        void = voided(voidable or {}, seq, f"{seq}:{body.type}", say("{input} voided by the referee.", input=body.type))
        if void:
            return state, [void]
        handler = self.get(body.type)
        if handler is None:
            folded: tuple[S, list[Ruling]] = fold_common(state, seq, body.type, body.args, known, moving)
            return folded
        try:
            after, said = handler.handle(rules, state, seq, body.args)
            return after, [said] if isinstance(said, Ruling) else said
        except Refused as no:
            text = refusal_text(no, body.args)
            return state, [refusal(f"{seq}:{body.type}", seq, text, no.section)]

    @property
    def types(self) -> tuple[str, ...]:
        """The operator inputs, in registration order, then the referee's confirm and override."""
        return tuple(self._by_type) + REFEREE_INPUTS

    def sections(self) -> dict[str, str]:
        return {t: h.section for t, h in self._by_type.items()}

    def declared(self) -> dict[str, Declared]:
        """Each operator input with its section and arguments, in registration order."""
        return {t: Declared(t, h.section, h.args) for t, h in self._by_type.items()}
