"""torch.nested: batches of tensors whose sizes differ, in the strided or the jagged layout."""
import gradjit
from gradjit.nested.tensor import NestedTensor, jagged, to_padded_tensor  # noqa: F401

__all__ = ["as_nested_tensor", "nested_tensor", "to_padded_tensor"]


def _layout(layout):
    layout = gradjit.strided if layout is None else layout
    if layout not in (gradjit.strided, jagged):
        raise RuntimeError(f"Specified layout is unsupported for nested tensors: {layout}")
    return layout


def _checked(components, layout):
    """The components, refused as torch refuses a batch of mixed or zero ranks."""
    if layout is jagged and not components:
        raise RuntimeError("Cannot construct a nested tensor from an empty tensor list")
    if layout is jagged and components[0].dim() == 0:
        raise RuntimeError("Cannot construct a nested tensor from a list of zero-dim tensors")
    for i, c in enumerate(components):
        if c.dim() != components[0].dim():
            raise RuntimeError(
                "When constructing a nested tensor, all tensors in list must have the same dim"
                if layout is jagged else "All Tensors given to nested_tensor must have the same "
                f"dimension. Found dimension {c.dim()} for Tensor at index {i} and dimension "
                f"{components[0].dim()} for Tensor at index 0.")
    return components


def nested_tensor(tensor_list, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """A leaf nested tensor of copies of the tensors (or nested lists of numbers) given; all
    take the dtype given or the first one's."""
    if not isinstance(tensor_list, list):
        raise TypeError("Only lists (List[Tensor] and List[List...[Scalar]]) are accepted in "
                        "nested_tensor")
    layout = _layout(layout)
    components = [t if isinstance(t, gradjit.Tensor) else gradjit.tensor(t)
                  for t in tensor_list]
    dtype = dtype or (components[0].dtype if components else gradjit.get_default_dtype())
    components = [c.detach().to(dtype=dtype, device=device, copy=True)
                  .requires_grad_(requires_grad) for c in _checked(components, layout)]
    result = NestedTensor(components, layout)
    result._leaf = True
    return result


def as_nested_tensor(ts, dtype=None, device=None, layout=None):
    """A nested tensor of the tensors of a list (or of a tensor's slices along dim 0) that
    keeps their autograd history."""
    listed = isinstance(ts, (list, tuple)) and all(isinstance(t, gradjit.Tensor) for t in ts)
    if not isinstance(ts, (gradjit.Tensor, NestedTensor)) and not listed:
        # torch's message ends in a space
        raise TypeError("as_nested_tensor(): Expected first argument to be a tensor or a list "
                        f"/ tuple of tensors{' '}")
    if isinstance(ts, NestedTensor):
        if layout != ts.layout:
            raise RuntimeError("as_nested_tensor(): Converting between nested tensor layouts "
                               "is not supported")
        return ts.to(device=device, dtype=dtype)
    if isinstance(ts, gradjit.Tensor) and ts.dim() < 2:
        raise RuntimeError("as_nested_tensor(): Expected tensor argument to have dim() > 1")
    layout = _layout(layout)
    components = _checked(list(ts.unbind(0) if isinstance(ts, gradjit.Tensor) else ts), layout)
    dtype = dtype or components[0].dtype
    return NestedTensor([c.to(dtype=dtype, device=device) for c in components], layout)
