"""§5 damage that is counted, not seen: virtual hits (§7.4 II-III) and lost close combats (§8.2
Table 7).  An infantryman with any damage is destroyed (§5.1).  A vehicle or gun loses that many
durability cells, down to destroyed at 0; a piloted vehicle's pilot then takes one Survival Test
D6 with his own Бр (§5.3, §Z.8), and if the vehicle is destroyed and he lives he fights on."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...dice import Roller
from .roster import dismount, name
from .state import Element, GameState
from .panic import after_survival
from .tables import survival_test


def take_damage(state: GameState, target: Element, damage: int, roller: Roller, key: str) -> tuple[GameState, dict[str, Any]]:
    called = name(state, target.id)
    if target.kind == "infantry":
        return state.with_element(replace(target, destroyed=True)), {"destroyed": True, "text": f"{called} is destroyed (§5.1)"}
    left = max(0, target.armour - damage)
    hit = replace(target, armour=left, destroyed=left == 0)
    hit = replace(hit, speed=state.speed_of(hit))
    words = [f"{called}'s armour {target.armour}→{left}" + (", destroyed (§5.1)" if left == 0 else "")]
    result: dict[str, Any] = {"armour_before": target.armour, "armour_after": left}
    if hit.pilot and (left > 0 or state.options.pilot_test_on_destruction):
        pilot = state.elements[hit.pilot]
        test = survival_test(roller, pilot.armour, f"{key}/pilot-survival")
        result["pilot_test"] = test.as_dict()
        words.append(f"pilot {name(state, pilot.id)} {test.describe()}"
                     + (", survives" if test.passed else ", dies; the vehicle has no pilot (§9.1)") + " (§5.3)")
        if not test.passed:
            state = state.with_element(replace(pilot, destroyed=True, aboard=None))
            hit = replace(hit, pilot=None)
        else:
            state = state.with_element(hit)
            state, panic_words = after_survival(state, pilot.id, test)
            words += panic_words
            hit = state.elements[hit.id]
    state = state.with_element(hit)
    if hit.destroyed and hit.pilot:
        state, climbed_out = dismount(state, hit)
        words.append(climbed_out)
    result.update(destroyed=hit.destroyed, text="; ".join(words))
    return state, result
