"""A live game: the journal folded through a ruleset as it is written (``station.fold``).

``Game`` journals each input first, then applies it, journals the dice it rolled and the rulings
it made, and tells subscribers.  A referee override is journaled and
the game is derived again from the start, so the override acts where the ruling was made.
"""

from __future__ import annotations

import logging
import random
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from . import __version__
from .datafile import DataFileError
from .devices.dice.rolls import ANY_PLAYER, Roll
from .dice import DiceBook
from .fold import HEADER_KIND, dice_of, fold, header_of, is_folded, is_step, record_event, ruling_status
from .journal import Journal, JournalFull
from .measure.terrain import FORMAT as TERRAIN_FORMAT
from .measure.terrain import parse_terrain, terrain_document
from .playerclock import wall_seconds
from .records import Kind
from .rules.base import Ruling
from .rules.input_args import InputProblem, check
from .rules.registry import make_ruleset
from .rules.ruleset import Ruleset
from .rules.text import Text, say
from .rules.view import StateView

log = logging.getLogger(__name__)

QUIET_KINDS = (Kind.CLOCK, Kind.LINK)  # a hub's clock mapping or link changes nothing a screen shows by itself

END_KIND = Kind.END  # the referee ended the game (not folded: the history and the report read it)
RULINGS_KEPT = 5000  # rulings a live game keeps in memory (and shows); every one stays in the journal
RECENT_RULINGS = 200  # rulings a screen is sent when it opens; it pages back through the older ones
RECENT_PENDING = 50  # older rulings still pending sent with them; the rest are counted, and paged
NOTE_CHARS = 2000  # a referee's note (an end, an override, a start past the check): a paragraph
JUDGE_NOTE_CHARS = 500  # a call to the tournament's judges: a line on their screen


def _ruling_view(ruling: Ruling, confirmed: frozenset[str], standing_from: int | None) -> dict[str, Any]:
    return {**ruling.as_dict(), "status": ruling_status(ruling, confirmed, standing_from)}


class InputError(ValueError):
    """An operator input the game refuses, with the reason for the person who sent it, and the
    ``field`` of the request that is wrong, when one is (a form points at it)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.said = message if isinstance(message, Text) else None  # for a page to say in its language


def _no_such_ruling(ruling_id: str) -> InputError:
    return InputError(f"no ruling {ruling_id!r} among the latest {RULINGS_KEPT} (older ones stand as journaled)")


def checked_note(note: object, most: int = NOTE_CHARS) -> str:
    """A referee's note as the journal keeps it: text of at most ``most`` characters, refused
    beyond (a note is never cut: what the referee wrote is what the report shows)."""
    if not isinstance(note, str) or len(note) > most:
        raise InputError(f"note: text of at most {most} characters")
    return note


RESULTS = ("victory", "time", "concession", "draw")  # how a referee may end a game


def _result(view: Mapping[str, Any], result: str | None, winner: str | None) -> tuple[str | None, str | None, Any]:
    """The end's result, winner and victory condition: the referee's choice checked against the
    game's players, or the rules' own winner when the referee chose nothing."""
    ruled, players = view.get("winner"), list(view.get("players", []))
    if result is None:
        if winner is not None:
            raise InputError("result: say how the game was won (victory, time or concession)", "result")
        return ("victory" if ruled else None), ruled, view.get("won_by")
    if result not in RESULTS:
        raise InputError(f"result: {result!r} is not one of {', '.join(RESULTS)}", "result")
    if result == "draw":
        if winner is not None:
            raise InputError("winner: a draw has no winner", "winner")
        return result, None, None
    winner = winner if winner is not None else (ruled if result == "victory" else None)
    if winner not in players:
        said = f"{winner!r} is not a player of this game" if winner is not None else "name the player who won"
        raise InputError(f"winner: {said} ({', '.join(players)})", "winner")
    return result, winner, view.get("won_by") if result == "victory" and winner == ruled else None


class GameEnded(InputError):
    """A journal whose game the referee ended, opened to carry on: it can be replayed, not resumed."""


class JournalUnavailable(InputError):
    """The journal cannot record anything now (its disk is full): the input changed nothing."""


class Game:
    """A live game over a journal.  Thread-safe; every public method journals before it acts.

    Memory stays flat however long the game: records live in the journal's file (read back by
    seq when needed), and the game keeps only the order in which it applied them (8 bytes each),
    the latest ``RULINGS_KEPT`` rulings, the terrain versions and the latest table snapshot.
    """

    def __init__(
        self,
        journal: Journal,
        game: str | None = None,
        armies: Sequence[Mapping[str, Any]] = (),
        options: Mapping[str, Any] | None = None,
        rng: random.Random | None = None,
        publish: Callable[[dict[str, Any]], None] | None = None,
        clock_s: float | None = None,
    ) -> None:
        """``clock_s``: a new game's time for each player (playerclock.py), None for no clocks."""
        self.journal = journal
        self._lock = threading.RLock()
        self._publish = publish or (lambda message: None)
        # One order: every record the fold steps through, whichever thread wrote it, is queued
        # here as the journal writes it (in seq order) and applied from here in that order.
        self._unapplied: deque[dict[str, Any]] = deque()
        self.errors = 0  # records the rules failed on (a bug): logged, skipped, the game goes on
        self._confirmed_since: list[str] = []  # rulings confirmed since the screens were last told
        self._failed: tuple[int, str] | None = None  # the latest record the rules failed on, and why
        journal.on_written.append(self._written)
        records = journal.records
        if not records:
            if game is None:
                raise InputError("a new journal needs a game and armies")
            make_ruleset(game, DiceBook()).initial_state(armies, options or {})  # validate before writing
            header = journal.append(
                HEADER_KIND,
                durable=True,
                game=game,
                armies=list(armies),
                options=dict(options or {}),
                station=__version__,
                **({"clock": {"seconds": float(clock_s)}} if clock_s else {}),
            )
            records = [header]
        elif game is not None and header_of(records, str(journal.path))["game"] != game:
            raise InputError(f"{journal.path} holds a {records[0]['game']} game, not {game}")
        ended = next((r for r in records if r["kind"] == END_KIND), None)
        if ended is not None:  # however the end was journaled, and whatever follows it
            raise GameEnded(f"{journal.path.name} ended (record {ended['seq']}); it can be replayed, not resumed")
        self._header = records[0]
        self._last_seq = records[-1]["seq"]
        while self._unapplied and self._unapplied[0]["seq"] <= self._last_seq:
            self._unapplied.popleft()  # written before the fold below read the file: folded there
        self.book = DiceBook(dice_of(records), source=rng or random.Random())
        self._table = next((r for r in reversed(records) if r["kind"] == Kind.SNAPSHOT), None)
        self._terrains = [r for r in records if r["kind"] == Kind.TERRAIN]
        self.version = 0
        self._result = fold(records, self.book, keep_rulings=RULINGS_KEPT)
        self._after_derive()
        self._round_told = self._result.round_began
        self.ended: dict[str, Any] | None = None  # the end record, once the referee ends the game
        del records
        self._specs = {s["element"]: s for s in self.ruleset.model_specs(self.header["armies"])}
        # the ids an input may name: every model, its unit and its player, as the armies give them
        self._ids = frozenset(
            x for s in self._specs.values() for x in (s["element"], s.get("unit"), s.get("player")) if x
        )

    # -- derivation -----------------------------------------------------------------------------
    def _derive(self, upto: int) -> None:
        """Fold again, from the file, every record up to ``upto`` (an override: it acts from the
        start, where the ruling was made)."""
        records = [r for r in self.journal.records if r["seq"] <= upto]
        shown = self._by_id
        self._result = fold(records, self.book, keep_rulings=RULINGS_KEPT)
        self._after_derive()
        for ruling in self._result.rulings:  # what the override changed, journaled as it now stands
            said = ruling.as_dict(message=False)
            before = shown.get(ruling.id)
            if before is None or before.as_dict(message=False) != said:
                self.journal.append(Kind.RULING, ruling=said)

    def _after_derive(self) -> None:
        self._journal_fresh_dice()
        self._by_id = {r.id: r for r in self._result.rulings}

    def _journal_fresh_dice(self) -> None:
        """Dice are inputs of the fold: on disk before any ruling that used them is shown."""
        records = [self.journal.append(Kind.DICE, **roll.as_record()) for roll in self.book.take_fresh()]
        if records:
            self.journal.wait_durable(records[-1]["seq"])
            self._last_seq = max(self._last_seq, records[-1]["seq"])

    def _written(self, record: dict[str, Any]) -> None:
        """The journal's listener, on the writing thread under the journal's lock: queue what
        the fold steps through (a deque append: it never blocks a hub's reader)."""
        if is_step(record):
            self._unapplied.append(record)

    def _catch_up(self, upto: int) -> tuple[list[Ruling], bool, bool]:
        """Apply, in journal order, every record written up to seq ``upto`` and not applied yet,
        by whichever thread wrote it: the live game is the fold of the journal as written.
        Returns the rulings made, whether a screen has anything new, and whether the game was
        derived again (an override).  Called with the lock held."""
        made: list[Ruling] = []
        shown = reset = False
        while self._unapplied and self._unapplied[0]["seq"] <= upto:
            record = self._unapplied.popleft()
            kind = record["kind"]
            if kind == Kind.CONFIRM:
                self._confirmed_since.append(record["ruling"])
            shown = shown or kind not in QUIET_KINDS
            try:
                if kind == Kind.OVERRIDE:  # it acts where the ruling was made: fold again to here
                    self._derive(record["seq"])
                    reset = True
                    continue
                if kind == Kind.TERRAIN:
                    self._terrains.append(record)
                elif kind == Kind.SNAPSHOT:
                    self._table = record
                made += self._apply(record)
            except JournalFull:
                raise
            except Exception as exc:  # a rules bug must not stop the game or the records after it
                self.errors += 1
                self._failed = (record["seq"], f"{type(exc).__name__}: {exc}")
                log.exception("the rules failed on journal record %s", record["seq"])
        return made, shown, reset

    def _apply(self, record: dict[str, Any]) -> list[Ruling]:
        self._last_seq = max(self._last_seq, record["seq"])
        event = record_event(record, self._result.timeline)
        if event is None:
            if record["kind"] == Kind.TIMER:
                self._result.clock_step(record)
            return []
        rulings = self._result.apply(event)
        self._result.clock_step(record)
        self._journal_fresh_dice()
        kept = self._result.rulings
        for ruling in rulings:
            if isinstance(kept, deque) and len(kept) == kept.maxlen:
                self._by_id.pop(kept[0].id, None)  # the oldest leaves memory; it stays in the journal
            kept.append(ruling)
            self._by_id[ruling.id] = ruling
            self.journal.append(Kind.RULING, ruling=ruling.as_dict(message=False))
        return rulings

    def _changed(self, rulings: list[Ruling], reset: bool = False, confirmed: Sequence[str] = ()) -> None:
        """Tell the screens: the new rulings, and the status of every ruling whose status this
        step changed (``statuses``: the new ones, the ones ``confirmed``, and, when a round
        began, every one still waiting for the referee), computed here once (``ruling_status``)."""
        self.version += 1
        result = self._result
        touched = [self._by_id[i] for i in confirmed if i in self._by_id]
        if result.round_began != self._round_told:  # pending rulings may now stand unchallenged
            self._round_told = result.round_began
            touched += [r for r in result.rulings if r.needs_referee]
        agreed, standing = result.state.confirmed, result.standing_from()
        statuses = {r.id: ruling_status(r, agreed, standing) for r in (*touched, *rulings)}
        self._publish(
            {
                "version": self.version,
                "reset": reset,
                "rulings": [{**r.as_dict(), "status": statuses[r.id]} for r in rulings],
                "statuses": statuses,
                "seq": self._last_seq,
                "round_began": result.round_began,
            }
        )

    # -- inputs ---------------------------------------------------------------------------------
    @contextmanager
    def _recording(self) -> Iterator[None]:
        """Admit an input only while the journal can record it and all that follows from it (the
        journal's reserve covers the dice and rulings of one input once the disk has filled)."""
        if not self.journal.accepting():
            raise JournalUnavailable(f"not recorded, the game is unchanged: {self.journal.fault}")
        try:
            with self._lock:
                yield
        except JournalFull as exc:
            raise JournalUnavailable(str(exc)) from None

    def observe(self, record: Mapping[str, Any]) -> list[Ruling]:
        """Bring the game up to a record already journaled (the serial link journals its own
        lines): it and every record before it are applied, in journal order, if no other thread
        has applied them yet.  Returns the rulings this call made (none when another thread
        got there first).  A table snapshot is also what the dashboard's map draws; terrain is
        kept by version."""
        with self._lock:
            rulings, shown, reset = self._catch_up(record["seq"])
            if shown or reset:
                self._changed(rulings, reset=reset, confirmed=self._confirmed_since)
                self._confirmed_since = []
            return rulings

    @property
    def backlog(self) -> int:
        """Records journaled and not applied yet (the engine is behind the hubs)."""
        return len(self._unapplied)

    def observe_camera(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        """Journal what the camera saw a model do (ModelFell, ModelUp) and fold it."""
        return self._journal_and_observe("camera", fields)

    def observe_table(self, snapshot: Mapping[str, Any]) -> dict[str, Any]:
        """Journal a TableSnapshot (from the camera or a recorded session) and fold it: each
        base gets its player and base size from the army files when the source did not say."""
        specs = self._specs
        units = [
            {
                **u,
                "player": u.get("player") or specs.get(u["element"], {}).get("player"),
                "base": u.get("base") or specs.get(u["element"], {}).get("base"),
            }
            for u in snapshot.get("units", [])
        ]
        return self._journal_and_observe("snapshot", {**snapshot, "units": units})

    def _journal_and_observe(self, kind: str, fields: Mapping[str, Any]) -> dict[str, Any]:
        """Camera records are observations, not inputs: while the disk is full they are not
        journaled at all (JournalFull), so the reserve is kept for what is under way."""
        if not self.journal.accepting():
            raise JournalFull(f"{kind} record not journaled: {self.journal.fault}")
        record = self.journal.append(kind, **fields)
        self.observe(record)
        return record

    def table_at(self, seq: int) -> dict[str, Any] | None:
        """The table snapshot journaled as record ``seq`` (what a ruling measured on)."""
        record = self.journal.read(seq)
        return record if record and record["kind"] == Kind.SNAPSHOT else None

    def ruling(self, ruling_id: str) -> Ruling:
        with self._lock:
            return self._ruling(ruling_id)

    def verdicts(self, ruling_id: str) -> list[tuple[str, str]]:
        """The overrides that fit a ruling, each with what it does (``Ruleset.verdicts``)."""
        with self._lock:
            ruling = self._ruling(ruling_id)
            allowed = self._result.ruleset.override_verdicts
            return [(v, why) for v, why in self._result.ruleset.verdicts(ruling) if v in allowed]

    def preview(self, type_: str, args: Any) -> dict[str, Any]:
        """What an input would rule now, without journaling it (``Ruleset.preview``)."""
        if type_ not in self._result.ruleset.input_types or not isinstance(args, Mapping):
            raise InputError(f"no input {type_!r} with arguments to preview")
        self._check_args(type_, args)
        with self._lock:
            return self._result.ruleset.preview(self._result.state, type_, args)

    def model_spec(self, element: str) -> Mapping[str, Any]:
        """The army files' word on a model: its unit, player, base and marker."""
        return self._specs.get(element, {})

    def reach(self, element: str) -> dict[str, Any]:
        """The rules' rings and arcs for a model, for the dashboard (see ``Ruleset.reach``)."""
        with self._lock:
            if element not in self._specs:
                raise InputError(f"no model {element!r} in the army files")
            return self._result.ruleset.reach(self._result.state, element)

    def postures(self) -> dict[str, str]:
        """Each model's posture as the rules know it (from the hub's TILT events)."""
        with self._lock:
            return self._result.ruleset.postures(self._result.state)

    @property
    def header(self) -> Mapping[str, Any]:
        return self._header

    @property
    def ruleset(self) -> Ruleset[Any]:
        return self._result.ruleset

    def table(self) -> dict[str, Any] | None:
        with self._lock:
            return self._table

    def terrain(self, at_seq: int | None = None) -> dict[str, Any]:
        """The terrain as last set (before ``at_seq``, if given): a ``station-terrain/1``
        document with the seq of its record; no pieces before any was set."""
        with self._lock:
            record = next((r for r in reversed(self._terrains) if at_seq is None or r["seq"] <= at_seq), None)
            return (
                {"format": record["format"], "pieces": record["pieces"], "seq": record["seq"]}
                if record
                else {"format": TERRAIN_FORMAT, "pieces": [], "seq": None}
            )

    def terrain_seq(self) -> int | None:
        """The seq of the terrain in force (cheap: for every dashboard update)."""
        with self._lock:
            return self._terrains[-1]["seq"] if self._terrains else None

    def set_terrain(self, document: Any, by: str = "referee", where: str = "terrain") -> bool:
        """Journal a new terrain after checking it (errors name ``where`` and the field); False
        when it is the terrain already in force, so a restart does not journal it again."""
        try:
            pieces = parse_terrain(document, where)
        except DataFileError as exc:
            raise InputError(str(exc)) from None
        clean = terrain_document(pieces)
        with self._recording():
            if clean["pieces"] == self.terrain()["pieces"]:
                return False
            self.observe(self.journal.append(Kind.TERRAIN, durable=True, **clean, by=by))
            return True

    def enter_dice(self, sides: Any, values: Any, by: str = "referee") -> dict[int, list[int]]:
        """Dice rolled at the table: journaled, then used in order for the next rolls of that die
        (each roll is journaled as usual, marked physical).  Returns what is waiting."""
        if not isinstance(sides, int) or isinstance(sides, bool) or not isinstance(values, list):
            raise InputError('expected {"sides": 6, "values": [3, 5]}')
        with self._recording():
            try:
                self.book.enter(sides, values)
            except ValueError as exc:
                raise InputError(str(exc)) from None
            self.journal.append(Kind.DICE_ENTRY, durable=True, sides=sides, values=values, by=by)
            return self.book.waiting()

    def table_die(self, roll: Roll, player: str) -> str:
        """A smart die's roll (station/devices/dice): journaled and waiting for the next roll of
        its die, as typed dice are, when the game is asking for that die: a die paired with
        "any" always, a player's while that player is to act (or nobody is, as in a roll-off).
        Returns why it was not used ("" when it was); the screens are told either way."""
        with self._recording():
            if self.ended is not None:
                return say("the game has ended")
            if player != ANY_PLAYER:
                acting = self._result.ruleset.state_view(self._result.state).get("active_player")
                if acting and acting != player:
                    return say("{player}'s die, and {acting} is to act", player=player, acting=acting)
            self.book.enter(roll.sides, [roll.face])
            self.journal.append(
                Kind.DICE_ENTRY,
                durable=True,
                sides=roll.sides,
                values=[roll.face],
                by=player,
                die=roll.die,
                throw=roll.throw,
                battery=roll.battery,
            )
            self._changed([])
            return ""

    def clear_dice(self, by: str = "referee") -> None:
        with self._recording():
            self.book.clear_entered()
            self.journal.append(Kind.DICE_ENTRY, durable=True, cleared=True, by=by)

    def inputs_now(self) -> list[str]:
        """The inputs that fit now, the likeliest first (``Ruleset.inputs_now``)."""
        with self._lock:
            return self._result.ruleset.inputs_now(self._result.state)

    def dice_waiting(self) -> dict[int, list[int]]:
        with self._lock:
            return self.book.waiting()

    def call_judge(self, note: str = "", by: str = "referee") -> dict[str, Any]:
        """A table asks for a tournament judge: journaled (so the tournament screen, which reads
        the journal over MQTT, shows the call until a judge marks it handled); the rules never
        see it."""
        return self.journal.append(Kind.JUDGE, durable=True, note=checked_note(note, JUDGE_NOTE_CHARS), by=by)

    def set_clocks_running(self, running: bool, by: str = "referee") -> dict[str, Any]:
        """The referee pauses (``running`` False) or resumes the players' clocks: journaled, so
        the replay pauses where the game did."""
        if self._result.clocks is None:
            raise InputError("this game has no players' clocks", "running")
        with self._recording():
            record = self.journal.append(Kind.TIMER, durable=True, running=bool(running), by=by)
            self.observe(record)
            return self.clocks() or {}

    def clocks(self) -> dict[str, Any] | None:
        """The players' clocks now, or None for a game without them."""
        with self._lock:
            clocks = self._result.clocks
            return clocks.view(wall_seconds({"wall": self.journal.clock.wall_iso()})) if clocks is not None else None

    def operator_input(self, type_: str, args: Mapping[str, Any] | None = None, by: str = "referee") -> list[Ruling]:
        allowed = self._result.ruleset.input_types
        if type_ not in allowed or type_ in ("confirm", "override"):
            raise InputError(
                f"unknown input {type_!r}; expected one of "
                f"{', '.join(t for t in allowed if t not in ('confirm', 'override'))}"
            )
        self._check_args(type_, args or {})
        with self._recording():
            waiting = self.book.waiting()
            record = self.journal.append(Kind.INPUT, durable=True, type=type_, args=dict(args or {}), by=by)
            rulings = self.observe(record)
            if self._failed is not None and self._failed[0] == record["seq"]:
                raise InputError(
                    f"the rules failed on this {type_} (record {record['seq']}, journaled): {self._failed[1]}; "
                    "the game goes on without it, and the station's log has the details"
                )
            if waiting and self.book.waiting() == waiting and any(r.refused for r in rulings):
                # the table dice were meant for this input: a refusal discards them, and says which
                self.book.clear_entered()
                said = "; ".join(f"d{sides} {values}" for sides, values in sorted(waiting.items()))
                self.journal.append(Kind.DICE_ENTRY, durable=True, cleared=True, by=by, why=f"{type_} refused: {said}")
                log.info("table dice discarded after a refused %s: %s", type_, said)
            return rulings

    def _check_args(self, type_: str, args: Mapping[str, Any]) -> None:
        """The input's arguments against what its game declares (rules/input_args.py), before
        anything is journaled: a wrong one is an ``InputError`` naming its field."""
        declared = self._result.ruleset.declared_inputs.get(type_)
        if declared is None:
            return
        try:
            check(declared, args, self._ids)
        except InputProblem as problem:
            raise InputError(problem.text, problem.field) from None

    def confirm(self, *ruling_ids: str, by: str = "referee") -> None:
        """Confirm one ruling, or several at once (the dashboard's *Confirm all*): every id is
        checked before any is journaled, so a stale list confirms nothing rather than a part."""
        with self._recording():
            for ruling_id in ruling_ids:
                self._ruling(ruling_id)
            for k, ruling_id in enumerate(ruling_ids):
                last = k == len(ruling_ids) - 1
                self.observe(self.journal.append(Kind.CONFIRM, durable=last, ruling=ruling_id, by=by))

    def override(self, ruling_id: str, verdict: str, note: str = "", by: str = "referee") -> Ruling:
        verdicts = self._result.ruleset.override_verdicts
        if verdict not in verdicts:
            raise InputError(f"verdict {verdict!r} is not one of {', '.join(verdicts)}")
        checked_note(note)
        with self._recording():
            self._ruling(ruling_id)
            self.observe(
                self.journal.append(Kind.OVERRIDE, durable=True, ruling=ruling_id, verdict=verdict, note=note, by=by)
            )
            return self._ruling(ruling_id)

    def end(
        self, note: str = "", by: str = "referee", result: str | None = None, winner: str | None = None
    ) -> dict[str, Any]:
        """Journal the end of the game with its result, winner and summary, for the history, the
        report and the tournament.  ``result`` is the referee's (``RESULTS``): a victory (the one
        the rules declared, or the referee's judgement with ``winner``), time or a concession
        (``winner`` says who won), or a draw; none keeps what the rules say (their winner, if
        any).  Nothing after it is folded differently: the record is kept for the audit trail,
        and a game that ended is never resumed."""
        checked_note(note)
        with self._recording():
            view = self.state_view()
            result, winner, won_by = _result(view, result, winner)
            pending = sum(1 for r in self.snapshot()["rulings"] if r["status"] == "pending")
            self.ended = self.journal.append(
                END_KIND,
                durable=True,
                result=result,
                winner=winner,
                won_by=won_by,
                round=view.get("round"),
                summary=self.summary(),
                pending=pending,
                note=note,
                by=by,
            )
            return self.ended

    def check_end(self, result: str | None, winner: str | None) -> None:
        """Raise ``InputError`` naming the field if ``end`` would refuse this result and winner."""
        _result(self.state_view(), result, winner)

    def _ruling(self, ruling_id: str) -> Ruling:
        ruling = self._by_id.get(ruling_id)
        if ruling is None:
            raise _no_such_ruling(ruling_id)
        return ruling

    # -- views ----------------------------------------------------------------------------------
    def snapshot(self, recent: int | None = None, pending: int = RECENT_PENDING) -> dict[str, Any]:
        """Everything a screen shows.  With ``recent``, only the latest ``recent`` rulings
        (``rulings``) and, apart, the latest ``pending`` older ones still pending (``waiting``);
        the rest are paged with ``rulings_before`` from ``older_before`` (``older_rulings`` says
        how many), and the older pending ones with ``pending_before`` from ``pending_before``
        (``older_pending`` says how many wait there).
        A neglected table's thousands of unconfirmed rulings so never make a screen's first
        message large.  The lock is held only to read the state and copy references; the
        rulings' views are built after, so a long list never holds up the engine or the referee."""
        with self._lock:
            state = self._result.ruleset.state_view(self._result.state)
            rulings, confirmed = list(self._result.rulings), self._result.state.confirmed
            standing = self._result.standing_from()
            head = {
                "version": self.version,
                "game": self._result.ruleset.name,
                "dice_waiting": self.book.waiting(),
                "title": self._result.ruleset.title,
                "state": state,
                "inputs_now": self._result.ruleset.inputs_now(self._result.state),
                "override_verdicts": list(self._result.ruleset.override_verdicts),
                "journal": str(self.journal.path),
                "records": self.journal.written,
                "round_began": self._result.round_began,  # a ruling caused before it stood unchallenged
                "clocks": self.clocks(),
            }
        older, window = (rulings[:-recent], rulings[-recent:]) if recent and len(rulings) > recent else ([], rulings)
        waiting = [r for r in older if ruling_status(r, confirmed, standing) == "pending"]
        sent = waiting[-pending:] if pending else []
        return {
            **head,
            "rulings": [_ruling_view(r, confirmed, standing) for r in window],
            "waiting": [_ruling_view(r, confirmed, standing) for r in sent],
            "older_rulings": len(older),
            "older_before": window[0].id if older else None,  # page back from here
            "older_pending": len(waiting) - len(sent),
            "pending_before": (sent[0].id if sent else window[0].id) if len(waiting) > len(sent) else None,
        }

    def pending_before(self, ruling_id: str, limit: int) -> dict[str, Any]:
        """Up to ``limit`` rulings still pending just before ``ruling_id``, oldest first, and how
        many pending ones are older still (``more``): the referee working back through what a
        screen did not open with."""
        earlier, confirmed, standing = self._earlier(ruling_id)
        waiting = [r for r in earlier if ruling_status(r, confirmed, standing) == "pending"]
        page = waiting[-limit:]
        return {"rulings": [_ruling_view(r, confirmed, standing) for r in page], "more": len(waiting) - len(page)}

    def rulings_before(self, ruling_id: str, limit: int) -> dict[str, Any]:
        """Up to ``limit`` rulings just before ``ruling_id``, oldest first: a screen scrolling
        back through a long game.  ``more`` says whether older ones remain."""
        earlier, confirmed, standing = self._earlier(ruling_id)
        page = earlier[-limit:]
        return {"rulings": [_ruling_view(r, confirmed, standing) for r in page], "more": len(earlier) > len(page)}

    def _earlier(self, ruling_id: str) -> tuple[list[Ruling], frozenset[str], int | None]:
        """The rulings kept before ``ruling_id``, oldest first, with what their statuses need;
        the lock is held only to copy the references."""
        with self._lock:
            rulings, confirmed = list(self._result.rulings), self._result.state.confirmed
            standing = self._result.standing_from()
        end = next((i for i, r in enumerate(rulings) if r.id == ruling_id), None)
        if end is None:
            raise _no_such_ruling(ruling_id)
        return rulings[:end], confirmed, standing

    def records_since(self, seq: int, limit: int = 500) -> list[dict[str, Any]]:
        """The records the game is folded from (the header, applied serial lines, inputs, dice,
        the referee's decisions, camera and terrain records) after ``seq``, read from the file."""
        return self.journal.read_since(seq, limit, keep=is_folded)

    def state_json(self) -> str:
        with self._lock:
            return self._result.state_json()

    def record_count(self) -> int:
        return self.journal.written

    def summary(self) -> str:
        with self._lock:
            return self._result.ruleset.summary(self._result.state)

    def state_view(self) -> StateView:
        with self._lock:
            return self._result.ruleset.state_view(self._result.state)
