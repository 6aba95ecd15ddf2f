"""torch.utils.hooks: the handle that registering a hook (on a Tensor, a Module, an autograd
Node) returns."""
from gradjit.tensor.graph import RemovableHandle

__all__ = ["RemovableHandle"]
