"""Distances, contact, arcs, line of sight and templates in game units, with uncertainty."""
