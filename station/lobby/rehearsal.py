"""The rehearsal hub: a simulated hub on a pseudo-terminal, switched on in the settings, whose
triggers, tilts, falls and impacts the referee fires from buttons in the browser.  A new referee
learns the whole flow with no hardware and no terminal; the browser tests drive the same thing.

It is wired to the armies: its inventory (HELLO) holds every launcher and tilt node of the armies
on the shelf and of the armies chosen for a game, so the pre-game check passes for any of them and
pairing offers their nodes.  When the inventory has to grow, the hub power-cycles (a new HELLO),
as a real board would when a node is plugged in.
"""

from __future__ import annotations

import itertools
import logging
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from ..devices.hubsim import SimulatedHub
from ..events import CHARGES, TILT_STATES, Node

log = logging.getLogger(__name__)

LINK_NAME = "rehearsal-hub"


def merged(nodes: Iterable[Node]) -> list[Node]:
    """One node per id, with the most barrels any army gives it, in id order."""
    best: dict[str, Node] = {}
    for node in nodes:
        kept = best.get(node.id)
        if kept is None or node.barrels > kept.barrels:
            best[node.id] = node
    return [best[k] for k in sorted(best)]


class Rehearsal:
    def __init__(self, folder: Path, nodes: Sequence[Node] = ()) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.hub = SimulatedHub(folder / LINK_NAME, nodes=merged(nodes))
        self._boots = itertools.count(1)

    @property
    def path(self) -> str:
        return self.hub.path

    def start(self) -> Rehearsal:
        self.hub.start()
        log.info("rehearsal hub on %s with %d nodes", self.path, len(self.hub.nodes))
        return self

    def stop(self) -> None:
        self.hub.stop()

    def nodes(self) -> list[dict[str, Any]]:
        return [{"id": n.id, "kind": n.kind, "barrels": n.barrels} for n in self.hub.nodes]

    def wire(self, nodes: Iterable[Node], seen: Callable[[], set[str]] | None = None, wait_s: float = 10.0) -> bool:
        """Make sure every node in ``nodes`` is on the hub as these armies have it (their barrels
        win over another army's); a change power-cycles it with the new inventory.  ``seen`` (the
        station's view of the hub's nodes, as HELLO encodes them) is waited for, so a check that
        follows sees the new HELLO.  True when the hub was rewired."""
        by_id = {**{n.id: n for n in self.hub.nodes}, **{n.id: n for n in nodes}}
        wanted = [by_id[k] for k in sorted(by_id)]
        rewired = set(wanted) != set(self.hub.nodes)
        if rewired:
            self.hub.nodes = tuple(wanted)
            self.hub.reset(f"{next(self._boots):02X}{secrets.token_hex(1).upper()}")
            log.info("rehearsal hub rewired: %d nodes", len(wanted))
        if seen is not None:  # a hub just switched on may not have said HELLO yet either
            deadline = time.monotonic() + wait_s
            while not {n.encode() for n in wanted} <= seen() and time.monotonic() < deadline:
                time.sleep(0.05)
        return rewired

    def fire(self, node: str, event: str, barrel: int = 1, charge: str = "shell", posture: str = "fallen") -> int:
        """One event from ``node`` as the referee asked for it; a node not on the hub, or an
        event it cannot make, is a ValueError naming it."""
        found = next((n for n in self.hub.nodes if n.id == node), None)
        if found is None:
            raise ValueError(f"node {node!r} is not on the rehearsal hub")
        if event == "shot":
            if found.kind != "launcher" or not 1 <= barrel <= max(1, found.barrels) or charge not in CHARGES:
                raise ValueError(f"{node}: a shot needs a launcher, a barrel 1-{found.barrels} and a charge")
            return self.hub.shot(node, barrel, charge)
        if found.kind != "tilt":
            raise ValueError(f"{node} is a {found.kind}: only a tilt node leans, falls or feels a hit")
        if event == "tilt" and posture in TILT_STATES:
            return self.hub.tilt(node, posture, angle={"upright": 0, "leaning": 30, "fallen": 90}[posture])
        if event == "impact":
            return self.hub.impact(node)
        raise ValueError(f"event: one of shot, tilt ({', '.join(TILT_STATES)}), impact")
