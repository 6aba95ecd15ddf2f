"""PyTorch's `*_copy` operations (a view operation whose result has memory of its own; its
grad_fn is the view's node with `_copy` appended), the functional scatters that return a copy
of a tensor with one view of it replaced (select_scatter, slice_scatter, diagonal_scatter) and
the unsafe_ split forms."""
from __future__ import annotations

from gradjit.tensor.arith import apply
from gradjit.tensor.factories import arange
from gradjit.tensor.shape import squeeze_node

# view method -> its node's name (squeeze's depends on its overload)
_NODES = {"alias": "AliasBackward0", "t": "TBackward0", "transpose": "TransposeBackward0",
          "permute": "PermuteBackward0", "expand": "ExpandBackward0",
          "diagonal": "DiagonalBackward0", "select": "SelectBackward0", "slice": "SliceBackward0",
          "unsqueeze": "UnsqueezeBackward0", "view": "ViewBackward0",
          "unfold": "UnfoldBackward0", "split": "SplitBackward0", "unbind": "UnbindBackward0",
          "split_with_sizes": "SplitWithSizesBackward0", "squeeze": None}


def _view(t, name, args, kwargs):
    if name == "alias":
        return t.view(t.shape)
    if name == "slice":
        return _sliced(t, *args, **kwargs)
    return getattr(t, name)(*args, **kwargs)


def _sliced(t, dim=0, start=None, end=None, step=1):
    return t[(slice(None),) * (dim % max(t.dim(), 1)) + (slice(start, end, step),)]


def _clone(result):
    return tuple(r.clone() for r in result) if isinstance(result, (tuple, list)) else \
        result.clone()


def _copy_of(name):
    def function(input, *args, out=None, **kwargs):
        from gradjit.tensor.functions import write_out  # (functions imports this module)
        node = _NODES[name] or squeeze_node(args[0] if args else kwargs.get("dim"))
        return write_out(name + "_copy", lambda: apply(
            node + "_copy", lambda t: _clone(_view(t, name, args, kwargs)), input), (input,), out)
    function.__name__ = name + "_copy"
    return function


globals().update({name + "_copy": _copy_of(name) for name in _NODES})


def view_as_real_copy(input):
    from gradjit.tensor.complex import view_as_real
    return apply("ViewAsRealBackward0_copy", lambda t: view_as_real(t).clone(), input)


def view_as_complex_copy(input):
    if input.requires_grad:
        raise RuntimeError("view_as_complex_copy does not support automatic differentiation for "
                           "outputs with complex dtype.")
    from gradjit.tensor.complex import view_as_complex
    return view_as_complex(input).clone()


def detach_copy(input):
    return input.detach().clone()


def narrow_copy(input, dim, start, length):
    if isinstance(dim, int) and input.dim() and dim >= input.dim():  # torch's kernel checks it
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, "
                           "but got false.  (Could this error message be improved?  If so, "
                           "please report an enhancement request to PyTorch.)")
    return apply("NarrowCopyBackward0", lambda t: t.narrow(dim, start, length).clone(), input)


def _scatter_into(name, index_of):
    """input with the view `index_of(input)` (an index for __setitem__) replaced by src."""
    def function(input, src, *args, **kwargs):
        def scattered(x, s):
            out = x.clone()
            out[index_of(x, *args, **kwargs)] = s
            return out
        return apply(name, scattered, input, src)
    return function


def _select_index(x, dim, index):
    return (slice(None),) * (dim % x.dim()) + (index,)


def _slice_index(x, dim=0, start=None, end=None, step=1):
    return (slice(None),) * (dim % x.dim()) + (slice(start, end, step),)


select_scatter = _scatter_into("SelectScatterBackward0", _select_index)
slice_scatter = _scatter_into("SliceScatterBackward0", _slice_index)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with its diagonal (as Tensor.diagonal gives it: the diagonal's axis last)
    replaced by src."""
    def scattered(x, s):
        moved = x.movedim((dim1, dim2), (-2, -1)).clone()
        rows, cols = moved.shape[-2:]
        length = max(0, min(rows + min(offset, 0), cols - max(offset, 0)))
        i, j = arange(length) - min(offset, 0), arange(length) + max(offset, 0)
        moved[..., i, j] = s
        return moved.movedim((-2, -1), (dim1 % x.dim(), dim2 % x.dim()))
    return apply("DiagonalScatterBackward0", scattered, input, src)


def unsafe_split(input, split_size_or_sections, dim=0):
    return _writable(apply("UnsafeSplitBackward0",
                           lambda t: t.split(split_size_or_sections, dim), input))


def unsafe_chunk(input, chunks, dim=0):
    return _writable(apply("UnsafeSplitBackward0", lambda t: t.chunk(chunks, dim), input))


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    return _writable(apply("UnsafeSplitWithSizesBackward0",
                           lambda t: t.split_with_sizes(split_sizes, dim), input))


def _writable(views):
    """The unsafe_ splits' views, which (unlike split's) may be written in place."""
    for v in views:
        v._multi_output = None
    return views


class CopiesMixin:
    """The Tensor-method forms."""

    select_scatter, slice_scatter, diagonal_scatter = (select_scatter, slice_scatter,
                                                       diagonal_scatter)
    narrow_copy, unsafe_split, unsafe_chunk = narrow_copy, unsafe_split, unsafe_chunk
    unsafe_split_with_sizes = unsafe_split_with_sizes


__all__ = [name + "_copy" for name in _NODES] + [
    "detach_copy", "narrow_copy", "view_as_real_copy", "view_as_complex_copy", "select_scatter",
    "slice_scatter", "diagonal_scatter", "unsafe_split", "unsafe_chunk", "unsafe_split_with_sizes"]
