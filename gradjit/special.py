"""torch.special: the special functions of PyTorch's namespace, on Tensors
(`gradjit.special.erf(x)`, ...), with PyTorch's grad_fn names."""
from __future__ import annotations

from gradjit.ops import special as _special
from gradjit.tensor.arith import apply as _apply
from gradjit.tensor.arith import operand as _operand
from gradjit.tensor.composite_functions import i0, polygamma
from gradjit.tensor.composite_functions import mvlgamma as multigammaln
from gradjit.tensor.functions import (digamma, erf, erfc, erfinv, exp2, expm1, log1p, logit,
                                      sigmoid, sinc, xlogy)

expit = sigmoid
psi = digamma


def gammaln(input):
    return _operand(input).lgamma()


def xlog1py(input, other):
    return _apply("SpecialXlog1PyBackward0", _special.xlog1py, _operand(input), _operand(other))


def ndtr(input):
    return _apply("NdtrBackward0", _special.ndtr, _operand(input))


def log_ndtr(input):
    return _apply("SpecialLogNdtrBackward0", _special.log_ndtr, _operand(input))


__all__ = ["digamma", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammaln", "i0", "log1p",
           "log_ndtr", "logit", "multigammaln", "ndtr", "polygamma", "psi", "sinc", "xlog1py",
           "xlogy"]
