"""Warnings attributed to the user's line (the innermost frame outside gradjit), as PyTorch's
point at the caller however many gradjit wrappers (autocast, aliases) stand in between."""
from __future__ import annotations

import os
import sys
import warnings

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_at_caller(message, category=UserWarning):
    frame, level = sys._getframe(0), 1  # stacklevel 1 is this frame
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
