"""HIPS autograd's scipy namespace (`autograd.scipy`): special, stats, misc, signal, linalg and
integrate, written with numpy functions that gradjit traces and differentiates."""
from gradjit.scipy import integrate, linalg, misc, signal, special, stats  # noqa: F401
