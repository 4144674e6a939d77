"""A ruling's picture: the table as the camera saw it when the ruling was made, with the two
points the ruling measured between, the value in the game's units, and the terrain then in
force.  A standalone SVG, so it can be opened, saved or printed on its own."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..measure.bases import Base
from .vocabulary import TERRAIN_COLOURS

COLOURS = ("#4a90e2", "#e2574a", "#3fb950", "#d29922")


def table_picture(
    table: Mapping[str, Any] | None,
    terrain: Sequence[Mapping[str, Any]],
    players: Sequence[str],
    title: str,
    subtitle: str,
    overlay: Sequence[str] = (),
    fallen: Sequence[str] = (),
) -> str:
    """The table at one snapshot (or an empty table without one): terrain, every base in its
    player's colour (faded when down or ``fallen``), then ``overlay`` (SVG drawn on top)."""
    w, h = (table or {}).get("table_mm") or (1219.2, 1219.2)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="-20 -60 {w + 40} {h + 80}" font-family="sans-serif">',
        f'<rect x="-20" y="-60" width="{w + 40}" height="{h + 80}" fill="#14171c"/>',
        f'<text x="0" y="-35" fill="#e6e6e6" font-size="18">{escape(title)}</text>',
        f'<text x="0" y="-12" fill="#9aa3ad" font-size="13">{escape(subtitle)}</text>',
        f'<rect x="0" y="0" width="{w}" height="{h}" fill="#2a3038" stroke="#555" stroke-width="2"/>',
    ]
    for piece in terrain:
        points = " ".join(f"{x},{h - y}" for x, y in piece["polygon"])
        out.append(f'<polygon points="{points}" fill="{TERRAIN_COLOURS.get(piece["type"], "#888")}" stroke="#000"/>')
    for unit in (table or {}).get("units", []):
        base = Base.named(unit.get("base") or "round25", unit["x_mm"], unit["y_mm"], unit["facing_deg"])
        points = " ".join(f"{x:.1f},{h - y:.1f}" for x, y in base.outline(48))
        colour = COLOURS[players.index(unit["player"]) % len(COLOURS)] if unit.get("player") in players else "#888"
        down = unit["status"] != "up" or unit["element"] in fallen
        out.append(f'<polygon points="{points}" fill="{colour}" stroke="#000" opacity="{0.4 if down else 1}"/>')
        out.append(
            f'<text x="{unit["x_mm"] + 16}" y="{h - unit["y_mm"] + 5}" fill="#e6e6e6" font-size="12">'
            f"{escape(unit['element'])}</text>"
        )
    out.extend(overlay)
    out.append("</svg>")
    return "\n".join(out)


def ruling_picture(
    ruling: Mapping[str, Any], table: Mapping[str, Any], terrain: Sequence[Mapping[str, Any]], players: Sequence[str]
) -> str:
    """The table of the ruling's snapshot with the line it measured and the value."""
    measured = ruling["details"]["measured"]
    h = (table.get("table_mm") or (1219.2, 1219.2))[1]
    (ax, ay), (bx, by) = measured["point_a"], measured["point_b"]
    overlay = [f'<line x1="{ax}" y1="{h - ay}" x2="{bx}" y2="{h - by}" stroke="#ffd166" stroke-width="3"/>']
    for x, y in (measured["point_a"], measured["point_b"]):
        overlay.append(f'<circle cx="{x}" cy="{h - y}" r="4" fill="#ffd166"/>')
    label = (
        f"{measured['a']}→{measured['b']}: {measured['exact']:.2f} {measured['unit']} "
        f"(±{measured['sigma_mm'] * 2:.1f} mm), counted as {measured['value']:g}"
    )
    overlay.append(
        f'<text x="{(ax + bx) / 2 + 10}" y="{h - (ay + by) / 2 - 10}" fill="#ffd166" font-size="16">{escape(label)}</text>'
    )
    subtitle = f"ruling {ruling['id']} · {ruling['section']} · table snapshot record {table['seq']}"
    return table_picture(table, terrain, players, ruling["text"], subtitle, overlay)
