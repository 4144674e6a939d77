"""Referee station for physical miniature wargames."""

__version__ = "0.1.0"
