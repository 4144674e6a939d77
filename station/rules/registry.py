"""The games this station can referee, by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..dice import Roller
from .alpha_strike import AlphaStrike
from .bronepekhota import Bronepekhota
from .bronepekhota_quick import BronepekhotaQuick
from .price_of_a_mile import PriceOfAMile
from .ruleset import Ruleset
from .steel_warriors import SteelWarriors

RULESETS: dict[str, Callable[[Roller], Ruleset[Any]]] = {
    Bronepekhota.name: Bronepekhota,
    BronepekhotaQuick.name: BronepekhotaQuick,
    AlphaStrike.name: AlphaStrike,
    PriceOfAMile.name: PriceOfAMile,
    SteelWarriors.name: SteelWarriors,
}


def make_ruleset(name: str, roller: Roller) -> Ruleset[Any]:
    try:
        return RULESETS[name](roller)
    except KeyError:
        raise ValueError(f"unknown game {name!r}; this station knows {', '.join(sorted(RULESETS))}") from None
