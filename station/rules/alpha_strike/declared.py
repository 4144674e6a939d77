"""An attack's geometry as the referee declares it, for a table without a camera (or a unit the
camera has lost): the range as a band or a distance measured with a tape, and the modifiers the
quick-start names that the camera would otherwise have found (seed 004 digest §6.1-6.4, §6.6).

The action panel sends it as the attack's own fields (``distance``, ``band``, ``partial_cover``,
``woods``, ``from_behind``); API clients and journals from before send one ``by_hand`` object.
Either way the journal keeps what the referee said and a replay rules the same.  The rest of the target number (skill, both units' movement, heat,
fire control, Sniper) still comes from the game's state, as with the camera.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..base import Refused
from ..text import Text, say
from .attack import Geometry

# §6.3: a declared band stands for its upper edge, which ``band_of`` reads as that band
BAND_EDGE_IN = {"short": 6.0, "medium": 24.0, "long": 42.0}
LONGEST_TAPE_IN = 240.0  # a distance beyond any table is a typing slip, not a measurement
FLAGS = ("partial_cover", "woods", "from_behind")


def by_hand_of(args: Mapping[str, Any]) -> Any:
    """The referee's measures of an attack: its ``by_hand`` object, or its own fields gathered
    into one; None when it has neither (the camera measures)."""
    if args.get("by_hand") is not None:
        return args.get("by_hand")
    fields = {
        "distance_in": args.get("distance"),
        "band": args.get("band"),
        "partial_cover": args.get("partial_cover"),
        "woods": args.get("woods"),
        "from_behind": args.get("from_behind"),
    }
    given = {name: value for name, value in fields.items() if value is not None}
    return given or None


def declared_geometry(declared: Any, melee: bool) -> tuple[Geometry, dict[str, Any], list[Text]]:
    """(geometry, what was declared, doubts) from ``by_hand``: ``distance_in`` (edge to edge, in
    inches) or ``band``; ``partial_cover`` (a third or more hidden, or the target in water: +1,
    A18), ``woods`` (in or through less than 6" of woods: +1, A6), ``from_behind`` (the line crosses
    the target's rear: +1 damage, §6.6).  A melee attack declared by hand is in base contact."""
    if not isinstance(declared, Mapping):
        raise Refused(say("by_hand: an object with distance_in or band"), "§6")
    unknown = sorted(set(declared) - {"distance_in", "band", *FLAGS})
    if unknown:
        raise Refused(say("by_hand: unknown field {field}", field=unknown[0]), "§6")
    distance, band = declared.get("distance_in"), declared.get("band")
    if distance is not None:
        if isinstance(distance, bool) or not isinstance(distance, (int, float)) or not 0 <= distance <= LONGEST_TAPE_IN:
            raise Refused(
                say("by_hand.distance_in: a distance in inches from 0 to {most}", most=f"{LONGEST_TAPE_IN:g}"), "§6"
            )
        edge_in = float(distance)
    elif band is not None:
        if band not in BAND_EDGE_IN:
            raise Refused(say("by_hand.band: one of short, medium, long"), "§6.3")
        edge_in = BAND_EDGE_IN[band]
    elif melee:
        edge_in = 0.0
    else:
        raise Refused(say("by_hand: give the distance in inches or the range band"), "§6.3")
    for flag in FLAGS:
        if not isinstance(declared.get(flag, False), bool):
            raise Refused(say("by_hand.{flag}: true or false", flag=flag), "§6")
    geometry = Geometry(
        edge_in,
        hidden_fraction=0.5 if declared.get("partial_cover") else 0.0,
        target_in_woods=bool(declared.get("woods")),
        rear=bool(declared.get("from_behind")),
    )
    said = {key: declared[key] for key in ("distance_in", "band", *FLAGS) if declared.get(key) not in (None, False)}
    return geometry, said, []
