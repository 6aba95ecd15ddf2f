"""numpy's array functions over every dtype and shape JAX's lax_numpy tests draw (bool, uint8,
int32, float32/64, complex64/128; 2-d, empty and 0-d): each function of one array is eager,
compiled and differentiated against numpy, and numpy's refusals are gradjit's."""
import numpy as np
import pytest

from tests.numpy_api.jax_suite import arg, case, check_eager, check_grad, check_jit

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

DTYPES = ("bool", "u1", "i4", "f4", "f8", "c8", "c16")
MORE_DTYPES = ("i1", "u8", "f2")  # compiled only: on Tensors they promote as PyTorch's
SHAPES = {"2d": (3, 4), "empty": (0, 4), "0d": ()}

FUNCTIONS = {
    "cumsum": lambda a: np.cumsum(a, axis=-1 if np.ndim(a) else None),
    "cumprod-dtype": lambda a: np.cumprod(a, dtype=np.float64),
    "cumsum-bool": lambda a: np.cumsum(a, dtype=bool),
    "nancumsum": lambda a: np.nancumsum(a), "sort": lambda a: np.sort(a, axis=None),
    "argsort": lambda a: np.argsort(a, axis=None, kind="stable"),
    "sort-0": lambda a: np.sort(np.atleast_1d(a), 0),
    "flip": np.flip, "roll": lambda a: np.roll(a, 3), "rot90": lambda a: np.rot90(np.atleast_2d(a)),
    "pad-constant": lambda a: np.pad(a, 1, constant_values=1),
    "pad-reflect": lambda a: np.pad(np.atleast_1d(a), 2, mode="reflect"),
    "pad-wrap": lambda a: np.pad(np.atleast_1d(a), 2, mode="wrap"),
    "pad-edge": lambda a: np.pad(a, 1, mode="edge"),
    "pad-mean": lambda a: np.pad(np.atleast_1d(a), 1, mode="mean"),
    "pad-linear_ramp": lambda a: np.pad(np.atleast_1d(a), 2, mode="linear_ramp"),
    "diff": lambda a: np.diff(np.atleast_1d(a)), "ediff1d": np.ediff1d,
    "gradient": lambda a: np.gradient(np.atleast_1d(a)[..., :3], axis=-1),
    "clip": lambda a: np.clip(a, 0, 1), "around": lambda a: np.around(a, 1),
    "tril": lambda a: np.tril(np.atleast_2d(a)),
    "diagonal": lambda a: np.diagonal(np.atleast_2d(a)),
    "trace": lambda a: np.trace(np.atleast_2d(a)), "ptp": np.ptp,
    "where-one": lambda a: np.where(a, a, 0), "nonzero-count": lambda a: np.count_nonzero(a),
    "concatenate": lambda a: np.concatenate([np.atleast_1d(a), np.ones(2, np.int8)]),
    "stack": lambda a: np.stack([a, a]), "repeat": lambda a: np.repeat(a, 2),
    "tile": lambda a: np.tile(a, 2), "take": lambda a: np.take(a, [0, 0]) if np.size(a) else a,
    "unique": np.unique, "unique-counts": lambda a: np.unique(a, return_counts=True),
    "isin": lambda a: np.isin(a, [0, 1]), "searchsorted": lambda a: np.searchsorted(
        np.sort(np.ravel(a)), np.ones(2, np.asarray(a).dtype)),
    "dot": lambda a: np.dot(np.atleast_1d(a), np.atleast_1d(a).T),
    "outer": lambda a: np.outer(a, a), "kron": lambda a: np.kron(a, np.eye(2, dtype=int)),
    "matmul": lambda a: np.atleast_2d(a) @ np.atleast_2d(a).T,
    "einsum": lambda a: np.einsum("...i,...i->...", a, a), "vdot": lambda a: np.vdot(a, a),
    "cross": lambda a: np.cross(np.atleast_1d(a)[..., :3], np.arange(3)),
    "convolve": lambda a: np.convolve(np.ravel(a), [1, 2]) if np.size(a) else a,
    "correlate": lambda a: np.correlate(np.ravel(a), np.array([1, 0, 1], np.int8)) if np.size(a)
    else a,
    "polyval": lambda a: np.polyval(np.array([1, 2]), a),
    "interp": lambda a: np.interp(a, [0.0, 1.0], [1.0, 3.0]),
    "histogram": lambda a: np.histogram(a, bins=3, range=(0, 2)),
    "bincount": lambda a: np.bincount(np.ravel(a)), "digitize": lambda a: np.digitize(a, [0, 1]),
    "median": np.median, "quantile": lambda a: np.quantile(a, 0.3), "average": np.average,
    "var": np.var, "cov": lambda a: np.cov(np.atleast_1d(a)), "corrcoef": np.corrcoef,
    "nan_to_num": np.nan_to_num, "real_if_close": np.real_if_close, "isreal": np.isreal,
    "iscomplexobj": lambda a: np.full(2, np.iscomplexobj(a)), "angle": np.angle,
    "packbits": np.packbits, "unwrap": np.unwrap, "trapezoid": np.trapezoid,
    "select": lambda a: np.select([a == 0, a != 0], [a, 2 * a]),
    "piecewise": lambda a: np.piecewise(a, [a == 0], [3, lambda v: v * 2]),
    "put": lambda a: _put(a), "fill_diagonal": lambda a: _fill_diagonal(a),
    "astype": lambda a: np.astype(a, np.int16), "copy": np.copy,
    "array_equal": lambda a: np.array_equal(a, a, equal_nan=True),
    "isclose": lambda a: np.isclose(a, a), "allclose": lambda a: np.full(1, np.allclose(a, a)),
    "all": np.all, "any": lambda a: np.any(a, axis=-1 if np.ndim(a) else None),
    "argmax": lambda a: np.argmax(a), "nanargmin": lambda a: np.nanargmin(a),
    "max": np.max, "nanmin": np.nanmin, "mean": np.mean, "prod": np.prod, "nansum": np.nansum,
    "sum-keep": lambda a: np.sum(a, keepdims=True), "cumulative_sum":
        lambda a: np.cumulative_sum(np.atleast_1d(a), axis=-1),
}


def _put(a):
    a = np.copy(a)
    np.put(a, [0], [1])
    return a


def _fill_diagonal(a):
    a = np.copy(np.atleast_2d(a))
    np.fill_diagonal(a, 1)
    return a


CASES = [case(f"{name}-{dtype}-{shape}", fn, arg(SHAPES[shape], dtype, 0.2, 1.9))
         for name, fn in FUNCTIONS.items() for dtype in DTYPES for shape in SHAPES]
MORE_CASES = [case(f"{name}-{dtype}-2d", fn, arg(SHAPES["2d"], dtype, 0.2, 1.9))
              for name, fn in FUNCTIONS.items() for dtype in MORE_DTYPES]


def _named(names, dtypes, shapes=SHAPES):
    return {f"{n}-{d}-{s}" for n in names for d in dtypes for s in shapes}


# Where gradjit differs from numpy, and why:
# - complex histograms: numpy orders complex values lexicographically against the (real)
#   range; gradjit refuses to order complex values there;
# - a bool gradient of a 0-d array and a bool quantile of nothing: numpy's errors come from
#   a different check first (the same exception kinds, TypeError vs ValueError/IndexError);
# - float16 scans: gradjit's add float16 in another order than numpy's left to right
DIFFERENT = (_named(["histogram"], ["c8", "c16"])
             | _named(["cumsum", "nancumsum", "cumulative_sum"], ["f2"], ["2d"])
             | {"gradient-bool-0d", "quantile-bool-empty"})
# On Tensors, operands promote as PyTorch's do: uint8 sums and products accumulate in int64
# (numpy: uint64), and an array operand of another dtype does not widen a Tensor's floats;
# a Tensor's `@` of bools raises PyTorch's NotImplementedError (numpy multiplies them)
TORCH_PROMOTION = (_named(["sum-keep", "prod", "nansum", "cumsum", "nancumsum",
                           "cumulative_sum", "trace"], ["u1"])
                   | _named(["convolve", "correlate", "cross", "kron", "polyval"], DTYPES)
                   | _named(["matmul"], ["bool"]))


@pytest.mark.parametrize("c", [c for c in CASES if c.name not in DIFFERENT | TORCH_PROMOTION],
                         ids=lambda c: c.id)
def test_eager(c):
    check_eager(c)


@pytest.mark.parametrize("c", [c for c in CASES + MORE_CASES if c.name not in DIFFERENT],
                         ids=lambda c: c.id)
def test_jit(c):
    check_jit(c)


@pytest.mark.parametrize("c", [c for c in CASES if c.grad], ids=lambda c: c.id)
def test_grad(c):
    check_grad(c)
