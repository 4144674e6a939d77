"""Everything the tables publish, into the store (station/publish.py says what they publish).

The subscription is a persistent MQTT session (a fixed client id, clean session off), so while
the tournament screen is down the broker keeps its records; a message is acknowledged to the
broker only after the store has committed it.  A message that is not what a station sends is
counted and dropped, never applied."""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

from ..publish import TOPIC_ROOT, BrokerUrl, client
from .store import Store

log = logging.getLogger(__name__)


class Subscriber:
    def __init__(self, broker: BrokerUrl, store: Store, client_id: str = "station-tournament") -> None:
        self.broker, self.store = broker, store
        self.connected = threading.Event()
        self._client = client(client_id, broker, clean=False)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message

    def start(self) -> Subscriber:
        self._client.connect_async(self.broker.host, self.broker.port, keepalive=10)
        self._client.loop_start()
        return self

    def stop(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()

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
        try:
            self.take(message.topic, message.payload)
        except Exception:  # not acknowledged (paho sends PUBACK only after this returns); it stops the loop
            log.exception("tournament: %s", message.topic)
            raise

    def take(self, topic: str, payload: bytes) -> None:
        """One message: kept, or counted as malformed and dropped."""
        parts = topic.split("/")
        what = parts[2] if len(parts) == 3 and parts[0] == TOPIC_ROOT else None
        try:
            body = json.loads(payload)
            if what == "records":
                journal, record = body["journal"], body["record"]
                if not isinstance(journal, str) or not isinstance(record.get("seq"), int) or not record.get("kind"):
                    raise ValueError("a record needs its journal, seq and kind")
                self.store.keep_record(parts[1], journal, record)
            elif what in ("state", "health") and isinstance(body, dict):
                self.store.keep_state(parts[1], what, body)
            else:
                raise ValueError(f"not a station topic: {topic}")
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            self.store.count("malformed")
            log.warning("tournament: dropped a malformed message on %s: %s", topic, exc)
