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


_WRAPPERS = os.path.join(_PACKAGE, "tracer", "torch_surface.py")


def warn_past_wrappers(message, category=UserWarning, stacklevel=1):
    """warnings.warn(message, category, stacklevel) counting no frame of the wrappers that
    torch_surface puts around public functions (they only convert traced arguments), so that
    a function's warning names the line PyTorch's names (F.dropout2d's: its caller's)."""
    frame, level = sys._getframe(1), 2  # the caller's frame is stacklevel 2 from here
    for _ in range(stacklevel - 1):
        frame, level = frame.f_back, level + 1
        while frame is not None and frame.f_code.co_filename == _WRAPPERS:
            frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)
