"""ATen's names for the calls an exported graph makes: each call_function/call_method of a
traced program as torch.ops.aten.<op>.<overload> with its arguments in positional form."""
from __future__ import annotations

import inspect
import operator
import types

_MAXINT = 9223372036854775807
# Overloads other than .default: by op name, or chosen by the arguments.
_OVERLOADS = {"add": "Tensor", "sub": "Tensor", "mul": "Tensor", "div": "Tensor",
              "softmax": "int", "log_softmax": "int", "transpose": "int", "select": "int",
              "flatten": "using_ints", "slice": "Tensor", "rsub": "Scalar"}
_BY_DIM = {"sum": "dim_IntList", "mean": "dim", "max": "dim", "min": "dim"}
_COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge"}
_DIM_LISTS = {"sum", "mean"}  # ops whose ATen schema takes dims as a list
_SIZES = {"view", "reshape", "permute", "expand", "repeat"}  # sizes as one list
_WINDOWS = {f"{kind}_pool{n}d" for kind in ("max", "avg") for n in (1, 2, 3)}  # int -> [k]*n


class OpOverload:
    """torch.ops.aten.<name>.<overload>: calls `fn` (gradjit's function or method)."""

    def __init__(self, name, overload, fn):
        self.name, self.overload, self._fn = name, overload, fn
        self.__name__ = f"{name}.{overload}"
        self._qualified_name = f"torch.ops.aten.{name}.{overload}"

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __repr__(self):
        return f"aten.{self.name}.{self.overload}"


class _Namespace(types.SimpleNamespace):
    pass


aten = _Namespace()  # the overloads made so far, as torch.ops.aten.<name>.<overload>
ops = types.SimpleNamespace(aten=aten)


def overload(name, kind, fn) -> OpOverload:
    packet = getattr(aten, name, None)
    if packet is None:
        packet = _Namespace()
        setattr(aten, name, packet)
    op = getattr(packet, kind, None)
    if op is None:
        op = OpOverload(name, kind, fn)
        setattr(packet, kind, op)
    return op


def _method(name):
    return lambda self, *args, **kwargs: getattr(self, name)(*args, **kwargs)


def _slice(x, dim, start=0, end=_MAXINT, step=1):
    return x[(slice(None),) * dim + (slice(start, end, step),)]


def _positional(fn, name, args, kwargs, method):
    """args and kwargs in the signature's order, trailing defaults dropped, tuples of
    numbers as lists (ATen's int[] arguments)."""
    import gradjit
    try:
        signature = inspect.signature(getattr(gradjit.Tensor, name) if method else fn)
        bound = signature.bind(*args, **kwargs)
    except (TypeError, ValueError, AttributeError):
        return [_listed(a) for a in (*args, *kwargs.values())]
    if name in _REORDERED:
        bound.apply_defaults()
        return _REORDERED[name][0](*bound.arguments.values())
    out, defaults = [], []
    for param_name, value in bound.arguments.items():
        kind = signature.parameters[param_name].kind
        if kind is inspect.Parameter.VAR_POSITIONAL or kind is inspect.Parameter.VAR_KEYWORD:
            values = value if kind is inspect.Parameter.VAR_POSITIONAL else value.values()
            out += [_listed(v) for v in values]
            defaults += [inspect.Parameter.empty] * len(values)
        else:
            out.append(_listed(value))
            defaults.append(signature.parameters[param_name].default)
    while out and defaults[-1] is not inspect.Parameter.empty and _same(out[-1], defaults[-1]):
        out.pop()
        defaults.pop()
    return out


def _listed(value):
    if isinstance(value, tuple) and value and all(isinstance(v, int) for v in value):
        return list(value)
    return value


def _same(a, b) -> bool:
    """a is the default b (a list of b repeated counts: stride [1, 1] for 1)."""
    if isinstance(a, list) and isinstance(b, int) and not isinstance(b, bool):
        return all(_same(v, b) for v in a)
    return type(a) is type(b) and a == b


def _batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps):
    return [x, weight, bias, running_mean, running_var, training, momentum, eps, False]


def _batch_norm_call(x, weight, bias, running_mean, running_var, training, momentum, eps,
                     cudnn_enabled):
    import gradjit
    return gradjit.nn.functional.batch_norm(x, running_mean, running_var, weight, bias,
                                            training, momentum, eps)


# Functions whose ATen schema orders the arguments otherwise: (to ATen's order, the call
# from ATen's order).
_REORDERED = {"batch_norm": (_batch_norm, _batch_norm_call)}


def aten_call(op, target, args, kwargs):
    """(ATen overload, positional args) for a traced call (op: call_function or call_method);
    None for the target kept as it is (getitem of a tuple)."""
    if op == "call_function" and getattr(target, "__module__", "") == "_operator":
        return _operator_call(target, args)
    name = target if op == "call_method" else target.__name__
    fn = _method(name) if op == "call_method" else _REORDERED.get(name, (None, target))[1]
    args = _positional(target, name, args, kwargs, op == "call_method")
    if name in _SIZES and len(args) > 1 and not isinstance(args[1], list):
        args = [args[0], list(args[1:])]
    if name in _DIM_LISTS and len(args) > 1 and isinstance(args[1], int):
        args[1] = [args[1]]
    if name in _WINDOWS and len(args) > 1 and isinstance(args[1], int):
        args[1] = [args[1]] * int(name[-2])
    kind = _OVERLOADS.get(name, "default")
    if name in _BY_DIM and len(args) > 1:
        kind = _BY_DIM[name]
    if name == "pow":
        kind = _pow_overload(args)
    return overload(name, kind, fn), args


def _pow_overload(args) -> str:
    return "Tensor_Scalar" if isinstance(args[1], (int, float)) else "Tensor_Tensor"


def _operator_call(target, args):
    name = target.__name__.rstrip("_")
    if name == "getitem":
        return None
    if name == "truediv":
        name = "div"
    scalar = len(args) > 1 and isinstance(args[1], (int, float, bool))
    if name == "sub" and isinstance(args[0], (int, float)):
        return overload("rsub", "Scalar", lambda x, y: y - x), [args[1], args[0]]
    if name in _COMPARISONS:
        kind = "Scalar" if scalar else "Tensor"
    elif name == "pow":
        kind = _pow_overload(args)
    else:
        kind = _OVERLOADS.get(name, "default")
    return overload(name, kind, getattr(operator, target.__name__)), list(args)


def index_calls(x, index):
    """x[index] as ATen's select/slice/unsqueeze calls: [(overload, args after x)], or None
    where the index takes another form (tensors, ellipsis)."""
    import gradjit
    calls, dim = [], 0
    for item in index if isinstance(index, tuple) else (index,):
        if item == slice(None):  # the whole axis: no call
            dim += 1
        elif isinstance(item, int) and not isinstance(item, bool):
            calls.append((overload("select", "int", gradjit.select), [dim, item]))
        elif isinstance(item, slice) and all(isinstance(v, (int, type(None)))
                                             for v in (item.start, item.stop, item.step)):
            args = [dim, item.start or 0, _MAXINT if item.stop is None else item.stop]
            if item.step not in (None, 1):
                args.append(item.step)
            calls.append((overload("slice", "Tensor", _slice), args))
            dim += 1
        elif item is None:
            calls.append((overload("unsqueeze", "default", _method("unsqueeze")), [dim]))
            dim += 1
        else:
            return None
    return calls
