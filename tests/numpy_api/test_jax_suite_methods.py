"""ndarray methods, Python operators and numpy's function wrappers (vectorize, fromfunction,
frompyfunc-free helpers) on traced values, as JAX's lax_numpy tests call them on jax.Array:
compiled and differentiated against numpy."""
import operator
import re

import numpy as np
import pytest

from gradjit import jit
from tests.numpy_api.jax_suite import arg, case, check_grad, check_jit

A, B = arg((3, 4)), arg((3, 4), low=0.5, high=2.0)
I, J = arg((3, 4), "i4"), arg((3, 4), "i4")
Z = arg((3, 4), "c16")

METHODS = {
    "sum-where": lambda a: a.sum(axis=1, where=a > 0), "mean": lambda a: a.mean(0),
    "cumsum": lambda a: a.cumsum(1), "cumprod": lambda a: a.cumprod(),
    "prod-keep": lambda a: a.prod(axis=0, keepdims=True), "max": lambda a: a.max(1),
    "argmin": lambda a: a.argmin(axis=0), "argsort": lambda a: a.argsort(axis=0),
    "sort": lambda a: _sorted(a), "clip": lambda a: a.clip(-0.5, 0.5),
    "clip-max": lambda a: a.clip(max=0.1), "round": lambda a: a.round(1),
    "conj": lambda a: a.conj(), "conjugate": lambda a: a.conjugate(),
    "real-imag": lambda a: a.real + a.imag, "take": lambda a: a.take([0, 5, -1]),
    "take-axis": lambda a: a.take([2, 0], axis=1), "repeat": lambda a: a.repeat(2, axis=0),
    "reshape-args": lambda a: a.reshape(2, 6), "reshape-F": lambda a: a.reshape((4, 3), order="F"),
    "flatten": lambda a: a.flatten(), "flatten-F": lambda a: a.flatten("F"),
    "ravel": lambda a: a.ravel(), "squeeze": lambda a: a[:1].squeeze(),
    "swapaxes": lambda a: a.swapaxes(0, 1), "transpose-args": lambda a: a.transpose(1, 0),
    "T": lambda a: a.T, "mT": lambda a: a.mT, "dot": lambda a: a.dot(a.T),
    "trace": lambda a: a.trace(offset=1), "diagonal": lambda a: a.diagonal(-1),
    "var": lambda a: a.var(ddof=1), "std": lambda a: a.std(axis=0),
    "all": lambda a: (a > -5).all(), "any": lambda a: (a > 1).any(axis=1),
    "nonzero-count": lambda a: np.count_nonzero(a > 0), "astype": lambda a: a.astype(np.float32),
    "copy": lambda a: a.copy(), "fill-copy": lambda a: _filled(a),
    "item-shape": lambda a: a[:, 0] * a.shape[1] * a.ndim * a.size,
    "nbytes": lambda a: a[0] * a.nbytes * a.itemsize, "len": lambda a: a[0] * len(a),
    "iter": lambda a: sum(row for row in a), "put": lambda a: _put(a),
    "compress": lambda a: a.compress([True, False, True], axis=0),
    "searchsorted": lambda a: np.sort(a[0]).searchsorted(a[1]), "ptp-fn": lambda a: np.ptp(a, 1),
    "choose": lambda a: (np.abs(a) > 1).astype(int).choose([a, -a]),
    "round-builtin": lambda a: round(a, 2), "abs-builtin": lambda a: abs(a),
    "matmul-op": lambda a: a @ a.T, "rmatmul": lambda a: a.T.__rmatmul__(a),
    "pos": operator.pos, "neg": operator.neg,
    "iadd": lambda a: _iadd(a), "imul-slice": lambda a: _imul(a),
}

OPERATORS = {  # name -> (operator, float operands or int operands)
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow,
    "divmod": divmod, "lt": operator.lt, "le": operator.le, "eq": operator.eq,
    "ne": operator.ne, "ge": operator.ge, "gt": operator.gt,
    "radd": lambda a, b: 1.5 + b, "rsub": lambda a, b: 2 - b, "rmul": lambda a, b: 3 * b,
    "rtruediv": lambda a, b: 1 / b, "rfloordiv": lambda a, b: 7 // b, "rmod": lambda a, b: 5 % b,
    "rpow": lambda a, b: 1.5 ** b, "rdivmod": lambda a, b: divmod(5, b),
}
INT_OPERATORS = {
    "and": operator.and_, "or": operator.or_, "xor": operator.xor, "lshift": operator.lshift,
    "rshift": operator.rshift, "invert": lambda a, b: ~a, "rand": lambda a, b: 6 & b,
    "ror": lambda a, b: 6 | b, "rxor": lambda a, b: 6 ^ b, "rlshift": lambda a, b: 1 << np.abs(b),
    "rrshift": lambda a, b: 64 >> np.abs(b),
}


def _sorted(a):
    a = a.copy()
    a.sort(axis=0)
    return a


def _filled(a):
    a = a.copy()
    a.fill(2.0)
    return a + 0 * a


def _put(a):
    a = a.copy()
    a.put([0, 3], [9.0, 8.0])
    return a


def _iadd(a):
    b = a.copy()
    b += a * 2
    b -= 1.0
    return b


def _imul(a):
    b = a.copy()
    b[1:, ::2] *= 3.0
    b[0] /= 2.0
    return b


FUNCTIONS = [
    case("vectorize", np.vectorize(lambda x, y: np.where(x > 0, x + y, x * y)), A, B),
    case("vectorize-broadcast", np.vectorize(lambda x, y: np.hypot(x, y) + 1), A[:1], B[:, :1]),
    case("vectorize-signature", lambda a: np.vectorize(lambda v: v / v.sum(),
                                                        signature="(n)->(n)")(a), B),
    case("vectorize-matvec", np.vectorize(lambda m, v: m @ v, signature="(m,n),(n)->(m)"),
         arg((2, 3, 4)), arg((4,))),
    case("vectorize-tuple", np.vectorize(lambda v: (v.min(), v.max()), signature="(n)->(),()"),
         A),
    case("vectorize-excluded", lambda a, b: np.vectorize(lambda v, p: v ** p,
                                                          excluded={1})(b, 2.0), A, B),
    case("fromfunction", lambda a: np.fromfunction(lambda i, j: i * 2 + j, (3, 4)) * a, A),
    case("apply_along_axis-scalar", lambda a: np.apply_along_axis(np.max, 0, a), A),
    case("apply_along_axis-matrix", lambda a: np.apply_along_axis(np.diag, -1, a), A),
    case("piecewise-scalar-funcs", lambda a: np.piecewise(a, [a < 0], [0.0, lambda v: v ** 2]),
         A),
    case("frompyfunc-free-select", lambda a: np.select([a < -1, a > 1], [a ** 2, -a], a), A),
]

CASES = ([case(f"method-{name}", fn, A) for name, fn in METHODS.items()]
         + [case(f"method-{name}-c16", fn, Z) for name, fn in METHODS.items()]
         + [case(f"op-{name}", fn, A, B) for name, fn in OPERATORS.items()]
         + [case(f"op-{name}-int", fn, I, np.where(J == 0, 1, J)) for name, fn in
            OPERATORS.items()]
         + [case(f"op-{name}", fn, I, J) for name, fn in INT_OPERATORS.items()]
         + FUNCTIONS)


@pytest.mark.parametrize("c", CASES, ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.grad], ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)


@pytest.mark.parametrize("signature, args", [("(n)->", (A,)), ("(n),(n)->()", (A,)),
                                             ("(m,n,k)->()", (A,))])
def test_vectorize_refuses_what_numpy_refuses(signature, args):
    def call(*a):
        return np.vectorize(np.sum, signature=signature)(*a)
    with pytest.raises(Exception) as want:
        call(*args)
    with pytest.raises(type(want.value), match=re.escape(str(want.value))):
        jit(call, backend="interpreter")(*args)
