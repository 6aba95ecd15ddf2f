"""torch._standard_gamma_grad and torch._dirichlet_grad: the derivative of a Gamma (Beta) draw
in its concentration at a fixed value of its cdf, -dcdf/dalpha / density, by PyTorch's own
approximations, so that reparameterized draws get PyTorch's gradients to float rounding."""
from __future__ import annotations

import numpy as np

from gradjit.tensor.factories import tensor

# The branch bounds are single-precision literals compared in double, as PyTorch's kernels do.
_F = {v: float(np.float32(v)) for v in (0.8, 0.9, 1.1)}

# exp(p / q) with p, q cubic in v = log(alpha) whose coefficients are quadratic in
# u = log(x / alpha): rows are the u^0, u^1, u^2 parts; columns p's v^0..v^3, then q's.
_GAMMA_RATIONAL = np.array([
    [0.16009398, -0.094634809, 0.025146376, -0.0030648343,
     1, 0.32668115, 0.10406089, 0.0014179084],
    [0.53487893, 0.1298071, 0.065735949, -0.0015649758,
     0.16639465, 0.020070113, -0.0035938915, -0.00058392623],
    [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
     0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07]])

# p / q, each sum_ij u^i a^j (cubic in b), corrects the Beta gradient's analytic approximation
# (u = log x, a = log alpha - u, b = log total - a); indices [p or q][i][j][power of b].
_BETA_RATIONAL = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]])


# psi(10), and the asymptotic series of psi in 1 / x^2 (highest power first)
_PSI_10 = 2.25175258906672110764
_PSI_SERIES = (8.33333333333333333333e-2, -2.10927960927960927961e-2, 7.57575757575757575758e-3,
               -4.16666666666666666667e-3, 3.96825396825396825397e-3,
               -8.33333333333333333333e-3, 8.33333333333333333333e-2)


def _digamma(x):
    """PyTorch's digamma of positive x for these kernels, rounded as it rounds them: x is shifted
    up past 10 and the logarithm taken in x's own precision, the sums in double."""
    x = x.copy()
    shift = np.zeros(x.shape)
    while np.any(x < 10):
        below = x < 10
        shift = shift - np.where(below, 1 / x, 0)
        x = np.where(below, x + 1, x)
    z = 1.0 / (x * x).astype(np.float64)
    log_x = np.log(x.astype(np.float64)).astype(x.dtype)  # rounded once, as C's logf rounds
    out = shift + log_x - x.dtype.type(0.5) / x - z * np.polyval(_PSI_SERIES, z)
    out = np.where(x == 10, shift + _PSI_10, out)
    return np.where(x == 0, np.inf, out).astype(x.dtype)


def _horner(coefs, t):
    """sum_k coefs[..., k] t^k over the last axis of coefs."""
    out = coefs[..., -1]
    for c in np.moveaxis(coefs[..., :-1], -1, 0)[::-1]:
        out = c + t * out
    return out


def _zero_nan(v):
    return np.where(np.isnan(v), 0.0, v)


def _gamma_small_x(alpha, x):
    """Series of the lower incomplete gamma function in x (six terms) and its alpha-derivative."""
    numer, denom = np.ones_like(x), alpha.copy()
    series1, series2 = 1 / denom, 1 / (denom * denom)
    for i in range(1, 6):
        numer = numer * (-x / i)
        denom = denom + 1
        series1, series2 = series1 + numer / denom, series2 + numer / (denom * denom)
    pow_x_alpha = x ** alpha
    cdf = pow_x_alpha * series1
    cdf_alpha = (np.log(x) - _digamma(alpha)) * cdf - pow_x_alpha * series2
    return _zero_nan(-cdf_alpha / (x ** (alpha - 1) * np.exp(-x)))


def _gamma_large_alpha(alpha, x):
    """Rice's saddle-point expansion; a polynomial near the mode, where it is singular."""
    near = (_F[0.9] * alpha <= x) & (x <= _F[1.1] * alpha)
    a2 = alpha * alpha
    near_value = ((1 + 24 * alpha * (1 + 12 * alpha)) *
                  (1440 * a2 + 6 * x * (53 - 120 * x) - 65 * x * x / alpha +
                   alpha * (107 + 3600 * x)) / (1244160 * a2 * a2))
    root = np.sqrt(8 * alpha)
    term2 = root / (alpha - x)
    term3 = (x - alpha - alpha * np.log(x / alpha)) ** -1.5
    term1 = np.log(x / alpha) * np.where(x < alpha, term2 - term3, term2 + term3) - \
        np.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x))
    stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
    return np.where(near, near_value, -stirling * x * term1 / root)


def _gamma_rational(alpha, x):
    coefs = _horner(np.moveaxis(_GAMMA_RATIONAL, 0, -1), np.log(x / alpha)[..., None])
    v = np.log(alpha)
    return np.exp(_horner(coefs[..., :4], v) / _horner(coefs[..., 4:], v))


def _standard_gamma_grad(self, output):
    """d output / d self of standard Gamma(self) draws `output`, in self's dtype."""
    alpha, x = (np.asarray(t.detach().numpy(), np.float64) for t in (self, output))
    alpha, x = np.broadcast_arrays(alpha, x)
    with np.errstate(all="ignore"):
        grad = np.where(x < _F[0.8], _gamma_small_x(alpha, x),
                        np.where(alpha > 8, _gamma_large_alpha(alpha, x),
                                 _gamma_rational(alpha, x)))
    return tensor(grad, dtype=self.dtype)


def _beta_small_x(x, alpha, beta):
    """d x / d alpha of a Beta(alpha, beta) draw near 0: eleven terms of a Taylor series."""
    factor = _digamma(alpha) - _digamma(alpha + beta) - np.log(x)
    numer = np.ones_like(x)
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer = numer * ((i - beta) * x / i)
        series = series + numer / (alpha + i) * (factor + 1 / (alpha + i))
    return _zero_nan(x * (1 - x) ** -beta * series)


def _beta_small_x_in_beta(x, alpha, beta):
    """d x / d beta of a Beta(alpha, beta) draw near 0: nine terms of a Taylor series."""
    factor = _digamma(alpha + beta) - _digamma(beta)
    numer, betas, dbetas = np.ones_like(x), np.ones_like(x), np.zeros_like(x)
    series = factor / alpha
    for i in range(1, 9):
        numer = numer * (-x / i)
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series = series + numer / (alpha + i) * (dbetas + factor * betas)
    return _zero_nan(-(1 - x) ** (1 - beta) * series)


def _beta_large(x, alpha, beta):
    """Rice's saddle-point expansion for large alpha and beta; a polynomial near the mean."""
    total = alpha + beta
    mean = alpha / total
    std = np.sqrt(alpha * beta / (total + 1)) / total
    near = (mean - 0.1 * std <= x) & (x <= mean + 0.1 * std)
    b2 = beta * beta
    poly = 47 * x * b2 * b2 + alpha * (
        (43 + 20 * (16 + 27 * beta) * x) * b2 * beta + alpha * (
            3 * (59 + 180 * beta - 90 * x) * b2 + alpha * (
                (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (
                    8 * (1 - x) * (135 * beta - 11)))))
    near_value = ((1 + 12 * alpha) * (1 + 12 * beta) / (total * total) / (1 - x) * poly /
                  (12960 * alpha ** 3 * b2 * (1 + 12 * total)))

    def stirling(t):
        return 1 + 1 / (12 * t) + 1 / (288 * t * t)
    axbx = alpha * (x - 1) + beta * x
    term1 = (2 * alpha * alpha * (x - 1) + alpha * beta * (x - 1) - x * b2) / \
        (np.sqrt(2 * alpha / beta) * total ** 1.5 * axbx * axbx)
    term2 = 0.5 * np.log(alpha / (total * x))
    term3 = np.sqrt(8 * alpha * beta / total) / axbx
    term4 = (beta * np.log(beta / (total * (1 - x))) +
             alpha * np.log(alpha / (total * x))) ** -1.5
    far = (stirling(alpha) * stirling(beta) / stirling(total) *
           -x / np.sqrt(2 * alpha * beta / total) *
           (term1 + term2 * (term3 + np.where(x < mean, term4, -term4))))
    return np.where(near, near_value, far)


def _beta_rational(x, alpha, total, narrow):
    u = np.log(x)
    a = np.log(alpha) - u
    b = np.log(total) - a
    pq = _horner(_BETA_RATIONAL, b[..., None, None, None])  # [..., p or q, i, j]
    pq = _horner(pq, a[..., None, None])
    pq = _horner(pq, u[..., None])
    psi = [_digamma(v.astype(narrow)).astype(np.float64) for v in (total, alpha)]
    return pq[..., 0] / pq[..., 1] * x * (psi[0] - psi[1]) / (total - alpha)


def _dirichlet_grad(x, alpha, total):
    """d x / d alpha, scaled by 1 / (1 - x), of Beta(alpha, total - alpha) draws x: the
    derivative of a Dirichlet draw's coordinate in its own concentration."""
    dtype = x.dtype
    xn, alpha_n, total_n = np.broadcast_arrays(*(t.detach().numpy() for t in (x, alpha, total)))
    xs, alphas, totals = (v.astype(np.float64) for v in (xn, alpha_n, total_n))
    dtype_n = xn.dtype
    with np.errstate(all="ignore"):
        # the series near 0 and 1 and the choice of branch are in the draws' own precision,
        # as PyTorch's; its other branches are in double
        beta_n = total_n - alpha_n
        boundary = total_n * xn * (1 - xn)
        betas = beta_n.astype(np.float64)
        grad = np.where(
            (xn <= 0.5) & (boundary < 2.5), _beta_small_x(xn, alpha_n, beta_n),
            np.where((xn >= 0.5) & (boundary < 0.75),
                     -_beta_small_x_in_beta(1 - xn, beta_n, alpha_n),
                     np.where((alpha_n > 6) & (beta_n > 6), _beta_large(xs, alphas, betas),
                              _beta_rational(xs, alphas, totals, dtype_n))))
    return tensor(grad, dtype=dtype)


__all__ = ["_dirichlet_grad", "_standard_gamma_grad"]
