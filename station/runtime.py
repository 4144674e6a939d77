"""The running station: journal, game, hub link and the engine thread between them.

The link's reader thread journals and acknowledges lines, then drops them on a queue; the
engine thread brings the game up to each (``Game.observe``), which publishes to the bus the
dashboard streams from.  No thread on that path waits for a web client.  Whichever thread gets
to the game first (the engine, a referee's tap, the camera) applies every record journaled
before its own, in journal order: the live game is always the fold of the journal as written.
"""

from __future__ import annotations

import logging
import queue
import random
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .bus import Bus
from .devices.link import BAUD, HubIds, HubLink, hubs_health
from .game import Game
from .journal import RESERVE_BYTES, Journal
from .records import Kind
from .rules.text import with_messages
from .rules.view import model_names
from .tableview import TableView

if TYPE_CHECKING:  # the camera's modules load only when a camera is attached
    from .devices.dice.source import DiceSource
    from .vision.calibration import Calibration
    from .vision.guided import CalibrationDesk
    from .vision.service import CameraService
    from .vision.sources import FrameGrabber

Frames = Iterator[np.ndarray]

RECENT_FOR_TOURNAMENT = (
    200  # rulings looked at for the tournament screen's summary (and the count of every pending one)
)

log = logging.getLogger(__name__)


class Station:
    def __init__(
        self,
        journal_path: str | Path,
        game: str | None = None,
        armies: Sequence[Mapping[str, Any]] = (),
        options: Mapping[str, Any] | None = None,
        serial_url: str | Sequence[str] | None = None,
        seed: int | None = None,
        group_window: float = 0.0,
        journal_reserve: int = RESERVE_BYTES,
        baud: int = BAUD,
        clock_s: float | None = None,
    ) -> None:
        self.bus: Bus[dict[str, Any]] = Bus()
        self.journal = Journal(journal_path, group_window=group_window, reserve_bytes=journal_reserve)
        self._inbox: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
        urls = [serial_url] if isinstance(serial_url, str) else list(serial_url or ())
        if len(set(urls)) != len(urls):
            raise ValueError(f"a hub port is given twice: {', '.join(urls)}")
        # Each hub its own link and reader thread: one unplugged, resetting or flooding never
        # holds up another.  They share the journal (its appends are locked) and the engine's inbox.
        ids = HubIds()  # one game's hub ids, shared: a twin or a changed id is told apart
        self.links = [
            HubLink(url, self.journal, self._inbox.put, baud=baud, only_hub=len(urls) == 1, ids=ids) for url in urls
        ]
        try:
            for link in self.links:
                link.claim()  # another station's port: refused before the game's first record
            self.game = Game(
                self.journal, game, armies, options, rng=random.Random(seed), publish=self.bus.publish, clock_s=clock_s
            )
        except Exception:
            for link in self.links:
                link.stop()
            self.journal.close()
            raise
        if self.links:
            heard = [
                r for r in self.journal.records if r["kind"] == Kind.RX and r.get("verdict") in ("event", "control")
            ]
            for link in self.links:
                link.resume(heard)
        # a game played with no launcher or tilt node (Alpha Strike) needs no hub: "no hub" is no warning
        self.hub_needed = bool(self.game.ruleset.sensor_nodes(self.game.header["armies"]))
        self._engine = threading.Thread(target=self._engine_loop, name="engine", daemon=True)
        self.engine_errors = 0
        self.camera: CameraService | None = None
        self.publisher: Any = None  # station.publish.MqttPublisher, when the table is on a broker
        self.dice: DiceSource | None = None  # the smart dice, when the station has them
        self.calibration_desk: CalibrationDesk | None = None
        self._grabber: FrameGrabber | None = None
        self.table_view = TableView(self.game, self.calibration_residual_mm)

    def attach_camera(
        self,
        frames: Frames,
        calibration: Calibration,
        reopen: Callable[[], Frames] | None = None,
        calibration_path: Path | str | None = None,
    ) -> None:
        """Track the table from ``frames`` with ``calibration`` (started with the station);
        ``reopen`` gives fresh frames after the camera was lost (a live camera, not a recording).
        The dashboard's guided calibration can calibrate again over the same camera, saving to
        ``calibration_path``."""
        from .vision.service import CameraService

        ruleset = self.game.ruleset
        specs = ruleset.marker_specs(self.game.header["armies"])
        if not specs:
            log.warning("no model in the army files has a camera marker; the camera will see only anchors")
        camera = CameraService(frames, calibration, self.game, specs, ruleset.mm_per_unit, reopen=reopen)
        self.camera = camera
        if calibration_path is not None:
            self.calibration_desk = self._desk(
                camera.latest_frame, calibration_path, camera.set_calibration, calibration
            )

    def attach_uncalibrated_camera(
        self, frames: Frames, calibration_path: Path | str, reopen: Callable[[], Frames] | None = None
    ) -> None:
        """A camera with no table calibration yet: the dashboard's guided calibration sees its
        frames, and once a calibration is saved the camera starts tracking with it."""
        from .vision.sources import FrameGrabber

        grabber = FrameGrabber(frames)
        self._grabber = grabber

        def start_tracking(calibration: Calibration) -> None:
            self.attach_camera(grabber.hand_over(), calibration, reopen)
            camera, desk = self.camera, self.calibration_desk
            assert camera is not None and desk is not None  # both made just above, and never unset
            desk.latest_frame = camera.latest_frame
            desk.on_saved = camera.set_calibration
            camera.start()

        self.calibration_desk = self._desk(grabber.latest_frame, calibration_path, start_tracking, None)

    @staticmethod
    def _desk(
        latest_frame: Callable[[], np.ndarray | None],
        path: Path | str,
        on_saved: Callable[[Calibration], None],
        calibration: Calibration | None,
    ) -> CalibrationDesk:
        from .vision.calibration import default_anchors
        from .vision.guided import CalibrationDesk

        table_mm: tuple[float, float] = (1219.2, 1219.2)
        if calibration is not None and calibration.table_mm:
            table_mm = (float(calibration.table_mm[0]), float(calibration.table_mm[1]))
        anchors = calibration.anchors if calibration is not None and calibration.anchors else default_anchors(table_mm)
        return CalibrationDesk(latest_frame, anchors=anchors, table_mm=table_mm, out_path=Path(path), on_saved=on_saved)

    def attach_dice(self, dice: DiceSource) -> None:
        """The players' smart dice roll into this game (``Game.table_die``) until it stops."""
        self.dice = dice
        dice.on_roll = self.game.table_die

    def detach_dice(self) -> None:
        from .devices.dice.source import NO_GAME

        if self.dice is not None and self.dice.on_roll == self.game.table_die:
            self.dice.on_roll = NO_GAME
        self.dice = None

    @property
    def link(self) -> HubLink | None:
        """The first hub's link (the only one, on most tables)."""
        return self.links[0] if self.links else None

    def start(self) -> Station:
        self._engine.start()
        for link in self.links:
            link.start()
        if self.camera:
            self.camera.start()
        elif self._grabber:
            self._grabber.start()
        return self

    def _engine_loop(self) -> None:
        while True:
            record = self._inbox.get()
            if record is None:
                return
            try:
                self.game.observe(record)
            except Exception:  # a full disk or a bug must not stop the station or lose the journal
                self.engine_errors += 1
                log.exception("engine failed on journal record %s", record.get("seq"))

    def calibration_residual_mm(self) -> float:
        """The calibration's worst anchor residual: each base's position is this uncertain."""
        calibration = ((self.camera.health() if self.camera else None) or {}).get("calibration") or {}
        return float(calibration.get("worst_anchor_mm") or 1.0)

    def health(self) -> dict[str, Any]:
        return {
            **hubs_health([link.snapshot() for link in self.links]),
            "hub_needed": self.hub_needed,
            "engine_errors": self.engine_errors + self.game.errors,
            "engine_backlog": self.game.backlog,
            "camera": self.camera.health() if self.camera else None,
            "journal": self.journal.health(),
            "mqtt": self.publisher.health() if self.publisher else None,
            "dice": with_messages(self.dice.health()) if self.dice else None,
        }

    def publish_to(self, broker: str, table: str, dashboard_url: str = "") -> None:
        """Publish this game for the tournament screen (station/publish.py); it runs beside the
        game and never holds it up."""
        from .publish import BrokerUrl, MqttPublisher

        self.publisher = MqttPublisher(
            BrokerUrl.parse(broker), table, self.journal, self.table_summary, dashboard_url
        ).start()

    def table_summary(self) -> dict[str, Any]:
        """What the tournament screen shows of this table: the game, its round and whose turn it
        is, the rulings waiting for a judge (with their messages, to show in Russian too) and
        the winner."""
        snapshot = self.game.snapshot(RECENT_FOR_TOURNAMENT)
        state = snapshot["state"]
        waiting = [r for r in snapshot["waiting"] + snapshot["rulings"] if r["status"] == "pending"]
        ended = self.game.ended
        return {
            "game": snapshot["game"],
            "title": snapshot["title"],
            "round": state.get("round"),
            "active_player": None if ended else state.get("active_player"),  # nobody is to act in a game over
            "players": state.get("players", []),
            "winner": ended["winner"] if ended else state.get("winner"),
            "ended": {"result": ended["result"], "winner": ended["winner"]} if ended else None,
            "waiting": len(waiting) + snapshot["older_pending"],
            "rulings": [{k: r[k] for k in ("id", "text", "message", "section")} for r in waiting[-10:]],
            "recent": [{k: r[k] for k in ("id", "text", "message", "section")} for r in snapshot["rulings"][-3:]],
            "records": snapshot["records"],
            "clocks": snapshot["clocks"],
            "names": model_names(state),  # the army's names for the ids in the rulings' messages
        }

    def stop_hubs(self) -> None:
        """Close every hub link (the game takes no more hub lines); the rest runs on."""
        for link in self.links:
            link.stop()

    def stop(self) -> None:
        self.detach_dice()  # before the journal closes: a roll after this is shown, not journaled
        if self.publisher is not None:
            self.publisher.stop(between_games=self.game.ended is not None)
        if self.camera:
            self.camera.stop()
        elif self._grabber:
            self._grabber.hand_over()
        self.stop_hubs()
        self._inbox.put(None)
        if self._engine.is_alive():
            self._engine.join(timeout=5)
        self.journal.close()
