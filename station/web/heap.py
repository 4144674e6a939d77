"""The C heap under a crowd of dashboard streams, on glibc (elsewhere these do nothing).

Each stream runs in a thread of its own while it watches, and glibc gives threads malloc arenas
of their own, up to eight per core, each keeping what it once held: after 500 phones have come
and gone, the daemon would stay tens of MB larger for the rest of the evening.  So the arenas
are capped at ``ARENAS`` (as MALLOC_ARENA_MAX=2 would), and once many watchers have left, the
memory they freed is handed back to the system (``malloc_trim``).
"""

from __future__ import annotations

import ctypes
import logging

log = logging.getLogger(__name__)

ARENAS = 2
M_ARENA_MAX = -8  # glibc's mallopt parameter


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim  # noqa: B018 (only glibc has it)
        return libc
    except (OSError, AttributeError):
        return None


_LIBC = _libc()


def cap_arenas() -> None:
    """Call before the web threads start: threads from then on share ``ARENAS`` arenas."""
    if _LIBC is not None and not _LIBC.mallopt(M_ARENA_MAX, ARENAS):
        log.debug("mallopt(M_ARENA_MAX) refused")


def give_back() -> None:
    """Return the heap's free pages to the system."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
