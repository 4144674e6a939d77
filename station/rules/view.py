"""The shape of every game's ``state_view``: what the dashboard, the API and replay checks read.

One page (dashboard.js) shows five games, so the keys it reads are declared here once, as
TypedDicts, and mypy checks each game's view against them.  A game adds its own keys by
subclassing (``class AlphaView(StateView)``); it cannot leave one of these out or misspell it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal, NotRequired, TypedDict, get_args

from .table_snapshot import SettledTableView
from .text import Text, say

# A model's or unit's status, one of a closed set so that the live map, the replay and the report
# agree on who is still in play.  A posture is the tilt node's word (events.TILT_STATES).
Status = Literal["in play", "wounded", "shut down", "aboard", "upright", "leaning", "fallen", "fled", "destroyed"]
STATUSES: tuple[str, ...] = get_args(Status)
OUT_OF_PLAY = ("destroyed", "fled")  # removed from the table: struck through, faded, a casualty in the report


STATUS_WORDS: dict[str, Text] = {  # each status as the state's prose says it, in the page's language
    "in play": say("in play"),
    "wounded": say("wounded"),
    "shut down": say("shut down"),
    "aboard": say("aboard"),
    "upright": say("upright"),
    "leaning": say("leaning"),
    "fallen": say("fallen"),
    "fled": say("fled"),
    "destroyed": say("destroyed"),
}


def out_of_play(status: str) -> bool:
    """Whether a model with this status has left the table (a casualty in the report)."""
    return status in OUT_OF_PLAY


def status_of(word: str) -> Status:
    """A game's own word (a posture, a figure's state) as a view status; a word outside the set
    is a programming error, caught here rather than drawn wrongly on a page."""
    if word not in STATUSES:
        raise ValueError(f"{word!r} is not a view status ({', '.join(STATUSES)})")
    return word  # type: ignore[return-value]  # checked against the Literal's values just above


class ElementView(TypedDict):
    """One model (a soldier, a vehicle, a gun, a 'Mech's card) as the unit list shows it."""

    id: str
    name: str
    kind: str
    status: Status
    label: NotRequired[str]  # one line the list prints under the name
    armour: NotRequired[int]
    durability_max: NotRequired[int | None]
    actions_left: NotRequired[list[str]]
    ammo_max: NotRequired[int | None]
    fired: NotRequired[list[str]]
    weapons: NotRequired[list[dict[str, Any]]]


class UnitView(TypedDict):
    """A unit, squad or lone model: whose, whether it may still act, and its models."""

    id: str
    name: str
    player: str
    kind: str
    status: Status
    acted: bool
    can_act: bool
    elements: Sequence[ElementView]
    markers: NotRequired[Sequence[str]]  # short badges ("Disordered", "prone"), said as texts (text.py)


class StateView(SettledTableView):
    """The game as the dashboard shows it: round, whose turn, the units, the options in force,
    the winner, and (from ``SettledTableView``) what the camera and the referee have settled."""

    game: str
    round: int
    initiative: dict[str, int]  # a side's initiative roll, where the game rolls one
    order: list[str]  # the players in the order they act this round
    active_player: str | None
    active_unit: str | None
    players: list[str]
    out: list[str]  # players out of the game
    winner: str | None
    won_by: Text | None  # the victory condition that won, for the banner and the report
    units: Sequence[UnitView]
    options: dict[str, Any]
    moved: dict[str, Any]  # model -> how far it moved this activation, against its allowance


def model_names(view: StateView) -> dict[str, str]:
    """The army's name for each unit and model, by id, for saying rulings (station/rules/text.py).

    Left out: an id that is also a player's name, so "red to act" stays the player's; a name
    that is its id; and a name two models share (two Locusts), which would not say which.  A
    vehicle and its unit may share one: they are the same model."""
    players = set(view["players"])
    shared = Counter(
        name
        for unit in view["units"]
        for name in (unit["name"], *(e["name"] for e in unit["elements"] if e["name"] != unit["name"]))
    )
    return {
        item["id"]: item["name"]
        for unit in view["units"]
        for item in (unit, *unit["elements"])
        if item["name"] and item["name"] != item["id"] and item["id"] not in players and shared[item["name"]] == 1
    }
