"""JSON as the standard writes it, both ways.

Python's json reads ``NaN``, ``Infinity`` and ``-Infinity`` and writes them back, though no
browser's ``JSON.parse`` reads them: a terrain corner sent as NaN was kept, and from then on the
terrain, the events and the replay's frames broke every page that read them.  So:

* a body is read, then every number in it is checked: one that is not finite, or larger than
  ``LARGEST`` (a trillion: no distance in millimetres, count, sequence number or card id comes
  near), is refused with 400 naming where it is (``args.distance``), before any view sees it;
* every answer is written with ``allow_nan=False``, so a bug that makes such a number fails where
  it is made (a 500 naming it in the log), not in a browser.
"""

from __future__ import annotations

import math
from typing import Any

from flask import Flask, Response, jsonify
from flask.json.provider import DefaultJSONProvider

from .. import untrusted_json

LARGEST = 1e12


class UnsafeNumber(Exception):
    """A number no JSON reader takes, or none the station could mean.  Not a ``ValueError``, so
    Flask's ``get_json(silent=True)`` cannot quietly turn it into "no body"."""

    def __init__(self, where: str, value: object) -> None:
        super().__init__(f"{where}: {value} is not a number the station takes (finite, at most {LARGEST:.0e})")
        self.where = where


def check_numbers(value: Any, where: str = "body") -> None:
    """Raise ``UnsafeNumber`` at the first number in ``value`` that is not finite or too large."""
    if isinstance(value, bool):
        return
    if isinstance(value, float | int):
        if not math.isfinite(value) or abs(value) > LARGEST:
            raise UnsafeNumber(where, value)
    elif isinstance(value, dict):
        for key, item in value.items():
            check_numbers(item, f"{where}.{key}" if where != "body" else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            check_numbers(item, f"{where}[{index}]")


class StrictJSONProvider(DefaultJSONProvider):
    """Flask's JSON, refusing unsafe numbers in and never writing them out."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        untrusted_json.check_depth(s)
        data = super().loads(s, **kwargs)
        check_numbers(data)
        return data

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        kwargs.setdefault("allow_nan", False)
        return super().dumps(obj, **kwargs)


def install(app: Flask) -> None:
    """``app`` reads and writes strict JSON, and answers an unsafe number with 400 naming it."""
    app.json = StrictJSONProvider(app)

    @app.errorhandler(UnsafeNumber)
    def _unsafe(exc: UnsafeNumber) -> tuple[Response, int]:
        return jsonify({"error": str(exc), "field": exc.where}), 400
