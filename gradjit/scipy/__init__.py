"""HIPS autograd's scipy namespace (`autograd.scipy`): special, stats, misc, signal, linalg and
integrate, written with numpy functions that gradjit traces and differentiates."""
from gradjit.scipy import special, stats  # noqa: F401
