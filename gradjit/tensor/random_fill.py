"""The in-place random fills of a Tensor (uniform_, normal_, random_, geometric_, log_normal_,
cauchy_), each drawing PyTorch's CPU generator words in PyTorch's order and applying its
transform, so after manual_seed they give PyTorch's numbers."""
from __future__ import annotations

import functools
import math

import numpy as np

from gradjit.ir.types import is_bfloat16
from gradjit.tensor.contract import _CPP_NAMES
from gradjit.tensor.random import _eager, check_range, check_std, default_generator
from gradjit.tensor.factories import _leaf


def _fma64(x, y, z):
    """x * y + z rounded once (PyTorch's compiled transforms contract to a fused multiply-add):
    the product's exact error by Dekker's split, then added back with the sum's error."""
    p = x * y
    split = 134217729.0 * x
    xh = split - (split - x)
    split = 134217729.0 * y
    yh = split - (split - y)
    error = ((xh * yh - p) + xh * (y - yh) + (x - xh) * yh) + (x - xh) * (y - yh)
    s = p + z
    bz = s - p
    return s + (((p - (s - bz)) + (z - bz)) + error)


def _double_normals(gen, n) -> np.ndarray:
    """Standard normals one at a time in double, the generator's cached pair value first, as
    PyTorch's scalar normal_distribution<double> draws them."""
    return np.array([gen._one_normal() for _ in range(n)], np.float64)


def _compute_dtype(t):
    """The numpy type a fill computes in: float32 for float16 and bfloat16, as PyTorch's
    dist_acctype does."""
    kind = t.dtype.ir.numpy
    return np.dtype(np.float32) if kind.itemsize == 2 or is_bfloat16(kind) else kind


def _full_range_values(gen, t, n) -> np.ndarray:
    """random_() without bounds: [0, 2**mantissa digits] for floats, [0, max] for integers,
    0/1 for bool, from a 64-bit word for int64 and float64, else a 32-bit one."""
    kind = t.dtype.ir.numpy
    if kind == np.bool_:
        return gen._words(n) & np.uint64(1)
    if kind.kind == "f":
        digits = {8: 53, 4: 24, 2: 8 if is_bfloat16(kind) else 11}[kind.itemsize]
        span = 2 ** digits + 1
    else:
        span = int(np.iinfo(kind).max) + 1
    words = gen._words64(n) if kind.itemsize == 8 else gen._words(n)
    return words % np.uint64(span)


def _require_floating(t, kernel):
    if not t.dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{t.dtype.legacy}\'')


class RandomFillMixin:
    """Tensor methods that overwrite the tensor with draws from the generator."""

    def _fill_drawn(self, values):
        values = np.asarray(values)
        if values.dtype == np.uint64:  # generator words: no tensor dtype, and all below 2**63
            values = values.astype(np.int64)
        return self.copy_(_leaf(values.reshape(tuple(self.shape))))

    def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kwargs):
        """from + u * (to - from), u uniform in [0, 1) in the tensor's precision."""
        _eager(self, "uniform_")
        _require_floating(self, "check_uniform_bounds")
        from_ = kwargs.pop("from", from_)
        if from_ > to:
            raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                               f"from={from_} > to={to}")
        gen, kind = generator or default_generator, _compute_dtype(self)
        low, high = kind.type(from_), kind.type(to)
        u = gen.uniform(self.numel(), kind)
        if kind == np.float64:
            return self._fill_drawn(_fma64(u, high - low, low))
        return self._fill_drawn((u.astype(np.float64) * (high - low) + low).astype(kind))

    def normal_(self, mean=0.0, std=1.0, *, generator=None):
        """mean + std * N(0, 1): fewer than 16 values one at a time in double, else Box-Muller
        blocks in the tensor's precision (PyTorch's two CPU paths)."""
        _eager(self, "normal_")
        _require_floating(self, "normal_kernel_cpu")
        check_std(std)
        gen, kind, n = generator or default_generator, _compute_dtype(self), self.numel()
        if n < 16:
            return self._fill_drawn(_double_normals(gen, n) * std + mean)
        z = gen.normal(n, self.dtype.ir.numpy)  # float16 and bfloat16 draw their own way
        if kind == np.float64:
            return self._fill_drawn(z * std + mean)
        return self._fill_drawn((z.astype(np.float64) * kind.type(std) + kind.type(mean))
                                .astype(kind))

    def random_(self, from_=None, to=None, *, generator=None, **kwargs):
        """Integers in [from, to) (random_(to): [0, to); random_(): the dtype's whole range),
        a word modulo the range; a 64-bit word when the range needs one, as PyTorch draws."""
        _eager(self, "random_")
        gen = generator or default_generator
        if from_ is not None and to is None and "from" not in kwargs:
            from_, to = 0, from_  # random_(to)
        from_ = kwargs.pop("from", from_)
        if from_ is None and to is not None:
            from_ = 0
        if from_ is None:
            return self._fill_drawn(_full_range_values(gen, self, self.numel()))
        check_range(from_, to)
        span = int(to) - int(from_)
        words = gen._words64(self.numel()) if span >= 2 ** 32 else gen._words(self.numel())
        values = (words % np.uint64(span)).astype(np.int64) + int(from_)
        return self._fill_drawn(values)

    def geometric_(self, p, *, generator=None):
        """The number of Bernoulli(p) trials up to the first success: ceil(log u / log(1-p))
        of a double uniform u."""
        _eager(self, "geometric_")
        if not 0 < p < 1:
            raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
        u = (generator or default_generator).uniform(self.numel(), np.float64)
        return self._fill_drawn(np.ceil(np.log(u) / math.log1p(-p)))

    def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
        """exp of N(mean, std**2) drawn one at a time in double."""
        _eager(self, "log_normal_")
        _require_floating(self, "log_normal_cpu")
        if std <= 0:
            raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
        normals = _double_normals(generator or default_generator, self.numel())
        return self._fill_drawn(np.exp(normals * std + mean))

    def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
        """median + sigma * tan(pi * (u - 1/2)) of a double uniform u."""
        _eager(self, "cauchy_")
        if not self.dtype.is_floating_point:
            raise RuntimeError("Cauchy distribution is a continuous probability distribution. "
                               f"dtype must be a floating point but you specified "
                               f"{_CPP_NAMES.get(self.dtype.ir.torch_name, self.dtype)}")
        if sigma <= 0:
            raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
        u = (generator or default_generator).uniform(self.numel(), np.float64)
        return self._fill_drawn(median + sigma * np.tan(math.pi * (u - 0.5)))


def _no_draw_on_meta(fill):
    """A meta tensor holds no values, so filling it draws nothing (the generator's state is
    left as it was, as in PyTorch, when a model is built under `with torch.device('meta')`)."""
    @functools.wraps(fill)
    def method(self, *args, **kwargs):
        return self if self.device.type == "meta" else fill(self, *args, **kwargs)
    return method


for _name in ("uniform_", "normal_", "random_", "geometric_", "log_normal_", "cauchy_"):
    setattr(RandomFillMixin, _name, _no_draw_on_meta(getattr(RandomFillMixin, _name)))
