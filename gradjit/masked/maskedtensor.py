"""MaskedTensor: a data tensor and a bool mask of the same shape; elementwise ops keep the
mask, reductions skip the masked-out elements (torch.masked's), shape ops move both."""
import warnings

import gradjit
from gradjit.masked import ops

UNARY = ("abs", "absolute", "acos", "arccos", "acosh", "arccosh", "angle", "asin", "arcsin",
         "asinh", "arcsinh", "atan", "arctan", "atanh", "arctanh", "bitwise_not", "ceil",
         "clamp", "clip", "cos", "cosh", "deg2rad", "digamma", "erf", "erfc", "erfinv", "exp",
         "exp2", "expm1", "fix", "floor", "frac", "lgamma", "log", "log10", "log1p", "log2",
         "logit", "i0", "isnan", "nan_to_num", "neg", "negative", "positive", "pow", "rad2deg",
         "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sgn", "signbit", "sin", "sinc",
         "sinh", "sqrt", "square", "tan", "tanh", "trunc")
BINARY = ("add", "atan2", "arctan2", "bitwise_and", "bitwise_or", "bitwise_xor",
          "bitwise_left_shift", "bitwise_right_shift", "div", "divide", "floor_divide", "fmod",
          "logaddexp", "logaddexp2", "mul", "multiply", "nextafter", "remainder", "sub",
          "subtract", "true_divide", "eq", "ne", "le", "ge", "greater", "greater_equal", "gt",
          "less_equal", "lt", "less", "maximum", "minimum", "fmax", "fmin", "not_equal")
# Python's operators: (the method, whether the MaskedTensor is the right operand); torch has
# no reflected subtraction (1 - mt raises TypeError)
OPERATORS = {"__add__": ("add", False), "__radd__": ("add", True), "__sub__": ("sub", False),
             "__mul__": ("mul", False), "__rmul__": ("mul", True),
             "__truediv__": ("div", False), "__rtruediv__": ("div", True),
             "__floordiv__": ("floor_divide", False), "__mod__": ("remainder", False),
             "__and__": ("bitwise_and", False), "__or__": ("bitwise_or", False),
             "__xor__": ("bitwise_xor", False), "__le__": ("le", False),
             "__ge__": ("ge", False), "__gt__": ("gt", False), "__lt__": ("lt", False),
             "__eq__": ("eq", False), "__ne__": ("ne", False)}
# in-place forms: the data changes in place, the mask stays
INPLACE_UNARY = tuple(n for n in UNARY if n not in ("angle", "positive", "signbit", "isnan"))
INPLACE_BINARY = tuple(n for n in BINARY if n not in ("logaddexp", "logaddexp2", "fmin",
                                                      "minimum", "maximum", "fmax"))
REDUCTIONS = ("sum", "mean", "amin", "amax", "argmin", "argmax", "prod", "all", "norm", "var",
              "std")
# shape ops applied to the data and the mask alike
PASSTHROUGH = ("select", "transpose", "t", "expand", "view", "reshape", "unsqueeze",
               "squeeze", "permute", "flatten")
_DTYPES = {gradjit.float16, gradjit.float32, gradjit.float64, gradjit.bool, gradjit.int8,
           gradjit.int16, gradjit.int32, gradjit.int64}


def is_masked_tensor(obj, /):
    return isinstance(obj, MaskedTensor)


def _data(x):
    return x._masked_data if is_masked_tensor(x) else x


class MaskedTensor:
    """torch.masked.MaskedTensor: data whose masked-out elements no operation reads."""

    __hash__ = object.__hash__  # by identity, as a tensor's, though == is elementwise
    _edge = None  # torch's functions (torch.exp(mt)) pass it through to its own methods

    def __init__(self, data, mask, requires_grad=False):
        for name, value in (("data", data), ("mask", mask)):
            if is_masked_tensor(value) or not isinstance(value, gradjit.Tensor):
                raise TypeError(f"{name} must be a Tensor")
        warnings.warn("The PyTorch API of MaskedTensors is in prototype stage and will change "
                      "in the near future. Please open a Github issue for features requests "
                      "and see our documentation on the torch.masked module for further "
                      "information about the project.", UserWarning, stacklevel=2)
        if data.requires_grad:
            warnings.warn("It is not recommended to create a MaskedTensor with a tensor that "
                          "requires_grad. To avoid this, you can use data.detach().clone()",
                          UserWarning, stacklevel=2)
        # a leaf of its own, cut from data's history: its .grad is a MaskedTensor of data's
        data = data.detach().clone().requires_grad_(requires_grad)
        self._set_data_mask(data, mask.clone())

    @classmethod
    def _wrap(cls, data, mask):
        """A MaskedTensor around computed data, which keeps its autograd history."""
        result = object.__new__(cls)
        result._set_data_mask(data, mask)
        return result

    def _set_data_mask(self, data, mask):
        if mask.dtype != gradjit.bool:
            raise TypeError("mask must have dtype bool.")
        if data.dtype not in _DTYPES:
            raise TypeError(f"{data.dtype} is not supported in MaskedTensor.")
        if data.dim() != mask.dim():
            raise ValueError("data.dim() must equal mask.dim()")
        if data.size() != mask.size():
            raise ValueError("data.size() must equal mask.size()")
        self._masked_data, self._masked_mask = data, mask

    def get_data(self):
        return self._masked_data

    def get_mask(self):
        return self._masked_mask

    def to_tensor(self, value):
        return self._masked_data.masked_fill(~self._masked_mask, value)

    # ---- what a tensor tells about itself ----
    shape = property(lambda self: self._masked_data.shape)
    dtype = property(lambda self: self._masked_data.dtype)
    device = property(lambda self: self._masked_data.device)
    layout = property(lambda self: self._masked_data.layout)
    ndim = property(lambda self: self._masked_data.ndim)
    requires_grad = property(lambda self: self._masked_data.requires_grad)
    is_sparse = False

    def size(self, dim=None):
        return self._masked_data.size() if dim is None else self._masked_data.size(dim)

    def dim(self):
        return self._masked_data.dim()

    def numel(self):
        return self._masked_data.numel()

    def is_sparse_coo(self):
        return False

    def is_sparse_csr(self):
        return False

    @property
    def grad(self):
        grad = self._masked_data.grad
        return None if grad is None else MaskedTensor._wrap(grad, self._masked_mask)

    def backward(self, gradient=None, **kwargs):
        self._masked_data.backward(_data(gradient), **kwargs)

    def requires_grad_(self, requires_grad=True):
        self._masked_data.requires_grad_(requires_grad)
        return self

    def detach(self):
        return MaskedTensor._wrap(self._masked_data.detach(), self._masked_mask)

    def clone(self):
        return MaskedTensor._wrap(self._masked_data.clone(), self._masked_mask.clone())

    def to(self, *args, **kwargs):
        return MaskedTensor._wrap(self._masked_data.to(*args, **kwargs), self._masked_mask)

    def __len__(self):
        return len(self._masked_data)

    def __getitem__(self, index):
        return MaskedTensor._wrap(self._masked_data[index], self._masked_mask[index])

    # ---- operations ----
    def _binary(self, name, other, reflected=False):
        self._check_mask_of(other)
        left, right = (other, self) if reflected else (self, other)
        data = getattr(gradjit, name)(_data(left), _data(right))
        return MaskedTensor._wrap(data, self._masked_mask.expand_as(data))

    def _check_mask_of(self, other):
        if is_masked_tensor(other) and not _same(self._masked_mask, other._masked_mask):
            raise ValueError("Input masks must match. If you need support for this, please "
                             "open an issue on Github.")

    def _in_place(self, name, *args, **kwargs):
        for other in args[:1]:
            self._check_mask_of(other)
        getattr(self._masked_data, name)(*(_data(a) for a in args), **kwargs)
        return self

    def _reduce(self, name, dim=None, keepdim=False, dtype=None):
        mask = self._masked_mask
        if name == "all":  # masked-out elements count as True
            data = self._masked_data.masked_fill(~mask, True)
            data = data.all() if dim is None else data.all(dim=dim, keepdim=keepdim)
        elif dim is None:
            data = getattr(ops, name)(self._masked_data, mask=mask)
        else:
            data = getattr(ops, name)(self._masked_data, dim=dim, keepdim=keepdim, dtype=dtype,
                                      mask=mask)
        if dim is None:
            return MaskedTensor._wrap(data, mask.any())
        for d in sorted((dim,) if isinstance(dim, int) else dim, reverse=True):
            mask = mask.any(dim=d, keepdim=keepdim)
        return MaskedTensor._wrap(data, mask)

    def _normalization(self, name, dim, dtype=None):
        data = getattr(ops, name)(self._masked_data, dim, dtype=dtype, mask=self._masked_mask)
        return MaskedTensor._wrap(data, self._masked_mask)

    def __neg__(self):
        return self.neg()

    def __abs__(self):
        return self.abs()

    def __pow__(self, exponent):
        return self.pow(exponent)

    def __invert__(self):
        return self.bitwise_not()

    def __bool__(self):
        return bool(self._masked_data)

    def __repr__(self):
        data, mask = self._masked_data.detach(), self._masked_mask
        if data.dim() == 0:
            text = _element(data.item()) if mask.item() else "--"
            return f"MaskedTensor({text}, {mask.item()})"
        lines = _text(data, mask).split("\n")
        return "MaskedTensor(\n" + "\n".join("  " + line for line in lines) + "\n)"


def _same(a, b):
    return a.dim() == b.dim() and bool(gradjit.eq(a, b).all())


def _element(value):
    return f"{value:8.4f}" if isinstance(value, float) else str(value)


def _text(data, mask):
    """torch's layout of a MaskedTensor: rows of 8-wide numbers, '--' where masked out."""
    if data.dim() == 1:
        items = [_element(value) for value in data.tolist()]
        present = mask.tolist()
        width = max((len(item) if keep else 8 for item, keep in zip(items, present)), default=0)
        return "[" + ", ".join(item if keep else "--".rjust(width)
                               for item, keep in zip(items, present)) + "]"
    rows = ["\n".join("  " + line for line in _text(d, m).split("\n"))
            for d, m in zip(data, mask)]
    return "[\n" + ",\n".join(rows) + "\n]"


def _unary_method(name):
    def method(self, *args, **kwargs):
        if any(isinstance(a, (gradjit.Tensor, MaskedTensor)) for a in args):
            raise TypeError("MaskedTensor unary ops do not support additional Tensor arguments")
        return MaskedTensor._wrap(getattr(gradjit, name)(self._masked_data, *args, **kwargs),
                                  self._masked_mask)
    return method


def _passthrough_method(name):
    def method(self, *args, **kwargs):
        return MaskedTensor._wrap(getattr(self._masked_data, name)(*args, **kwargs),
                                  getattr(self._masked_mask, name)(*args, **kwargs))
    return method


def _install():
    """MaskedTensor's methods from the tables above, each named as torch.Tensor's."""
    methods = {name: _unary_method(name) for name in UNARY}
    methods.update({name: _passthrough_method(name) for name in PASSTHROUGH})
    methods.update({name + "_": lambda self, *args, _n=name + "_", **kwargs: self._in_place(
        _n, *args, **kwargs) for name in {*INPLACE_UNARY, *INPLACE_BINARY}})
    methods.update({name: lambda self, other, _n=name: self._binary(_n, other)
                    for name in BINARY})
    methods.update({name: lambda self, other, _n=method, _r=reflected: self._binary(
        _n, other, _r) for name, (method, reflected) in OPERATORS.items()})
    methods.update({name: lambda self, dim=None, keepdim=False, dtype=None, _n=name:
                    self._reduce(_n, dim, keepdim, dtype) for name in REDUCTIONS})
    methods.update({name: lambda self, dim, dtype=None, _n=name: self._normalization(
        _n, dim, dtype) for name in ("softmax", "log_softmax", "softmin")})
    for name, method in methods.items():
        method.__name__ = method.__qualname__ = name
        setattr(MaskedTensor, name, method)


_install()


def masked_tensor(data, mask, requires_grad=False):
    return MaskedTensor(data, mask, requires_grad)


def as_masked_tensor(data, mask):
    """A MaskedTensor whose gradients flow back to data."""
    return MaskedTensor._wrap(data, mask)
