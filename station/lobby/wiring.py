"""Where an army file names its hardware: every launcher's hub node, every tilt node and every
camera marker, found by walking the document, so pairing can fill them in for any game's format
(a unit's ``launchers`` list of nodes, or a weapon that names its own ``launcher``).

A slot is a path into the JSON (``["units", 0, "members", 2, "tilt_node"]``), what kind of node
fills it, whose it is, and the id it holds now.  Conflicts (one id in two slots) and empty slots
are what the lobby shows before a start.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

from ..events import NODE_AT, bare_node

Path = list[str | int]


def _label(owner: dict[str, Any], fallback: str) -> str:
    return str(owner.get("name") or owner.get("id") or fallback)


def _walk(node: Any, path: Path, owner: str) -> Iterator[dict[str, Any]]:
    if isinstance(node, list):
        for i, item in enumerate(node):
            yield from _walk(item, [*path, i], owner)
        return
    if not isinstance(node, dict):
        return
    here = _label(node, owner)
    if "tilt_node" in node:
        yield {"path": [*path, "tilt_node"], "kind": "tilt", "owner": here, "id": node["tilt_node"]}
    if isinstance(node.get("marker"), dict) and "id" in node["marker"]:
        yield {"path": [*path, "marker", "id"], "kind": "marker", "owner": here, "id": node["marker"]["id"]}
    if isinstance(node.get("launcher"), str) or (node.get("kind") == "real" and "launcher" in node):
        # a weapon that names its launcher itself (the quick rules' real weapons)
        yield {"path": [*path, "launcher"], "kind": "launcher", "owner": f"{owner} ({here})", "id": node["launcher"]}
    for i, launcher in enumerate(node.get("launchers") or []):
        if isinstance(launcher, dict) and "node" in launcher:
            kind = launcher.get("kind", "launcher")
            yield {
                "path": [*path, "launchers", i, "node"],
                "kind": "launcher",
                "owner": f"{here} ({kind})",
                "id": launcher["node"],
            }
    for key, value in node.items():
        if key not in ("marker", "launchers") and isinstance(value, (dict, list)):
            yield from _walk(value, [*path, key], here)


def inventory_of(health: Mapping[str, Any]) -> list[str]:
    """Every node the connected hubs have, as an army may name it: bare ("T1", on any hub) and,
    for a hub that says its id, with it ("T1@77C1")."""
    names: list[str] = []
    for hub in health.get("hubs") or [health]:
        for entry in hub.get("nodes") or []:
            bare = bare_node(entry.split(":")[0])
            names.append(bare)
            if hub.get("hub_id"):
                names.append(f"{bare}{NODE_AT}{hub['hub_id']}")
    return names


def wiring(document: Any, inventory: list[str] | None = None) -> list[dict[str, Any]]:
    """Every hardware slot of an army document, each marked ``conflict`` when its id is also
    in another slot, ``empty`` when it has none, and ``absent`` when the hub's inventory (ids,
    if known) lacks it."""
    slots = list(_walk(document, [], "army"))
    known = set(inventory or ())
    counts = Counter((s["kind"] == "marker", s["id"]) for s in slots if s["id"] not in (None, ""))
    for slot in slots:
        empty = slot["id"] in (None, "")
        slot["empty"] = empty
        slot["conflict"] = not empty and counts[(slot["kind"] == "marker", slot["id"])] > 1
        slot["absent"] = bool(known) and slot["kind"] != "marker" and not empty and slot["id"] not in known
    return slots
