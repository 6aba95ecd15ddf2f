"""Random well-typed IR programs over the whole primitive table, and arguments for them
(hypothesis strategies): random shapes (0-d, size 0, size-1 broadcasts), both float dtypes,
reductions over random axes, slicing, gathers, scatters, concatenation, where and guards."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from gradjit.ir import PRIMITIVES, Builder, Function, TensorType
from gradjit.ir import elementwise as E
from gradjit.ir import fft, linalg, linalg_eig, linalg_lu, linalg_qr, sorting
from gradjit.ir import structural as S
from gradjit.ir.primitive import ir_type
from gradjit.ir.types import dtype as resolve

FLOAT_UNARY = ("neg", "abs", "sign", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin",
               "cos", "tan", "tanh", "sigmoid", "floor", "ceil", "round", "stop_gradient",
               "stop_reverse", "erf", "erfc")
FLOAT_BINARY = ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "fmod", "atan2",
                "logaddexp")
INT_BINARY = ("add", "sub", "mul", "maximum", "minimum", "pow")
INT_BITS = ("fmod", "trunc_div", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
            "right_shift")
COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")
DIMS = (1, 2, 3, 4, 1, 2, 0)  # shrinks towards 1; a 0 now and then makes empty arrays
SPECIAL = (0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0, 0.5, "tiny", "-tiny", "subnormal",
           "-subnormal", "max", "-max", 1e-30, -1e30, 88.5, -104.0, 710.0, 3.0)


def shapes(max_rank=3, dims=DIMS):
    return st.lists(st.sampled_from(dims), max_size=max_rank).map(tuple)


@st.composite
def programs(draw, max_ops=10, *, min_ops=1, guards=True, empty=True, float_results=False,
             kinds=None, dtype=None) -> Function:
    """A verified function of 1-3 float parameters and 1-3 results (of any dtype).

    Options for tests that need less: `guards=False` draws no guard (so every argument runs
    the program), `empty=False` no axis of size 0, `float_results` only float results,
    `kinds` only those steps (names of STEPS), `dtype` ('f32' or 'f64') one parameter dtype;
    `min_ops`..`max_ops` steps (thousands make long programs)."""
    base = dtype or draw(st.sampled_from(("f64", "f32")))
    allowed = tuple(k for k in (kinds or KINDS) if guards or k != "guard")
    with Builder("fuzz") as b:
        gen = _Generator(draw, base, allowed, DIMS if empty else tuple(d for d in DIMS if d))
        for i in range(draw(st.integers(1, 3))):
            gen.pool.append(b.param(TensorType(draw(shapes(dims=gen.dims)), resolve(base)),
                                    f"x{i}"))
        for _ in range(draw(st.integers(min_ops, max(min_ops, max_ops)))):
            gen.step()
    made = gen.pool[len(b.params):] or gen.pool
    if float_results:
        made = [v for v in made if v.type.dtype.is_float] or list(b.params)
    results = draw(st.lists(st.sampled_from(made), min_size=1, max_size=3))
    return b.build(results)


def sample_arguments(fn: Function, seed: int = 0, kind: str = "normal") -> list[np.ndarray]:
    """Arguments for `fn` without hypothesis: `values` of `kind` from a seeded generator."""
    rng = np.random.default_rng(seed)
    return [np.asarray(values(rng, p.type, kind)) for p in fn.params]  # 0-d: arrays too


@st.composite
def arguments(draw, fn: Function) -> list[np.ndarray]:
    """Arguments for `fn`: small dyadic numbers (exact sums and products), normal samples,
    or a mix with NaN, +-inf, -0.0, subnormals and huge and tiny magnitudes."""
    kind = draw(st.sampled_from(("dyadic", "normal", "special")))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return [values(rng, p.type, kind) for p in fn.params]


def values(rng, t: TensorType, kind: str) -> np.ndarray:
    dt = t.dtype.numpy
    if kind == "normal":
        return (rng.normal(size=t.shape) * rng.choice([0.5, 2.0, 10.0])).astype(dt)
    dyadic = rng.integers(-16, 17, size=t.shape) / 8.0
    if kind == "dyadic":
        return dyadic.astype(dt)
    specials = np.array([_special(s, dt) for s in SPECIAL], dt)
    pick = rng.random(t.shape) < 0.5
    return np.where(pick, rng.choice(specials, size=t.shape), dyadic).astype(dt)


def _special(s, dt):
    info = np.finfo(dt)
    sign = -1.0 if isinstance(s, str) and s.startswith("-") else 1.0
    named = {"tiny": info.tiny, "subnormal": info.smallest_subnormal, "max": info.max}
    return sign * float(named[s.lstrip("-")]) if isinstance(s, str) else s


class _Generator:
    """Appends one random op at a time to the builder in scope; `pool` holds every value."""

    def __init__(self, draw, base: str, kinds=None, dims=DIMS):
        self.draw, self.base, self.pool = draw, base, []
        self.kinds, self.dims = kinds or KINDS, dims

    def pick(self, test=lambda v: True, kind=None):
        """A value of the pool passing `test` (and of dtype kind 'f', 'i' or 'b'), or None."""
        found = [v for v in self.pool if test(v) and (kind is None or v.type.dtype.numpy.kind
                                                       == kind)]
        return self.draw(st.sampled_from(found)) if found else None

    def step(self):
        kind = self.draw(st.sampled_from(self.kinds))
        out = STEPS[kind](self)
        if out is None:  # the step needs operands the pool lacks: a unary op always fits
            out = _unary(self)
        self.pool.append(out)

    def integers(self, low, high, shape):
        seed = self.draw(st.integers(0, 2**16))
        return np.random.default_rng(seed).integers(low, high, size=shape)

    def index_array(self, n: int, runtime: bool, shape=None):
        """Indices in [-n, n): a constant array (of `shape`, if given), or computed from a
        float value at run time (floor, cast, clamped), which exercises the bounds check."""
        source = self.pick(kind="f") if runtime else None
        if source is None:
            dt = self.draw(st.sampled_from((np.int64, np.int32)))
            drawn = self.draw(shapes(2, self.dims)) if shape is None else shape
            return self.integers(-n, n, drawn).astype(dt)
        idx = E.cast(E.floor(E.mul(source, 3.0)), dtype="i64")
        return E.maximum(E.minimum(idx, n - 1), -n)


def _float(gen):
    return gen.pick(kind="f")


def _unary(gen):
    x = _float(gen)
    return PRIMITIVES[gen.draw(st.sampled_from(FLOAT_UNARY))](x)


def broadcast_pair(x, y):
    """x and y broadcast to their common shape, or None when they do not broadcast."""
    a, b = x.type.shape, y.type.shape
    rank = max(len(a), len(b))
    a1, b1 = (1,) * (rank - len(a)) + a, (1,) * (rank - len(b)) + b
    if any(p != q and 1 not in (p, q) for p, q in zip(a1, b1)):
        return None
    shape = tuple(q if p == 1 else p for p, q in zip(a1, b1))
    return [v if v.type.shape == shape else S.broadcast_to(v, shape=shape) for v in (x, y)]


def _binary(gen, kind="f", names=FLOAT_BINARY):
    x = gen.pick(kind=kind)
    if x is None:
        return None
    name = gen.draw(st.sampled_from(names))
    if gen.draw(st.booleans()):  # a number (a fill) on the right
        if name == "pow":
            c = gen.draw(st.sampled_from((2, 3, 0, 1) if kind == "i" else (2.0, 0.5, -1.0, 3.0)))
        else:
            c = gen.draw(st.sampled_from((2, -3, 0) if kind == "i" else (0.5, -2.0, 0.0, 3.0)))
        return PRIMITIVES[name](x, c)
    y = gen.pick(lambda v: v.type.dtype == x.type.dtype and broadcast_pair(x, v) is not None)
    if kind == "i" and name == "pow":
        y = E.abs_(y)  # numpy raises on negative integer exponents (tested elsewhere)
    return PRIMITIVES[name](*broadcast_pair(x, y))


def _integer(gen):
    x = gen.pick(kind="i")
    if x is None:
        x = E.cast(E.floor(E.mul(_float(gen), 4.0)), dtype=gen.draw(st.sampled_from(("i32",
                                                                                      "i64"))))
        gen.pool.append(x)
    if gen.draw(st.booleans()):
        return PRIMITIVES[gen.draw(st.sampled_from(("neg", "abs", "sign")))](x)
    return _binary(gen, "i", INT_BINARY)


def _bits(gen):
    """Integer division, remainder, bitwise logic and shifts (zero divisors, negative and
    oversized shift counts come up among small integers)."""
    if gen.pick(kind="i") is None:
        gen.pool.append(_integer(gen))
    return _binary(gen, "i", INT_BITS)


def _where(gen):
    x = _float(gen)
    y = gen.pick(lambda v: v.type.dtype == x.type.dtype and broadcast_pair(x, v) is not None)
    x, y = broadcast_pair(x, y)
    cond = PRIMITIVES[gen.draw(st.sampled_from(COMPARE))](x, y if gen.draw(st.booleans())
                                                           else 0.5)
    other = gen.pick(lambda v: v.type.shape == x.type.shape and v.type.dtype == x.type.dtype)
    other = E.neg(x) if other is None else other
    return E.where(cond, x, other) if gen.draw(st.booleans()) else E.where(cond, other, x)


def _logic(gen):
    a = gen.pick(kind="b")
    if a is None:
        a = E.lt(_float(gen), 0.25)
        gen.pool.append(a)
    if gen.draw(st.booleans()):
        return E.logical_not(a)
    b = gen.pick(lambda v: v.type.shape == a.type.shape, kind="b")
    return PRIMITIVES[gen.draw(st.sampled_from(("logical_and", "logical_or", "bitwise_and",
                                                "bitwise_or", "bitwise_xor")))](a, b)


def _reduce(gen):
    x = gen.pick(lambda v: not v.type.dtype.is_bool)
    rank = x.type.rank
    axes = tuple(sorted(gen.draw(st.sets(st.integers(0, max(rank - 1, 0)), max_size=rank))))
    name = gen.draw(st.sampled_from(("reduce_sum", "reduce_max", "reduce_min", "reduce_prod")))
    return PRIMITIVES[name](x, axes=axes if rank else (), keepdims=gen.draw(st.booleans()))


def _expand(gen):
    """broadcast_to: size-1 axes grow, and leading axes may be added."""
    x = gen.pick()
    lead = tuple(gen.draw(st.lists(st.sampled_from(gen.dims), max_size=1)))
    grown = tuple(gen.draw(st.sampled_from((1, 2, 3))) if d == 1 else d for d in x.type.shape)
    return S.broadcast_to(x, shape=lead + grown)


def _reshape(gen):
    x = gen.pick()
    size = x.type.size
    if gen.draw(st.booleans()) or size == 0:  # insert or drop unit axes
        kept = [d for d in x.type.shape if d != 1]
        where_ = gen.draw(st.integers(0, len(kept)))
        shape = kept[:where_] + [1] * gen.draw(st.integers(0, 2)) + kept[where_:]
    else:
        first = gen.draw(st.sampled_from([d for d in range(1, size + 1) if size % d == 0]))
        shape = [first, size // first] if gen.draw(st.booleans()) else [size]
    return S.reshape(x, shape=tuple(shape))


def _transpose(gen):
    x = gen.pick(lambda v: v.type.rank >= 2)
    if x is None:
        return None
    return S.transpose(x, perm=tuple(gen.draw(st.permutations(range(x.type.rank)))))


def _slice(gen):
    x = gen.pick(lambda v: v.type.rank >= 1)
    if x is None:
        return None
    start, stop, step = [], [], []
    least = 0 if 0 in gen.dims else 1  # elements kept along each axis
    for d in x.type.shape:
        lo = gen.draw(st.integers(0, max(d - least, 0)))
        start.append(lo)
        stop.append(gen.draw(st.integers(min(lo + least, d), d)))
        step.append(gen.draw(st.integers(1, 3)))
    return S.slice_(x, start=tuple(start), stop=tuple(stop), step=tuple(step))


def _pad(gen):
    x = gen.pick()
    widths = st.integers(0, 2)
    rank = x.type.rank
    value = gen.draw(st.sampled_from((0.0, -1.0, 2.5))) if x.type.dtype.is_float else 0
    if x.type.dtype.is_bool:
        value = False
    return S.pad(x, low=tuple(gen.draw(widths) for _ in range(rank)),
                 high=tuple(gen.draw(widths) for _ in range(rank)),
                 interior=tuple(gen.draw(widths) for _ in range(rank)), value=value)


def _concatenate(gen):
    x = gen.pick(lambda v: v.type.rank >= 1)
    if x is None:
        return None
    axis = gen.draw(st.integers(0, x.type.rank - 1))
    fits = lambda v: (v.type.dtype == x.type.dtype and v.type.rank == x.type.rank and all(  # noqa
        a == b for i, (a, b) in enumerate(zip(v.type.shape, x.type.shape)) if i != axis))
    parts = [x, gen.pick(fits)]
    if gen.draw(st.booleans()):
        n = x.type.shape[axis]
        lo = gen.draw(st.integers(0, n))
        start = tuple(lo if i == axis else 0 for i in range(x.type.rank))
        parts.append(S.slice_(x, start=start, stop=x.type.shape, step=(1,) * x.type.rank))
    return S.concatenate(*gen.draw(st.permutations(parts)), axis=axis)


def _index_arrays(gen, x):
    """An axis of x and one or more index arrays of one shape for the axes from it."""
    axis = gen.draw(st.integers(0, x.type.rank - 1))
    count = gen.draw(st.integers(1, x.type.rank - axis))
    first = gen.index_array(x.type.shape[axis], gen.draw(st.booleans()))
    shape = first.shape if isinstance(first, np.ndarray) else first.type.shape
    rest = [gen.index_array(x.type.shape[axis + k], False, shape) for k in range(1, count)]
    return axis, [first, *rest]


def _gather(gen):
    x = gen.pick(lambda v: v.type.rank >= 1 and v.type.size > 0)
    if x is None:
        return None
    axis, indices = _index_arrays(gen, x)
    if gen.draw(st.booleans()):  # checked on its own first, as the ops layer checks a user's
        n = x.type.shape[axis]
        indices[0] = S.check_index(indices[0], bound=n, low=-n, error="IndexError",
                                   words=f"index {{index}} is out of bounds for axis {axis}")
    return S.gather(x, *indices, axis=axis)


def _scatter_add(gen):
    x = gen.pick(lambda v: v.type.rank >= 1 and v.type.size > 0 and not v.type.dtype.is_bool)
    if x is None:
        return None
    axis, indices = _index_arrays(gen, x)
    shape = ir_type(indices[0]).shape
    updates = S.gather(x, *[gen.index_array(x.type.shape[axis + k], False, shape)
                            for k in range(len(indices))], axis=axis)
    if updates.type.dtype.is_float:
        updates = E.tanh(updates)
    return S.scatter_add(x, *indices, updates, axis=axis)


def _matmul(gen):
    x = gen.pick(lambda v: v.type.rank >= 2, kind="f")
    if x is None:
        return None
    y = gen.pick(lambda v: v.type == x.type)
    rank = x.type.rank
    swapped = S.transpose(y, perm=tuple(range(rank - 2)) + (rank - 1, rank - 2))
    return S.matmul(x, swapped) if gen.draw(st.booleans()) else S.matmul(swapped, x)


def _sort(gen):
    """A sort of the flattened elements: argsort, then a gather that carries the gradient."""
    x = gen.pick()
    flat = S.reshape(x, shape=(max(x.type.size, 0),))
    return S.gather(flat, sorting.argsort(flat, axis=0), axis=0)


# A well-conditioned symmetric matrix and a symmetric direction of norm < 1: every matrix
# base + t * direction with |t| <= 1 is positive definite with eigenvalues (and singular
# values) at least 1 apart, so each factorization is smooth in t.
_BASE = np.diag([4.0, 7.0, 11.0]) + 0.5 * (np.ones((3, 3)) - np.eye(3))
_DIRECTION = np.array([[0.3, -0.2, 0.1], [-0.2, -0.4, 0.2], [0.1, 0.2, 0.3]])
LINALG = ("solve", "triangular_solve", "cholesky", "det", "slogdet", "lu_factor", "eigh", "svd",
          "qr")


def _smooth_matrix(gen):
    """base + t * direction, t = tanh(sum of a picked value) (NaN counted as 0)."""
    x = gen.pick(kind="f")
    total = E.cast(S.reduce_sum(x, axes=tuple(range(x.type.rank)), keepdims=False),
                   dtype=gen.base)
    t = E.tanh(E.where(E.eq(total, total), total, E.zeros_like(total)))
    dt = resolve(gen.base).numpy
    return E.add(_BASE.astype(dt), E.mul(S.broadcast_to(t, shape=(3, 3)), _DIRECTION.astype(dt)))


def _linalg(gen):
    """A linear-algebra primitive on a smooth matrix; results whose signs are LAPACK's choice
    (eigenvectors, singular vectors, Q and R) are squared, so that the result is smooth."""
    a = _smooth_matrix(gen)
    dt = resolve(gen.base).numpy
    name = gen.draw(st.sampled_from(LINALG))
    flag = gen.draw(st.booleans())
    rhs = np.arange(6, dtype=dt).reshape(3, 2) - 2.5
    out = {"solve": lambda: linalg.solve(a, rhs),
           "triangular_solve": lambda: linalg.triangular_solve(a, rhs, lower=flag,
                                                               unit=gen.draw(st.booleans())),
           "cholesky": lambda: linalg.cholesky(a),
           "slogdet": lambda: linalg.slogdet(a),
           "lu_factor": lambda: linalg_lu.lu_factor(a),
           "det": lambda: linalg.det(a),
           "eigh": lambda: linalg.eigh(a, upper=flag),
           "svd": lambda: linalg.svd(a, full_matrices=flag),
           "qr": lambda: linalg_qr.qr(a, complete=flag)}[name]()
    return E.mul(out, out) if name in ("eigh", "svd", "qr") else out


def _complex(gen):
    """Complex values built from two real ones of one type and brought back to a real part,
    an imaginary part or a magnitude: conjugates, products, exponentials, transforms."""
    x = gen.pick(kind="f")
    y = gen.pick(lambda v: v.type == x.type)
    z = E.complex_(x, y)
    last = x.type.rank - 1
    nonempty = x.type.rank > 0 and x.type.shape[last] > 0
    flag = gen.draw(st.booleans())
    step = gen.draw(st.sampled_from(("conj", "mul", "exp", "fft", "rfft", "eig")))
    if step == "eig":  # magnitudes: smooth whatever phase LAPACK gives each eigenvector
        return E.abs_(linalg_eig.eig(_smooth_matrix(gen)))
    if step == "rfft" and nonempty:
        spectrum = fft.rfft(x, axis=last)
        if flag:  # and back: a real signal again
            return fft.irfft(spectrum, axis=last, n=x.type.shape[last])
        z = spectrum
    elif step == "fft" and nonempty:
        z = fft.fft(z, axes=(last,), inverse=flag)
    elif step == "exp":
        z = E.exp(E.mul(z, 0.25))
    elif step == "mul":
        z = E.mul(z, E.conj(z) if flag else z)
    else:
        z = E.conj(z)
    part = gen.draw(st.sampled_from(("real", "imag", "abs")))
    return {"real": E.real, "imag": E.imag, "abs": E.abs_}[part](z)


def _cast(gen):
    x = gen.pick()
    to = gen.draw(st.sampled_from(("f32", "f64", "i32", "i64", "bool")))
    if x.type.dtype.is_float and to in ("i32", "i64"):
        x = E.floor(E.mul(x, 4.0))
    out = E.cast(x, dtype=to)
    if to in ("i32", "i64", "bool"):  # back to a float, so that gradients reach further
        gen.pool.append(out)
        out = E.cast(out, dtype=gen.base)
    return out


def _source(gen):
    shape = gen.draw(shapes(dims=gen.dims))
    dt = gen.draw(st.sampled_from((gen.base, gen.base, "i64", "i32")))
    kind = gen.draw(st.sampled_from(("full", "constant", "iota")))
    if kind == "iota" and shape:
        return S.iota(shape=shape, dtype=dt, axis=gen.draw(st.integers(0, len(shape) - 1)))
    if kind == "full" or not shape or 0 in shape:
        value = gen.draw(st.sampled_from((1.5, -0.0, np.inf, np.nan, -3.0)))
        return E.full(value=value if dt.startswith("f") else 7, shape=shape, dtype=dt)
    if dt.startswith("f"):
        data = values(np.random.default_rng(gen.draw(st.integers(0, 2**16))),
                      TensorType(shape, resolve(dt)), "special")
    else:
        data = gen.integers(-50, 50, shape).astype(resolve(dt).numpy)
    return S.constant(value=data.tolist(), shape=shape, dtype=dt)


def _guard(gen):
    """A guard on a comparison of a scalar: both backends must take or leave the path alike."""
    x = gen.pick(kind="f")
    total = S.reduce_sum(x, axes=tuple(range(x.type.rank)), keepdims=False)
    S.guard(E.ge(total, -1e300), expected=gen.draw(st.booleans()), site="fuzz:guard")
    return total


STEPS = {
    "unary": _unary, "binary": _binary, "integer": _integer, "bits": _bits, "where": _where,
    "logic": _logic,
    "reduce": _reduce, "expand": _expand, "reshape": _reshape, "transpose": _transpose,
    "slice": _slice, "pad": _pad, "concatenate": _concatenate, "gather": _gather,
    "scatter_add": _scatter_add, "matmul": _matmul, "cast": _cast, "source": _source,
    "sort": _sort, "linalg": _linalg, "guard": _guard, "complex": _complex,
}
# Arithmetic is drawn more often than each structural step, guards less.
KINDS = tuple(sorted(set(STEPS) - {"guard"})) + ("unary", "binary", "unary", "binary",
                                                  "where", "reduce", "guard")
