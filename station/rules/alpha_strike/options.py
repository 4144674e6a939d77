"""Alpha Strike game options: the ambiguities of the digest's §13 that a club may settle either
way, each with the default docs/alpha-strike.md explains.  The others are settled in code and listed there."""

from __future__ import annotations

from dataclasses import dataclass

from ..options import choice, declared, flag, integer, number, unconfirmed_rulings


@dataclass(frozen=True)
class Options:
    victory: str = choice(
        ("all", "size3", "breakthrough", "flag"),
        "§4.5, §12",
        "Win by destroying every enemy unit, Training Day's size 3, a breakthrough, or capturing the flag",
    )
    breakthrough_units: int = integer(
        2, 1, 50, "§4.5", "Breakthrough: units a side must take off the enemy's home edge"
    )
    flag_x_mm: float = number(600, 0, 10000, "§4.5", "Capture the flag: the point's x on the table (mm)")
    flag_y_mm: float = number(450, 0, 10000, "§4.5", "Capture the flag: the point's y on the table (mm)")
    flag_radius_in: float = number(2, 0, 12, "§4.5", "Capture the flag: a unit holds the point with its base this near")
    flag_turns: int = integer(3, 1, 20, "§4.5", "Capture the flag: End Phases the point must be held in a row")
    unconfirmed: str = unconfirmed_rulings("§13")
    movement_order: str = choice(
        ("alternate", "free"), "§13 A2", "Proportional alternation of moves, or no order checked"
    )
    shutdown_in_melee: str = choice(
        ("immobile", "no_tmm"),
        "§13 A4",
        "A shut-down melee target is immobile, -4 (the shutdown rule), or gets no TMM, +0 (the melee step's words)",
    )
    melee_attacker_movement: bool = flag(True, "§13 A5", "The attacker's movement modifier applies to physical attacks")
    deep_water_only: bool = flag(
        False, "§13 A7", 'Water cools only if 2" deep (the quick-start\'s 1" water never does)'
    )
    minimal_overheat: str = choice(("allow", "forbid"), "§13 A10", "Whether a 0* damage value may be overheated")
    rear_reduction_on_miss: bool = flag(True, "§13 A21", "A REAR attack reduces the forward one even when it misses")
    indirect_modifiers: str = choice(("ascec", "none"), "§13 A23", "+1 indirect, +1 if the spotter attacked (AS:CE)")
    speed_demon_jump: bool = flag(True, "§11.3", "Speed Demon's 2\" also for jumps")


OPTIONS = declared(Options, "Alpha Strike")
