"""Is a picture fit to find markers in?  Named problems instead of a failed fit.

A calibration that finds no anchors in a dark, burnt-out or blurred photo should say so: the fix is
the light or the focus, not the anchors.

* **Dark**: the brightest part of the picture (99th percentile) is below ``DARK_LEVEL``.
* **Overexposed**: more than ``SATURATED_SHARE`` of the pixels are at full white.
* **Blurred**: the steepest edges are too soft for their contrast.  A step of contrast C blurred
  by a Gaussian of sigma s has a steepest slope of C / (s * sqrt(2 pi)); the 99.9th percentile of
  the gradient over the picture's contrast estimates 1 / (s * sqrt(2 pi)), so it does not depend on
  how bright the light is.  Below ``SOFT_EDGES`` means edges blurred by more than about 2 px, where 24 px markers stop decoding.
"""

from __future__ import annotations

import cv2
import numpy as np

DARK_LEVEL = 40
SATURATED_SHARE = 0.25
SOFT_EDGES = 0.18


def edge_sharpness(gray: np.ndarray) -> float:
    """Steepest gradient (per pixel) over contrast: about 0.5 for a sharp picture, 0.13 at 3 px blur."""
    small = gray if max(gray.shape) <= 2000 else cv2.resize(gray, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    gx = cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3) / 8
    low, high = np.percentile(small, (1, 99))
    contrast = max(float(high - low), 1.0)
    return float(np.percentile(np.hypot(gx, gy), 99.9)) / contrast


def image_problems(image: np.ndarray) -> list[str]:
    """What is wrong with the picture as a whole, in words; empty when nothing is."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    problems = []
    bright = float(np.percentile(gray, 99))
    if bright < DARK_LEVEL:
        problems.append(f"too dark (its brightest parts reach {bright:.0f} of 255: more light or a longer exposure)")
        return problems  # a dark picture's edges are soft too; one cause is enough
    saturated = float(np.mean(gray >= 250))
    if saturated > SATURATED_SHARE:
        problems.append(f"overexposed ({saturated:.0%} of it is pure white: less light or a shorter exposure)")
    sharpness = edge_sharpness(gray)
    if sharpness < SOFT_EDGES:
        problems.append(
            f"blurred (edge sharpness {sharpness:.2f}, below {SOFT_EDGES}: focus the camera, keep it still)"
        )
    return problems
