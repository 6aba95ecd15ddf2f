"""Random tensors from PyTorch's CPU generator: a 32-bit Mersenne Twister seeded as PyTorch
seeds it, with PyTorch's transforms from its words to uniform, normal and integer values, so
`manual_seed(n)` followed by rand/randn/randint/randperm/normal gives PyTorch's numbers."""
from __future__ import annotations

import math
import os

import numpy as np

from gradjit import ops
from gradjit.ir.types import is_bfloat16, round_bfloat16
from gradjit.tensor import dtypes
from gradjit.tensor import rounding
from gradjit.tensor.arith import apply
from gradjit.tensor.functions import write_out
from gradjit.tensor.dtype_device import _device
from gradjit.tensor.factories import (_leaf, _like, _numpy_dtype, _sizes, refuse_negative_sizes,
                                      refuse_overflowing_storage, takes_out)
from gradjit.tensor.shape import _shape_args, broadcast_shape
from gradjit.tracer.torch_surface import TRACING
from gradjit.tracer.trace import current_trace

_DEFAULT_SEED = 67280421310721
_STATE_BYTES = 5056  # sizeof(CPUGeneratorImplState) in PyTorch


class Generator:
    """The source of random tensors; `manual_seed` makes runs reproducible."""

    def __init__(self, device="cpu"):
        self.device = dtypes.device(device)
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        if not -2 ** 63 <= int(seed) < 2 ** 64:  # torch reads a seed as a 64-bit integer
            raise ValueError("Overflow when unpacking long long")
        self._seed = int(seed) % 2 ** 64
        self._bits = np.random.MT19937()
        self._bits._legacy_seeding(self._seed & 0xFFFFFFFF)  # PyTorch keeps the low 32 bits
        self._cached_normal = None
        return self

    def initial_seed(self):
        return self._seed

    def seed(self):
        """Seed from the operating system's randomness; returns the seed."""
        self.manual_seed(int.from_bytes(os.urandom(8), "little"))
        return self._seed

    def get_state(self):
        """The generator's state as PyTorch lays out a CPU generator's (5056 bytes: seed, the
        Mersenne Twister's position and words, the cached normal), so states move between the
        two libraries."""
        key, pos = self._bits.state["state"]["key"], self._bits.state["state"]["pos"]
        # PyTorch counts `left` down to its refill; fresh from seeding it has next 0, which
        # the unmixed seeding recurrence in key[1] tells apart from a used-up table
        fresh = pos == 624 and int(key[1]) == (1812433253 * (int(key[0]) ^ int(key[0]) >> 30)
                                               + 1) & 0xFFFFFFFF
        head = np.array([self._seed, (625 - pos) | 1 << 32 if pos < 624 else 1 | 1 << 32,
                         0 if fresh else pos], "<u8")
        normal = np.array([0.0, self._cached_normal or 0.0, 0.0], "<f8")
        valid = np.array([self._cached_normal is not None, 0, 0, 0], "<i4")  # + padding
        words = key.astype("<u8")
        state = np.concatenate([a.view(np.uint8) for a in (head, words, normal, valid)])
        return _leaf(state)

    def set_state(self, new_state):
        if not hasattr(new_state, "_edge"):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = new_state._concrete()
        if raw.size != _STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but "
                               f"found the input RNG state size to be {raw.size}")
        raw = np.ascontiguousarray(raw)
        seed, left_seeded, next_ = raw[:24].view("<u8").tolist()
        left = left_seeded & 0xFFFFFFFF
        key = raw[24:24 + 624 * 8].view("<u8").astype(np.uint32)
        self._seed = seed
        pos = 624 if left <= 1 else next_
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        normal_y = float(raw[24 + 624 * 8 + 8:][:8].view("<f8")[0])
        valid = int(raw[24 + 624 * 8 + 24:][:4].view("<i4")[0])
        self._cached_normal = normal_y if valid else None
        return self

    def _words(self, n) -> np.ndarray:
        if TRACING and current_trace() is not None:  # every draw comes through here
            _refuse_traced_draw("a draw from the random generator")
        return self._bits.random_raw(n).astype(np.uint64)

    def _words64(self, n) -> np.ndarray:
        w = self._words(2 * n)
        return (w[0::2] << np.uint64(32)) | w[1::2]

    def uniform(self, n, dtype) -> np.ndarray:
        """[0, 1) from the low 24 (float) or 53 (double) bits of one 32- or 64-bit word; a
        float16 or bfloat16 value rounded up to 1 becomes 0, as PyTorch keeps it below 1."""
        if dtype == np.float64:
            return (self._words64(n) & np.uint64(2 ** 53 - 1)).astype(np.float64) * 2.0 ** -53
        out = ((self._words(n) & np.uint64(0xFFFFFF)).astype(np.float64) *
               2.0 ** -24).astype(dtype)
        if is_bfloat16(out.dtype):
            out = round_bfloat16(out)
        if out.dtype.itemsize == 2 or is_bfloat16(out.dtype):
            out[out == 1] = 0
        return out

    def normal(self, n, dtype) -> np.ndarray:
        """Standard normals: Box-Muller over blocks of 16 uniforms (the last block redrawn
        when n is not a multiple of 16); fewer than 16 come one at a time in double, each pair
        leaving its second value for the next call."""
        if n < 16:
            return np.array([self._one_normal() for _ in range(n)]).astype(dtype)
        if np.dtype(dtype).itemsize == 2 or is_bfloat16(np.dtype(dtype)):
            # float16/bfloat16: float32 uniforms and arithmetic, rounded once at the end;
            # uniforms are drawn block by block, so a redrawn last block follows the whole ones
            whole = n // 16 * 16
            data = np.empty(n, np.float32)
            data[:whole] = _box_muller(self.uniform(whole, np.float32), np.float32)
            if n % 16:
                data[n - 16:] = _box_muller(self.uniform(16, np.float32), np.float32)
            return data.astype(dtype)
        data = self.uniform(n, dtype)
        whole = n // 16 * 16
        data[:whole] = _box_muller(data[:whole])
        if n % 16:
            data[n - 16:] = _box_muller(self.uniform(16, dtype))
        return data

    def _one_normal(self) -> float:
        if self._cached_normal is not None:
            value, self._cached_normal = self._cached_normal, None
            return value
        u1, u2 = self.uniform(2, np.float64)
        radius = math.sqrt(-2 * math.log1p(-u2))
        theta = 2 * math.pi * u1
        self._cached_normal = radius * math.sin(theta)
        return radius * math.cos(theta)

    def exponential(self, n) -> np.ndarray:
        """Exp(1) samples, -log1p(-u) of double uniforms whatever the tensor's dtype; by the C
        library's log1p, as PyTorch's (numpy's vectorized one differs in the last bit)."""
        uniform = self.uniform(n, np.float64)
        return -np.fromiter((math.log1p(-u) for u in uniform.tolist()), np.float64, n)

    def integers(self, low, high, n) -> np.ndarray:
        span = high - low
        words = self._words64(n) if span >= 2 ** 32 else self._words(n)
        return (words % np.uint64(span)).astype(np.int64) + low


def _box_muller(uniforms, compute=np.float64):
    blocks = uniforms.reshape(-1, 2, 8).astype(compute)
    radius = np.sqrt(compute(-2) * np.log(compute(1) - blocks[:, 0]))
    theta = compute(2 * np.pi) * blocks[:, 1]
    out = np.stack([radius * np.cos(theta), radius * np.sin(theta)], axis=1)
    return out.reshape(-1).astype(uniforms.dtype)


default_generator = Generator()


def manual_seed(seed):
    return default_generator.manual_seed(seed)


def initial_seed():
    return default_generator.initial_seed()


def seed():
    return default_generator.seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


def _float_dtype(dtype):
    chosen = dtypes.to_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    if not (chosen.is_floating_point or chosen.is_complex):
        raise RuntimeError(f"expected a floating point dtype for random values, got {chosen}")
    return chosen.ir.numpy


def _complex_draw(fill, shape, kind, generator):
    """A complex tensor's values as PyTorch draws them: `fill` on its (..., 2) real view, the
    real and imaginary parts of each element from consecutive draws."""
    parts = _leaf(np.zeros(tuple(shape) + (2,), kind.char.lower()), None, False)
    fill(parts, generator)
    return parts._value.view(kind).reshape(shape)


def _on_meta(device) -> bool:
    """Draws for a meta tensor are skipped (it holds no values), leaving the generator as is."""
    place = dtypes.default_device[0] if device is None else _device(device)
    return place.type == "meta"


def check_range(low, high):
    """The integers drawn lie in [low, high), which must hold one."""
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={low} >= to={high}")


def check_std(std):
    """A normal distribution's standard deviation: a number, or a tensor known now."""
    if hasattr(std, "_edge"):
        if isinstance(std._value, np.ndarray) and bool((std._value < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


@takes_out
def rand(*shape, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    shape, kind = refuse_negative_sizes(_sizes(shape, size)), _float_dtype(dtype)
    refuse_overflowing_storage(shape, kind.itemsize)
    if _on_meta(device):
        array = np.zeros(shape, kind)
    elif kind.kind == "c":
        array = _complex_draw(lambda t, g: t.uniform_(generator=g), shape, kind, generator)
    else:
        array = (generator or default_generator).uniform(math.prod(shape), kind).reshape(shape)
    return _leaf(array, device, requires_grad)


@takes_out
def randn(*shape, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal values; complex ones have variance 1 in all, 1/2 in each part."""
    shape, kind = refuse_negative_sizes(_sizes(shape, size)), _float_dtype(dtype)
    refuse_overflowing_storage(shape, kind.itemsize)
    if _on_meta(device):
        array = np.zeros(shape, kind)
    elif kind.kind == "c":
        array = _complex_draw(lambda t, g: t.normal_(0.0, 1 / math.sqrt(2), generator=g), shape,
                              kind, generator)
    else:
        array = (generator or default_generator).normal(math.prod(shape), kind).reshape(shape)
    return _leaf(array, device, requires_grad)


@takes_out
def randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False):
    if size is None and isinstance(high, (tuple, list)):  # randint(high, size)
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    shape = refuse_negative_sizes(_shape_args((size,))) if size is not None else ()
    check_range(low, high)
    array = (generator or default_generator).integers(low, high, math.prod(shape))
    return _leaf(array.reshape(shape).astype(_numpy_dtype(dtype, np.int64)), device,
                 requires_grad)


@takes_out
def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of 0 .. n-1: PyTorch's swaps, position i with i + word % (n - i)."""
    n = int(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if dtype is not None and dtypes.to_dtype(dtype) is dtypes.bool_:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    words = (generator or default_generator)._words(max(n - 1, 0))
    order = np.arange(n)
    for i, w in enumerate(words.tolist()):
        j = i + w % (n - i)
        order[i], order[j] = order[j], order[i]
    return _leaf(order.astype(_numpy_dtype(dtype, np.int64)), device, requires_grad)


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """Samples of N(mean, std**2): elementwise for tensor arguments (recorded with the zero
    gradient PyTorch's NormalBackward gives them), `size` for numbers; standard normals scaled
    and shifted, as PyTorch draws them."""
    gen = generator or default_generator
    check_std(std)
    if not (hasattr(mean, "_edge") or hasattr(std, "_edge")):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got "
                            "(float, float), but expected a Tensor mean or std, or a size")
        shape = refuse_negative_sizes(_sizes((size,) if isinstance(size, int) else size))
        kind = _float_dtype(dtype)
        noise = gen.normal(math.prod(shape), kind).reshape(shape)
        return _leaf(np.asarray((noise * kind.type(std) + kind.type(mean)).astype(kind)), device,
                     requires_grad)
    shape = broadcast_shape(*(tuple(np.shape(t)) for t in (mean, std)))
    kind = next(t.dtype for t in (mean, std) if hasattr(t, "_edge"))
    noise = gen.normal(math.prod(shape), kind.ir.numpy).reshape(shape)
    tensors = [t for t in (mean, std) if hasattr(t, "_edge")]

    def scaled(*values):
        given = iter(values)
        m, s = (ops.stop_gradient(ops.astype(next(given), kind.ir)) if hasattr(t, "_edge") else
                kind.ir.numpy.type(t) for t in (mean, std))
        out = ops.add(ops.mul(noise, s), m)
        for value in values:  # recorded on the inputs, which get torch's zero gradient
            out = ops.where(np.zeros(shape, bool), ops.astype(value, kind.ir), out)
        return out
    number = 1 if hasattr(mean, "_edge") and not hasattr(std, "_edge") else \
        2 if not hasattr(mean, "_edge") else 3
    return apply(f"NormalBackward{number}", scaled, *tensors)


class TracedRandomDraw(RuntimeError):
    """Random values were to be drawn from a traced tensor (gradjit.compile runs such a call
    eagerly instead)."""


def _eager(t, name):
    """Random values drawn while tracing would be drawn once and replayed by every call of
    the compiled program, so a draw from a traced tensor is refused."""
    if not isinstance(t._value, np.ndarray):
        _refuse_traced_draw(name)


def _refuse_traced_draw(name):
    raise TracedRandomDraw(f"{name}: random values cannot be drawn inside gradjit.grad/jit: "
                           "the trace would keep one draw for every call. Draw them outside "
                           "and pass them in (e.g. a dropout mask), or use eval mode "
                           "(dropout, rrelu) inside the compiled function.")


def bernoulli(input, p=None, *, generator=None, out=None):
    """1 with probability `input` (or `p`) elementwise, else 0, in input's dtype. PyTorch
    compares one uniform per element, in order, with its probability: drawn in the
    probabilities' float type, in double for a number `p`."""
    if out is not None:
        return write_out("bernoulli", lambda: bernoulli(input, p, generator=generator),
                         (input,), out)
    _eager(input, "bernoulli")
    gen = generator or default_generator
    probs = input._value if p is None else np.full(input._value.shape, p)
    if probs.dtype.kind != "f":
        raise NotImplementedError(f'"bernoulli_tensor_cpu_p_" not implemented for '
                                  f"'{input.dtype.legacy}'")
    if p is not None and not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    if np.any((probs < 0) | (probs > 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could "
                           "this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    uniform = gen.uniform(probs.size, probs.dtype if p is None else np.float64)
    # asarray: comparing 0-d arrays gives a numpy scalar
    drawn = _leaf(np.asarray(uniform.reshape(probs.shape) < probs).astype(input._value.dtype))
    if p is not None or not input.requires_grad:
        return drawn
    # the draws depend on the probabilities with torch's zero gradient
    return apply("BernoulliBackward0", rounding.flat(lambda probabilities: drawn), input)


def _check_multinomial(input, num_samples, out):
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{input.dtype.legacy}")
    if out is not None and out.dtype is not dtypes.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {out.dtype.legacy}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if input.shape[-1] > 2 ** 24:  # float32 counts categories exactly up to 2^24
        raise RuntimeError("number of categories cannot exceed 2^24")


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Indices drawn from each row of non-negative weights (one row for a vector), by
    PyTorch's CPU algorithms: one sample, or samples without replacement, are the largest
    weight / Exp(1) ratios (Gumbel top-k); samples with replacement search each row's
    normalized running sum (in the weights' dtype) for a double uniform, row after row."""
    _eager(input, "multinomial")
    _check_multinomial(input, num_samples, out)
    gen = generator or default_generator
    weights = input._value
    rows = weights.reshape(-1, weights.shape[-1])
    if np.any(rows < 0) or np.any(~np.isfinite(rows)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(rows.sum(-1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement and num_samples > rows.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if not replacement or num_samples == 1:
        ratios = rows / gen.exponential(rows.size).astype(rows.dtype).reshape(rows.shape)
        # descending ratio, the first index first among equals
        drawn = np.argsort(-ratios, axis=-1, kind="stable")[:, :num_samples]
    else:
        running = np.cumsum(rows, axis=-1, dtype=rows.dtype)
        running = running / running[:, -1:]
        running[:, -1] = 1
        uniform = gen.uniform(rows.shape[0] * num_samples, np.float64).reshape(
            rows.shape[0], num_samples)
        drawn = np.array([np.searchsorted(r.astype(np.float64), u, side="left")
                          for r, u in zip(running, uniform)], np.int64).reshape(uniform.shape)
    drawn = _leaf(drawn.reshape(weights.shape[:-1] + (num_samples,)).astype(np.int64))
    if out is None:
        return drawn
    return write_out("multinomial", lambda: drawn, (input,), out)


rand_like, randn_like = _like(rand), _like(randn)


def rrelu_slopes(input, lower, upper, generator=None):
    """RReLU's training slopes: a double uniform in [lower, upper) for each element <= 0, in
    order (the only ones that draw), 1 for the others, in input's dtype; the bounds are first
    rounded to that dtype, as PyTorch's kernel takes them."""
    _eager(input, "rrelu")
    values = input._value
    kind = values.dtype.type
    lower, upper = float(kind(lower)), float(kind(upper))
    slopes = np.ones(values.shape, np.float64)
    drawn = values <= 0
    uniform = (generator or default_generator).uniform(int(drawn.sum()), np.float64)
    slopes[drawn] = uniform * (upper - lower) + lower
    return _leaf(slopes.astype(values.dtype))


class RandomMixin:
    """The Tensor methods that draw from the generator."""

    def bernoulli(self, p=None, *, generator=None):
        return bernoulli(self, p, generator=generator)

    def bernoulli_(self, p=0.5, *, generator=None):
        """Fill with 0/1 draws of probability p (a number, or a tensor broadcast to self)."""
        _eager(self, "bernoulli_")
        if hasattr(p, "_edge"):
            drawn = bernoulli(p.expand(self.shape), generator=generator)
        else:
            drawn = bernoulli(self.detach().float() if not self.is_floating_point() else
                              self.detach(), p, generator=generator)
        return self.copy_(drawn)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        return multinomial(self, num_samples, replacement, generator=generator)

    def exponential_(self, lambd=1.0, *, generator=None):
        _eager(self, "exponential_")
        if not lambd > 0:
            raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
        gen = generator or default_generator
        # PyTorch scales by -1 / lambd (a product, not a quotient)
        values = gen.exponential(self.numel()).reshape(tuple(self.shape)) * (1.0 / lambd)
        # asarray: a 0-d tensor's draws scale to a numpy scalar, which no tensor holds
        return self.copy_(_leaf(np.asarray(values.astype(self.dtype.ir.numpy))))
