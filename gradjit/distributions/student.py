"""StudentT and FisherSnedecor, the ratios built from normal and gamma draws, with PyTorch's
log densities, entropies and moments (nan or inf where a moment does not exist)."""
from __future__ import annotations

import math

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.distribution import Distribution, broadcast_all
from gradjit.distributions.gamma import Chi2, Gamma


class StudentT(Distribution):
    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.shape, validate_args=validate_args)

    @property
    def mean(self):
        return gradjit.where(self.df <= 1, math.nan, self.loc)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2)
        return gradjit.where(df > 2, finite, gradjit.where(df > 1, math.inf, math.nan))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        x = gradjit.randn(*shape, dtype=self.df.dtype)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * gradjit.rsqrt(z / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        norm = self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + \
            gradjit.lgamma(0.5 * self.df) - gradjit.lgamma(0.5 * (self.df + 1.0))
        return -0.5 * (self.df + 1.0) * gradjit.log1p(y ** 2.0 / self.df) - norm

    def entropy(self):
        df = self.df
        lbeta = gradjit.lgamma(0.5 * df) + math.lgamma(0.5) - gradjit.lgamma(0.5 * (df + 1))
        return self.scale.log() + 0.5 * (df + 1) * (gradjit.digamma(0.5 * (df + 1)) -
                                                    gradjit.digamma(0.5 * df)) + \
            0.5 * df.log() + lbeta


class FisherSnedecor(Distribution):
    """(X1 / df1) / (X2 / df2) for chi-square X1, X2 of df1 and df2 degrees of freedom."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        numbers = not gradjit.is_tensor(df1) and not gradjit.is_tensor(df2)
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(() if numbers else self.df1.shape, validate_args=validate_args)

    @property
    def mean(self):
        return gradjit.where(self.df2 <= 2, math.nan, self.df2 / (self.df2 - 2))

    @property
    def mode(self):
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return gradjit.where(self.df1 <= 2, math.nan, mode)

    @property
    def variance(self):
        df1, df2 = self.df1, self.df2
        finite = 2 * df2.pow(2) * (df1 + df2 - 2) / (df1 * (df2 - 2).pow(2) * (df2 - 4))
        return gradjit.where(df2 <= 4, math.nan, finite)

    def rsample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        x1 = self._gamma1.rsample(sample_shape).reshape(shape)
        x2 = self._gamma2.rsample(sample_shape).reshape(shape)
        tiny = float(gradjit.finfo(x2.dtype).tiny)
        return (x1 / x2.clamp(min=tiny)).clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        ct1, ct2, ct3 = self.df1 * 0.5, self.df2 * 0.5, self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * gradjit.log(value)
        t3 = (ct1 + ct2) * gradjit.log1p(ct3 * value)
        return t1 + t2 - t3
