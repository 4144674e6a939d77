"""The Price of a Mile §3.2 command distance: a squad's bases keep within 2" of one another, checked
when it activates (broken: -1 to every stat), except bases holding orders that let them break it
(«охранять важный объект или прикрывать огнём товарищей»), at most half of the squad at a time."""

from __future__ import annotations

from ...measure.measurement import pair_sigma, too_close_to_call
from ...measure.pairwise import edge_distances
from ...measure.relations import coherent
from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..inputs import Args
from ..text import Text, say
from .state import COMMAND_IN, INCH, INPUTS, MileState, Rules
from .where import placed_many


def cut_off_bases(state: MileState, squad_id: str) -> tuple[list[str], list[str]]:
    """§3.2 «не более 2 дюймов»: the bases outside the squad's largest group within 2" of one
    another, and of them those the camera cannot tell from in command (each within 2σ of 2"
    from the group: docs/measuring.md, "Thresholds").  A base holding a standing order is
    neither counted nor cut off."""
    placed = placed_many(state, [f.id for f in state.standing(squad_id) if f.id not in state.standing_orders])
    groups = coherent(placed, COMMAND_IN * INCH) if len(placed) > 1 else []
    out = sorted(b for g in groups[1:] for b in g)
    if not out:
        return [], []
    by_id = {p.id: p for p in placed}
    main = [by_id[b] for b in groups[0]]
    gaps = edge_distances([p.base for p in main] + [by_id[b].base for b in out])[len(main) :, : len(main)]
    doubtful = [
        b
        for k, b in enumerate(out)
        if too_close_to_call(float(gaps[k].min()), COMMAND_IN * INCH, pair_sigma(by_id[b], main[int(gaps[k].argmin())]))
    ]
    if len(doubtful) == len(out):  # only bases the camera cannot tell: the referee's call, not a penalty
        return [], doubtful
    return out, doubtful


def command_words(cut_off: list[str], doubtful: list[str]) -> Text | str:
    """What the activation says of §3.2's command distance: broken, too close to call, or nothing."""
    if cut_off:
        return say(
            ' Command distance is broken ({cut_off} more than 2" from the rest): -1 to every stat (§3.2).',
            cut_off=", ".join(cut_off),
        )
    if doubtful:
        return say(
            ' Command distance too close to call: {bases} within the camera\'s uncertainty of 2" from the rest; the referee decides (override "void" if it is broken) (§3.2).',
            bases=", ".join(doubtful),
        )
    return ""


@INPUTS.register(
    "standing_order",
    "§3.2",
    arg.model("base", "the base given the order, or released from it", required=True),
    arg.text("order", "the order (guard the bridge, cover the others); left out, the base is released"),
)
def standing_order(rules: Rules, state: MileState, seq: int, args: Args) -> tuple[MileState, Ruling]:
    """§3.2: «не более половины отряда» may hold an order that lets it break command distance."""
    base = state.fighters.get(str(args.get("base")))
    if base is None or not base.standing or base.squad is None:
        raise Refused(say("give a standing base of a squad"), "§3.2")
    order = str(args.get("order") or "").strip()
    orders = {k: v for k, v in state.standing_orders.items() if k != base.id}
    if not order:
        text = say("{base} no longer holds an order: it keeps command distance again (§3.2).", base=base.id)
        return state.evolve(standing_orders=orders), Ruling(
            f"{seq}:standing_order", seq, RulingKind.STATUS, text, "§3.2"
        )
    squad = state.standing(base.squad)
    holding = [f.id for f in squad if f.id in orders]
    if len(holding) + 1 > len(squad) // 2:
        raise Refused(
            say(
                "at most half of squad {squad} may hold such orders ({most} of {n}); {holding} already do",
                squad=base.squad,
                most=len(squad) // 2,
                n=len(squad),
                holding=", ".join(holding) or "-",
            ),
            "§3.2",
        )
    text = say('{base} holds an order ("{order}"): it may break command distance (§3.2).', base=base.id, order=order)
    return state.evolve(standing_orders={**orders, base.id: order}), Ruling(
        f"{seq}:standing_order", seq, RulingKind.STATUS, text, "§3.2", element=base.id
    )
