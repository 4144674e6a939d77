"""Overhead camera: calibration, marker tracking, fallen-model detection (issue #4)."""
