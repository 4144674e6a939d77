"""Distances, contact, arcs and line of sight in game units (issue #5)."""
