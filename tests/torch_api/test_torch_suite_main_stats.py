"""PyTorch's test_torch suite, side by side with torch: scans (diff, cumsum, cummax, cummin,
logcumsumexp), binning (bucketize, searchsorted, histc, histogram, bincount), order statistics
(kthvalue, mode, median, nanmedian), renorm and dist, with their gradients and errors."""
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()
DIFFERENCES = {"logcumsumexp_complex": "logcumsumexp refuses complex tensors"}
NAN = float("nan")
INF = float("inf")


def errors(*calls):
    out = []
    for call in calls:
        try:
            out.append(call())
        except Exception as e:  # noqa: BLE001 - the error is what the scenario compares
            out.append((type(e).__name__, str(e)))
    return out


def graded(lib, values, fn):
    """fn's result on a float64 leaf of values, and the leaf's gradient of its weighted sum."""
    x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
    out = fn(x)
    first = out[0] if isinstance(out, tuple) else out
    w = lib.arange(1.0, first.numel() + 1, dtype=lib.float64).reshape(first.shape)
    (first * w).sum().backward()
    return out, x.grad


@scenario
def diff_forms(lib):
    x = lib.tensor([[1, 3, 2], [4, 0, 7]])
    return [lib.diff(x), x.diff(dim=0), x.diff(n=2), x.diff(n=3).shape, x.diff(n=0),
            lib.diff(x, prepend=lib.tensor([[10], [20]]), append=lib.tensor([[5], [6]])),
            lib.diff(lib.tensor([True, False, False])),
            lib.diff(lib.tensor([1.0, 4.0]), prepend=lib.tensor(0.5).expand(1))] + errors(
        lambda: lib.diff(lib.tensor(1.0)), lambda: x.diff(n=-1),
        lambda: lib.diff(x, prepend=lib.tensor([1, 2])))


@scenario
def diff_gradient(lib):
    return graded(lib, [[1.0, 4.0, 9.0], [2.0, 0.0, -1.0]], lambda x: x.diff(n=2, dim=1))


@scenario
def cumsum_dtypes_and_errors(lib):
    x = lib.tensor([[1, 2], [3, 4]], dtype=lib.int32)
    b = lib.tensor([True, True, False])
    return [x.cumsum(0), x.cumsum(1).dtype, b.cumsum(0), x.cumsum(0, dtype=lib.float32),
            lib.tensor(3.0).cumsum(0), lib.tensor([], dtype=lib.uint8).cumsum(0).dtype,
            x.cumprod(1), b.cumprod(0).dtype] + errors(lambda: x.cumsum(2))


@scenario
def cumsum_gradient(lib):
    return graded(lib, [1.0, -2.0, 3.0, 0.5], lambda x: x.cumsum(0))


@scenario
def cummax_cummin_values_and_ties(lib):
    x = lib.tensor([[1.0, 3.0, 3.0, NAN, 2.0], [0.0, -1.0, 0.0, 5.0, 5.0]])
    i = lib.tensor([3, 1, 3, 2, 5])
    return [lib.cummax(x, 1), lib.cummin(x, 1), x.cummax(0), i.cummin(0),
            lib.cummax(lib.tensor([True, False, True]), 0), lib.cummax(lib.tensor(2.0), 0),
            lib.cummax(lib.tensor([]), 0)] + errors(lambda: x.cummax(2))


@scenario
def cummax_gradient(lib):
    return graded(lib, [[1.0, 3.0, 2.0, 3.0], [4.0, 1.0, 5.0, 0.0]], lambda x: x.cummax(1))


@scenario
def cummin_gradient(lib):
    return graded(lib, [[1.0, 3.0, 0.5, 3.0], [4.0, 1.0, 5.0, 0.0]], lambda x: x.cummin(1))


@scenario
def logcumsumexp_values(lib):
    x = lib.tensor([[0.0, -INF, 1000.0, 2.0], [INF, 1.0, NAN, -INF]])
    return [x.logcumsumexp(1), lib.logcumsumexp(x, 0),
            lib.logcumsumexp(lib.tensor([-INF, -INF]), 0)] + errors(
        lambda: lib.tensor([1, 2]).logcumsumexp(0))


@scenario
def logcumsumexp_complex(lib):
    return lib.tensor([1 + 1j, -2 + 0.5j, 3j]).logcumsumexp(0)


@scenario
def logcumsumexp_gradient(lib):
    return graded(lib, [[0.5, -1.0, 2.0], [3.0, 0.0, -2.0]], lambda x: x.logcumsumexp(1))


@scenario
def bucketize_and_searchsorted(lib):
    b = lib.tensor([1, 3, 5, 7, 9])
    v = lib.tensor([[3, 6, 9], [3, 6, 9]])
    return [lib.bucketize(v, b), lib.bucketize(v, b, right=True),
            lib.bucketize(v, b, out_int32=True), lib.bucketize(4, b),
            lib.searchsorted(b, v), lib.searchsorted(lib.tensor([[1, 3, 5], [2, 4, 6]]),
                                                     lib.tensor([[3], [3]]), side="right"),
            lib.searchsorted(lib.tensor([5, 1, 3]), lib.tensor([2, 4]),
                             sorter=lib.tensor([1, 2, 0])),
            lib.searchsorted(b.float(), lib.tensor([NAN, INF, -INF])),
            lib.searchsorted(b, 6)] + errors(
        lambda: lib.searchsorted(b, v, side="left", right=True),
        lambda: lib.searchsorted(b, v, side="middle"),
        lambda: lib.searchsorted(lib.tensor([[1, 2]]), lib.tensor([[1], [2]])),
        lambda: lib.bucketize(v, lib.tensor([[1, 2]])),
        lambda: lib.searchsorted(b, v, sorter=lib.tensor([0, 1])))


@scenario
def histc_values_and_errors(lib):
    x = lib.tensor([1.0, 2.0, 1.0, 2.5, 4.0, -1.0])
    return [lib.histc(x, bins=4, min=0, max=3), x.histc(3), lib.histc(lib.tensor([2.0, 2.0]), 3),
            lib.histc(x.double(), bins=5, min=1, max=1),
            lib.histc(lib.tensor([]), bins=2)] + errors(
        lambda: lib.histc(x, bins=-1), lambda: lib.histc(x, bins=2, min=3, max=1),
        lambda: lib.histc(lib.tensor([1, 2]), bins=2),
        lambda: lib.histc(x, bins=2, min=0, max=INF))


@scenario
def histogram_forms(lib):
    x = lib.tensor([1.0, 2.0, 1.0, 2.5, 4.0])
    w = lib.tensor([1.0, 2.0, 0.5, 1.0, 1.0])
    return [lib.histogram(x, bins=3), lib.histogram(x, bins=4, range=(0.0, 4.0), weight=w),
            lib.histogram(x, bins=lib.tensor([0.0, 1.5, 5.0]), density=True),
            lib.histogram(x, 2, density=True, weight=w)] + errors(
        lambda: lib.histogram(x, bins=2, weight=w[:2]),
        lambda: lib.histogram(x.double(), bins=2, weight=w))


@scenario
def bincount_forms_and_errors(lib):
    x = lib.tensor([0, 1, 1, 3, 7])
    w = lib.tensor([0.5, 1.0, 1.5, 2.0, 0.25])
    return [x.bincount(), lib.bincount(x, w), lib.bincount(x, minlength=10),
            lib.bincount(x, w.double()), lib.bincount(lib.tensor([], dtype=lib.int64)),
            lib.bincount(x.to(lib.uint8), lib.tensor([1, 2, 3, 4, 5]))] + errors(
        lambda: lib.bincount(lib.tensor([-1, 2])), lambda: lib.bincount(x, minlength=-1),
        lambda: lib.bincount(lib.tensor([[1]])), lambda: lib.bincount(x, w[:2]),
        lambda: lib.bincount(x.float()))


@scenario
def kthvalue_forms(lib):
    x = lib.tensor([[3.0, 1.0, 2.0, 1.0], [NAN, 0.0, 5.0, -1.0]])
    return [x.kthvalue(2), lib.kthvalue(x, 1, 0), x.kthvalue(4, keepdim=True),
            lib.tensor(7.0).kthvalue(1), lib.tensor([2, 2, 1]).kthvalue(2)] + errors(
        lambda: x.kthvalue(5), lambda: x.kthvalue(0), lambda: lib.tensor(7.0).kthvalue(2),
        lambda: x.kthvalue(1, 2))


@scenario
def kthvalue_gradient(lib):
    return graded(lib, [[3.0, 1.0, 2.0], [0.0, 5.0, -1.0]], lambda x: x.kthvalue(2, 1))


@scenario
def mode_forms(lib):
    x = lib.tensor([[1, 2, 2, 3, 3], [5, 5, 4, 4, 1]])
    return [x.mode(), lib.mode(x, 0), x.float().mode(keepdim=True), lib.tensor(4).mode(),
            lib.tensor([True, False, True]).mode()] + errors(lambda: x.mode(3))


@scenario
def median_and_nanmedian(lib):
    x = lib.tensor([[3.0, NAN, 1.0, 2.0], [4.0, 0.0, 2.0, 6.0]])
    return [x.median(), x.nanmedian(), x.median(1), x.nanmedian(1), x.median(0, keepdim=True),
            lib.median(lib.tensor([1, 4, 2, 3])), lib.tensor([NAN, NAN]).nanmedian(),
            lib.tensor([]).median(), lib.tensor(5.0).median(0)] + errors(
        lambda: lib.tensor([]).median(0), lambda: x.median(2))


@scenario
def median_gradient(lib):
    return graded(lib, [[3.0, 5.0, 1.0, 2.0], [4.0, 0.0, 2.0, 6.0]], lambda x: x.median(1))


@scenario
def nanmedian_gradient(lib):
    return graded(lib, [[3.0, NAN, 1.0, 2.0], [4.0, 0.0, 2.0, 6.0]], lambda x: x.nanmedian())


@scenario
def renorm_values_and_errors(lib):
    x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [0.1, 0.1, 0.1]])
    return [x.renorm(2, 0, 5), x.renorm(1, 1, 6), lib.renorm(x, float("inf"), 0, 2),
            x.renorm(0.5, 0, 1)] + errors(
        lambda: x.renorm(-1, 0, 1), lambda: x.renorm(2, 0, -1), lambda: x.renorm(2, 3, 1),
        lambda: lib.tensor([1.0]).renorm(2, 0, 1), lambda: lib.tensor([1, 2]).renorm(2, 0, 1))


@scenario
def renorm_gradient(lib):
    return graded(lib, [[1.0, 2.0, 3.0], [0.1, 0.2, 0.1]], lambda x: x.renorm(2, 0, 2))


@scenario
def dist_values(lib):
    a = lib.tensor([[1.0, 2.0], [3.0, -4.0]])
    b = lib.tensor([0.5, -1.0])
    return [lib.dist(a, b), a.dist(b, 1), a.dist(b, 0), a.dist(b, INF), a.dist(b, -INF),
            a.dist(b, 3.5), lib.dist(a, a, 0.5)] + errors(
        lambda: lib.dist(a, lib.ones(3)), lambda: lib.dist(a, b.double()))


@scenario
def dist_gradient(lib):
    a = lib.tensor([[1.0, 2.0], [3.0, -4.0]], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
    out = [a.dist(b, p) for p in (2, 1, 3.0, INF)]
    lib.stack(out).sum().backward()
    return out, a.grad, b.grad


@scenario
def cummax_cummin_out_and_bool(lib):
    a = lib.tensor([[True, False, True], [False, False, False], [True, True, True]])
    x = lib.tensor([4, INF, 1.5, -INF, 0, NAN, 1])
    values, indices = lib.empty(0), lib.empty(0, dtype=lib.int64)
    lib.cummax(x, 0, out=(values, indices))
    return [lib.cummax(a, 0), lib.cummin(a.byte(), 0), lib.cummin(x, 0), values, indices] + \
        errors(lambda: lib.cummax(lib.randn(10), 0, out=(lib.empty(0, dtype=lib.int16),
                                                         lib.empty(0, dtype=lib.int64))),
               lambda: lib.logcumsumexp(lib.ones(5, 2, dtype=lib.float64), -1,
                                        out=lib.zeros(5, 2)))


@scenario
def scans_over_empty_dims_backward(lib):
    out = []
    for shape in ((2, 0), (2, 1, 4), (0, 2, 3), (1,), ()):
        for dim in range(max(len(shape), 1)):
            for name in ("cummax", "cummin", "cumsum", "cumprod", "logcumsumexp"):
                x = lib.zeros(shape, requires_grad=True)
                result = getattr(x, name)(dim=dim)
                result = result[0] if isinstance(result, tuple) else result
                result.sum().backward()
                out.append((tuple(result.shape), tuple(x.grad.shape)))
    return out


@scenario
def diff_with_long_prepend_and_errors(lib):
    t = lib.tensor([[1.0, 4.0, 2.0, 8.0], [0.5, -1.0, 3.0, 3.0]])
    out = [lib.diff(t, dim=1, n=n, prepend=t, append=t) for n in (1, 5, 11)]
    out += [lib.diff(t, dim=0, n=n, prepend=t.narrow(0, 0, 1), append=t.narrow(0, 0, 1))
            for n in (1, 3, 5)]
    return out + errors(lambda: lib.ones(2, 3).diff(dim=0, prepend=lib.tensor([[0.0, 1.0]])))


@scenario
def gradient_spacings(lib):
    t = lib.tensor([[1.0, 4.0, 9.0, 16.0], [2.0, 3.0, 5.0, 11.0], [0.0, 1.0, 0.0, 1.0]])
    coords = [lib.tensor([0.0, 1.0, 3.0]), lib.tensor([0.0, 0.5, 1.5, 2.0])]
    return [lib.gradient(t), lib.gradient(t, spacing=2.0, dim=1),
            lib.gradient(t, spacing=[2.0, 0.5], edge_order=2),
            lib.gradient(t, spacing=coords, dim=(0, 1)),
            lib.gradient(t, spacing=coords, dim=(0, 1), edge_order=2),
            lib.gradient(lib.tensor([2, -2, 7, 3])),
            lib.gradient(lib.tensor([1 + 1j, 2, 4j]))] + errors(
        lambda: lib.gradient(t, dim=(0, 0)), lambda: lib.gradient(lib.tensor([1.0]), dim=0),
        lambda: lib.gradient(t, spacing=[1.0, 2.0, 3.0]))


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_scenario(name):
    check(SCENARIOS[name])
