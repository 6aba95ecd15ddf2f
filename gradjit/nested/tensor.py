"""NestedTensor: a batch of tensors of one rank whose sizes differ, held as its components;
each operation runs per component, so autograd reaches every component."""
import itertools

import gradjit
from gradjit.nn import functional as F
from gradjit.tensor.layout import jagged

# unary methods each layout runs per component (torch's strided kernels cover fewer)
STRIDED_UNARY = {"abs", "neg", "sqrt", "sin", "cos", "tanh", "relu", "sgn", "logical_not",
                 "isnan", "isinf", "conj", "positive", "clone", "float", "double", "half",
                 "int", "long", "bool"}
JAGGED_UNARY = STRIDED_UNARY | {
    "exp", "expm1", "log", "log1p", "log2", "log10", "rsqrt", "tan", "sigmoid", "sign",
    "square", "floor", "ceil", "round", "trunc", "frac", "reciprocal", "asin", "acos", "atan",
    "sinh", "cosh", "asinh", "acosh", "atanh", "erf", "erfc", "erfinv", "isfinite", "signbit",
    "angle", "logit", "digamma", "lgamma", "i0", "sinc", "deg2rad", "rad2deg", "nan_to_num"}
# binary methods: (with a nested other, with a number) per layout
STRIDED_BINARY = ({"add", "sub", "mul", "div", "true_divide"},
                  {"add", "sub", "mul", "div", "true_divide", "eq", "gt", "ge"})
JAGGED_BINARY = ({"add", "sub", "mul", "div", "true_divide", "eq", "ne", "lt", "le", "gt", "ge",
                  "pow", "maximum", "minimum", "remainder", "atan2", "logical_and"},) * 2
OPERATORS = {"__add__": "add", "__sub__": "sub", "__mul__": "mul", "__truediv__": "div",
             "__pow__": "pow", "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le",
             "__gt__": "gt", "__ge__": "ge", "__radd__": "add", "__rmul__": "mul"}
# the overload names torch's dispatcher reports for a refused binary op
_TENSOR_OVERLOADS = {"pow": ".Tensor_Tensor", "maximum": "", "minimum": "", "atan2": "",
                     "logical_and": ""}
_SCALAR_OVERLOADS = {"pow": ".Tensor_Scalar"}
# the kernels torch's strided methods call, where not the method's own name
_KERNELS = {"square": ("pow", ".Tensor_Scalar"), "rsub": ("rsub", ".Scalar"),
            "rdiv": ("reciprocal", "")}
_NO_SIZES = "Internal error: NestedTensorImpl doesn't support sizes. Please file an issue."
_ragged_ids = itertools.count(1)


class NestedInt:
    """The size of a jagged dimension: one symbol per set of offsets, printed j1, j2, ..."""

    def __init__(self):
        self.id = next(_ragged_ids)

    def __repr__(self):
        return f"j{self.id}"


def _unsupported(name, overload=""):
    return NotImplementedError(
        f"Could not run 'aten::{name}{overload}' with arguments from the 'NestedTensorCPU' "
        "backend. This could be because the operator doesn't exist for this backend, or was "
        "omitted during the selective/custom build process (if using custom build).")


class NestedTensor:
    """torch's nested tensor, strided or jagged: len(components) tensors of one rank."""

    __hash__ = object.__hash__
    _edge = None  # torch's functions (torch.sin(nt)) pass it through to its own methods
    is_nested = True

    def __init__(self, components, layout=gradjit.strided, ragged=None, contiguous=True):
        self._components = tuple(components)
        self.layout = layout
        self._contiguous = contiguous
        if layout is jagged:  # (the component dim whose size varies, its symbol)
            self._ragged = ragged or (0, NestedInt())

    def _like(self, components, ragged=None, contiguous=None):
        """A nested tensor of this one's layout and ragged dim around new components."""
        return NestedTensor(components, self.layout, ragged or getattr(self, "_ragged", None),
                            self._contiguous if contiguous is None else contiguous)

    def _map(self, fn, *others):
        """fn over the components (zipped with other nested tensors' components)."""
        parts = [o._components if isinstance(o, NestedTensor) else
                 itertools.repeat(o) for o in others]
        return self._like(fn(c, *rest) for c, *rest in zip(self._components, *parts))

    # ---- what a nested tensor tells about itself ----
    dtype = property(lambda self: self._first().dtype)
    device = property(lambda self: self._first().device)
    requires_grad = property(lambda self: any(c.requires_grad for c in self._components))
    # made by nested_tensor, or from tensors that need no gradient
    is_leaf = property(lambda self: self._leaf or not self.requires_grad)
    _leaf = False

    def _first(self):
        return self._components[0] if self._components else gradjit.empty(0)

    def dim(self):
        return self._first().dim() + 1

    def numel(self):
        return sum(c.numel() for c in self._components)

    def is_contiguous(self, memory_format=None):
        return self._contiguous

    def size(self, dim=None):
        if dim is None:
            if self.layout is not jagged:
                raise RuntimeError(_NO_SIZES)
            return gradjit.Size(self.size(d) for d in range(self.dim()))
        dim = _dim(dim, self.dim())
        if dim == 0:
            return len(self._components)
        sizes = {c.shape[dim - 1] for c in self._components}
        if self.layout is jagged and self._ragged[0] == dim - 1:
            return self._ragged[1]
        if len(sizes) != 1:
            raise RuntimeError(f"Given dimension {dim} is irregular and does not have a size.")
        return sizes.pop()

    shape = property(lambda self: self.size())

    def __len__(self):
        if self.layout is not jagged:
            raise RuntimeError(_NO_SIZES)
        return len(self._components)

    @property
    def grad(self):
        grads = [c.grad for c in self._components]
        return None if all(g is None for g in grads) else self._like(
            gradjit.zeros_like(c) if g is None else g for c, g in zip(self._components, grads))

    def backward(self, gradient=None, retain_graph=None, create_graph=False):
        grads = None if gradient is None else gradient.unbind()
        gradjit.autograd.backward(self._components, grads, retain_graph, create_graph)

    def requires_grad_(self, requires_grad=True):
        for c in self._components:
            c.requires_grad_(requires_grad)
        return self

    def unbind(self, dim=0):
        if dim != 0:
            raise RuntimeError(
                "unbind(): only supported for NestedTensor on dim=0" if self.layout is jagged
                else f"NestedTensor can only be unbound along dimension 0 got dimension {dim} "
                     "instead.")
        return self._components

    def __getitem__(self, index):
        if isinstance(index, int):
            return self._components[index]
        raise _unsupported("slice", ".Tensor")

    def values(self):
        """A jagged tensor's components joined along their ragged dim."""
        return gradjit.cat(self._components, self._ragged[0])

    def offsets(self):
        lengths = [c.shape[self._ragged[0]] for c in self._components]
        return gradjit.tensor([0, *itertools.accumulate(lengths)])

    def to_padded_tensor(self, padding, output_size=None):
        return to_padded_tensor(self, padding, output_size)

    # ---- operations ----
    def _unary(self, name, *args, **kwargs):
        supported = JAGGED_UNARY if self.layout is jagged else STRIDED_UNARY
        if name not in supported:
            raise self._refusal(*_KERNELS.get(name, (name,)))
        return self._map(lambda c: getattr(c, name)(*args, **kwargs))

    def _refusal(self, name, overload=""):
        return NotImplementedError(f"aten.{name}.default") if self.layout is jagged else \
            _unsupported(name, overload)

    def _binary(self, name, other, reflected=False):
        nested, numbers = JAGGED_BINARY if self.layout is jagged else STRIDED_BINARY
        if isinstance(other, NestedTensor):
            if name == "eq" and self.layout is not jagged:
                raise RuntimeError("eq does not support nested tensor as other value.")
            if name not in nested:
                raise self._refusal(name, _TENSOR_OVERLOADS.get(name, ".Tensor"))
        elif isinstance(other, gradjit.Tensor):
            if self.layout is not jagged:
                raise RuntimeError("Expected both self and other to be nested, but got a "
                                   "nested self and non-nested other")
            # a dense operand broadcasts against each component but may not reach its
            # ragged dim
            if other.dim() > self.dim() - 2 - self._ragged[0]:
                raise RuntimeError(f"cannot call binary pointwise function {name}.Tensor with "
                                   f"inputs of shapes {self.shape} and {other.shape}")
        elif name not in numbers:
            raise self._refusal(name, _SCALAR_OVERLOADS.get(name, ".Scalar"))
        if reflected and self.layout is not jagged:
            raise self._refusal(*_KERNELS["r" + name])
        operation = getattr(gradjit, name)
        if reflected:
            return self._map(lambda c, o: operation(o, c), other)
        return self._map(operation, other)

    def __rsub__(self, other):
        return self._binary("sub", other, reflected=True)

    def __rtruediv__(self, other):
        return self._binary("div", other, reflected=True)

    def __neg__(self):
        return self.neg()

    def softmax(self, dim, dtype=None):
        dim = _dim(dim, self.dim())
        if dim == 0:
            raise RuntimeError("softmax(): not supported when reducing across the batch "
                               "dimension for NestedTensor" if self.layout is jagged else
                               "Cannot apply softmax across nested dimension 0")
        if self.layout is jagged and dim - 1 == self._ragged[0] > 0:
            raise RuntimeError("softmax(): not supported when reducing along the ragged "
                               "dimension for ragged_idx > 1 for NestedTensor")
        return self._map(lambda c: F.softmax(c, dim - 1, dtype=dtype))

    def transpose(self, dim0, dim1):
        dim0, dim1 = _dim(dim0, self.dim()), _dim(dim1, self.dim())
        if 0 in (dim0, dim1):
            if self.layout is jagged:
                raise ValueError("Transpose is not supported on the batch dimension for "
                                 "jagged NT")
            raise RuntimeError("Nested tensor dimension 0 cannot be transposed")
        ragged = None
        if self.layout is jagged:
            position, symbol = self._ragged
            swap = {dim0 - 1: dim1 - 1, dim1 - 1: dim0 - 1}
            ragged = (swap.get(position, position), symbol)
        return self._like((c.transpose(dim0 - 1, dim1 - 1) for c in self._components), ragged,
                          contiguous=self._contiguous and dim0 == dim1)

    def _reduce(self, name, dim=None, keepdim=False, dtype=None):
        """torch's nested reductions: strided ones sum the last dim alone, keeping it; jagged
        ones reduce everything, or the non-batch dims per component, or the ragged dim (with
        the batch dim or alone) into a dense tensor."""
        kwargs = {} if dtype is None else {"dtype": dtype}
        if self.layout is not jagged:
            return self._strided_sum(name, dim, keepdim, kwargs)
        reduce = getattr(gradjit, name)
        if dim is None:
            return reduce(gradjit.cat([c.reshape(-1) for c in self._components]), **kwargs)
        dims = {_dim(d, self.dim()) for d in ((dim,) if isinstance(dim, int) else dim)}
        ragged = self._ragged[0] + 1
        inner = tuple(sorted(d - 1 for d in dims - {0}))
        if 0 in dims:
            if dims != {0, ragged}:
                raise RuntimeError(f"{name}(): reducing along the batch dimension but not the "
                                   "ragged dimension is not supported for nested tensors")
            out = reduce(self.values(), ragged - 1, keepdim=keepdim, **kwargs)
            return out.unsqueeze(0) if keepdim else out
        if ragged in dims:
            if len(dims) > 1:
                raise RuntimeError(f"{name}(): reducing along a ragged and non-batch dimension "
                                   "is not supported for nested tensors")
            return gradjit.stack([reduce(c, inner, keepdim=keepdim, **kwargs)
                                  for c in self._components])
        position = self._ragged[0] - (0 if keepdim else sum(d < self._ragged[0] for d in inner))
        return self._like((reduce(c, inner, keepdim=keepdim, **kwargs)
                           for c in self._components), (position, self._ragged[1]))

    def _strided_sum(self, name, dim, keepdim, kwargs):
        if name != "sum" or dim is None:
            raise _unsupported(name, "" if dim is None or name == "amax" else ".dim")
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) != 1:
            raise RuntimeError("NestedTensor only allows reduction of a single dimension for "
                               "now.")
        if _dim(dims[0], self.dim()) != self.dim() - 1:
            raise RuntimeError("NestedTensor can only be reduced across the last dimension for "
                               f"now got dimension {dims[0]} instead.")
        if not keepdim:
            raise RuntimeError("NestedTensor always requires keepdim=True for now.")
        return self._map(lambda c: c.sum(-1, keepdim=True, **kwargs))

    def matmul(self, other):
        if self.layout is jagged:
            if isinstance(other, NestedTensor):
                raise RuntimeError(f"matmul(): not supported between inputs of shapes "
                                   f"{_shape(self)} and {other.shape}")
            return self._map(gradjit.matmul, other)
        if not isinstance(other, NestedTensor):
            raise RuntimeError("Expected both to be nested, but got a nested self and "
                               "non-nested other")
        return self._map(gradjit.matmul, other)

    __matmul__ = bmm = matmul

    def detach(self):
        return self._map(lambda c: c.detach())

    def to(self, *args, **kwargs):
        return self._map(lambda c: c.to(*args, **kwargs))

    def contiguous(self, memory_format=None):
        return self if self._contiguous else self._like(
            (c.contiguous() for c in self._components), contiguous=True)

    def __getattr__(self, name):
        """A Tensor method that nested tensors lack raises as torch's dispatcher does."""
        if name.startswith("_") or not hasattr(gradjit.Tensor, name):
            raise AttributeError(f"'NestedTensor' object has no attribute {name!r}")
        raise self._refusal(name)

    def __repr__(self):
        if self.layout is jagged:
            grad = ", requires_grad=True" if self.requires_grad and self.is_leaf else ""
            return (f"NestedTensor(size={_shape(self)}, offsets={self.offsets()!r}{grad}, "
                    f"contiguous={self._contiguous})")
        marked = self.requires_grad
        items = ",\n".join("  " + repr(c.detach().requires_grad_(marked)).replace("\n", "\n  ")
                           for c in self._components)
        suffix = ""
        if marked:  # as_nested_tensor's own node where the components are leaves
            name = type(self._first().grad_fn).__name__ if self._first().grad_fn else \
                "NestedTensorFromTensorListBackward0"
            suffix = ", requires_grad=True" if self.is_leaf else f", grad_fn=<{name}>"
        return f"nested_tensor([\n{items}\n]{suffix})"

    __str__ = __repr__


def _shape(nt):
    return "(" + ", ".join(map(repr, nt.size())) + ")"


def _dim(dim, ndim):
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {dim})")
    return dim % ndim


def to_padded_tensor(input, padding, output_size=None):
    """A dense tensor of the components padded with `padding` to their largest sizes (or to
    output_size), stacked."""
    if input.layout is not jagged and not input.is_contiguous():
        raise RuntimeError("for now to_padded_tensor only supports contiguous nested tensor")
    components = input.unbind()
    rank = input.dim() - 1
    largest = [max((c.shape[d] for c in components), default=0) for d in range(rank)]
    if input.layout is jagged:  # output_size sets the ragged dim's length alone, even shorter
        if output_size is not None:
            ragged = input._ragged[0]
            largest[ragged] = output_size[ragged + 1]
            components = [c.narrow(ragged, 0, min(c.shape[ragged], largest[ragged]))
                          for c in components]
        output_size = None
    if output_size is not None:
        if len(output_size) != rank + 1:
            raise RuntimeError("Length of output_size does not match NestedTensor dims. "
                               "Broadcasting is not supported.")
        if any(o < s for o, s in zip(output_size, [len(components), *largest])):
            raise RuntimeError("Value in output_size is less than NestedTensor padded size. "
                               "Truncation is not supported.")
        largest = list(output_size[1:])
    padded = [F.pad(c, [n for d in reversed(range(rank)) for n in (0, largest[d] - c.shape[d])],
                    value=padding) for c in components]
    extra = 0 if output_size is None else output_size[0] - len(components)
    padded += [gradjit.full(largest, padding, dtype=input.dtype)] * extra
    return gradjit.stack(padded)


def _install():
    """The unary, binary and operator methods, each named as torch.Tensor's."""
    for name in JAGGED_UNARY:
        setattr(NestedTensor, name, lambda self, *a, _n=name, **k: self._unary(_n, *a, **k))
    for name in JAGGED_BINARY[0]:
        setattr(NestedTensor, name, lambda self, other, _n=name: self._binary(_n, other))
    for name in ("sum", "mean", "amax", "amin"):
        setattr(NestedTensor, name, lambda self, dim=None, keepdim=False, dtype=None, _n=name:
                self._reduce(_n, dim, keepdim, dtype))
    for name, method in OPERATORS.items():
        setattr(NestedTensor, name, lambda self, other, _n=method: self._binary(_n, other))


_install()
