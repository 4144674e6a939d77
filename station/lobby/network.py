"""The addresses a phone on the club's network can open, and their QR codes.

A station bound to every interface (``0.0.0.0``) is reached through its LAN addresses, never
through "0.0.0.0"; one bound to loopback only from the station itself.  The QR code is drawn by
segno (pure Python, no image library, SVG out), because a QR encoder is not something to write by
hand.
"""

from __future__ import annotations

import io
import ipaddress
import socket

import segno

ANY = ("0.0.0.0", "::", "")
PROBE = ("192.0.2.1", 9)  # TEST-NET-1: connecting a UDP socket sends nothing, it only picks a route


def _primary_address() -> str | None:
    """The address this machine would use to reach the network (no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(PROBE)
            return str(s.getsockname()[0])
    except OSError:
        return None


def _host_addresses() -> list[str]:
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return []
    return [str(info[4][0]) for info in infos]


def lan_addresses(host: str) -> list[str]:
    """The addresses a browser can use for a server bound to ``host``: the LAN addresses first
    when it listens on every interface, else the address itself."""
    if host not in ANY:
        return [host]
    found: list[str] = []
    for address in [_primary_address(), *_host_addresses()]:
        if address and not ipaddress.ip_address(address).is_loopback and address not in found:
            found.append(address)
    return found or ["127.0.0.1"]


def urls(host: str, port: int) -> list[str]:
    return [f"http://{address}:{port}/" for address in lan_addresses(host)]


def token_link(address: str, token: str) -> str:
    """The station's ``address`` with the token that logs its opener in as the referee (or judge)."""
    return f"{address.rstrip('/')}/?token={token}"


def qr_svg(text: str) -> str:
    """``text`` as a QR code in SVG, dark on light with its quiet zone, readable from a screen."""
    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", scale=6, border=4, dark="#000", light="#fff")
    return out.getvalue().decode("utf-8")
