"""This table's pairing in a tournament, heard from the club's broker: the lobby shows who plays
here next, in which game, with their armies, and starts that game with one tap.

The tournament screen publishes a pairing on ``station/<table>/pairing``, retained, when its
judge pairs a round (station/tournament/subscriber.py): a station that starts or reconnects
later is handed the latest at once, and an empty message clears it.  Each player's army comes
whole, as the judge uploaded it once (station/tournament/roster.py), so a player paired at
another table next round needs nothing built again there.

Anyone with the broker's credentials could publish here, so a pairing is checked at the
boundary like any message (``check_pairing``); an army is checked again by its game's loader
when the game starts, as an uploaded army always is.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import uuid
from collections.abc import Callable
from typing import Any

from . import untrusted_json
from .playerclock import MOST_CLOCK_MINUTES
from .publish import CHECK_S, BrokerUrl, check_table_id, client, topic
from .rules.registry import RULESETS

log = logging.getLogger(__name__)

MOST_BYTES = 4 * 1024 * 1024  # two armies, each a few hundred kB at most


def check_pairing(payload: bytes) -> dict[str, Any] | None:
    """The pairing in ``payload`` (None: cleared); ValueError saying what is wrong."""
    if not payload:
        return None
    if len(payload) > MOST_BYTES:
        raise ValueError(f"{len(payload)} bytes, more than {MOST_BYTES}")
    try:
        body = untrusted_json.loads(payload)
    except (ValueError, untrusted_json.TooDeep) as exc:
        raise ValueError(f"not JSON: {str(exc)[:100]}") from None
    if not isinstance(body, dict):
        raise ValueError("a pairing is a JSON object")
    number, game, players = body.get("round"), body.get("game"), body.get("players")
    if type(number) is not int or not 1 <= number <= 10_000:
        raise ValueError("round: a whole number from 1")
    if game not in RULESETS:
        raise ValueError(f"game: one of {', '.join(sorted(RULESETS))}")
    if not isinstance(players, list) or not 1 <= len(players) <= 2:
        raise ValueError("players: a list of one or two")
    for player in players:
        if not isinstance(player, dict) or not _text(player.get("name"), 64) or not _text(player.get("id"), 32):
            raise ValueError("each player: a name (1-64 characters) and an id (1-32)")
        if player.get("army") is not None and not isinstance(player["army"], dict):
            raise ValueError("a player's army: a JSON object or null")
    first, clock = body.get("first"), body.get("clock_minutes")
    if first is not None and first not in [p["name"] for p in players]:
        raise ValueError("first: one of the players")
    if clock is not None and (type(clock) not in (int, float) or not 1 <= clock <= MOST_CLOCK_MINUTES):
        raise ValueError(f"clock_minutes: from 1 to {MOST_CLOCK_MINUTES}, or null")
    return {"round": number, "game": game, "players": players, "first": first, "clock_minutes": clock}


def _text(value: Any, most: int) -> bool:
    return isinstance(value, str) and 0 < len(value) <= most


class PairingListener:
    """The latest pairing for ``table``, kept in memory from a retained message.  Its own MQTT
    client, running between games as well as during them: the lobby reads ``pairing``.

    It is also the station's presence between games: connected with no game running
    (``playing()`` False), it says ``idle`` on the table's health topic, so the tournament lists
    the table (and pairs a round onto it) before its first game; its last will says ``offline``,
    so a station unplugged between games is shown offline.  While a game runs, the game's
    publisher (publish.py) owns the health topic."""

    def __init__(
        self, broker: BrokerUrl, table: str, playing: Callable[[], bool] = lambda: False, identity: str = ""
    ) -> None:
        self.table = check_table_id(table)
        self.playing, self.identity = playing, identity or f"{socket.gethostname()}:lobby"
        self._pairing: dict[str, Any] | None = None
        self._health: dict[str, Any] | None = None  # the table's health as the broker last gave it
        self.refused: str | None = None  # why the last message was not a pairing
        self.connected = threading.Event()
        self._lock = threading.Lock()
        self._client = client(f"station-{table}-pairing-{uuid.uuid4().hex[:8]}", broker)
        offline = json.dumps({"state": "offline", "table": table, "station": self.identity})
        self._client.will_set(topic(table, "health"), offline, qos=1, retain=True)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = lambda *args: self.connected.clear()
        self._client.on_message = self._on_message
        self.broker = broker

    def start(self) -> PairingListener:
        self._client.connect_async(self.broker.host, self.broker.port, keepalive=10)
        self._client.loop_start()
        return self

    def stop(self) -> None:
        """The station shuts down: offline (a clean disconnect sends no last will)."""
        offline = json.dumps({"state": "offline", "table": self.table, "station": self.identity})
        if self.connected.is_set() and not self.playing():
            self._client.publish(topic(self.table, "health"), offline, qos=1, retain=True).wait_for_publish(2)
        self._client.disconnect()
        self._client.loop_stop()

    @property
    def pairing(self) -> dict[str, Any] | None:
        with self._lock:
            return self._pairing

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.error("MQTT %s refused the pairing listener of table %s: %s", self.broker, self.table, reason)
            return
        self.connected.set()
        self._health = None
        client.subscribe([(topic(self.table, "pairing"), 1), (topic(self.table, "health"), 1)])
        timer = threading.Timer(CHECK_S, self._say_idle)  # once the broker has handed over the retained health
        timer.daemon = True
        timer.start()

    def _say_idle(self) -> None:
        """Between games: the table is here, waiting for its next game.  Never over another
        station's ``online`` under this table id: that station's game goes on, and its own
        publisher reports the clash (publish.py)."""
        health = self._health or {}
        if self.playing() or (health.get("state") == "online" and health.get("station") != self.identity):
            return
        idle = json.dumps({"state": "idle", "table": self.table, "station": self.identity})
        self._client.publish(topic(self.table, "health"), idle, qos=1, retain=True)

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        """Nothing raises out of paho's callback: a bad message is logged and kept out."""
        if message.topic == topic(self.table, "health"):
            try:
                said = untrusted_json.loads(message.payload) if message.payload else None
            except (ValueError, untrusted_json.TooDeep):
                said = None
            self._health = said if isinstance(said, dict) else None
            return
        try:
            pairing = check_pairing(message.payload)
        except ValueError as exc:
            self.refused = str(exc)
            log.warning("MQTT: a pairing for table %s set aside: %s", self.table, exc)
            return
        with self._lock:
            self._pairing, self.refused = pairing, None
