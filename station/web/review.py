"""Looking back at a game: the replay viewer (a scrubber over the journal, the map, the rulings
and the state at any record) and the post-game report, one self-contained HTML page that prints.
Both are open to spectators, like the dashboard."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template

from ..journal import JournalError
from ..lobby.history import PlayedGame
from ..lobby.replay import DISPUTED, GameReplay, Replays
from ..records import Kind
from ..rules.labels import label
from ..rules.text import say, with_messages
from ..rules.view import model_names, out_of_play
from .current import lobby
from .i18n import language, spoken
from .picture import ruling_picture, table_picture
from .security import error_response

review = Blueprint("review", __name__, template_folder="templates")


class UnknownGame(LookupError):
    pass


@review.errorhandler(UnknownGame)
def _unknown(exc: UnknownGame) -> tuple[Response, int]:
    return error_response(404, str(exc))


@review.errorhandler(JournalError)
def _damaged(exc: JournalError) -> tuple[Response, int]:
    return error_response(422, f"the journal cannot be replayed: {exc}")


def _played(name: str) -> PlayedGame:
    played = lobby().history.find(name)
    if played is None:
        raise UnknownGame(f"no game {name!r}")
    return played


def _replay(name: str) -> GameReplay:
    replays: Replays = current_app.extensions.setdefault("replays", Replays())
    return replays.of(_played(name).path)


@review.get("/games/<name>")
def viewer(name: str) -> str:
    played = _played(name)
    title = label(played.game, language(), played.game)
    return render_template("replay.html", game=played.as_dict(), title=title, ruling_game=played.game)


@review.get("/api/games/<name>/timeline")
def timeline(name: str) -> Response:
    return jsonify(_replay(name).timeline())


@review.get("/api/games/<name>/at/<int:seq>")
def frame(name: str, seq: int) -> Response:
    at = _replay(name).at(seq)
    return jsonify({**at, "state": with_messages(at["state"])})


@review.get("/api/games/<name>/at/<int:seq>/map.svg")
def frame_map(name: str, seq: int) -> Response:
    at = _replay(name).at(seq)
    fallen = [e["id"] for u in at["state"]["units"] for e in u["elements"] if out_of_play(e["status"])]
    svg = table_picture(
        at["table"],
        at["terrain"],
        at["state"]["players"],
        spoken(say("record {seq} · round {round}", seq=at["seq"], round=at["state"]["round"])),
        (at["wall"] or "")[:19].replace("T", " "),
        fallen=fallen,
    )
    return Response(svg, mimetype="image/svg+xml")


@review.get("/games/<name>/report")
def report(name: str) -> str:
    """Summary, casualties, every ruling with its section and status, the overrides with the
    referee's notes, and the pictures of the disputed rulings that measured on the table."""
    played, replay = _played(name), _replay(name)
    view = replay.final.ruleset.state_view(replay.final.state)
    casualties = [
        (unit, element) for unit in view["units"] for element in unit["elements"] if out_of_play(element["status"])
    ]
    by_seq = {r["seq"]: r for r in replay.records if r["kind"] in (Kind.SNAPSHOT, Kind.TERRAIN)}
    terrains = sorted((r for r in by_seq.values() if r["kind"] == Kind.TERRAIN), key=lambda r: r["seq"])
    pictures = {}
    for mark in replay.marks:
        measured = mark.made["details"].get("measured")
        table = by_seq.get(measured.get("table_seq", -1)) if measured else None
        if mark.status in DISPUTED and table is not None and table["kind"] == Kind.SNAPSHOT:
            pieces: list[dict[str, Any]] = next(
                (t["pieces"] for t in reversed(terrains) if t["seq"] <= table["seq"]), []
            )
            pictures[mark.ruling.id] = ruling_picture(mark.made, table, pieces, view["players"])
    texts = {mark.ruling.id: mark.ruling.text for mark in replay.marks}
    overrides = [
        {**r, "text": texts.get(r["ruling"], r["ruling"])} for r in replay.records if r["kind"] == Kind.OVERRIDE
    ]
    return render_template(
        "report.html",
        game=played.as_dict(),
        title=label(played.game, language(), played.game),
        summary=replay.final.ruleset.summary(replay.final.state),
        view=view,
        names=model_names(view),
        casualties=casualties,
        marks=replay.marks,
        overrides=overrides,
        pictures=pictures,
        end=replay.end,
        ruling_game=replay.final.ruleset.name,
    )
