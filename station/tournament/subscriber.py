"""Everything the tables publish, into the store (station/publish.py says what they publish).

The subscription is a persistent MQTT session (a fixed client id, clean session off), so while
the tournament screen is down the broker keeps its records.  Acknowledgement is manual: paho's
network thread only queues each message, and one worker takes them in order and acknowledges
each once its fate is committed:

* a message that is not what a station sends (messages.py) is set aside in the store's rejects
  with its reason, counted, and acknowledged: seen once, never again;
* a storage error (the database locked by another program, read-only, its disk full) is not the
  message's fault: it stays unacknowledged and is tried again with back-off (0.1 s doubling to
  5 s); the screen and ``health()`` say so, and the tournament goes on by itself once the cause
  is gone, taking what waited in order.

Nothing a client publishes can raise out of a paho callback, so its loop never stops.
"""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
import threading
import time
from typing import Any

from ..publish import TOPIC_ROOT, BrokerUrl, client
from .messages import Rejected, check
from .store import SetAside, Store, Taken

log = logging.getLogger(__name__)

FIRST_RETRY_S, LAST_RETRY_S = 0.1, 5.0
CONFIRM_EVERY_S = 2.0  # how often a table is told what is newly kept (sooner when the queue empties)
BATCH = 200  # messages kept in one commit at most (the broker sends about 20 unacknowledged)
CONFIRM_ALL_S = 5.0  # every table's mark again, so a table whose records a broker lost resends them


class StorageError(RuntimeError):
    """The store could not commit (locked, read-only, a full disk): not the message's fault."""


def _storage_fault(exc: Exception) -> bool:
    """Locked, read-only, full, or a damaged file; not a message that breaks a constraint or
    carries what SQLite cannot bind (those are the message's, and go aside)."""
    return isinstance(exc, sqlite3.OperationalError | OSError) or type(exc) is sqlite3.DatabaseError


class Subscriber:
    def __init__(self, broker: BrokerUrl, store: Store, client_id: str = "station-tournament") -> None:
        self.broker, self.store = broker, store
        self.connected = threading.Event()
        self.failing: str | None = None  # the storage error being waited out, or None
        self.taken = 0  # messages settled since start (kept or set aside)
        self._confirmed: dict[str, tuple[str, int]] = {}  # what each table was last told
        self._all_confirmed_at = 0.0
        self._inbox: queue.Queue[tuple[str, bytes, int, int] | tuple[()] | None] = queue.Queue()
        self._worker = threading.Thread(target=self._work, name="tournament-store", daemon=True)
        self._stopping = threading.Event()
        self._client = client(client_id, broker, clean=False)
        self._client.manual_ack_set(True)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message

    def start(self) -> Subscriber:
        self._worker.start()
        self._client.connect_async(self.broker.host, self.broker.port, keepalive=10)
        self._client.loop_start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._inbox.put(None)
        self._worker.join(timeout=5)
        self._client.disconnect()
        self._client.loop_stop()

    def tell_table(self, table: str, what: str, body: dict[str, Any] | None) -> None:
        """A retained message to a table (``pairing``: station/pairing.py); None clears it."""
        payload = json.dumps(body, ensure_ascii=False).encode() if body is not None else b""
        self._client.publish(f"{TOPIC_ROOT}/{table}/{what}", payload, qos=1, retain=True)

    def health(self) -> dict[str, Any]:
        """For the screen: the broker's link, and whether records are being taken now."""
        return {
            "broker": self.connected.is_set(),
            "taking": self.connected.is_set() and self.failing is None,
            "error": self.failing,
            "waiting": self._inbox.qsize(),
        }

    # -- paho's network thread: queue, nothing else ----------------------------------------------------
    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        if reason.is_failure:
            log.error("MQTT %s refused the tournament: %s", self.broker, reason)
            return
        client.subscribe([(f"{TOPIC_ROOT}/+/records", 1), (f"{TOPIC_ROOT}/+/state", 1), (f"{TOPIC_ROOT}/+/health", 1)])
        self.connected.set()
        log.info("tournament: subscribed on %s", self.broker)

    def _on_disconnect(self, client: Any, userdata: Any, flags: Any, reason: Any, properties: Any) -> None:
        self.connected.clear()

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        self._inbox.put((str(message.topic), bytes(message.payload), int(message.mid), int(message.qos)))

    # -- the worker: in order, a batch at a time -----------------------------------------------------
    def _work(self) -> None:
        confirmed_at = 0.0
        while not self._stopping.is_set():
            try:
                first = self._inbox.get(timeout=CONFIRM_EVERY_S)
            except queue.Empty:
                first = ()
            if first is None:
                return
            batch: list[Any] = [first] if first else []
            while first and len(batch) < BATCH:  # whatever else has come meanwhile, in one commit
                try:
                    more = self._inbox.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._inbox.put(None)
                    break
                batch.append(more)
            if batch:
                self._settle(batch)
            elapsed = time.monotonic() - confirmed_at
            if elapsed >= CONFIRM_EVERY_S or (self._inbox.empty() and elapsed >= CONFIRM_EVERY_S / 4):
                confirmed_at = time.monotonic()
                self._confirm()

    def _settle(self, batch: list[Any]) -> None:
        """Keep a batch (retrying a storage error with back-off until it is gone), then
        acknowledge every message of it to the broker."""
        wait = FIRST_RETRY_S
        while not self._stopping.is_set():
            try:
                self.take_all([(topic, payload) for topic, payload, _, _ in batch])
            except StorageError as exc:  # not the messages' fault: keep them, try again
                if self.failing is None:
                    log.error("tournament: cannot store (%s); retrying, nothing is acknowledged", exc)
                self.failing = f"the database: {exc}"
                self._stopping.wait(wait)
                wait = min(wait * 2, LAST_RETRY_S)
                continue
            if self.failing is not None:
                log.info("tournament: storing again")
                self.failing = None
            for _, _, mid, qos in batch:
                if qos:
                    self._client.ack(mid, qos)
            self.taken += len(batch)
            return

    def _confirm(self) -> None:
        """Tell each table what the tournament has committed of its newest journal: a table's
        mark moves only on this, not on the broker's acknowledgement (a broker that crashes
        before saving loses what it acknowledged), and it sends again what is missing."""
        if not self.connected.is_set():
            return
        try:
            marks = self.store.marks()
        except Exception as exc:  # noqa: BLE001 - a storage error: the next turn tries again
            log.warning("tournament: cannot read the marks to confirm: %s", exc)
            return
        everything = time.monotonic() - self._all_confirmed_at >= CONFIRM_ALL_S
        for mark in marks:
            said = (mark["journal"], mark["seq"])
            if everything or self._confirmed.get(mark["table"]) != said:
                body = json.dumps({"journal": mark["journal"], "seq": mark["seq"]})
                self._client.publish(f"{TOPIC_ROOT}/{mark['table']}/ack", body, qos=1, retain=True)
                self._confirmed[mark["table"]] = said
        if everything:
            self._all_confirmed_at = time.monotonic()

    def take(self, topic: str, payload: bytes) -> None:
        """One message: kept, or set aside with its reason.  Raises only ``StorageError``."""
        self.take_all([(topic, payload)])

    def take_all(self, delivered: list[tuple[str, bytes]]) -> None:
        """Messages in order, in one commit: each kept, or set aside with its reason.  A message
        that makes the batch fail for its own sake (not storage) is found by taking them one by
        one.  Raises only ``StorageError``."""
        batch: list[Taken] = []
        for topic, payload in delivered:
            try:
                batch.append(check(topic, payload))
            except Rejected as exc:
                log.warning("tournament: set aside a message on %s: %s", topic, exc)
                batch.append(SetAside(topic, str(exc), payload))
        try:
            self.store.keep(batch)
        except Exception as exc:  # noqa: BLE001 - storage, or a message that cannot be applied
            if _storage_fault(exc):
                raise StorageError(str(exc)) from exc
            if len(delivered) > 1:
                for one in delivered:
                    self.take_all([one])
                return
            topic, payload = delivered[0]
            log.exception("tournament: a message on %s could not be applied", topic)
            self._set_aside(topic, f"could not be applied ({type(exc).__name__}: {exc})", payload)

    def _set_aside(self, topic: str, reason: str, payload: bytes) -> None:
        log.warning("tournament: set aside a message on %s: %s", topic, reason)
        try:
            self.store.reject(topic, reason, payload)
        except Exception as exc:  # noqa: BLE001 - setting aside is storage too
            raise StorageError(str(exc)) from exc
