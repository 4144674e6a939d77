"""The lobby: one station process that runs at most one game at a time and keeps the others.

``station serve`` starts it empty; ``station run`` and ``station demo`` start it with a game.
Both open a game the same way (``Lobby.start``): the journal, the hub link, the camera and the
terrain, and a start that fails part-way leaves no journal behind, so ``--resume`` and the
lobby's resume offer never pick an empty game.  Ending a game journals its end (winner, summary,
the rulings still awaiting the referee) and tells the dashboard, which returns to the lobby.
"""

from __future__ import annotations

import datetime as _dt
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..datafile import DataFileError, data_dir
from ..devices.link import BAUD
from ..durable import make_folders
from ..exclusive import FileLock, InUse
from ..fold import HEADER_KIND
from ..game import InputError
from ..journal import JournalError, read_records
from ..pairing import PairingListener
from ..publish import BrokerUrl, MqttUnavailable
from ..records import Kind
from ..rules.text import say
from ..runtime import Station
from . import datafolder
from .armies import ArmyShelf
from .camerawatch import CameraWatch
from .dicedesk import DiceDesk
from .entries import Skipped
from .history import History, PlayedGame
from .hubwatch import HubWatch
from .precheck import pregame_checks
from .rehearsal import Rehearsal
from .settings import Settings, load_settings, save_settings
from .starting import check_army_count, checks_view, judge

log = logging.getLogger(__name__)

HUB_SETTLE_S = 5.0  # how long a new game's check waits for a hub just opened to say hello


class LobbyError(InputError):
    """A lobby request refused, with the reason for the referee (a game already runs, …)."""


class GameRunning(LobbyError):
    """A new game, or a resume, asked for while another game runs."""


class FolderUnusable(LobbyError):
    """A data folder the station cannot keep its data in (not writable, another station's)."""


@dataclass(frozen=True)
class Hardware:
    """What every game of this station is played with."""

    serial_urls: tuple[str, ...] = ()  # the hubs' ports, one per hub board
    camera: str | None = None  # an index, a video file or a folder of frames
    camera_fps: float | None = None  # play a recorded camera at this rate, looping
    calibration: Path = Path("calibration/table.json")
    seed: int | None = None  # the dice seed (rehearsals); None is unpredictable
    baud: int = BAUD  # the hub's serial rate (firmware/avr/uart.h)
    mqtt: str | None = None  # the club's broker, mqtt://user:password@host:1883 (docs/tournament.md)
    table: str | None = None  # this table's id on the broker
    dashboard_url: str = ""  # where the tournament screen links to this table


def journal_name(game: str, now: _dt.datetime | None = None) -> str:
    stamp = (now or _dt.datetime.now()).strftime("%Y%m%d-%H%M%S")
    return f"{game}-{stamp}.jsonl"


def _discard_empty(path: Path) -> None:
    """Remove a journal that holds nothing but its header (a start that failed part-way)."""
    try:
        records = read_records(path) if path.exists() else []
    except JournalError:
        return
    if len(records) <= 1 and all(r["kind"] == HEADER_KIND for r in records):
        path.unlink(missing_ok=True)
        log.debug("removed %s: the game never started", path)


def _hubs_answer(health: Mapping[str, Any]) -> bool:
    hubs = health.get("hubs") or []
    return bool(hubs) and all(h.get("state") == "connected" and h.get("hub_fw") for h in hubs)  # HELLO heard


class Lobby:
    """At most one running ``Station``, the armies on the shelf and the games played."""

    def __init__(self, journals: Path, armies: Path, hardware: Hardware | None = None) -> None:
        self.journals = journals
        self.hardware = hardware or Hardware()
        self.skipped = Skipped()  # the data folder's entries the lobby leaves alone (entries.py)
        self.shelf = ArmyShelf(armies, self.skipped)
        self.history = History(journals, self.skipped)
        self.folder = armies.parent  # the home: settings.json, the rehearsal hub's link
        self.data = self.folder  # journals/ and armies/: the home's, or where the referee moved them
        self.data_lock: FileLock | None = None  # held on a data folder other than the home
        self.settings: Settings | None = None  # what the browser set (None: the command's flags)
        self.rehearsal: Rehearsal | None = None
        self.hub: HubWatch | None = None
        self.camera: CameraWatch | None = None
        self.dice = DiceDesk()
        self._watch_hardware()
        self._station: Station | None = None
        self._lock = threading.RLock()
        self.on_start: list[Callable[[Station], None]] = []
        self.on_end: list[Callable[[Station], None]] = []
        # What a start said the referee should know (no calibration, …), as texts a page says in
        # its language, and the pre-game check it started after.
        self.messages: list[str] = []
        self.checks: list[dict[str, Any]] = []
        self.pairing = self._listen_for_pairings()

    def _listen_for_pairings(self) -> PairingListener | None:
        """In a tournament (``--mqtt`` and ``--table``), this table's pairing (station/pairing.py)."""
        hw = self.hardware
        if not (hw.mqtt and hw.table):
            return None
        try:
            identity = f"{socket.gethostname()}:{hw.dashboard_url or self.folder.resolve()}"
            return PairingListener(
                BrokerUrl.parse(hw.mqtt), hw.table, lambda: self._station is not None, identity
            ).start()
        except (MqttUnavailable, ValueError) as exc:  # the game's publisher says the same, louder
            log.warning("no tournament pairings: %s", exc)
            return None

    def _watch_hardware(self) -> None:
        hw = self.hardware
        self.hub = HubWatch(hw.serial_urls, self.folder / "setup", hw.baud) if hw.serial_urls else None
        self.camera = CameraWatch(hw.camera, hw.camera_fps) if hw.camera is not None else None

    def apply_settings(self, settings: Settings, save: bool = True) -> int:
        """The hub, the rehearsal hub, the camera and the calibration as the referee set them in
        the browser: applied at once (between games), and remembered in the home folder.  The data
        folder last: returns how many files moving it copied."""
        with self._lock:
            if self._station is not None:
                raise GameRunning("end the game first: a game keeps the hub and the camera it started with")
            for watch in (self.hub, self.camera):
                if watch is not None:
                    watch.stop()
            if self.rehearsal is not None and not settings.rehearsal:
                self.rehearsal.stop()
                self.rehearsal = None
            if settings.rehearsal and self.rehearsal is None:
                self.rehearsal = Rehearsal(self.folder, self.shelf_nodes()).start()
            self.dice.configure(settings.dice, self.rehearsal is not None, settings.dice_pairs)
            serial = (self.rehearsal.path,) if self.rehearsal is not None else settings.serial
            self.hardware = replace(
                self.hardware,
                serial_urls=serial,
                camera=settings.camera,
                camera_fps=None,
                calibration=Path(settings.calibration),
            )
            self._watch_hardware()
            self.settings = settings
            self.watch()
            if not save:  # at start: the settings file's folder, if it is there
                self.return_to_data_folder(settings.data)
                return 0
            moved = self.use_data_folder(Path(settings.data) if settings.data else None)
            save_settings(self.folder, settings)
            return moved

    def return_to_data_folder(self, folder: str | None) -> None:
        """At start, the data folder the settings name; one that is not there (a USB stick left
        at home) leaves the journals in the home, and the lobby says so."""
        try:
            self.use_data_folder(Path(folder) if folder else None, create=False)
        except LobbyError as exc:
            said = say("{why}; until it is back, games are kept in {data}", why=str(exc), data=str(self.data))
            log.warning("%s", said)
            self.messages.append(said)

    def use_data_folder(self, folder: Path | None, create: bool = True) -> int:
        """Keep the journals and the armies in ``folder`` (``None``: the home) from now on, with
        copies of what it lacked (station/lobby/datafolder.py); ``create`` makes the folder (not
        its parents).  Returns how many files came over."""
        target = folder or self.folder
        with self._lock:
            if target == self.data:
                return 0
            if self._station is not None:
                raise GameRunning("end the game first: a game is journaled where it started")
            lock = None
            try:
                if target != self.folder:
                    lock, copied = datafolder.take(target, self.data, create)
                else:
                    copied = datafolder.copy_missing(self.data, target)
            except (datafolder.FolderError, OSError) as exc:
                raise FolderUnusable(f"data folder: {exc}") from None
            if self.data_lock is not None:
                self.data_lock.release()
            self.data, self.data_lock = target, lock
            self.journals = target / "journals"
            self.shelf = ArmyShelf(target / "armies", self.skipped)
            self.history = History(self.journals, self.skipped)
            os.environ["STATION_DATA"] = str(target)  # the card library follows (datafile.data_dir)
            log.info("data folder now %s (%d files copied)", target, copied)
            return copied

    def shelf_nodes(self) -> list[Any]:
        """Every launcher and tilt node of every army on the shelf, of every game (the rehearsal
        hub's inventory): an army that does not load is skipped."""
        from ..dice import DiceBook
        from ..rules.registry import RULESETS, make_ruleset

        nodes = []
        for game in RULESETS:
            ruleset = make_ruleset(game, DiceBook())
            for army in self.shelf.armies(game):
                try:
                    nodes += ruleset.sensor_nodes([self.shelf.load(game, army.id)])
                except (DataFileError, ValueError):
                    continue
        return nodes

    def _wire_rehearsal(self, game: str | None, armies: Sequence[Mapping[str, Any]]) -> None:
        """The rehearsal hub gets the nodes of the armies about to play (hand-built ones too)."""
        if self.rehearsal is None or not game:
            return
        from ..dice import DiceBook
        from ..rules.registry import make_ruleset

        nodes = make_ruleset(game, DiceBook()).sensor_nodes(list(armies))
        self.rehearsal.wire(nodes, lambda: set(self.hub_health().get("nodes") or []))

    @classmethod
    def around(cls, station: Station, armies: Path | None = None) -> Lobby:
        """A lobby whose game is already running (a test's or a script's station): its history is
        the folder the station journals into."""
        lobby = cls(station.journal.path.parent, armies or data_dir() / "armies")  # no hub of its own
        lobby._station = station
        return lobby

    @property
    def station(self) -> Station | None:
        return self._station

    def new_journal_path(self, game: str) -> Path:
        path = self.journals / journal_name(game)
        n = 1
        while path.exists():  # two starts in one second
            n += 1
            path = self.journals / journal_name(f"{game}-{n}")
        return path

    # -- starting and ending --------------------------------------------------------------------
    def start(
        self,
        game: str | None,
        armies: Sequence[Mapping[str, Any]] = (),
        options: Mapping[str, Any] | None = None,
        path: Path | None = None,
        terrain: Any = None,
        terrain_where: str = "terrain",
        serial_urls: tuple[str, ...] = (),
        *,
        force: bool = False,
        note: str = "",
        by: str = "lobby",
        clock_s: float | None = None,
    ) -> Station:
        """Open a game (``game`` None resumes ``path``) and start it.  Refused while another runs.
        A new game starts after the pre-game check (station/lobby/starting.py): a failed check
        needs ``force`` and a ``note``, and both are journaled.  A failure closes everything it
        opened and removes a journal that never got past its header; the error says what failed."""
        forced = self._judge_new_game(game, armies, options, force, note) if game is not None else False
        with self._lock:
            self.refuse_if_running()
            resuming = game is None
            if path is None:
                if game is None:
                    raise LobbyError("nothing to resume")
                path = self.new_journal_path(game)
            make_folders(path.parent)
            existed = path.exists() and path.stat().st_size > 0
            self._wire_rehearsal(game, armies)
            hw = self.hardware
            if self.hub is not None:
                self.hub.stop()  # the game's link takes the port
            if self.camera is not None:
                self.camera.stop()  # and the game's tracker the camera
            try:
                station = Station(
                    path,
                    game,
                    list(armies),
                    dict(options or {}),
                    serial_urls or hw.serial_urls,
                    hw.seed,
                    baud=hw.baud,
                    clock_s=clock_s,
                )
            except InUse:  # another station runs this journal or holds the port
                self._abandon(path, existed)
                raise
            except (DataFileError, InputError, JournalError, ValueError) as exc:
                self._abandon(path, existed)
                raise LobbyError(str(exc)) from None
            try:
                self.messages = []
                if terrain is not None:
                    station.game.set_terrain(terrain, by="lobby", where=terrain_where)
                if hw.camera is not None:
                    self._attach_camera(station)
                if hw.mqtt:
                    station.publish_to(hw.mqtt, hw.table or "", hw.dashboard_url)
            except Exception as exc:
                station.stop()
                self._abandon(path, existed)
                raise LobbyError(str(exc)) from None
            station.start()
            self.dice.attach(station)
            if not resuming:
                station.journal.append(Kind.PRECHECK, durable=True, checks=self.checks, forced=forced, note=note, by=by)
            self._station = station
            log.info("%s %s", "resumed" if resuming else "started", path)
        for listener in self.on_start:
            listener(station)
        return station

    def _judge_new_game(
        self, game: str, armies: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None, force: bool, note: str
    ) -> bool:
        """The start policy (starting.py) for a new game: whether it starts despite a failed check."""
        self.refuse_if_running()  # before the check: its answer does not depend on it
        check_army_count(len(armies))
        self._settle_hubs()
        checks = checks_view(self.check(game, armies, options))
        forced = judge(checks, force, note)
        self.checks = checks
        return forced

    def _abandon(self, path: Path, existed: bool) -> None:
        """A start that failed: its journal removed if it never got past its header, and the hub
        and camera watched again."""
        if not existed:
            _discard_empty(path)
        self.watch()

    def refuse_if_running(self) -> None:
        if self._station is not None:
            raise GameRunning(f"a game is already running ({self._station.journal.path.name}); end it first")

    def _settle_hubs(self) -> None:
        """Before a new game's check, the hubs' links open and given a moment to say hello, so
        the check judges the hubs as they are: ``station serve`` watches them already, ``station
        run`` and ``station demo`` open them here.  A watch already running is judged as it stands
        (an unplugged hub answers "not answering" at once, not after the wait)."""
        if self.hub is None or self.hub.running:
            return
        self.watch(required=True)
        deadline = time.monotonic() + HUB_SETTLE_S
        while time.monotonic() < deadline and not _hubs_answer(self.hub.health()):
            time.sleep(0.05)

    def _attach_camera(self, station: Station) -> None:
        from ..vision.calibration import CalibrationError, load_calibration
        from ..vision.sources import SourceError, open_source, replayed

        hw = self.hardware
        camera = str(hw.camera)
        try:
            reopen = (lambda: open_source(camera)) if camera.isdigit() else None  # a live camera comes back
            frames = replayed(lambda: open_source(camera), hw.camera_fps) if hw.camera_fps else open_source(camera)
            if hw.calibration.exists():
                station.attach_camera(frames, load_calibration(hw.calibration), reopen, hw.calibration)
            else:
                station.attach_uncalibrated_camera(frames, hw.calibration, reopen)
                self.messages.append(
                    f"No calibration at {hw.calibration}: calibrate on the dashboard at /calibrate (referee); "
                    "the camera starts tracking once it is saved"
                )
        except (CalibrationError, SourceError) as exc:
            raise LobbyError(str(exc)) from None

    def resume(self, name: str) -> Station:
        """Carry on an unfinished game from the history, after a crash or a power cut."""
        played = self.history.find(name)
        if played is None:
            raise LobbyError(f"no game {name!r} in {self.journals}")
        if played.finished:
            raise LobbyError(f"{name} ended; it can be replayed, not resumed")
        return self.start(None, path=played.path)

    def end(
        self, note: str = "", by: str = "referee", result: str | None = None, winner: str | None = None
    ) -> PlayedGame:
        """Journal the end of the running game (the referee's ``result`` and ``winner``, checked
        first: a wrong one ends nothing), stop it, and return its history entry."""
        with self._lock:
            station = self._station
            if station is None:
                raise LobbyError("no game is running")
            station.game.check_end(result, winner)  # before the hubs stop: a wrong result stops nothing
            station.stop_hubs()  # the end is the journal's last record: no heartbeat or clock after it
            station.game.end(note, by, result, winner)
            self._stop(station)
        for listener in self.on_end:
            listener(station)
        played = self.history.find(station.journal.path.name)
        assert played is not None
        return played

    def close(self) -> None:
        """Stop the running game without ending it (the station shuts down; it can be resumed),
        and let go of the hub."""
        with self._lock:
            station = self._station
            if station is not None:
                self._stop(station, watch=False)
            if self.hub is not None:
                self.hub.stop()
            if self.camera is not None:
                self.camera.stop()
            if self.rehearsal is not None:
                self.rehearsal.stop()
            self.dice.stop()
            if self.pairing is not None:
                self.pairing.stop()
            if self.data_lock is not None:
                self.data_lock.release()
        if station is not None:
            for listener in self.on_end:
                listener(station)

    def _stop(self, station: Station, watch: bool = True) -> None:
        self.dice.detach(station)
        self._station = None
        station.stop()
        if watch:
            self.watch()

    def watch(self, required: bool = False) -> None:
        """Keep the hub's link and the camera open while no game runs (``station serve``, and
        after a game), so their health shows and pairing can use them.  A port another station
        holds raises ``InUse`` when ``required`` (at start-up), else shows in the hub's health."""
        if self._station is not None:
            return
        if self.hub is not None:
            try:
                self.hub.start()
            except InUse:
                if required:
                    raise  # else the hub's health says so on the lobby page (HubWatch.refused)
        if self.camera is not None:
            self.camera.start()

    def camera_health(self) -> dict[str, Any] | None:
        if self._station is not None:
            camera: dict[str, Any] | None = self._station.health()["camera"]
            return camera
        return self.camera.health() if self.camera is not None else None

    def hub_health(self) -> dict[str, Any]:
        """The hub as the lobby shows it: the game's link while one runs, else the lobby's."""
        if self._station is not None:
            return dict(self._station.health())
        return self.hub.health() if self.hub is not None else {"state": "none", "url": None}

    def check(
        self, game: str, armies: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None = None
    ) -> list[Any]:
        """The pre-game check for these armies on this station's hub, camera and disk."""
        self._wire_rehearsal(game, armies)
        hw = self.hardware
        seen = None
        if self.camera is not None and self.camera.running and self.camera.health()["state"] == "running":
            seen = [m["id"] for m in self.camera.markers()]
        return pregame_checks(
            game,
            armies,
            options or {},
            hw.serial_urls,
            self.hub_health(),
            hw.camera,
            hw.calibration,
            self.journals,
            seen,
        )

    # -- what the lobby page shows --------------------------------------------------------------
    def unfinished(self) -> PlayedGame | None:
        running = self._station.journal.path if self._station else None
        return self.history.unfinished(running)

    def status(self) -> dict[str, Any]:
        station = self._station
        unfinished = self.unfinished()
        return {
            "running": None
            if station is None
            else {
                "journal": station.journal.path.name,
                "game": station.game.ruleset.name,
                "title": station.game.ruleset.title,
                "records": station.journal.written,
            },
            "resumable": unfinished.as_dict() if unfinished else None,
            "hardware": {
                "serial": list(self.hardware.serial_urls),
                "camera": self.hardware.camera,
                "rehearsal": self.rehearsal is not None,
            },
            "hub": self.hub_health(),
            "camera": self.camera_health(),
            "messages": list(self.messages) + self.skipped.said(),
            "pairing": self.pairing_summary(),
            "dice": self.dice.nearby(),
        }

    def current_settings(self) -> Settings:
        """What is in force: the browser's settings, or the command's flags as settings (with
        the smart dice as the settings file has them: no flag sets those)."""
        if self.settings is not None:
            return self.settings
        hw = self.hardware
        moved = str(self.data) if self.data != self.folder else None
        return Settings(
            serial=hw.serial_urls,
            camera=hw.camera,
            calibration=str(hw.calibration),
            data=moved,
            dice=self.dice.bluetooth,
            dice_pairs=dict(self.dice.pairs),
        )

    def pair_die(self, die: str, use: str) -> dict[str, str]:
        """Pair a smart die with a player ("any", or "" to leave it out), during a game too, and
        remember it in the settings file (hardware flags, if any, stay in force for this run).
        KeyError: no die of that id has been heard."""
        pairs = self.dice.pair(die, use)
        with self._lock:
            saved = replace(self.settings or load_settings(self.folder), dice_pairs=pairs)
            save_settings(self.folder, saved)
            if self.settings is not None:
                self.settings = saved
        return pairs

    def pairing_summary(self) -> dict[str, Any] | None:
        """This table's tournament pairing, each army by its name only (the page polls this)."""
        pairing = self.pairing.pairing if self.pairing else None
        if pairing is None:
            return None
        players = [
            {"name": p["name"], "id": p["id"], "army": (p["army"].get("name") or p["name"]) if p.get("army") else None}
            for p in pairing["players"]
        ]
        return {**pairing, "players": players}
