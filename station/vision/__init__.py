"""Overhead camera: calibration, marker tracking, fallen-model detection.

The default lens board lives here, not in ``cv``, so the command line can show it without
loading OpenCV.  OpenCV's own warnings (``[ WARN:0@0.011] … can't open camera by index``) are
kept off the terminal: every failure they describe reaches the user as the station's own error,
in words, and their noise hid it.  ``OPENCV_LOG_LEVEL`` set by the user still wins."""

import os

os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")  # read by OpenCV when it is first loaded

DEFAULT_BOARD = "9x6:30:22:DICT_5X5_100"  # what cv.charuco_board() makes and `station markers` prints
