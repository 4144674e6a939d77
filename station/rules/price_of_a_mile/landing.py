"""The Price of a Mile's templates laid by the referee's hand (seed 003 digest §8.1, §9.2, §9.3):
with no camera on the thrower, the dice scatter a grenade or a shell as ever, and the referee lays
the template where it landed and names the bases under it.  Each is hit as the camera's would be."""

from __future__ import annotations

from dataclasses import replace

from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..input_args import BY_THE_REFEREE
from ..inputs import Args
from ..text import Text, joined, say
from . import vehicles
from .blasts import DIRECT_HIT_POWER, hit_under
from .state import INPUTS, MileState, Rules

TEMPLATES = {"grenade": say("a grenade"), "mortar": say("a mortar bomb"), "field_gun": say("a field-gun shell")}


@INPUTS.register(
    "blast",
    "§8.1 §9.2 §9.3",
    arg.models("under", "the bases under the template where it landed (none: nobody)"),
    arg.models("in_cover", "of those, the ones in cover: hit only on a d10 of 6+ (§8.1)"),
    arg.models("in_trench", "of those, the ones in a trench the blast fell outside: hit only on 8+ (§8.2)"),
    arg.flag("trench", 'the centre fell in a trench: 3" along it, +1 Power, only those in it (§8.2)'),
    arg.model("direct", "a vehicle under the template's centre: a direct hit at Power 8 (§15.4)"),
)
def blast_by_hand(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, Ruling]:
    """§8.1, §9.2-9.3 laid by hand: the template the dice scattered hits the bases the referee
    names, each its own target; artillery shakes every squad under it (§13.1)."""
    landing = state.landing
    if landing is None:
        raise Refused(say("no template is waiting to be laid"), "§8.1")
    named = [str(f) for f in (args.get("under") or [])]
    direct = args.get("direct")
    if direct is not None:
        named = [f for f in named if f != direct]
    for fid in named + ([str(direct)] if direct is not None else []):
        if fid not in state.fighters or not state.fighters[fid].standing:
            raise Refused(say("{fid} is not a standing base", fid=fid), "§8.1")
    if direct is not None and (landing.what == "grenade" or not state.fighters[str(direct)].vehicle):
        raise Refused(say("only a shell's centre on a vehicle is a direct hit"), "§15.4")
    said_cover = {str(f): "cover" for f in args.get("in_cover") or []} | {
        str(f): "trench" for f in args.get("in_trench") or []
    }
    extra = 1 if args.get("trench") else 0
    state = state.evolve(landing=None)
    words: list[Text] = []
    if direct is not None:
        state, hurt = vehicles.damage(
            state, state.fighters[str(direct)], DIRECT_HIT_POWER, False, rules.roller, f"{seq}/direct", direct_hit=True
        )
        words.append(say("direct hit: ") + hurt)
    state, more, squads = hit_under(
        state, named, rules.roller, f"{seq}/blast", landing.power + extra, None, True, bool(extra), said_cover
    )
    words += more
    hit_squads = sorted(
        set(squads) | ({s} if direct is not None and (s := state.fighters[str(direct)].squad) else set())
    )
    if landing.morale and state.activation is not None:
        act = state.activation
        state = state.evolve(activation=replace(act, shaken=act.shaken | set(hit_squads)))
    text = (
        say(
            "The template of order {order} ({what}) laid by the referee: {count} base(s) under it",
            order=landing.seq,
            what=TEMPLATES[landing.what],
            count=len(named) + (direct is not None),
        )
        + (": " + joined(words, "; ") if words else "")
        + "."
    )
    if landing.morale and hit_squads:
        text += say(" Squads {squads} test Morale (§9.2).", squads=", ".join(hit_squads))
    return state, Ruling(
        f"{seq}:blast",
        seq,
        RulingKind.SHOT,
        text,
        "§8.1",
        element=landing.thrower,
        details={"hit": named, "order": landing.seq} | BY_THE_REFEREE,
    )
