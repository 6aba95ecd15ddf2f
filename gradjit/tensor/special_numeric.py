"""torch.special's functions evaluated in numpy, where a composition of tensor ops is
impractical: the Bessel and Airy functions through mpmath and the orthogonal polynomials by
their recurrences in n (PyTorch gives these no gradient), and the Hurwitz zeta and regularized
incomplete gamma functions with PyTorch's gradient in the one argument it differentiates."""
from __future__ import annotations

import functools
import math

import numpy as np

from gradjit.ir.primitive import BroadcastError
from gradjit.ops.promote import broadcast_shapes
from gradjit.tensor import dtypes, graph
from gradjit.tensor.defaults import result_type
from gradjit.tensor.factories import tensor
from gradjit.tensor.grad_mode import is_grad_enabled
from gradjit.tensor.signatures import check_function


class _Mpmath:
    """mpmath, imported on first use: importing it made up a tenth of importing gradjit."""

    def __getattr__(self, name):
        return getattr(self.load(), name)

    @staticmethod
    def load():
        import mpmath as module
        return module


mpmath = _Mpmath()


def _evaluated(name, values_of, args, rules=None, node=None):
    """values_of(dtype, *float64 arrays broadcast together) as the result of torch.special's
    `name` of args, in their promoted floating dtype; rules, one per argument (None: no
    gradient; a name: PyTorch's error), differentiate it, recorded under the grad_fn `node`.
    A traced argument makes it a step run on the host by the compiled program."""
    dtype = (args[0] if hasattr(args[0], "_edge") else tensor(args[0])).dtype \
        if len(args) == 1 else result_type(*args)
    if not dtype.is_floating_point:
        dtype = dtypes.get_default_dtype()
    if dtype.itemsize == 2 and name not in ("gammainc", "gammaincc"):
        # PyTorch builds these kernels for float and double only (igamma's for all floats)
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'{dtype.legacy}\'')
    ts = [a if hasattr(a, "_edge") else tensor(a, dtype=dtype) for a in args]
    if not all(isinstance(t._value, np.ndarray) for t in ts):
        step = _host_step(name, values_of, dtype.ir.numpy, rules or (None,) * len(ts))
        return type(ts[0])._wrap(step(*(t._value for t in ts)))
    try:
        broadcast_shapes(*(tuple(t.shape) for t in ts))
    except BroadcastError as error:
        raise error.in_torch_words() from None
    # through float64 (bfloat16 has no numpy form), rounded once to the dtype
    arrays = np.broadcast_arrays(*(t.detach().double().numpy() for t in ts))
    out = tensor(np.asarray(values_of(dtype.ir.numpy, *arrays), np.float64)).to(dtype)
    needs = tuple(t._edge is not None for t in ts)
    if rules and is_grad_enabled() and any(needs):
        out._edge = graph.Record(_Derivatives(rules, needs), {}, ts,
                                 [t._grad_edge() for t in ts], out, graph.Node.named(node))
    return out


class _Derivatives:
    """The tape rule of a numpy-evaluated function: d out / d input by PyTorch's formula in
    tensor ops (so it differentiates again), or a name, PyTorch's error where it has none."""

    differentiable = True

    def __init__(self, rules, needs):
        self.rules, self.needs = rules, needs

    def vjp(self, g, out, *inputs):
        return [_cotangent(rule, g, inputs, x) if need else None
                for rule, x, need in zip(self.rules, inputs, self.needs)]


def _cotangent(rule, g, inputs, x):
    """g times d out / d x by `rule`, summed to x's shape."""
    if rule is None:
        return None
    if isinstance(rule, str):
        raise NotImplementedError(f"the derivative for '{rule}' is not implemented.")
    d = g * rule(*inputs)
    return d if tuple(d.shape) == tuple(x.shape) else d.sum_to_size(tuple(x.shape))


@functools.cache
def _host_step(name, values_of, dtype, rules):
    """The host primitive computing values_of in a compiled program. Each argument's
    cotangent is its own host step, so one the gradient does not use is never computed (nor
    raises PyTorch's error for a derivative it lacks)."""
    from gradjit.ir.types import TensorType
    from gradjit.ir.types import dtype as ir_dtype
    from gradjit.tensor.tensor import Tensor
    from gradjit.tracer.host import cotangent_rule, host_primitive

    def shape_rule(*types):
        return TensorType(np.broadcast_shapes(*(t.shape for t in types)), ir_dtype(dtype))

    def values(*arrays):
        arrays = np.broadcast_arrays(*(np.asarray(a, np.float64) for a in arrays))
        return np.asarray(values_of(dtype, *arrays), np.float64).astype(dtype)

    def cotangents_for(index):
        def cotangents_of(args, g):
            inputs = [Tensor._wrap(a) for a in args]
            return [None if i != index else _cotangent(rule, Tensor._wrap(g), inputs, x)._value
                    for i, (rule, x) in enumerate(zip(rules, inputs))]
        return cotangent_rule(f"{name}_d{index}", len(rules), cotangents_of, name)
    per_argument = [cotangents_for(i) if rule is not None else None
                    for i, rule in enumerate(rules)]

    def vjp(g, out, *args):
        return tuple(None if rule is None else rule(g, out, *args)[i]
                     for i, rule in enumerate(per_argument))
    return host_primitive(f"special_{name}", shape_rule, values, len(rules), vjp=vjp)


def _elementwise(fn, *arrays):
    mpmath.load()  # here, not inside numpy's loop, which reports the flags its import raises
    with np.errstate(over="ignore"):  # mpmath's values beyond float64 become inf, as PyTorch's
        return np.frompyfunc(lambda *v: float(fn(*v)), len(arrays), 1)(*arrays).astype(
            np.float64)


# ---- Bessel and Airy functions: no gradient in PyTorch ----

# name: (mpmath function, defined below 0, value at 0 (None: the function's), at inf, at -inf)
_BESSEL = {
    "bessel_j0": (lambda x: mpmath.besselj(0, x), True, None, math.nan, math.nan),
    "bessel_j1": (lambda x: mpmath.besselj(1, x), True, None, math.nan, math.nan),
    "bessel_y0": (lambda x: mpmath.bessely(0, x), False, -math.inf, math.nan, math.nan),
    "bessel_y1": (lambda x: mpmath.bessely(1, x), False, -math.inf, math.nan, math.nan),
    "modified_bessel_i0": (lambda x: mpmath.besseli(0, x), True, None, math.nan, math.nan),
    "modified_bessel_i1": (lambda x: mpmath.besseli(1, x), True, None, math.nan, math.nan),
    "modified_bessel_k0": (lambda x: mpmath.besselk(0, x), False, math.inf, 0.0, math.nan),
    "modified_bessel_k1": (lambda x: mpmath.besselk(1, x), False, math.inf, 0.0, math.nan),
    "scaled_modified_bessel_k0": (lambda x: mpmath.besselk(0, x) * mpmath.exp(x), False,
                                  math.inf, 0.0, math.nan),
    "scaled_modified_bessel_k1": (lambda x: mpmath.besselk(1, x) * mpmath.exp(x), False,
                                  math.inf, 0.0, math.nan),
    "spherical_bessel_j0": (lambda x: mpmath.sinc(x), True, 1.0, 0.0, 0.0),
    "airy_ai": (lambda x: mpmath.airyai(x), True, None, math.nan, math.nan),
}


def _bessel(name):
    fn, negative, at_zero, at_inf, at_minus_inf = _BESSEL[name]

    def values_of(dtype, x):
        inside = np.isfinite(x) & ((x > 0) | negative | (at_zero is None) & (x == 0))
        values = np.full(x.shape, math.nan)
        values[inside] = _elementwise(fn, x[inside])
        values[x == 0] = values[x == 0] if at_zero is None else at_zero
        values[x == math.inf], values[x == -math.inf] = at_inf, at_minus_inf
        return values

    def apply(input, *, out=None):
        return _written(_evaluated(name, values_of, (input,)), out)
    apply.__name__ = name
    return apply


def _written(result, out):
    if out is None:
        return result
    return out.copy_(result)


# ---- orthogonal polynomials: by recurrence in n (no gradient in PyTorch) ----

def _degrees(n):
    """PyTorch's static_cast<int64_t>(n): truncation; NaN, inf and out-of-range n (undefined
    in C++, the minimum int64 on the CPUs it runs on) are negative, so their polynomial is 0."""
    valid = np.isfinite(n) & (np.abs(n) < 2.0 ** 63)
    return np.where(valid, np.trunc(np.where(valid, n, -1)), -1).astype(np.int64)


def _recurrence(x, n, first, step):
    """P_n(x) from P_0 = 1, P_1 = first(x), P_k = (a q - b) / d where (a, b, d) = step(k, x,
    P_{k-2}, P_{k-1}) and q = P_{k-1}, each element stepping up to its own n; NaN (an
    overflowing recurrence) stops changing."""
    p, q = np.ones_like(x), first(x)
    out = np.where(n == 0, p, q)
    for k in range(2, int(n.max(initial=0)) + 1):
        a, b, d = step(k, x, p, q)
        p, q = q, _fused(a, q, b) / d
        out = np.where(n == k, q, out)
    return out


# a precision holding a product of two of the dtype's numbers (exactly for float32)
_WIDER = {np.dtype(np.float32): np.float64, np.dtype(np.float64): np.longdouble}


def _fused(a, q, b):
    """a * q - b rounded once, as the fused multiply-add PyTorch's CPU build compiles its
    recurrences' steps to: the product is not rounded to q's precision first."""
    wide = _WIDER.get(q.dtype)
    if wide is None:
        return a * q - b
    return (np.asarray(a, wide) * q.astype(wide) - np.asarray(b, wide)).astype(q.dtype)


def _three_term(k, x, p, q):
    return x + x, p, 1


def _libm(fn):
    """fn in its argument's precision as C's math library computes it: a float32 one through
    float64, rounded once (glibc's float functions round correctly, numpy's vectorized float32
    loops do not always)."""
    return lambda a: fn(a.astype(np.float64)).astype(a.dtype)


_cos, _sin, _acos = _libm(np.cos), _libm(np.sin), _libm(np.arccos)

# kind: (P_1(x), the trigonometric form used for n above its bound inside (-1, 1),
# that bound, P_n(1), P_n(-1)); theta = acos x
_CHEBYSHEV = {
    "t": (lambda x: x, lambda n, th: _cos(n * th), 6,
          lambda n: 1, lambda n: np.where(n % 2 == 0, 1, -1)),
    "u": (lambda x: x + x, lambda n, th: _sin((n + 1) * th) / _sin(th), 8,
          lambda n: n + 1, lambda n: np.where(n % 2 == 0, n + 1, -(n + 1))),
    "v": (lambda x: x + x - 1, lambda n, th: _cos((n + 0.5) * th) / _cos(th / 2), 8,
          lambda n: 1, lambda n: np.where(n % 2 == 0, n + n + 1, -(n + n + 1))),
    "w": (lambda x: x + x + 1, lambda n, th: _sin((n + 0.5) * th) / _sin(th / 2), 8,
          lambda n: n + n + 1, lambda n: np.where(n % 2 == 0, 1, -1)),
}


def _chebyshev(kind, shifted):
    first, trig, bound, at_one, at_minus_one = _CHEBYSHEV[kind]

    def evaluate(x, n):
        x = x + x - 1 if shifted else x
        with np.errstate(all="ignore"):
            inner = (n > bound) & (np.abs(x) < 1)
            out = _recurrence(x, np.where(inner, 0, n), first, _three_term)
            # the angle in x's precision, as PyTorch's n * acos(x) is
            out = np.where(inner, trig(n.astype(x.dtype), _acos(np.clip(x, -1, 1))), out)
        out = np.where(x == 1, at_one(n), np.where(x == -1, at_minus_one(n), out))
        return out
    return evaluate


# Hermite polynomials of degree above this are NaN in PyTorch
_HERMITE_LIMIT = {"float32": 128, "float64": 512}


def _hermite(physicists):
    def evaluate(x, n):
        out = _recurrence(x, np.where(n > _HERMITE_LIMIT.get(x.dtype.name, 1024), 0, n),
                          lambda x: x + x if physicists else x,
                          lambda k, x, p, q: (x + x, 2 * (k - 1) * p, 1) if physicists else
                          (x, (k - 1) * p, 1))
        return np.where(n > _HERMITE_LIMIT.get(x.dtype.name, 1024), math.nan, out)
    return evaluate


def _laguerre(x, n):
    out = _recurrence(x, n, lambda x: 1 - x,
                      lambda k, x, p, q: (2 * (k - 1) + (1 - x), (k - 1) * p, k))
    return np.where(x == 0, 1, out)


def _legendre(x, n):
    out = _recurrence(x, n, lambda x: x,
                      lambda k, x, p, q: ((2 * k - 1) * x, (k - 1) * p, k))
    return np.where(np.abs(x) == 1, np.where((x > 0) | (n % 2 == 0), 1, -1), out)


_POLYNOMIALS = {
    **{f"chebyshev_polynomial_{k}": _chebyshev(k, False) for k in _CHEBYSHEV},
    **{f"shifted_chebyshev_polynomial_{k}": _chebyshev(k, True) for k in _CHEBYSHEV},
    "hermite_polynomial_h": _hermite(True),
    "hermite_polynomial_he": _hermite(False),
    "laguerre_polynomial_l": _laguerre,
    "legendre_polynomial_p": _legendre,
}


def _polynomial(name):
    evaluate = _POLYNOMIALS[name]

    def values_of(dtype, x, degree):
        x = x.astype(dtype)  # PyTorch's recurrences run in the result's precision
        degree = _degrees(degree)
        with np.errstate(all="ignore"):
            return np.where(degree < 0, 0, evaluate(x, np.maximum(degree, 0)))

    def apply(input, n, *, out=None):
        return _written(_evaluated(name, values_of, (input, n)), out)
    apply.__name__ = name
    return apply


# ---- zeta and the incomplete gamma functions: a gradient in one argument ----

def _zeta_values(dtype, x, q):
    """Cephes' conventions, which PyTorch keeps: inf at x = 1 and at q a non-positive integer,
    NaN for x < 1 and for a non-integer x with q <= 0."""
    with np.errstate(all="ignore"):
        out = np.full(x.shape, math.nan)
        plain = np.isfinite(x) & np.isfinite(q) & (x > 1) & ((q > 0) | (x == np.floor(x))) & \
            ~((q <= 0) & (q == np.floor(q)))
        out[plain] = _elementwise(mpmath.zeta, x[plain], q[plain])
        out[(x == math.inf) & (q < 1)] = math.inf
        out[(x == math.inf) & (q == 1)] = 1.0
        out[(x >= 1) & (q <= 0) & (q == np.floor(q))] = math.inf
        out[x == 1] = math.inf
        out[np.isnan(x) | np.isnan(q)] = math.nan
    return out


def zeta(input, other, *, out=None):
    """The Hurwitz zeta function sum_k (other + k)^-input."""
    return _written(_evaluated("zeta", _zeta_values, (input, other), ("zeta", _zeta_in_q),
                               "SpecialZetaBackward0"), out)


def _zeta_in_q(x, q):
    return -x * zeta(x + 1, q)


def _gammainc_values(a, x, upper):
    """The regularized lower (upper) incomplete gamma function, with Cephes' values on the
    edges: NaN below 0 and at a = x = 0, its limits at a = 0, x = 0 and at infinities."""
    lower_edge = np.where(np.isinf(a), np.where(np.isinf(x), math.nan, 0.0),
                          np.where(np.isinf(x), 1.0, np.where(x == 0, 0.0, 1.0)))
    edge = 1 - lower_edge if upper else lower_edge
    plain = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    out = np.where((a < 0) | (x < 0) | (a == 0) & (x == 0) | np.isnan(a) | np.isnan(x),
                   math.nan, edge)
    out[plain] = _elementwise(lambda a, x: mpmath.gammainc(a, x, mpmath.inf, regularized=True)
                              if upper else mpmath.gammainc(a, 0, x, regularized=True),
                              a[plain], x[plain])
    return out


def _density(a, x):
    """d gammainc(a, x) / dx, PyTorch's formula."""
    return ((a - 1) * x.log() - x - a.lgamma()).exp()


def _lower_gamma(dtype, a, x):
    return _gammainc_values(a, x, False)


def _upper_gamma(dtype, a, x):
    return _gammainc_values(a, x, True)


def _minus_density(a, x):
    return -_density(a, x)


def gammainc(input, other, *, out=None):
    return _written(_evaluated("gammainc", _lower_gamma, (input, other),
                               ("igamma: input", _density), "IgammaBackward0"), out)


def gammaincc(input, other, *, out=None):
    return _written(_evaluated("gammaincc", _upper_gamma, (input, other),
                               ("igammac: input", _minus_density), "IgammacBackward0"), out)


def _refusing(name, function):
    """function as torch.`name`, whose parser refuses what is not a Tensor."""
    def refusing(input, other, *, out=None):
        check_function(name, (input, other), {})
        return function(input, other, out=out)
    refusing.__name__ = name
    return refusing


igamma, igammac = _refusing("igamma", gammainc), _refusing("igammac", gammaincc)


bessel_j0, bessel_j1, bessel_y0, bessel_y1, modified_bessel_i0, modified_bessel_i1, \
    modified_bessel_k0, modified_bessel_k1, scaled_modified_bessel_k0, \
    scaled_modified_bessel_k1, spherical_bessel_j0, airy_ai = map(_bessel, _BESSEL)
chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v, \
    chebyshev_polynomial_w, shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_u, \
    shifted_chebyshev_polynomial_v, shifted_chebyshev_polynomial_w, hermite_polynomial_h, \
    hermite_polynomial_he, laguerre_polynomial_l, legendre_polynomial_p = map(_polynomial,
                                                                             _POLYNOMIALS)
