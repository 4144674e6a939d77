"""Alpha Strike game options: the ambiguities of the digest's §13 that a club may settle either
way, each with the default the README explains.  The others are settled in code and listed there."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...datafile import Fields

DEFAULTS: dict[str, Any] = {
    "victory": "all",  # §4.5 every enemy unit; "size3": Training Day's condition (§12)
    "movement_order": "alternate",  # A2: proportional alternation; "free": no order checked
    "shutdown_in_melee": "immobile",  # A4: a shut-down target is immobile (-4); "no_tmm": the literal +0
    "melee_attacker_movement": True,  # A5: the attacker's movement modifier applies to physical attacks
    "deep_water_only": False,  # A7: water cools only if 2" deep (the quick-start's 1" water never does)
    "minimal_overheat": "allow",  # A10: 0* with overheat deals the overheat; "forbid": no overheat with 0*
    "rear_reduction_on_miss": True,  # A21: a REAR attack reduces the forward one even when it misses
    "indirect_modifiers": "ascec",  # A23: +1 indirect, +1 if the spotter attacked (AS:CE); "none"
    "speed_demon_jump": True,  # §11.3: Speed Demon's 2" also for jumps
}
CHOICES = {
    "victory": ("all", "size3"),
    "movement_order": ("alternate", "free"),
    "shutdown_in_melee": ("immobile", "no_tmm"),
    "minimal_overheat": ("allow", "forbid"),
    "indirect_modifiers": ("ascec", "none"),
}


def parse_options(data: Mapping[str, Any]) -> dict[str, Any]:
    """The game's options from the config or ``--option``; unknown names and values are refused."""
    f = Fields("options", dict(data))
    f.reject_unknown(list(DEFAULTS))
    return {
        name: f.choice(name, CHOICES[name], default) if name in CHOICES else f.get(name, bool, default)
        for name, default in DEFAULTS.items()
    }
