"""§1.1, §12.1 missions: «Побеждает тот, кто первым выполнит задание миссии или уничтожит всех
бойцов противника».  The rulebook names missions only by example (capture an objective, destroy
the enemy command vehicle, hold a line) and leaves the scenario to the players, so a mission is
declared before the battle with the scenario's own words.  The station judges the one it can
see, a command vehicle destroyed; the referee declares the others complete."""

from __future__ import annotations

from .. import input_args as arg
from ..base import Refused, Ruling, RulingKind
from ..inputs import Args
from ..text import Text, say
from .roster import name
from .state import INPUTS, GameState, Mission, Rules

OBJECTIVES = ("capture", "command_vehicle", "hold_line", "other")  # §1.1's examples, and the scenario's own


def objective_words(mission: Mission) -> Text:
    """What the mission is, for the rulings and the end-of-game banner."""
    what = {
        "capture": say("capture an objective"),
        "command_vehicle": say("destroy the enemy command vehicle"),
        "hold_line": say("hold a line"),
        "other": say("the scenario's mission"),
    }[mission.objective]
    return what + (say(": {note}", note=mission.note) if mission.note else "")


@INPUTS.register(
    "mission",
    "§1.1, §12.1",
    arg.player("player", "whose mission", required=True),
    arg.choice("objective", "what the mission is", OBJECTIVES, required=True),
    arg.model("target", "for command_vehicle: the enemy command vehicle"),
    arg.text("note", "the scenario's words"),
)
def declare_mission(rules: Rules, state: GameState, seq: int, args: Args) -> tuple[GameState, list[Ruling]]:
    """A player's mission, agreed before the battle: the objective, the scenario's words, and for
    command_vehicle the enemy vehicle to destroy."""
    player = str(args.get("player"))
    objective = str(args.get("objective"))
    target = args.get("target")
    if player not in state.setup.players:
        raise Refused(say("no player {player}", player=repr(player)), "§1.1")
    if objective not in OBJECTIVES:
        raise Refused(say("objective: one of {choices}", choices=", ".join(OBJECTIVES)), "§1.1")
    if objective == "command_vehicle":
        vehicle = state.elements.get(str(target))
        if vehicle is None or vehicle.kind != "vehicle" or vehicle.player == player:
            raise Refused(say("target: the enemy vehicle that is the command vehicle"), "§1.1")
    mission = Mission(objective, str(target) if objective == "command_vehicle" else None, str(args.get("note", "")))
    state = state.evolve(missions={**state.missions, player: mission})
    text = say("{player}'s mission: {what} (§1.1).", player=player, what=objective_words(mission))
    if mission.target:
        text = say(
            "{player}'s mission: destroy {vehicle}, the enemy command vehicle (§1.1).",
            player=player,
            vehicle=name(state, mission.target),
        )
    return state, [
        Ruling(f"{seq}:mission:{player}", seq, RulingKind.STATUS, text, "§1.1", details={"objective": objective})
    ]


@INPUTS.register("mission_complete", "§12.1", arg.player("player", "who completed their mission", required=True))
def mission_complete(rules: Rules, state: GameState, seq: int, args: Args) -> tuple[GameState, list[Ruling]]:
    """The referee's word that a player completed his declared mission: the first to do so wins."""
    player = str(args.get("player"))
    mission = state.missions.get(player)
    if mission is None:
        raise Refused(say("{player} has no mission declared", player=repr(player)), "§12.1")
    return accomplished(state, seq, player)


def accomplished(state: GameState, cause: int, player: str) -> tuple[GameState, list[Ruling]]:
    if state.mission_won or won_by_elimination(state):
        return state, [
            Ruling(f"{cause}:mission", cause, RulingKind.WARNING, say("The battle is already won."), "§12.1")
        ]
    what = objective_words(state.missions[player])
    return state.evolve(mission_won=player), [
        Ruling(
            f"{cause}:victory",
            cause,
            RulingKind.STATUS,
            say("{player} completes the mission ({what}) and wins the battle.", player=player, what=what),
            "§12.1",
            details={"winner": player, "objective": state.missions[player].objective},
        )
    ]


def command_vehicles_destroyed(state: GameState, cause: int) -> tuple[GameState, list[Ruling]]:
    """§1.1: a mission to destroy the enemy command vehicle is done when the vehicle is."""
    for player, mission in sorted(state.missions.items()):
        vehicle = state.elements.get(mission.target or "")
        if vehicle is not None and vehicle.destroyed and not state.mission_won:
            return accomplished(state, cause, player)
    return state, []


def won_by_elimination(state: GameState) -> str | None:
    """§1.1: the one player left when every other has lost all his soldiers."""
    left = [p for p in state.setup.players if p not in state.out]
    return left[0] if len(left) == 1 and state.out else None


def winner(state: GameState) -> tuple[str | None, Text | None]:
    """Who won and how, for the banner and the report (§12.1)."""
    if state.mission_won:
        return state.mission_won, say(
            "completed the mission: {what}", what=objective_words(state.missions[state.mission_won])
        )
    left = won_by_elimination(state)
    return left, (say("destroyed every enemy soldier (§12.1)") if left else None)
