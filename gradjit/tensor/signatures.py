"""PyTorch's argument parser's refusals: a list or tuple where an operation takes a Tensor (or a
number), or a number where no overload takes one, raises TypeError in torch's words, built from
the overloads torch lists."""
from __future__ import annotations

import functools

_SEQUENCES = (list, tuple)

# Operations with one overload taking a Tensor: the parameter's name (method and function).
_ONE_TENSOR = {
    **dict.fromkeys((
        "add", "sub", "mul", "div", "maximum", "minimum", "fmax", "fmin", "atan2", "arctan2",
        "hypot", "logical_and", "logical_or", "logical_xor", "isclose", "allclose", "equal",
        "matmul", "nextafter", "ldexp", "gcd", "lcm", "igamma", "igammac", "logaddexp",
        "logaddexp2"),
        "other"),
    "dot": "tensor", "mm": "mat2", "mv": "vec", "heaviside": "values",
}
# torch.polar(abs, angle), torch.complex(real, imag): functions of two Tensors alone
_TWO_TENSORS = {"polar": "Tensor abs, Tensor angle", "complex": "Tensor real, Tensor imag"}
# the arithmetic whose parser takes a number for a Tensor (as a wrapped 0-d tensor)
NUMBERS_AS_TENSORS = {"add", "sub", "mul", "div", "true_divide", "multiply", "divide",
                       "floor_divide", "subtract"}
_ONE_TENSOR_IN_PLACE = ("add_", "sub_", "mul_", "div_", "atan2_", "logical_and_", "hypot_")

_OUT = "*, Tensor out = None"
_BOTH = (f"Tensor input, Tensor other, {_OUT}", f"Tensor input, Number other, {_OUT}")
_SCALAR_PLAIN = (f"Tensor input, Tensor other, {_OUT}", "Tensor input, Number other")
_SCALAR_FIRST = (f"Tensor input, Tensor other, {_OUT}", "Number self, Tensor other",
                 f"Tensor input, Number other, {_OUT}")


def _scalar_either(param):
    return (f"Tensor input, Tensor {param}, {_OUT}", f"Number self, Tensor {param}, {_OUT}",
            f"Tensor input, Number {param}, {_OUT}")


# Operations whose Tensor and Number overloads torch lists: (method's, function's) overloads.
_OVERLOADED = {
    **dict.fromkeys(("eq", "ne", "lt", "le", "gt", "ge", "greater", "less", "greater_equal",
                     "less_equal", "not_equal", "fmod", "copysign"),
                    (("Tensor other", "Number other"), _BOTH)),
    **dict.fromkeys(("true_divide", "multiply", "floor_divide"),
                    (("Tensor other", "Number other"), _SCALAR_PLAIN)),
    **dict.fromkeys(("remainder", "bitwise_and", "bitwise_or", "bitwise_xor",
                     "bitwise_left_shift", "bitwise_right_shift"),
                    (("Tensor other", "Number other"), _SCALAR_FIRST)),
    "xlogy": (("Tensor other", "Number other"), _scalar_either("other")),
    **dict.fromkeys(("pow", "float_power"),
                    (("Tensor exponent", "Number exponent"), _scalar_either("exponent"))),
    "clamp": (("Tensor min = None, Tensor max = None", "Number min = None, Number max = None"),
              ("Tensor input, Tensor min = None, Tensor max = None, " + _OUT,
               "Tensor input, Number min = None, Number max = None, " + _OUT)),
    **{name: ((f"Tensor {bound}", f"Number {bound}"),
              (f"Tensor input, Tensor {bound}, {_OUT}", f"Tensor input, Number {bound}, {_OUT}"))
       for name, bound in (("clamp_max", "max"), ("clamp_min", "min"))},
    "subtract": (("Tensor other, *, Number alpha = 1", "Number other, Number alpha = 1"),
                 ("Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None",
                  "Tensor input, Number other, Number alpha = 1")),
    "rsub": (("Tensor other, *, Number alpha = 1", "Number other, Number alpha = 1"),
             ("Tensor input, Tensor other, *, Number alpha = 1",
              "Tensor input, Number other, Number alpha = 1")),
    "divide": (("Tensor other", "Tensor other, *, str rounding_mode", "Number other",
                "Number other, *, str rounding_mode"),
               (f"Tensor input, Tensor other, {_OUT}",
                "Tensor input, Tensor other, *, str rounding_mode, Tensor out = None",
                "Tensor input, Number other", "Tensor input, Number other, *, str rounding_mode")),
    "lerp": (("Tensor end, Tensor weight", "Tensor end, Number weight"),
             (f"Tensor input, Tensor end, Tensor weight, {_OUT}",
              f"Tensor input, Tensor end, Number weight, {_OUT}")),
    "masked_fill": (("Tensor mask, Tensor value", "Tensor mask, Number value"),
                    ("Tensor input, Tensor mask, Tensor value",
                     "Tensor input, Tensor mask, Number value")),
    "where": (("Tensor condition, Tensor other", "Tensor condition, Number other"),
              ("Tensor condition", f"Tensor condition, Tensor input, Tensor other, {_OUT}",
               "Tensor condition, Number self, Tensor other",
               "Tensor condition, Tensor input, Number other",
               "Tensor condition, Number self, Number other")),
}
_OVERLOADED_IN_PLACE = ("pow_", "eq_", "clamp_", "fmod_", "remainder_", "copysign_", "lerp_",
                        "masked_fill_")


def describe(x):
    """A value's type as torch's parser names it: `list of [int, float]`, `numpy.ndarray`."""
    if isinstance(x, _SEQUENCES):
        inner = ", ".join(describe(v).split(" ")[0] for v in x)
        comma = "," if isinstance(x, tuple) and len(x) == 1 else ""
        return f"list of [{inner}]" if isinstance(x, list) else f"tuple of ({inner}{comma})"
    if hasattr(x, "_edge"):
        return "Tensor"
    kind = type(x)
    if kind.__module__ == "builtins":
        return kind.__name__
    import gradjit  # torch's own types (torch.device, torch.dtype) by their public names
    if getattr(gradjit, kind.__name__, None) is kind:
        return f"torch.{kind.__name__}"
    return f"{kind.__module__}.{kind.__qualname__}"


def _short(x):
    return describe(x).split(" ")[0]


def _parameters(overload):
    """(type, name, optional: None by default, so it takes None) of each parameter;
    keyword-only ones after '*' dropped."""
    params = []
    for part in overload.split(", "):
        if part == "*":
            break
        kind, name = part.split(" = ")[0].split(" ")
        params.append((kind, name, part.endswith(" = None")))
    return params


def _fits(kind, x):
    """Whether torch's message leaves x unmarked: it marks whatever a Number parameter gets."""
    return kind == "Tensor" and hasattr(x, "_edge")


def _matches(overload, args):
    """Whether the positional args fit an overload's Tensor and Number parameters."""
    return all(a is None and optional or
               (hasattr(a, "_edge") if kind == "Tensor" else
                type(a) in (bool, int, float, complex) if kind == "Number" else True)
               for (kind, _, optional), a in zip(_parameters(overload), args))


def _refused(name, overloads, args, kwargs):
    """Whether torch's parser refuses the arguments: a list or tuple among them, or positional
    ones that fit no overload."""
    return any(type(a) in _SEQUENCES for a in (*args, *kwargs.values())) or (
        name.rstrip("_") not in NUMBERS_AS_TENSORS and
        not any(_matches(o, args) for o in overloads))


def _reason(overload, args):
    """The line under an overload saying which arguments it refused; torch prints one only
    for an overload with as many parameters (keyword-only ones and out= included) as args."""
    if len([p for p in overload.split(", ") if p != "*"]) != len(args):
        return ""
    marked = (describe(a) if _fits(kind, a) else f"!{describe(a)}!"
              for (kind, _, _), a in zip(_parameters(overload), args))
    return ("\n      didn't match because some of the arguments have invalid types: "
            f"({', '.join(marked)})")


def _refuse(name, overloads, args, kwargs):
    if len(overloads) == 1:
        params = _parameters(overloads[0])
        for position, ((kind, param, _), a) in enumerate(zip(params, args)):
            if not _fits(kind, a):
                raise TypeError(f"{name}(): argument '{param}' (position {position + 1}) must "
                                f"be {kind}, not {_short(a)}")
        for key, a in kwargs.items():  # by keyword, torch names no position
            if type(a) in _SEQUENCES:
                raise TypeError(f"{name}(): argument '{key}' must be Tensor, not {_short(a)}")
    keywords = [f"{key}={_short(kwargs[key])}" for key in sorted(kwargs)]
    got = ", ".join([_short(a) for a in args] + keywords) if args else \
        "".join(f"{k}, " for k in keywords)
    # (with keywords torch's reasons follow rules of their own; the overloads are listed bare)
    listed = "".join(f"\n * ({o}){'' if kwargs else _reason(o, args)}" for o in overloads)
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but "
                    f"expected one of:{listed}\n")


def _method_overloads(name):
    base = name.rstrip("_")
    if base in _ONE_TENSOR:
        return (f"Tensor {_ONE_TENSOR[base]}",)
    return _OVERLOADED[base][0]


def function_overloads(name):
    """torch.`name`'s overloads, or None where it takes no refused sequences here."""
    if name in _ONE_TENSOR:
        return (f"Tensor input, Tensor {_ONE_TENSOR[name]}",)
    if name in _TWO_TENSORS:
        return (_TWO_TENSORS[name],)
    return _OVERLOADED[name][1] if name in _OVERLOADED else None


def check_function(name, args, kwargs):
    """torch.`name`(*args, **kwargs): raise as torch does for a list or tuple among the
    arguments, or a number where no overload takes one."""
    overloads = function_overloads(name)
    if overloads is not None and _refused(name, overloads, args, kwargs):
        _refuse(name, overloads, args, kwargs)


def _checked(name, method):
    overloads = _method_overloads(name)

    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        if _refused(name, overloads, args, kwargs):
            _refuse(name, overloads, args, kwargs)
        return method(self, *args, **kwargs)
    return checked


def refuse_sequences_in(cls):
    """Wrap cls's methods that torch's parser guards against lists and tuples."""
    names = (*_ONE_TENSOR, *_ONE_TENSOR_IN_PLACE, *_OVERLOADED, *_OVERLOADED_IN_PLACE)
    for name in names:
        if name in vars(cls) or hasattr(cls, name):
            setattr(cls, name, _checked(name, getattr(cls, name)))
    return cls


def check_overloads(name, overloads, args):
    """Raise as torch's parser does where no overload takes the positional args' kinds (a
    Python number for a Number; a list or tuple for neither) in order. Other data passes for a
    Tensor, as gradjit's functions take numpy arrays."""
    def fits(kind, x):
        number = type(x) in (bool, int, float, complex)
        return number if kind == "Number" else not number and type(x) not in _SEQUENCES
    if not any(len(args) <= len(params) and all(map(fits, (k for k, _, _ in params), args))
               for params in map(_parameters, overloads)):
        _refuse(name, overloads, args, {})
