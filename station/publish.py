"""A table's game on the club's MQTT broker, for the tournament screen (docs/tournament.md).

Topics, for table ``T``:

* ``station/T/records``: every journal record, compact JSON with its journal's name
  (``{"journal": ..., "record": {...}}``), QoS 1, in order.  The tournament keeps each once, by
  (table, journal, seq): a table plays many games, and each journal counts from 1.
* ``station/T/state``: the live summary (game, round, whose turn, the rulings waiting for a
  judge, the winner), retained, so a tournament that starts late sees every table at once.
* ``station/T/calls`` (read): the tournament's word that a judge handled the table's calls,
  ``{"journal", "handled": seq}``, retained.
* ``station/T/health``: ``online`` with the station's identity and its dashboard's address,
  retained; ``idle`` when the referee has ended the game and the station waits for the next;
  the broker publishes the last will, ``offline``, when the station drops away.

Publishing is resumable and never holds the game up.  The publisher runs on its own thread and
reads the journal's file, never the game's memory, so a broker that is down for an hour costs
nothing but the hour: the records wait in the journal.  It sends only what is on disk (fsync'd),
at most ``WINDOW`` records unacknowledged at a time, and remembers the last record the broker
acknowledged in ``<journal>.mqtt.json`` (replaced atomically).  After a reconnect, or a restart,
it sends again from there; a record sent twice is one the tournament already has.

The client is paho-mqtt (the Eclipse project's, the one Home Assistant and OctoPrint's MQTT
plugin use), an optional extra: ``pip install station[tournament]``.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from . import untrusted_json
from .journal import Journal

log = logging.getLogger(__name__)

WINDOW = 200  # records sent and not yet acknowledged by the broker
STATE_EVERY_S = 0.5  # the live summary at most this often
SAVE_EVERY_S = 0.5  # how often the acknowledged mark is written down
CHECK_S = 0.5  # after subscribing, how long the broker has to hand over the table's retained health
TOPIC_ROOT = "station"
RESEND_AFTER_S = 15.0  # the tournament this long behind what the broker took: send the rest again
STALLED_S = 10.0  # records waiting this long with none acknowledged: not publishing, whatever the socket says


class MqttUnavailable(RuntimeError):
    """``--mqtt`` was given but paho-mqtt is not installed."""


@dataclass(frozen=True)
class BrokerUrl:
    """``mqtt://user:pass@host:1883`` (``mqtts://`` for TLS on 8883)."""

    host: str
    port: int
    username: str | None = None
    password: str | None = None
    tls: bool = False

    @classmethod
    def parse(cls, url: str) -> BrokerUrl:
        parts = urlsplit(url)
        if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
            raise ValueError(f"--mqtt {url!r}: give mqtt://[user:password@]host[:port] (or mqtts:// for TLS)")
        tls = parts.scheme == "mqtts"
        return cls(
            parts.hostname,
            parts.port or (8883 if tls else 1883),
            unquote(parts.username) if parts.username else None,
            unquote(parts.password) if parts.password else None,
            tls,
        )

    def __str__(self) -> str:  # never the password
        who = f"{self.username}@" if self.username else ""
        return f"{'mqtts' if self.tls else 'mqtt'}://{who}{self.host}:{self.port}"


def topic(table: str, what: str) -> str:
    return f"{TOPIC_ROOT}/{table}/{what}"


def check_table_id(table: str) -> str:
    """A table id is one MQTT topic level: letters, digits, ``-`` and ``_``."""
    if not table or len(table) > 32 or not all(c.isalnum() or c in "-_" for c in table):
        raise ValueError(f"--table {table!r}: 1-32 letters, digits, '-' or '_' (it is part of the MQTT topic)")
    return table


def client(client_id: str, broker: BrokerUrl, clean: bool = True) -> Any:
    """A paho-mqtt client for ``broker`` (MQTT 3.1.1), or MqttUnavailable."""
    try:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion
    except ImportError as exc:
        raise MqttUnavailable("MQTT needs paho-mqtt: pip install 'station[tournament]'") from exc
    made = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean, protocol=mqtt.MQTTv311)
    if broker.username:
        made.username_pw_set(broker.username, broker.password)
    if broker.tls:
        made.tls_set()
    made.reconnect_delay_set(min_delay=1, max_delay=10)
    return made


class MqttPublisher:
    """One table's journal, state and health on the broker (see the module's docstring)."""

    def __init__(
        self,
        broker: BrokerUrl,
        table: str,
        journal: Journal,
        summary: Callable[[], Mapping[str, Any]],
        dashboard_url: str = "",
    ) -> None:
        self.broker, self.table, self.journal, self.summary = broker, check_table_id(table), journal, summary
        self.dashboard_url = dashboard_url
        self.identity = f"{socket.gethostname()}:{dashboard_url or journal.path.resolve()}"
        self.mark_path = journal.path.with_name(journal.path.name + ".mqtt.json")  # beside it, never inside
        self.confirmed = self._load_mark()  # the last record the tournament has committed (in a row)
        self.acked = self.confirmed  # the last the broker has acknowledged (in a row): flow control only
        self._sent = self.confirmed  # the last seq handed to the client
        self._confirmed_at = time.monotonic()
        self._tournament_seen = False  # a confirmation came: a tournament is there to resend for
        self._in_flight: OrderedDict[int, bool] = OrderedDict()  # seq -> acknowledged, in send order
        self._mids: dict[int, int] = {}  # paho's message id -> seq
        self._early: set[int] = set()  # ids acknowledged before publish() returned
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._connected = False
        self.collision: str | None = None
        self.calls_handled = 0  # the last judge call of this journal a judge marked handled
        self._last_state = ""
        self._state_at = 0.0
        self._state_records = -1  # the journal's length when the summary was last made
        self._client = client(f"station-{table}-{uuid.uuid4().hex[:8]}", broker)  # unique: a shared id is kicked off
        offline = json.dumps({"state": "offline", "table": table, "station": self.identity})
        self._client.will_set(topic(table, "health"), offline, qos=1, retain=True)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_publish = self._on_publish
        self._client.on_message = self._on_message
        self._client.on_subscribe = self._on_subscribe
        self._checked, self._subscribed_at = False, 0.0
        self._progress_at = time.monotonic()  # the last acknowledgement, or the last time nothing waited
        self.last_error: str | None = None  # what last went wrong in publishing, for health()
        self._thread = threading.Thread(target=self._run, name=f"mqtt-{table}", daemon=True)
        journal.on_synced.append(self._wake.set)  # a record on disk goes out at once

    # -- the mark of what the broker has -----------------------------------------------------------
    def _load_mark(self) -> int:
        try:
            mark = json.loads(self.mark_path.read_text(encoding="utf-8"))
            return int(mark["confirmed"]) if mark.get("table") == self.table else 0
        except (OSError, ValueError, KeyError, TypeError):
            return 0

    def _save_mark(self) -> None:
        temporary = self.mark_path.with_name(self.mark_path.name + ".tmp")
        said = {"table": self.table, "confirmed": self.confirmed, "broker": str(self.broker)}
        temporary.write_text(json.dumps(said))
        os.replace(temporary, self.mark_path)

    # -- paho's callbacks (its network thread) -----------------------------------------------------
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.error("MQTT %s refused table %s: %s", self.broker, self.table, reason)
            return
        with self._lock:
            self._connected = True
            self._sent = self.acked = self.confirmed  # what the tournament has not kept is sent again
            self._in_flight.clear()
            self._mids.clear()
            self._early.clear()
            self._last_state, self._state_records = "", -1
            self._checked, self._subscribed_at = False, 0.0
        # whoever holds this table id answers first; the tournament says what it has kept
        client.subscribe([(topic(self.table, what), 1) for what in ("health", "ack", "calls")])

    def _on_subscribe(self, client: Any, userdata: Any, mid: int, reasons: Any, properties: Any) -> None:
        self._subscribed_at = time.monotonic()
        self._wake.set()

    def _check_table_id(self) -> None:
        """Once the broker has had time to hand over the table's retained health: publish as
        this table, or, if another station holds the id, leave quietly (a clean disconnect, so
        no last will marks the other station offline)."""
        if self._checked or not self._connected or not self._subscribed_at:
            return
        if time.monotonic() - self._subscribed_at < CHECK_S:
            self._wake.set()
            return
        if self.collision:
            self._client.disconnect()
            return
        self._checked = True
        self._publish_health("online")
        log.info("MQTT: table %s publishing to %s from record %d", self.table, self.broker, self.confirmed + 1)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        with self._lock:
            self._connected = False
        if not self._stop.is_set():
            log.warning("MQTT %s lost (%s); the journal keeps the records until it is back", self.broker, reason)

    def _on_publish(self, client: Any, userdata: Any, mid: int, reason: Any, properties: Any) -> None:
        with self._lock:
            seq = self._mids.pop(mid, None)
            if seq is None:  # acknowledged before publish() returned its id: settled there
                self._early.add(mid)
                return
            self._settle(seq)
        self._wake.set()

    def _settle(self, seq: int) -> None:
        """Record ``seq`` acknowledged; the mark moves over every acknowledged one in a row."""
        if seq not in self._in_flight:
            return
        self._in_flight[seq] = True
        for sent, done in list(self._in_flight.items()):
            if not done:
                break
            del self._in_flight[sent]
            self.acked = sent
            self._progress_at = time.monotonic()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        if message.topic == topic(self.table, "ack"):
            self._on_ack(message.payload)
        elif message.topic == topic(self.table, "calls"):
            self._on_calls(message.payload)
        else:
            self._on_health(client, userdata, message)

    def _on_ack(self, payload: bytes) -> None:
        """The tournament's word for what it has committed of this journal (``{"journal",
        "seq"}``, every few seconds): the mark moves to it, and if it stays behind what the
        broker took for ``RESEND_AFTER_S`` (a broker that crashed before saving them), the rest is
        sent again.  Anything else here is ignored."""
        try:
            said = untrusted_json.loads(payload)
        except (ValueError, untrusted_json.TooDeep):
            return
        if not isinstance(said, dict) or said.get("journal") != self.journal.path.name:
            return
        seq = said.get("seq")
        if type(seq) is not int or seq < 0 or seq > self.journal.written:
            return
        with self._lock:
            self._tournament_seen = True
            if seq > self.confirmed:
                self.confirmed, self._confirmed_at = seq, time.monotonic()
            elif seq < self._sent and not self._in_flight and time.monotonic() - self._confirmed_at > RESEND_AFTER_S:
                log.warning("MQTT: the tournament has records to %d of %d; sending the rest again", seq, self._sent)
                self._sent = self.acked = self.confirmed = seq
                self._confirmed_at = time.monotonic()
        self._wake.set()

    def _on_calls(self, payload: bytes) -> None:
        """The tournament's word that a judge handled this table's calls up to a seq
        (``{"journal", "handled"}``): the dashboard tells the referee the judge is coming."""
        try:
            said = untrusted_json.loads(payload) if payload else None
        except (ValueError, untrusted_json.TooDeep):
            return
        if not isinstance(said, dict) or said.get("journal") != self.journal.path.name:
            return
        seq = said.get("handled")
        if type(seq) is int and 0 < seq <= self.journal.written:
            with self._lock:
                self.calls_handled = max(self.calls_handled, seq)

    def _on_health(self, client: Any, userdata: Any, message: Any) -> None:
        """Another station claiming this table id: reported, and this one stops publishing
        records under it, so the tournament never mixes two games on one table.  Anyone can
        publish here: whatever is not another station's health is ignored, and nothing raises
        out of paho's callback (that stopped its loop, and so the records)."""
        try:
            said = untrusted_json.loads(message.payload)
        except (ValueError, untrusted_json.TooDeep):
            return
        if not isinstance(said, dict):
            return
        other = said.get("station")
        if said.get("state") != "online" or not isinstance(other, str) or other == self.identity or self.collision:
            return
        if message.retain:  # it was there first: this station is the one to rename
            self.collision = f"table id {self.table!r} is also used by {other}; give this station another --table"
            log.error("MQTT: %s", self.collision)
        else:
            log.warning("MQTT: %s also claims table id %r; it will see this station and stop", other, self.table)

    # -- the publishing thread -----------------------------------------------------------------------
    def start(self) -> MqttPublisher:
        self._client.connect_async(self.broker.host, self.broker.port, keepalive=10)
        self._client.loop_start()
        self._thread.start()
        return self

    def _run(self) -> None:
        saved_at = 0.0
        while not self._stop.is_set():
            self._wake.wait(0.2)
            self._wake.clear()
            try:
                self._check_table_id()
                self._send_records()
                self._send_state()
            except Exception as exc:  # the game goes on whatever happens here; say what it was
                log.exception("MQTT publisher for table %s", self.table)
                self.last_error = f"{type(exc).__name__}: {exc}"
                time.sleep(1.0)
            if time.monotonic() - saved_at >= SAVE_EVERY_S:
                self._save_mark()
                saved_at = time.monotonic()

    def _send_records(self) -> None:
        with self._lock:
            if not self._connected or not self._checked:
                return
            room, after = WINDOW - len(self._in_flight), self._sent
        if room <= 0:
            return
        durable = self.journal.synced
        for record in self.journal.read_since(after, limit=room):
            if record["seq"] > durable:
                break  # only what is on disk: a record lost to a power cut was never published
            line = json.dumps(
                {"journal": self.journal.path.name, "record": record}, separators=(",", ":"), ensure_ascii=False
            )
            with self._lock:
                if not self._connected:
                    return
                self._in_flight[record["seq"]] = False
                self._sent = record["seq"]
            # never under our lock: paho calls _on_publish holding its own, which would deadlock
            info = self._client.publish(topic(self.table, "records"), line, qos=1)
            with self._lock:
                if info.mid in self._early:
                    self._early.discard(info.mid)
                    self._settle(record["seq"])
                else:
                    self._mids[info.mid] = record["seq"]

    def _send_state(self, now: bool = False) -> None:
        """The live summary, at most every ``STATE_EVERY_S`` (``now``: the last one, at a stop)."""
        if not self._connected or not self._checked or (not now and time.monotonic() - self._state_at < STATE_EVERY_S):
            return
        records = self.journal.written
        if records == self._state_records:
            return  # every change to a game is a record: nothing new, no summary to make
        self._state_records = records
        state = json.dumps(
            {**self.summary(), "table": self.table, "dashboard": self.dashboard_url, "journal": self.journal.path.name}
        )
        if state != self._last_state:
            self._client.publish(topic(self.table, "state"), state, qos=1, retain=True)
            self._last_state, self._state_at = state, time.monotonic()

    def _publish_health(self, state: str) -> Any:
        body = {"state": state, "table": self.table, "station": self.identity, "dashboard": self.dashboard_url}
        return self._client.publish(topic(self.table, "health"), json.dumps(body), qos=1, retain=True)

    def health(self) -> dict[str, Any]:
        """For the station's own health: where it publishes, how far the broker has it."""
        with self._lock:
            behind = max(0, self.journal.synced - self.acked)
            if not behind:
                self._progress_at = time.monotonic()
            stalled = time.monotonic() - self._progress_at
            return {
                "broker": str(self.broker),
                "table": self.table,
                "connected": self._connected,
                # records go out and come back acknowledged: not only "the socket is open"
                "publishing": self._connected and self._checked and stalled < STALLED_S,
                "acked": self.acked,
                "confirmed": self.confirmed if self._tournament_seen else None,
                "calls_handled": self.calls_handled,
                "behind": max(0, self.journal.written - self.acked),
                "stalled_s": round(stalled, 1) if behind else 0.0,
                "error": self.collision or self.last_error,
            }

    def stop(self, between_games: bool = False) -> None:
        """Send what the broker has not yet had (a few seconds at most) and the last summary, say
        ``idle`` (``between_games``: the referee ended the game and the station stays up, so the
        tournament's card says so, not "offline") or ``offline``, go."""
        deadline = time.monotonic() + 3.0
        while self._connected and self.acked < self.journal.synced and time.monotonic() < deadline:
            self._wake.set()
            time.sleep(0.05)
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=5)
        if self._connected and self._checked:
            self._send_state(now=True)
            self._publish_health("idle" if between_games else "offline").wait_for_publish(timeout=2)
        self._client.disconnect()
        self._client.loop_stop()
        self._save_mark()
