"""torch.version: what this build carries. gradjit's CPU build has no CUDA or ROCm toolkit
(its PTX backend needs none), so code that asks `torch.version.cuda` takes its CPU path."""
from gradjit import __version__  # noqa: F401

cuda = None
hip = None
rocm = None
xpu = None
debug = False
