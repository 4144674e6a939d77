"""Alpha Strike lance formations and the pilot abilities they grant (seed 004 digest §11).

A force file may name its formation: ``{"type": "battle"}`` (six Lucky re-rolls of a failed
to-hit roll, one per attack), ``{"type": "fire_support"}`` (up to two units a turn fire as
Snipers: medium +1, long +2), or ``{"type": "striker", "speed_demon": [three unit ids]}`` (2" more
movement a turn, TMM unchanged).  Every benefit is lost while fewer than three of the
formation's units are active (§11).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...datafile import Fields
from .. import input_args as arg
from ..base import Ruling, RulingKind
from ..inputs import Args
from ..text import say
from .state import INPUTS, AlphaState, Rules

TYPES = ("battle", "fire_support", "striker")
LUCKY_USES = 6  # §11.1
SNIPERS_A_TURN = 2  # §11.2
SPEED_DEMONS = 3  # §11.3
SPEED_DEMON_IN = 2  # §11.3
ACTIVE_MINIMUM = 3  # §11


def parse_formation(f: Fields, unit_ids: list[str]) -> dict[str, Any] | None:
    """The force file's ``formation``, checked against its units."""
    if "formation" not in f.data:
        return None
    g = f.child("formation")
    g.reject_unknown(["type", "speed_demon"])
    kind = g.choice("type", TYPES)
    demons = g.get("speed_demon", list, [])
    if kind != "striker" and demons:
        g.fail(say("only a striker lance gives Speed Demon (§11.3)"), "speed_demon")
    if kind == "striker" and (len(demons) != SPEED_DEMONS or len(set(demons)) != len(demons)):
        g.fail(
            say(
                "a striker lance names {speed_demons} different units for Speed Demon (§11.3)",
                speed_demons=SPEED_DEMONS,
            ),
            "speed_demon",
        )
    for k, unit in enumerate(demons):
        if unit not in unit_ids:
            g.fail(
                say(
                    "{unit} is not a unit of this force; units: {unit_ids}",
                    unit=repr(unit),
                    unit_ids=", ".join(unit_ids),
                ),
                f"speed_demon[{k}]",
            )
    return {"type": kind, "speed_demon": list(demons)}


def formation_of(forces: tuple[Mapping[str, Any], ...], player: str) -> Mapping[str, Any] | None:
    return next((f.get("formation") for f in forces if f["player"] == player), None)


def active(state: AlphaState, player: str) -> bool:
    """§11: the formation's benefits hold while at least three of its units are active."""
    units = [u for u in state.units.values() if u.player == player]
    return sum(1 for u in units if not u.destroyed and u.id not in state.removed) >= ACTIVE_MINIMUM


def benefit(state: AlphaState, player: str, kind: str) -> bool:
    formation = formation_of(state.forces, player)
    return bool(formation) and formation is not None and formation["type"] == kind and active(state, player)


def speed_demon(state: AlphaState, unit_id: str, player: str) -> int:
    """§11.3: the inches Speed Demon adds to this unit's move, 0 if it has none now."""
    formation = formation_of(state.forces, player)
    if formation and unit_id in formation["speed_demon"] and active(state, player):
        return SPEED_DEMON_IN
    return 0


def lucky_left(state: AlphaState, player: str) -> int:
    return LUCKY_USES - state.lucky_used.get(player, 0) if benefit(state, player, "battle") else 0


@INPUTS.register("sniper", "§11.2, A26", arg.units("units", "one or two units of a Fire Support Lance", required=True))
def choose_snipers(rules: Rules, state: AlphaState, seq: int, args: Args) -> tuple[AlphaState, list[Ruling]]:
    """§11.2 and A26: before the turn's initiative (or during its movement), a Fire Support Lance
    names up to two of its units that fire as Snipers this turn."""
    units = args.get("units")
    fail = None
    if state.phase not in ("initiative", "movement"):
        fail = say("Snipers are chosen at the start of the turn")
    elif not isinstance(units, list) or not units or len(units) > SNIPERS_A_TURN:
        fail = say("name one or {snipers_a_turn} units", snipers_a_turn=SNIPERS_A_TURN)
    else:
        chosen = [state.units.get(str(u)) for u in units]
        players = {u.player for u in chosen if u}
        if None in chosen or len(players) != 1 or any(u.id in state.removed for u in chosen if u):
            fail = say("name units in play of one side")
        elif not benefit(state, players.pop(), "fire_support"):
            fail = say("only an active Fire Support Lance (three or more units) has Snipers")
    if fail or not isinstance(units, list):  # (a list whenever nothing failed)
        return state, [
            Ruling(
                f"{seq}:sniper",
                seq,
                RulingKind.WARNING,
                say("No Snipers: {fail} (§11.2).", fail=fail),
                "§11.2",
                needs_referee=True,
            )
        ]
    mine = {u.id for u in state.units.values() if u.player == state.units[str(units[0])].player}
    snipers = frozenset(s for s in state.snipers if s not in mine) | {str(u) for u in units}
    return state.evolve(snipers=snipers), [
        Ruling(
            f"{seq}:sniper",
            seq,
            RulingKind.STATUS,
            say("Snipers this turn: {map} (medium +1, long +2; §11.2).", map=", ".join(map(str, units))),
            "§11.2",
        )
    ]
