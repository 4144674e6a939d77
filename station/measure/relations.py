"""Contact, coherency, nearest targets and arcs: the geometric questions rulings ask."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .bases import closest_points
from .measurement import CALL_SIGMAS, Placed, pair_sigma
from .pairwise import edge_distances


def gap_mm(a: Placed, b: Placed) -> float:
    """The edge-to-edge gap between two bases, in mm (0 where they touch or overlap)."""
    return float(closest_points(a.base, b.base)[0])


def in_contact(a: Placed, b: Placed, tolerance_mm: float = 1.0) -> bool:
    """Bases touch when their outlines are within ``tolerance_mm`` (a camera never sees 0.0)."""
    return gap_mm(a, b) <= tolerance_mm


def coherent(squad: Sequence[Placed], command_mm: float) -> list[list[str]]:
    """The squad's groups where each base is within ``command_mm`` (edge to edge) of another in
    its group.  One group means the squad is in command; more list who is cut off."""
    parent = list(range(len(squad)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    linked = edge_distances([member.base for member in squad]) <= command_mm
    for i in range(len(squad)):
        for j in range(i + 1, len(squad)):
            if linked[i, j]:
                parent[root(i)] = root(j)
    groups: dict[int, list[str]] = {}
    for i, member in enumerate(squad):
        groups.setdefault(root(i), []).append(member.id)
    return sorted(groups.values(), key=len, reverse=True)


def nearest_gap(ours: Sequence[Placed], theirs: Sequence[Placed]) -> tuple[float, float, str, str] | None:
    """The nearest edge-to-edge gap (mm) between two groups of bases, its σ (the two nearest
    bases' positions combined), and which two they are; None if either group is empty.  A rule
    with a reach between groups (a fire zone, a tank's terror, a surrender) compares this."""
    if not ours or not theirs:
        return None
    gaps = edge_distances([p.base for p in ours] + [p.base for p in theirs])[: len(ours), len(ours) :]
    i, j = divmod(int(gaps.argmin()), len(theirs))
    return float(gaps[i, j]), pair_sigma(ours[i], theirs[j]), ours[i].id, theirs[j].id


def nearest(origin: Placed, candidates: Sequence[Placed], n: int = 3) -> list[tuple[str, float]]:
    """The ``n`` nearest candidates, edge to edge, nearest first."""
    others = [c for c in candidates if c.id != origin.id]
    row = edge_distances([origin.base] + [c.base for c in others])[0, 1:]
    return sorted(((c.id, float(mm)) for c, mm in zip(others, row)), key=lambda item: item[1])[:n]


def bearing_deg(origin: Placed, target: Placed) -> float:
    """The target's direction from the origin's facing, -180..180 degrees (positive: to the left)."""
    angle = math.degrees(math.atan2(target.base.y - origin.base.y, target.base.x - origin.base.x))
    return (angle - origin.base.facing_deg + 180) % 360 - 180


def bearing_sigma_deg(origin: Placed, target: Placed, sigmas: float = 1.0) -> float:
    """How far the bearing between two bases may be off, in degrees: ``sigmas`` times their
    combined position error, seen across the distance between their centres."""
    distance = math.hypot(target.base.x - origin.base.x, target.base.y - origin.base.y)
    return math.degrees(math.atan2(sigmas * pair_sigma(origin, target), max(distance, 1e-9)))


def in_arc(origin: Placed, target: Placed, centre_deg: float = 0.0, half_width_deg: float = 90.0) -> bool:
    """Is the target's centre inside an arc of the origin: e.g. the front half is (0, 90), the
    rear (180, 90), a turret allowed to turn 90 degrees from its rest position (rest, 90)."""
    offset = (bearing_deg(origin, target) - centre_deg + 180) % 360 - 180
    return abs(offset) <= half_width_deg


def front_half(origin: Placed, target: Placed) -> bool:
    """Бронепехота §7.3 field of view: the half-space in front of the model."""
    return in_arc(origin, target, 0.0, 90.0)


def share_in_front(origin: Placed, target: Placed) -> float:
    """The share of the target's base area in front of the line through the origin's centre
    across its facing: Alpha Strike's firing arc (digest §6.2, A3), where a target with more
    than half its base outside the front 180 degrees cannot be attacked."""
    outline = target.base.outline(128)
    heading = math.radians(origin.base.facing_deg)
    ahead = (outline[:, 0] - origin.base.x) * math.cos(heading) + (outline[:, 1] - origin.base.y) * math.sin(heading)
    kept = []
    for k in range(len(outline)):  # clip the outline to the half-plane ahead >= 0 (Sutherland-Hodgman)
        p, q, dp, dq = outline[k], outline[(k + 1) % len(outline)], ahead[k], ahead[(k + 1) % len(outline)]
        if dp >= 0:
            kept.append(p)
        if (dp >= 0) != (dq >= 0):
            kept.append(p + (q - p) * dp / (dp - dq))
    return _area(kept) / _area(list(outline)) if len(kept) >= 3 else 0.0


def _area(points: Sequence[Sequence[float]]) -> float:
    ring = list(points)
    return 0.5 * abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(ring, ring[1:] + ring[:1])))


def attack_side(attacker: Placed, target: Placed, rear_half_width_deg: float = 30.0) -> str:
    """Alpha Strike's attack direction (digest §6.6): the line from the attacker's centre to the
    target's centre crosses the rear side of the target's hex base (the 60 degrees opposite its
    front) for a rear hit.  "vertex" when the line is within the measurement's uncertainty of a
    corner, where the target's controller chooses."""
    offset = abs(abs(bearing_deg(target, attacker)) - 180.0)  # 0: straight behind
    if abs(offset - rear_half_width_deg) <= bearing_sigma_deg(attacker, target, CALL_SIGMAS):
        return "vertex"
    return "rear" if offset < rear_half_width_deg else "front"
