"""torch.fft: PyTorch's discrete Fourier transforms, re-exported from the tensor layer."""
from gradjit.tensor.fft import *  # noqa: F401,F403
