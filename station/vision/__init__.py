"""Overhead camera: calibration, marker tracking, fallen-model detection (issue #4).

The default lens board lives here, not in ``cv``, so the command line can show it without
loading OpenCV."""

DEFAULT_BOARD = "9x6:30:22:DICT_5X5_100"  # what cv.charuco_board() makes and `station markers` prints
