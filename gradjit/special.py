"""torch.special: the special functions of PyTorch's namespace, on Tensors
(`gradjit.special.erf(x)`, ...), with PyTorch's grad_fn names."""
from __future__ import annotations

from gradjit.ops import bessel as _bessel
from gradjit.ops import special as _special
from gradjit.tensor import special_numeric as _numeric
from gradjit.tensor.arith import apply as _apply
from gradjit.tensor.arith import operand as _operand
from gradjit.ops.promote import in_float32 as _in_float32
from gradjit.tensor.refusals import no_kernel as _no_kernel
from gradjit.tensor.refusals import refuse_integers
from gradjit.tensor.scalar_overloads import add_scalar, mul_scalar
from gradjit.tensor.signatures import _OUT, _scalar_either, check_overloads
from gradjit.tensor.composite_functions import i0, polygamma
from gradjit.tensor.composite_functions import mvlgamma as multigammaln
from gradjit.tensor.functions import (digamma, erf, erfc, erfinv, exp2, expm1, log1p,
                                      log_softmax, logit, logsumexp, sigmoid, sinc,
                                      softmax, write_out)
from gradjit.tensor.functions import xlogy as _xlogy
from gradjit.tensor.special_numeric import (  # noqa: F401
    airy_ai, bessel_j0, bessel_j1, bessel_y0, bessel_y1, modified_bessel_i0, modified_bessel_i1,
    modified_bessel_k0, modified_bessel_k1, scaled_modified_bessel_k0, scaled_modified_bessel_k1,
    spherical_bessel_j0)

expit = sigmoid
_SQRT1_2 = 0.5 ** 0.5


def round(input):
    """torch.special.round has no integer kernel, where torch.round passes integers through."""
    input = _operand(input)
    refuse_integers("round_vml_cpu", input)
    return input.round()
psi = digamma


def gammaln(input):
    return _operand(input).lgamma()


def _xlog1py(input, other, *, out=None):
    return write_out("xlog1py", lambda: _apply(
        "SpecialXlog1PyBackward0", _special.xlog1py, _operand(input), _operand(other)),
        (input, other), out)


def _parsed(name, function, overloads):
    """function(a, b) as torch.special.`name`, behind its argument parser: arguments no
    overload takes (two numbers, a list) raise its TypeError."""
    def parsed(input, other, *args, **kwargs):
        check_overloads(f"special_{name}", overloads, (input, other))
        return function(input, other, *args, **kwargs)
    parsed.__name__ = parsed.__qualname__ = name
    return parsed


_POLYNOMIAL = (f"Tensor x, Tensor n, {_OUT}", f"Number x, Tensor n, {_OUT}",
               f"Tensor x, Number n, {_OUT}")
xlogy, xlog1py, zeta = (_parsed(name, f, _scalar_either("other")) for name, f in (
    ("xlogy", _xlogy), ("xlog1py", _xlog1py), ("zeta", _numeric.zeta)))
gammainc, gammaincc = (_parsed(name, getattr(_numeric, name),
                               (f"Tensor input, Tensor other, {_OUT}",))
                       for name in ("gammainc", "gammaincc"))
chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v, \
    chebyshev_polynomial_w, shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_u, \
    shifted_chebyshev_polynomial_v, shifted_chebyshev_polynomial_w, hermite_polynomial_h, \
    hermite_polynomial_he, laguerre_polynomial_l, legendre_polynomial_p = (
        _parsed(name, getattr(_numeric, name), _POLYNOMIAL) for name in _numeric._POLYNOMIALS)


def _half_type(dt) -> bool:
    return dt.name in ("f16", "bf16")


def _unary(name, grad_fn, fn, half_kernel=True):
    """torch.special's `name`: half precision computed in float32 and rounded once, as
    PyTorch's kernels do, or refused where PyTorch builds its kernel for no half type."""
    def computed(x):
        return _in_float32(fn, x)
    if not half_kernel:
        computed = _no_kernel(f"{name}_cpu", fn, _half_type)

    def function(input):
        return _apply(grad_fn, computed, _operand(input))
    function.__name__ = name
    return function


def ndtr(input):
    """PyTorch's composite (1 + erf(x / sqrt(2))) / 2: its graph, and its rounding (0 where
    the lower tail falls below erf's resolution)."""
    return mul_scalar(add_scalar(erf(mul_scalar(_operand(input), _SQRT1_2)), 1), 0.5)


log_ndtr = _unary("log_ndtr", "SpecialLogNdtrBackward0", _special.log_ndtr, half_kernel=False)
ndtri = _unary("ndtri", "SpecialNdtriBackward0", _special.ndtri, half_kernel=False)
entr = _unary("entr", "SpecialEntrBackward0", _special.entr)
erfcx = _unary("erfcx", "SpecialErfcxBackward0", _special.erfcx, half_kernel=False)
i0e = _unary("i0e", "SpecialI0EBackward0", _bessel.i0e)
i1 = _unary("i1", "SpecialI1Backward0", _bessel.i1)
i1e = _unary("i1e", "SpecialI1EBackward0", _bessel.i1e)

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2",
           "expit", "expm1", "gammainc", "gammaincc", "gammaln", "hermite_polynomial_h",
           "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
           "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
           "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "sinc", "softmax",
           "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]
