"""§5 damage that is counted, not seen: virtual hits (§7.4 II-III) and lost close combats (§8.2
Table 7).  An infantryman with any damage is destroyed (§5.1).  A vehicle or gun loses that many
durability cells, down to destroyed at 0; a piloted vehicle's pilot then takes one Survival Test
D6 with his own Бр (§5.3, §Z.8), and if the vehicle is destroyed and he lives he fights on."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...dice import Roller
from .. import input_args as arg
from ..base import Ruling, RulingKind
from ..inputs import Args
from ..text import Text, joined, say
from .panic import after_survival
from .roster import dismount, name
from .state import INPUTS, Element, GameState, Rules
from .tables import survival_test


def take_damage(
    state: GameState, target: Element, damage: int, roller: Roller, key: str, test_pilot: bool = True
) -> tuple[GameState, dict[str, Any]]:
    """``damage`` cells off ``target``; with ``test_pilot`` its pilot's test follows at once.  A
    shot that may hurt the same vehicle twice (its power, then its own blast) passes False and
    calls ``pilot_after_damage`` once at its end (§7.4 III: one test a shot)."""
    called = name(state, target.id)
    if target.kind == "infantry":
        return state.with_element(replace(target, destroyed=True)), {
            "destroyed": True,
            "text": say("{called} is destroyed (§5.1)", called=called),
        }
    left = max(0, target.armour - damage)
    hit = replace(target, armour=left, destroyed=left == 0)
    state = state.with_element(replace(hit, speed=state.speed_of(hit)))
    words = [
        say("{called}'s armour {armour}→{left}", called=called, armour=target.armour, left=left)
        + (say(", destroyed (§5.1)") if left == 0 else "")
    ]
    result: dict[str, Any] = {"armour_before": target.armour, "armour_after": left}
    if test_pilot:
        state, pilot_words, test = pilot_after_damage(state, target.id, roller, key)
        words += pilot_words
        if test is not None:
            result["pilot_test"] = test
    result.update(destroyed=state.elements[target.id].destroyed, text=joined(words, "; "))
    return state, result


def pilot_after_damage(
    state: GameState, vehicle_id: str, roller: Roller, key: str
) -> tuple[GameState, list[Text], dict[str, Any] | None]:
    """§5.3, §Z.8: the pilot of a damaged vehicle takes his Survival Test (not when it was
    destroyed, unless the option says so); a dead pilot brings a flyer down (§4.3), a living one
    may panic, and climbs out of a destroyed vehicle.  The test as journaled, or None."""
    hit = state.elements[vehicle_id]
    words: list[Text] = []
    said_test = None
    if hit.pilot and (not hit.destroyed or state.options.pilot_test_on_destruction):
        pilot = state.elements[hit.pilot]
        test = survival_test(roller, pilot.armour, f"{key}/pilot-survival")
        said_test = test.as_dict()
        words.append(
            say("pilot {pilot} {describe}", pilot=name(state, pilot.id), describe=test.describe())
            + (say(", survives") if test.passed else say(", dies; the vehicle has no pilot (§9.1)"))
            + " (§5.3)"
        )
        if not test.passed:
            state = state.with_element(replace(pilot, destroyed=True, aboard=None))
            state, landing = emergency_landing(state.with_element(replace(hit, pilot=None)), hit.id, roller, key)
            words += landing
        else:
            state, panic_words = after_survival(state, pilot.id, test)
            words += panic_words
        hit = state.elements[hit.id]
    if hit.destroyed and hit.pilot:
        state, climbed_out = dismount(state, hit)
        words.append(climbed_out)
    return state, words, said_test


def emergency_landing(state: GameState, vehicle_id: str, roller: Roller, key: str) -> tuple[GameState, list[Text]]:
    """§4.3: a flyer whose pilot is killed in flight comes down where it was and takes D6 damage."""
    vehicle = state.elements[vehicle_id]
    if state.setup.locomotion.get(vehicle_id) != "flying" or vehicle.destroyed:
        return state, []
    roll = roller.roll(6, f"{key}/emergency-landing")
    left = max(0, vehicle.armour - roll)
    landed = replace(vehicle, armour=left, destroyed=left == 0)
    state = state.with_element(replace(landed, speed=state.speed_of(landed)))
    return state, [
        say("emergency landing: D6 {roll} damage, armour {armour}→{left}", roll=roll, armour=vehicle.armour, left=left)
        + (say(", destroyed") if left == 0 else "")
        + " (§4.3)"
    ]


@INPUTS.register("leave_vehicle", "§4.3", arg.model("vehicle", "the vehicle its pilot leaves", required=True))
def leave_vehicle(rules: Rules, state: GameState, seq: int, args: Args) -> tuple[GameState, list[Ruling]]:
    """§4.3: the pilot leaves his vehicle and stands beside it; it freezes until someone boards
    (§9.1).  He moves once a round: if the vehicle moved this activation, he may not walk on."""

    vehicle = state.elements.get(str(args.get("vehicle")))
    if vehicle is None or vehicle.kind != "vehicle" or vehicle.pilot is None or vehicle.destroyed:
        return state, [
            Ruling(
                f"{seq}:leave", seq, RulingKind.WARNING, say("Give a vehicle with a pilot."), "§4.3", needs_referee=True
            )
        ]
    if vehicle.unit is None or state.active_unit != vehicle.unit:
        return state, [
            Ruling(
                f"{seq}:leave",
                seq,
                RulingKind.WARNING,
                say("{vehicle} is not the unit acting.", vehicle=name(state, vehicle.id)),
                "§4.3",
                needs_referee=True,
            )
        ]
    rode = len(state.paths.get(vehicle.id, ())) > 1
    pilot = vehicle.pilot
    state, _ = dismount(state, vehicle)
    state = state.with_unit(replace(state.units[f"{vehicle.id}-pilot"], acted=rode))
    state = state.with_unit(replace(state.units[vehicle.unit], acted=True))
    return state, [
        Ruling(
            f"{seq}:leave",
            seq,
            RulingKind.STATUS,
            say(
                "{pilot} leaves {vehicle}, which freezes without a pilot (§4.3)",
                pilot=name(state, pilot),
                vehicle=name(state, vehicle.id),
            )
            + (
                say("; he rode it this round, so he may not walk on.")
                if rode
                else say("; he may act on foot later this round.")
            )
            + say(
                " {vehicle}'s activation ends with this: the next player acts (§3.2.2).",
                vehicle=name(state, vehicle.id),
            ),
            "§4.3 §3.2.2",
            element=vehicle.id,
        )
    ]
