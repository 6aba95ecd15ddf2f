"""SSA functions: values, ops in topological order, functions, and a builder that records ops.

Inside `with builder:` every primitive bound to IR values (or to nothing array-like)
appends an op, so VJP rules written with primitives build IR when given IR values.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gradjit.ir.array_value import ArrayValue
from gradjit.ir.primitive import (Primitive, ambient_handler, current_ambient, is_python_scalar,
                                  scalar_template)
from gradjit.ir.types import TensorType, dtype as resolve_dtype


class Value:
    """An SSA value: defined once, by a function parameter or by one op."""

    __gradjit_priority__ = 10

    def __init__(self, type: TensorType, name: str | None = None):
        self.type = type
        self.name = name

    @property
    def ir_type(self) -> TensorType:
        return self.type

    @property
    def shape(self):
        return self.type.shape

    @property
    def dtype(self):
        return self.type.dtype

    def __repr__(self) -> str:
        return f"<Value {self.name or hex(id(self))}: {self.type}>"

    @classmethod
    def __gradjit_bind__(cls, prim, args, params):
        return Builder.current().emit(prim, args, params)


@dataclass(eq=False)
class Op:
    """One application of a primitive: `out = prim(*inputs) {params}`; `out` is None for
    effects (guards). `site` is the user's source line that produced it, if known."""

    prim: Primitive
    inputs: list[Value]
    params: dict
    out: Value | None
    site: str | None = None


@dataclass(eq=False)
class Function:
    name: str
    params: list[Value]
    ops: list[Op]
    results: list[Value]

    def __str__(self) -> str:
        from gradjit.ir.text import print_function
        return print_function(self)

    __repr__ = __str__

    @property
    def result_types(self) -> list[TensorType]:
        return [r.type for r in self.results]


def canonical_params(prim: Primitive, params: dict) -> dict:
    """Params in the primitive's declared order, lists as tuples, numbers as plain Python."""
    unknown = set(params) - set(prim.params)
    missing = set(prim.params) - set(params)
    if unknown or missing:
        raise TypeError(f"{prim.name} takes params {prim.params}; got {tuple(params)}")
    out = {k: _plain(params[k]) for k in prim.params}
    if prim.name == "constant" and not isinstance(out["value"], ArrayValue):
        out["value"] = _array_value(out["value"], out["dtype"])
    return out


def _array_value(value, dtype):
    """A constant's value given as nested lists (IR text, hand-built IR) as an ArrayValue;
    left as it is when it is not an array of that dtype, for the verifier to name."""
    try:
        return ArrayValue(np.asarray(value, dtype=resolve_dtype(dtype).numpy))
    except (ValueError, TypeError, OverflowError, KeyError):
        return value


def _plain(v):
    if isinstance(v, (list, tuple)):
        return tuple(_plain(x) for x in v)
    if isinstance(v, np.ndarray):
        return _plain(v.tolist())
    if isinstance(v, np.generic):
        return v.item()
    if hasattr(v, "numpy") and hasattr(v, "name") and not isinstance(v, str):
        return resolve_dtype(v).name  # a DType
    return v


class Builder:
    """Records ops into a function under construction."""

    def __init__(self, name: str = "f"):
        self.name = name
        self.params: list[Value] = []
        self.ops: list[Op] = []
        self.site: str | None = None

    def param(self, type: TensorType, name: str | None = None) -> Value:
        value = Value(type, name)
        self.params.append(value)
        return value

    def emit(self, prim: Primitive, args, params, site: str | None = None) -> Value | None:
        inputs = self._lift(args)
        params = canonical_params(prim, params)
        out_type = prim.infer(*(v.type for v in inputs), **params)
        out = None if out_type is None else Value(out_type)
        self.ops.append(Op(prim, inputs, params, out, site or self.site))
        return out

    def _lift(self, args) -> list[Value]:
        values = [a if isinstance(a, Value) or is_python_scalar(a) else
                  self.constant(np.asarray(a)) for a in args]
        like = scalar_template(values)
        if like is None:
            return [self.constant(np.asarray(a)) for a in args]
        return [self.full(v, like.type) if is_python_scalar(v) else v for v in values]

    def full(self, value, type: TensorType) -> Value:
        from gradjit.ir.elementwise import full
        return self.emit(full, (), {"value": value, "shape": type.shape,
                                    "dtype": type.dtype.name})

    def constant(self, array: np.ndarray) -> Value:
        from gradjit.ir.structural import constant
        return self.emit(constant, (), {"value": ArrayValue(array), "shape": array.shape,
                                        "dtype": resolve_dtype(array.dtype).name})

    def build(self, results) -> Function:
        return Function(self.name, list(self.params), list(self.ops), list(results))

    def __gradjit_bind__(self, prim, args, params):
        return self.emit(prim, args, params)

    @staticmethod
    def current() -> Builder:
        handler = current_ambient()
        if not isinstance(handler, Builder):
            raise RuntimeError("IR values were used outside of a `with Builder():` block")
        return handler

    def __enter__(self):
        self._ambient = ambient_handler(self)
        self._ambient.__enter__()
        return self

    def __exit__(self, *exc):
        self._ambient.__exit__(*exc)
