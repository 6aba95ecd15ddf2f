"""HIPS autograd's scipy.special: the gamma, beta, error, logistic and Bessel families and
logsumexp, traced as compositions of gradjit's ops where gradjit has them (both modes, any
order) and otherwise scipy's function as a primitive with autograd's rules (reverse mode)."""
from __future__ import annotations

import math

import numpy as np
import scipy.special

from gradjit.ir.elementwise import stop_gradient
from gradjit.ops import bessel as _bessel
from gradjit.nn.jax_functions import logsumexp  # noqa: F401  (jax.nn's, which is scipy's)
from gradjit.ops import special as _special
from gradjit.tracer.hips import defjvp, primitive

erf, erfc, erfinv = _special.erf, _special.erfc, _special.erfinv
logit, expit, i0, i1 = _special.logit, _special.expit, _special.i0, _bessel.i1
gammaln, digamma, psi = _special.gammaln, _special.digamma, _special.digamma


def polygamma(n, x):
    """psi^(n)(x) for an integer order n >= 0."""
    n = int(n)
    return digamma(x) if n == 0 else _special.polygamma(n, x)


def gammasgn(x):
    """The sign of Gamma(x): 1 above 0, below it alternating between the poles."""
    odd = np.equal(np.mod(np.floor(np.negative(x)), 2.0), 1.0)
    return stop_gradient(np.where(np.greater(x, 0.0), 1.0, np.where(odd, 1.0, -1.0)))


def gamma(x):
    return gammasgn(x) * np.exp(gammaln(x))


def rgamma(x):
    """1 / Gamma(x): 0 at the poles."""
    return gammasgn(x) * np.exp(np.negative(gammaln(x)))


def betaln(a, b):
    """log |B(a, b)|."""
    return gammaln(a) + gammaln(b) - gammaln(np.add(a, b))


def beta(a, b):
    return gammasgn(a) * gammasgn(b) * gammasgn(np.add(a, b)) * np.exp(betaln(a, b))


def multigammaln(a, d):
    """log of the multivariate gamma function of dimension d."""
    terms = gammaln(np.expand_dims(a, -1) - np.arange(d) / 2.0)
    return np.sum(terms, axis=-1) + d * (d - 1) / 4.0 * math.log(math.pi)


# The functions gradjit has no composition for: scipy's own, with autograd's derivatives as
# forward-mode rules (reverse mode transposes them); the rules call these primitives again, so
# they differentiate to any order.
j0, j1, y0, y1 = (primitive(getattr(scipy.special, n)) for n in ("j0", "j1", "y0", "y1"))
jn, yn, iv, ive = (primitive(getattr(scipy.special, n)) for n in ("jn", "yn", "iv", "ive"))
gammainc, gammaincc = primitive(scipy.special.gammainc), primitive(scipy.special.gammaincc)
betainc, erfcinv = primitive(scipy.special.betainc), primitive(scipy.special.erfcinv)

defjvp(j0, lambda g, ans, x: -g * j1(x))
defjvp(y0, lambda g, ans, x: -g * y1(x))
defjvp(j1, lambda g, ans, x: g * (j0(x) - jn(2, x)) / 2.0)
defjvp(y1, lambda g, ans, x: g * (y0(x) - yn(2, x)) / 2.0)
defjvp(jn, lambda g, ans, n, x: g * (jn(n - 1, x) - jn(n + 1, x)) / 2.0, argnums=[1])
defjvp(yn, lambda g, ans, n, x: g * (yn(n - 1, x) - yn(n + 1, x)) / 2.0, argnums=[1])
defjvp(iv, lambda g, ans, v, x: g * (iv(v - 1, x) + iv(v + 1, x)) / 2.0, argnums=[1])
defjvp(ive, lambda g, ans, v, x: g * (ans * (v / x - np.sign(x)) + ive(v + 1, x)),
       argnums=[1])
defjvp(erfcinv, lambda g, ans, y: g * -(math.sqrt(math.pi) / 2) * np.exp(erfcinv(y) ** 2))


def _gammainc_jvp(sign):
    """d/dx of the regularized incomplete gamma functions: +-x^(a-1) e^-x / Gamma(a)."""
    def rule(g, ans, a, x):
        return sign * g * np.exp(np.negative(x) + (a - 1.0) * np.log(x) - gammaln(a))
    return rule


defjvp(gammainc, _gammainc_jvp(1.0), argnums=[1])
defjvp(gammaincc, _gammainc_jvp(-1.0), argnums=[1])
defjvp(betainc, lambda g, ans, a, b, x: g * np.exp(
    (a - 1.0) * np.log(x) + (b - 1.0) * np.log1p(np.negative(x)) - betaln(a, b)), argnums=[2])
