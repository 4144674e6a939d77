"""The cyclic garbage collector paused while a journal is read and folded.

Reading a journal keeps every record, and folding it makes hundreds of thousands of small
objects (states, events, rulings); none of them form reference cycles, so reference counting
frees them.  The cyclic collector would only walk them, and everything else the process holds,
again and again as they pile up: with a replay's journal and a running station in memory that
was a third of a replay's time (bench/replay_throughput.py).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def without_cycle_collection() -> Iterator[None]:
    """The collector off for the block, and back on after if it was on.  Two threads doing this
    at once leave it as the first found it; nothing is lost while it is off, only deferred."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
