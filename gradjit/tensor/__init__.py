"""The PyTorch-compatible eager side: Tensor, factories, dtypes, devices, grad modes,
printing and the tape autograd engine."""
from gradjit.tensor import functions
from gradjit.tensor.dtypes import Size, device, dtype, get_default_dtype
from gradjit.tensor.random import Generator, manual_seed
from gradjit.tensor.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from gradjit.tensor.printing import set_printoptions
from gradjit.tensor.tensor import Tensor

__all__ = ["Generator", "Size", "Tensor", "device", "dtype", "enable_grad", "functions",
           "get_default_dtype", "is_grad_enabled", "manual_seed", "no_grad", "set_grad_enabled",
           "set_printoptions"]
