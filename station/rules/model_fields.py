"""Fields every army format shares: ids, the camera marker on a model, and its base."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from ..datafile import Fields, load_json_file, problem
from ..dice import Roller
from ..events import HUB_ID, NODE_AT, Node
from .base import VOID_MEANS, ArmyError, Ruling
from .dry_run import dry_run
from .input_args import Declared
from .inputs import Inputs
from .ruleset import DashboardParts, ImportReport

S = TypeVar("S")


def ID_CHECK(v: str) -> str | None:  # named like the constant it replaces: a field check
    return (
        None
        if v and v.replace("-", "").replace("_", "").isalnum() and len(v) <= 32
        else "must be 1-32 letters, digits, '-' or '_'"
    )


def NODE_CHECK(v: str) -> str | None:  # a field check, like ID_CHECK
    """A sensor node as an army wires it: "T1", or "T1@3F2A" on the hub with that id."""
    node, at, hub = v.partition(NODE_AT)
    if ID_CHECK(node) is None and (not at or HUB_ID.fullmatch(hub)):
        return None
    return "must be a node id (1-32 letters, digits, '-' or '_'), optionally with @ and its hub's id: T1@3F2A"


def marker(f: Fields) -> dict[str, Any] | None:
    """The overhead camera's marker on this model (docs/camera.md "Markers"): its id, printed size, height
    above the table, and the base centre's offset from the marker centre (forward, right) in mm."""
    if "marker" not in f.data:
        return None
    m = f.child("marker")
    m.reject_unknown(["id", "size_mm", "height_mm", "offset_mm"])
    offset = m.get(
        "offset_mm",
        list,
        [0, 0],
        lambda v: (
            None
            if len(v) == 2 and all(isinstance(x, (int, float)) and not isinstance(x, bool) and abs(x) <= 200 for x in v)
            else "must be [forward, right] in mm, each within 200"
        ),
    )
    return {
        "id": m.integer("id", 16, 249),
        "size_mm": float(
            m.get("size_mm", (int, float), 30, lambda v: None if 10 <= v <= 100 else "must be 10 to 100 mm")
        ),
        "height_mm": float(
            m.get("height_mm", (int, float), check=lambda v: None if 0 <= v <= 300 else "must be 0 to 300 mm")
        ),
        "offset_mm": [float(x) for x in offset],
    }


def base(f: Fields, default: str) -> str:
    """The model's base or footprint by shape and size (station.measure.bases): a vehicle's own
    footprint is e.g. "rect70x130" (docs/measuring.md, "Bases and distances")."""
    from ..measure.bases import parse_base_name

    def check(name: str) -> str | None:
        try:
            parse_base_name(name)
        except ValueError as exc:
            return str(exc)
        return None

    name: str = f.get("base", str, default, check)
    return name


def open_army(path: str | Path, format_name: str, fields: Sequence[str]) -> tuple[Fields, dict[str, Any]]:
    """An army file opened for its loader: the JSON read, its format tag checked, unknown fields
    refused, and the header every format shares (player, name, sample data, the file's name)."""
    f = Fields(str(path), load_json_file(path, ArmyError), error=ArmyError)
    f.reject_unknown(["format", "player", "name", "sample_data", *fields])
    f.get("format", str, check=lambda v: None if v == format_name else f"is {v!r}; this station reads {format_name!r}")
    header = {
        "player": f.get("player", str, check=ID_CHECK),
        "name": f.get("name", str, ""),
        "sample_data": f.get("sample_data", str, ""),
        "source": Path(path).name,
    }
    return f, header


def tracked_markers(specs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """What the camera's tracker needs of each marked model (its marker, and whose model on which
    base), from a ruleset's model specs."""
    return [
        {**s["marker"], "element": s["element"], "unit": s["unit"], "player": s["player"], "base": s["base"]}
        for s in specs
        if s["marker"]
    ]


class ArmyFormat(Protocol):
    """A game's army module (``<game>/army.py``): it reads a file, describes the format as JSON
    Schema, and lists the models the armies put on the table."""

    def load_army(self, path: str) -> dict[str, Any]: ...

    def schema(self) -> dict[str, Any]: ...

    def model_specs(self, armies: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]: ...


class ModelRuleset(Generic[S]):
    """What rulesets built on model specs share: the injected roller, their army format, and
    the camera's markers from its ``model_specs``."""

    army_format: ClassVar[ArmyFormat]
    inputs: ClassVar[Inputs[Any, Any]]  # the game's registered inputs: its input_types and declared_inputs follow
    input_types: ClassVar[Sequence[str]]
    declared_inputs: ClassVar[Mapping[str, Declared]]
    dashboard: ClassVar[DashboardParts] = DashboardParts()
    card_library: ClassVar[str | None] = None  # most games print their units in the army file
    table_die: ClassVar[int] = 6  # the die the game rolls most: the dashboard's table dice start on it

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A game names its ``inputs`` once; what it takes and what each takes follow from them."""
        super().__init_subclass__(**kwargs)
        inputs = cls.__dict__.get("inputs")
        if inputs is not None:
            cls.input_types, cls.declared_inputs = inputs.types, inputs.declared()

    def __init__(self, roller: Roller) -> None:
        self.roller = roller

    def import_cards(self, pasted: Any, source: str, library_file: Path) -> ImportReport:
        raise ArmyError(source, "cards", f"{getattr(self, 'title', 'this game')} keeps no card library")

    def round_of(self, state: S) -> int:
        """A game with no rounds is always in its first: nothing pending ever stands unchallenged."""
        return 1

    def active_player(self, state: S) -> str | None:
        """A game that does not say whose turn it is: nobody's clock runs."""
        return None

    def pending_stands(self, state: S) -> bool:
        """A game without the option ``unconfirmed``: a pending ruling stands, as by its default."""
        return True

    def load_army(self, path: str) -> dict[str, Any]:
        return self.army_format.load_army(path)

    def army_schema(self) -> dict[str, Any]:
        return self.army_format.schema()

    def model_specs(self, armies: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return self.army_format.model_specs(armies)

    def marker_specs(self, armies: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return tracked_markers(self.model_specs(armies))

    def sensor_nodes(self, armies: Sequence[Mapping[str, Any]]) -> list[Node]:
        """The hub nodes these armies are wired to: none, for games played without launchers."""
        return []

    def postures(self, state: S) -> dict[str, str]:
        """Each model's posture from the hub's tilt nodes: none, for games without them."""
        return {}

    def verdicts(self, ruling: Ruling) -> list[tuple[str, str]]:
        """Undoing a ruling is the one override most games know."""
        return [("void", VOID_MEANS)]

    def inputs_now(self, state: S) -> list[str]:
        return []

    def preview(self, state: S, input_type: str, args: Mapping[str, Any]) -> dict[str, Any]:
        """The input applied to the current state and thrown away (dry_run.py); a game with odds
        to show for an input (a shot's target number) says more for it."""
        return dry_run(self, state, input_type, args)


def one_army_each(armies: Sequence[Mapping[str, Any]]) -> set[str]:
    """Each player brings one army: a second army of the same player is refused, naming its file
    and the army that came first.  Returns the players."""
    first: dict[str, Mapping[str, Any]] = {}
    for army in armies:
        if army["player"] in first:
            raise ArmyError(
                army["source"],
                "player",
                problem(
                    "'{player}' is also the player of the army «{other}»: each player brings one army",
                    player=army["player"],
                    other=army_title(first[army["player"]]),
                ),
            )
        first[army["player"]] = army
    return set(first)


def army_title(army: Mapping[str, Any]) -> str:
    """How an error names an army: its name, else its file."""
    return str(army.get("name") or army["source"])


def ids_once(
    armies: Sequence[Mapping[str, Any]], ids: Callable[[Mapping[str, Any]], Iterable[tuple[str, str]]]
) -> None:
    """Every id of ``ids(army)`` (each with the path of its field) used once on the table.  A clash
    is blamed on the later army and names the first, so a referee whose own new force reuses an
    id of the sample it plays against reads which of the two to change."""
    first: dict[str, Mapping[str, Any]] = {}
    for army in armies:
        for where, item in ids(army):
            other = first.get(item)
            if other is not None:
                raise ArmyError(
                    army["source"],
                    where,
                    problem("id '{id}' is used twice", id=item)
                    if other is army
                    else problem(
                        "id '{id}' is also in the army «{other}»: ids must differ between the armies of one game",
                        id=item,
                        other=army_title(other),
                    ),
                )
            first[item] = army
