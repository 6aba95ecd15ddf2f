"""PyTorch's reductions suite side by side with torch: dims as tuples, keepdim, dtype= and out=,
empty and zero-size inputs, NaN handling, integer promotion, var/std corrections, logsumexp,
aminmax, nansum/nanmean, mode, median, quantile, count_nonzero, all/any on every dtype."""
import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

X = np.arange(24.0).reshape(2, 3, 4) % 7 - 3.0
N = np.array([[1.0, np.nan, 3.0, -2.0], [np.nan, np.nan, 0.5, 4.0], [2.0, 2.0, -1.0, 7.0]])
INTS = np.array([[3, 1, 4, 1], [5, 9, 2, 6], [5, 3, 5, 8]])
SCENARIOS = scenario = Scenarios()
DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128")


def leaf(lib, a=X):
    return lib.tensor(a, requires_grad=True)


def grad_of(lib, fn, a=X):
    """fn's result on a leaf of a and the leaf's gradient of the result's weighted sum."""
    x = leaf(lib, a)
    out = fn(x)
    weights = lib.arange(1.0, out.numel() + 1, dtype=out.dtype).reshape(out.shape)
    (out * weights).sum().backward()
    return out, x.grad


def reduction_family(name, keepdims=(False, True)):
    """Scenarios over dims: all, one, negative, tuple, unsorted tuple, every dim listed, an
    empty list (every dim too), each with and without keepdim."""
    def run(lib):
        x = lib.tensor(X)
        fn = getattr(lib, name)
        outs = [fn(x, dim=[0, 1, 2])] if name == "logsumexp" else [fn(x), fn(x, dim=[])]
        for dim in (1, -1, (0, 2), (2, 0), [0, 1, 2]):
            outs += [fn(x, dim=dim, **({"keepdim": k} if k else {})) for k in keepdims]
        return outs
    run.__name__ = f"{name}_dims"
    scenario(run)


for _name in ("sum", "mean", "nansum", "nanmean", "amax", "amin", "logsumexp", "var", "std"):
    reduction_family(_name)
reduction_family("count_nonzero", keepdims=(False,))


@scenario
def logsumexp_without_dim(lib):
    return lib.logsumexp(lib.tensor(X))


@scenario
def count_nonzero_keepdim_raises(lib):
    return lib.count_nonzero(lib.tensor(X), dim=1, keepdim=True)


@scenario
def sum_dim_empty_list(lib):
    x = lib.tensor(X)
    return x.sum(dim=[]), x.sum(dim=()), x.mean(dim=[]), x.nansum(dim=[]), x.amax(dim=[])


@scenario
def sum_duplicate_dim(lib):
    return lib.tensor(X).sum(dim=(0, 1, 1))


@scenario
def sum_dim_out_of_range(lib):
    return lib.tensor(X).sum(dim=3)


@scenario
def mean_dim_out_of_range(lib):
    return lib.tensor(X).mean(dim=-4)


@scenario
def sum_numpy_named_args(lib):
    x = lib.tensor(X)
    return x.sum(axis=(0, 2), keepdims=True), lib.sum(x, axis=1)


@scenario
def sum_integer_promotion(lib):
    outs = []
    for dt in ("bool", "uint8", "int8", "int16", "int32", "int64"):
        x = lib.tensor(INTS % 2 if dt == "bool" else INTS, dtype=getattr(lib, dt))
        outs += [x.sum(), x.sum(1), x.prod(), x.cumsum(0), x.nansum() if dt != "bool" else 0]
    return outs


@scenario
def sum_dtype_argument(lib):
    x = lib.tensor(INTS, dtype=lib.int8)
    return (x.sum(dtype=lib.float64), x.sum(1, dtype=lib.int16), x.prod(dtype=lib.float32),
            lib.tensor(X).sum(dtype=lib.float32), lib.tensor(X).mean(dtype=lib.float32))


@scenario
def sum_uint8_overflow_wraps(lib):
    x = lib.full((300,), 200, dtype=lib.uint8)
    return x.sum(), x.sum(dtype=lib.uint8), x.sum(dtype=lib.int8)


@scenario
def mean_integer_raises(lib):
    return lib.tensor(INTS).mean()


@scenario
def mean_integer_with_dtype(lib):
    return lib.tensor(INTS).mean(dtype=lib.float64), lib.tensor(INTS).mean(1, dtype=lib.float32)


@scenario
def sum_out(lib):
    out = lib.empty(0)
    r = lib.sum(lib.tensor(X, dtype=lib.float32), (0, 1), out=out)
    return r is out, out


@scenario
def sum_out_dtype_mismatch(lib):
    out = lib.empty(0, dtype=lib.int64)
    return lib.sum(lib.tensor(X), 0, out=out)


@scenario
def mean_out(lib):
    out = lib.empty(3)
    lib.mean(lib.tensor(X), (0, 2), keepdim=False, out=out)
    return out


@scenario
def prod_dims_and_zero(lib):
    x = lib.tensor([[1.0, 2.0, 0.0], [3.0, -1.0, 4.0]])
    return x.prod(), x.prod(0), x.prod(1, keepdim=True), x.prod(dtype=lib.float32)


@scenario
def prod_gradient_with_zeros(lib):
    a = np.array([[1.0, 2.0, 0.0], [3.0, 0.0, 0.0], [2.0, -1.0, 4.0]])
    return grad_of(lib, lambda x: x.prod(1), a), grad_of(lib, lambda x: x.prod(), a[2:])


@scenario
def empty_reductions_identity(lib):
    t = lib.zeros(0, 2, 3)
    return (t.sum(0), t.sum((0, 2)), t.prod(0), t.nansum(0), t.count_nonzero(0), t.all(0),
            t.any(0), t.sum(), t.prod())


@scenario
def empty_reductions_nan(lib):
    t = lib.zeros(0, 2, 3)
    return t.mean(0), t.nanmean(0), t.var(0), t.std((0, 2)), t.mean(), t.logsumexp(0)


@scenario
def empty_amax_raises(lib):
    return lib.zeros(0, 2, 3).amax(0)


@scenario
def empty_max_dim_raises(lib):
    return lib.zeros(0, 2, 3).max(0)


@scenario
def empty_max_all_raises(lib):
    return lib.zeros(0, 2, 3).max()


@scenario
def empty_argmax_raises(lib):
    return lib.zeros(0, 2).argmax()


@scenario
def empty_nonempty_slice(lib):
    t = lib.zeros(0, 2, 3)
    return (t.amax(1), t.amin((1, 2)), t.max(1), t.min(2), t.argmax(1), t.median(1), t.mode(2),
            t.logsumexp(1), t.var(1), t.std((1, 2)), t.aminmax(dim=1), t.cumsum(1))


@scenario
def median_empty_raises(lib):
    return lib.zeros(0).median()


@scenario
def nan_propagation(lib):
    x = lib.tensor(N)
    return (x.sum(), x.mean(1), x.amax(0), x.amin(1), x.max(1), x.min(0), x.prod(1), x.var(1),
            x.std(), x.logsumexp(1), x.argmax(1), x.argmin(0), x.max(), x.min(), x.cumsum(1))


@scenario
def nan_omit(lib):
    x = lib.tensor(N)
    return (x.nansum(), x.nansum(1), x.nanmean(0), x.nanmean((0, 1), keepdim=True),
            x.nanmedian(), x.nanmedian(1), x.nanquantile(0.3, dim=1), x.nansum(dtype=lib.float32))


@scenario
def nanmean_all_nan(lib):
    x = lib.full((2, 3), float("nan"))
    return x.nanmean(), x.nanmean(0), x.nansum(), x.nanmedian(1), x.nanquantile(0.5)


@scenario
def nan_gradients(lib):
    return (grad_of(lib, lambda x: x.nansum(1), N), grad_of(lib, lambda x: x.nanmean(0), N),
            grad_of(lib, lambda x: x.nanmedian(1).values, N))


@scenario
def nansum_integer(lib):
    x = lib.tensor(INTS, dtype=lib.int32)
    return x.nansum(), x.nansum(0), x.nansum(dtype=lib.int8)


@scenario
def nanmean_integer_raises(lib):
    return lib.tensor(INTS).nanmean()


@scenario
def var_std_corrections(lib):
    x = lib.tensor(X)
    outs = []
    for kw in ({}, {"unbiased": False}, {"correction": 0}, {"correction": 2}, {"correction": 1.5},
               {"dim": 1, "correction": 0}, {"dim": (0, 2), "keepdim": True, "correction": 3}):
        outs += [x.var(**kw), x.std(**kw), lib.var_mean(x, **kw), lib.std_mean(x, **kw)]
    return outs


@scenario
def var_positional_unbiased(lib):
    x = lib.tensor(X)
    return x.var(1, False), x.std(0, True, True), lib.var(x, False), lib.std_mean(x, 2, False)


@scenario
def var_too_few_samples(lib):
    x = lib.tensor([[1.0], [2.0]])
    return x.var(1), x.std(1), x.var(correction=5), x.var(1, correction=0), lib.tensor(3.0).var()


@scenario
def var_integer_raises(lib):
    return lib.tensor(INTS).var()


@scenario
def var_complex(lib):
    z = lib.tensor(X[0] + 1j * X[1])
    return z.var(), z.std(1), lib.var_mean(z, 0)


@scenario
def var_std_gradients(lib):
    return (grad_of(lib, lambda x: x.var(1)), grad_of(lib, lambda x: x.std((0, 2), correction=0)),
            grad_of(lib, lambda x: lib.var_mean(x, 0)[0] + lib.var_mean(x, 0)[1]),
            grad_of(lib, lambda x: lib.std_mean(x, correction=2)[0]))


@scenario
def std_gradient_at_constant(lib):
    return grad_of(lib, lambda x: x.std(1), np.ones((2, 3)))


@scenario
def logsumexp_values(lib):
    x = lib.tensor([[1000.0, 1000.0, -1000.0], [float("-inf"), float("-inf"), 1.0],
                    [float("inf"), 1.0, 2.0]])
    return x.logsumexp(1), x.logsumexp(0, keepdim=True), lib.logsumexp(x, (0, 1))


@scenario
def logsumexp_all_neg_inf(lib):
    x = lib.full((2, 3), float("-inf"))
    return x.logsumexp(1), grad_of(lib, lambda y: y.logsumexp(1), np.full((2, 3), -np.inf))


@scenario
def logsumexp_integer(lib):
    x = lib.tensor(INTS)
    return x.logsumexp(1), lib.tensor(INTS, dtype=lib.uint8).logsumexp(0)


@scenario
def logsumexp_gradient(lib):
    return grad_of(lib, lambda x: x.logsumexp((0, 2))), grad_of(lib, lambda x: x.logsumexp(1, True))


@scenario
def logsumexp_out(lib):
    out = lib.empty(2)
    lib.logsumexp(lib.tensor(X), (1, 2), out=out)
    return out


@scenario
def logsumexp_complex(lib):
    z = lib.tensor([1.0 + 1.0j, 2.0 + 2.0j])
    return z.logsumexp(0), lib.logsumexp(z, 0, keepdim=True)


@scenario
def aminmax_values(lib):
    x = lib.tensor(X)
    return (lib.aminmax(x), lib.aminmax(x, dim=1), x.aminmax(dim=-1, keepdim=True),
            lib.aminmax(lib.tensor(N), dim=1), lib.aminmax(lib.tensor(INTS, dtype=lib.int8)),
            lib.aminmax(lib.tensor([True, False])))


@scenario
def aminmax_empty_raises(lib):
    return lib.aminmax(lib.zeros(0, 3))


@scenario
def aminmax_empty_dim_raises(lib):
    return lib.aminmax(lib.zeros(0, 3), dim=0)


@scenario
def aminmax_out(lib):
    mn, mx = lib.empty(0), lib.empty(0)
    r = lib.aminmax(lib.tensor(X), dim=2, out=(mn, mx))
    return r, mn, mx


@scenario
def amax_amin_gradients_split_ties(lib):
    a = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    return (grad_of(lib, lambda x: x.amax(1), a), grad_of(lib, lambda x: x.amin(), a),
            grad_of(lib, lambda x: x.max(), a), grad_of(lib, lambda x: x.max(1).values, a))


@scenario
def max_min_dim(lib):
    x = lib.tensor(INTS)
    return (x.max(1), x.min(0, keepdim=True), lib.max(x, -1), x.argmax(), x.argmin(1, True),
            x.argmax(keepdim=True), lib.max(x, lib.tensor(4)))


@scenario
def max_dim_tuple_raises(lib):
    return lib.tensor(X).max((0, 1))


@scenario
def min_dim_list_raises(lib):
    return lib.tensor(X).min([0])


@scenario
def argmax_bool_raises(lib):
    return lib.tensor([True, False]).argmax()


def out_pair(lib, dtype="float64", index="int64"):
    return lib.empty(0, dtype=getattr(lib, dtype)), lib.empty(0, dtype=getattr(lib, index))


@scenario
def max_out(lib):
    v, i = out_pair(lib)
    r = lib.max(lib.tensor(X), 1, out=(v, i))
    return r, v, i


def out_dtype_error(name, *args, dtype="float32", index="int64"):
    """name(X, *args, out=...) where out's values or indices have another dtype than torch's."""
    def run(lib):
        return getattr(lib, name)(lib.tensor(X), *args, out=out_pair(lib, dtype, index))
    run.__name__ = f"{name}_out_{dtype}_{index}"
    scenario(run)


for _name, _args in (("max", (1,)), ("min", (0,)), ("sort", ()), ("topk", (2,)),
                     ("kthvalue", (2,)), ("cummax", (1,)), ("cummin", (0,)), ("mode", (1,)),
                     ("median", (2,)), ("nanmedian", (0,))):
    out_dtype_error(_name, *_args)
out_dtype_error("max", 1, dtype="float64", index="int32")


@scenario
def mode_values(lib):
    x = lib.tensor([[1, 2, 2, 3, 3], [4, 4, 4, 0, 0], [7, 6, 5, 4, 3]])
    return (x.mode(), x.mode(0), lib.mode(x, 1, keepdim=True), lib.tensor(5.0).mode(),
            lib.tensor([2.0, float("nan"), float("nan"), 1.0]).mode())


@scenario
def mode_gradient(lib):
    a = np.array([[1.0, 2.0, 2.0, 3.0], [4.0, 4.0, 0.0, 0.0]])
    return grad_of(lib, lambda x: x.mode(1).values, a)


@scenario
def median_values(lib):
    x = lib.tensor([[5.0, 1.0, 4.0, 2.0], [3.0, 3.0, -1.0, 8.0]])
    return (x.median(), x.median(1), x.median(0, keepdim=True), lib.median(lib.tensor(INTS)),
            lib.median(lib.tensor(INTS), 1), lib.tensor(N).median(1), lib.tensor(N).median(),
            lib.tensor(2.5).median(0))


@scenario
def median_gradient(lib):
    return grad_of(lib, lambda x: x.median()), grad_of(lib, lambda x: x.median(2).values)


@scenario
def median_out(lib):
    v, i = out_pair(lib)
    lib.median(lib.tensor(X), 2, out=(v, i))
    return v, i


@scenario
def quantile_values(lib):
    x = lib.tensor(X)
    q = lib.tensor([0.0, 0.25, 0.5, 1.0])
    outs = [x.quantile(0.4), x.quantile(q), x.quantile(q, dim=1), x.quantile(0.7, 2, True)]
    for method in ("linear", "lower", "higher", "midpoint", "nearest"):
        outs.append(x.quantile(q, dim=-1, interpolation=method))
    return outs


@scenario
def quantile_nan(lib):
    x = lib.tensor(N)
    return x.quantile(0.5, 1), x.nanquantile(0.5, 1), x.nanquantile(lib.tensor([0.1, 0.9]), 0)


@scenario
def quantile_gradient(lib):
    return grad_of(lib, lambda x: x.quantile(lib.tensor([0.3, 0.8]), dim=1))


@scenario
def quantile_out_of_range_raises(lib):
    return lib.tensor(X).quantile(1.5)


@scenario
def quantile_integer_raises(lib):
    return lib.tensor(INTS).quantile(0.5)


@scenario
def quantile_q_dtype_raises(lib):
    return lib.tensor(X).quantile(lib.tensor([0.5], dtype=lib.float32))


@scenario
def quantile_bad_interpolation(lib):
    return lib.tensor(X).quantile(0.5, interpolation="cubic")


@scenario
def quantile_empty(lib):
    return lib.zeros(0).quantile(0.5), lib.zeros(2, 0).quantile(0.5, dim=1)


@scenario
def quantile_q_2d_raises(lib):
    return lib.tensor(X).quantile(lib.tensor([[0.5]], dtype=lib.float64))


@scenario
def count_nonzero_values(lib):
    x = lib.tensor(INTS % 3)
    return (lib.count_nonzero(x), x.count_nonzero(0), x.count_nonzero((0, 1)),
            lib.count_nonzero(lib.tensor(N)), lib.count_nonzero(lib.tensor([True, False, True])),
            lib.count_nonzero(lib.tensor([0j, 1j, 1.0 + 0j])), lib.count_nonzero(x, dim=[-1]))


def all_any(dt):
    """all and any of an input of dtype dt: whole, by dims, and of empty slices."""
    def run(lib):
        x = lib.tensor(INTS % 3, dtype=getattr(lib, dt))
        return (x.all(), x.any(), x.all(0), x.any(1, keepdim=True), lib.all(x, dim=(0, 1)),
                lib.any(x, (1,)), x[:0].all(), x[:0].any(), x[:, :0].all(1))
    run.__name__ = f"all_any_{dt}"
    scenario(run)


for _dt in DTYPES:
    all_any(_dt)


@scenario
def all_any_out(lib):
    out = lib.empty(0, dtype=lib.bool)
    lib.all(lib.tensor(INTS), 1, out=out)
    out2 = lib.empty(0, dtype=lib.uint8)
    lib.any(lib.tensor(INTS, dtype=lib.uint8), 0, out=out2)
    return out, out2


@scenario
def cumulative_dtypes(lib):
    x = lib.tensor(INTS, dtype=lib.int16)
    return (x.cumsum(1), x.cumprod(0), x.cumsum(0, dtype=lib.float32), lib.cummax(x, 1),
            lib.cummin(lib.tensor(N), 1), lib.logcumsumexp(lib.tensor(X), 2),
            lib.tensor([True, True]).cumsum(0))


@scenario
def cumulative_gradients(lib):
    return (grad_of(lib, lambda x: x.cumsum(2)), grad_of(lib, lambda x: x.cumprod(1)),
            grad_of(lib, lambda x: lib.cummax(x, 2).values),
            grad_of(lib, lambda x: lib.logcumsumexp(x, 0)))


@scenario
def sum_complex_and_half(lib):
    z = lib.tensor(X[0] - 2j * X[1])
    h = lib.tensor(X, dtype=lib.float16)
    return z.sum(0), z.mean(), z.prod(1), h.sum(), h.mean(1), h.var(), lib.tensor(
        X, dtype=lib.bfloat16).sum(2)


@scenario
def reductions_of_scalars(lib):
    s = lib.tensor(3.0)
    return (s.sum(0), s.sum(-1, keepdim=True), s.mean(0), s.amax(0), s.max(0), s.argmax(0),
            s.var(0), s.logsumexp(0), s.cumsum(0), s.prod(0), s.all(0), s.count_nonzero(0))


@scenario
def reduction_scalar_dim_1_raises(lib):
    return lib.tensor(3.0).sum(1)


@scenario
def norm_dims(lib):
    x = lib.tensor(X)
    return (x.norm(), x.norm(1, (0, 2)), x.norm(float("inf"), 1, True), lib.norm(x, p="fro"),
            lib.norm(x, dim=(1, 2), p="fro"), lib.norm(x[0], p="nuc"))


@scenario
def dist_and_norm_gradients(lib):
    return grad_of(lib, lambda x: x.norm(dim=1)), grad_of(lib, lambda x: x.norm(1))


@scenario
def sum_noncontiguous(lib):
    x = lib.tensor(X).transpose(0, 2)[::2]
    return x.sum(1), x.mean((0, 2)), x.amax(-1), x.var(0), x.cumsum(1)


@scenario
def reduction_bool_dtypes(lib):
    b = lib.tensor([[True, False, True], [True, True, True]])
    return b.sum(), b.sum(0), b.prod(1), b.amax(1), b.amin(), b.max(0), b.cumprod(1)


@scenario
def mean_bool_raises(lib):
    return lib.tensor([True, False]).mean()


@scenario
def extrema_with_infinities(lib):
    x = lib.tensor([[float("inf"), 1.0, -float("inf")], [2.0, float("inf"), 3.0]])
    return x.max(1), x.min(0), x.amax(), x.amin(1), x.argmax(1), x.argmin(), lib.aminmax(x)


@scenario
def max_complex_raises(lib):
    return lib.tensor([1j, 2.0]).max()


@scenario
def amax_complex_raises(lib):
    return lib.tensor([1j, 2.0]).amax()


@scenario
def argmax_complex_raises(lib):
    return lib.tensor([1j, 2.0]).argmax()


@scenario
def argminmax_first_of_ties(lib):
    x = lib.tensor([[1, 3, 3, 0, 0], [2, 2, 2, 2, 2]])
    return x.argmax(1), x.argmin(1), x.argmax(), x.argmin(), x.max(1).indices, x.min(1).indices


@scenario
def reduction_out_promotion(lib):
    x = lib.tensor(INTS)
    f, d = lib.empty(0), lib.empty(0, dtype=lib.float64)
    lib.sum(x, 1, out=f)
    lib.prod(x, 0, out=d)
    c = lib.empty(0, dtype=lib.float32)
    lib.cumsum(x, 1, out=c)
    return f, d, c


@scenario
def histc_values(lib):
    x = lib.tensor([1.0, 2.0, 1.0, 4.0, 2.5, -1.0, 7.0])
    return (lib.histc(x, bins=4, min=0, max=3), lib.histc(x, 3), x.histc(5, 1, 1),
            lib.histc(lib.tensor([2.0, 2.0]), 3))


@scenario
def histc_integer_raises(lib):
    return lib.histc(lib.tensor([1, 2]), 3)


@scenario
def histc_min_above_max_raises(lib):
    return lib.histc(lib.tensor([1.0, 2.0]), 3, min=2, max=1)


@scenario
def bincount_values(lib):
    x = lib.tensor([0, 1, 1, 3, 2, 1, 7])
    w = lib.tensor([0.0, 0.25, 0.5, 1.0, 2.0, 0.5, 1.5])
    return (lib.bincount(x), lib.bincount(x, w), lib.bincount(x, minlength=10),
            x.bincount(w.float()), lib.bincount(lib.tensor([], dtype=lib.long)),
            lib.bincount(lib.tensor([], dtype=lib.long), minlength=3))


@scenario
def bincount_negative_raises(lib):
    return lib.bincount(lib.tensor([1, -1]))


@scenario
def bincount_float_raises(lib):
    return lib.bincount(lib.tensor([1.0]))


@scenario
def bincount_weights_length_raises(lib):
    return lib.bincount(lib.tensor([1, 2]), lib.tensor([1.0]))


@scenario
def prod_bool_and_uint8(lib):
    bytes_ = lib.tensor([3, 100], dtype=lib.uint8)
    return (lib.tensor([True, True]).prod(), lib.tensor([3, 100], dtype=lib.uint8).prod(),
            lib.tensor([3, 100], dtype=lib.uint8).prod(dtype=lib.uint8),
            lib.tensor([True, False]).cumprod(0), bytes_.cumsum(0, dtype=lib.int8),
            bytes_.cumprod(0, dtype=lib.int16), bytes_.prod(dtype=lib.int8))


@scenario
def std_var_dtype_and_half(lib):
    h = lib.tensor(X, dtype=lib.float16)
    b = lib.tensor(X, dtype=lib.bfloat16)
    return h.std(1), h.var((0, 2)), b.var(), lib.std_mean(h, 2), b.std(0, correction=0)


DIFFERENCES = {
    "count_nonzero_keepdim_raises": "a keyword no overload takes: Python's TypeError words, "
                                    "not the list of torch's overloads",
}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_reduction_scenario_matches_torch(name):
    check(SCENARIOS[name])
