"""Fan-out of game updates to dashboard streams.

Publishing never blocks: each subscriber has a bounded queue, and a subscriber that falls behind
is marked for a full resend instead of slowing the engine that publishes.
"""

from __future__ import annotations

import queue
import threading
from typing import Generic, TypeVar

T = TypeVar("T")  # what is published: a game update (a dict), a dashboard frame


class Subscription(Generic[T]):
    def __init__(self, maxsize: int) -> None:
        self.queue: queue.Queue[T] = queue.Queue(maxsize)
        self.lagged = False

    def get(self, timeout: float) -> T | None:
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def drain(self) -> list[T]:
        items: list[T] = []
        while True:
            try:
                items.append(self.queue.get_nowait())
            except queue.Empty:
                return items


class Bus(Generic[T]):
    def __init__(self, maxsize: int = 256) -> None:
        self._maxsize = maxsize
        self._subscribers: set[Subscription[T]] = set()
        self._lock = threading.Lock()

    def subscribe(self, maxsize: int | None = None) -> Subscription[T]:
        subscription: Subscription[T] = Subscription(maxsize or self._maxsize)
        with self._lock:
            self._subscribers.add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription[T]) -> None:
        with self._lock:
            self._subscribers.discard(subscription)

    def publish(self, message: T) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for subscription in subscribers:
            try:
                subscription.queue.put_nowait(message)
            except queue.Full:
                subscription.lagged = True

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def backlog(self) -> int:
        """The longest queue of any subscriber (updates not yet sent to that client)."""
        with self._lock:
            return max((s.queue.qsize() for s in self._subscribers), default=0)
