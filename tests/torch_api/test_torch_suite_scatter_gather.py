"""PyTorch's scatter/gather and segment-reduction suites (test_scatter_gather.py,
test_segment_reductions.py) side by side with torch: gather, scatter, scatter_add,
scatter_reduce with every reduction with and without the destination's values,
take_along_dim, index_reduce, segment_reduce by lengths and offsets along an axis; values,
gradients and errors."""
import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

X = np.arange(20.0).reshape(4, 5)
INDEX = np.array([[0, 1, 2, 0, 3], [3, 2, 1, 0, 0]])
SEGMENTS = np.array([1.0, 2.0, -3.0, 4.0, -1.0, 5.0, 0.5, 3.0])
SCENARIOS = scenario = Scenarios()


def weighted_backward(lib, out):
    (out * lib.arange(1.0, out.numel() + 1).reshape(out.shape)).sum().backward()


@scenario
def gather_dims(lib):
    x, i = lib.tensor(X), lib.tensor(INDEX)
    return (lib.gather(x, 0, i), x.gather(1, i % 5), lib.gather(x, -1, i), x.gather(0, i[:, :2]),
            lib.gather(x, 0, lib.tensor([[1, 2]], dtype=lib.int32)),
            lib.gather(x, 0, lib.zeros(0, 5, dtype=lib.long)))


@scenario
def gather_gradient_with_repeats(lib):
    x = lib.tensor(X, requires_grad=True)
    out = x.gather(0, lib.tensor(INDEX))
    weighted_backward(lib, out)
    return out, x.grad


@scenario
def gather_out_and_scalar(lib):
    out = lib.empty(2, 5)
    result = lib.gather(lib.tensor(X), 0, lib.tensor(INDEX), out=out)
    s = lib.tensor(3.0)
    return out, result is out, s.gather(0, lib.tensor(0)), s.gather(0, lib.tensor([0, 0]))


def refusal(name, call):
    def run(lib):
        return call(lib, lib.tensor(X))
    run.__name__ = name
    scenario(run)


for _name, _call in {
        "gather_index_out_of_range": lambda L, x: L.gather(x, 0, L.tensor([[5]])),
        "gather_negative_index": lambda L, x: L.gather(x, 0, L.tensor([[-1]])),
        "gather_float_index": lambda L, x: L.gather(x, 0, L.tensor([[0.0]])),
        "gather_index_rank": lambda L, x: L.gather(x, 0, L.tensor([1, 2])),
        "gather_index_too_wide": lambda L, x: L.gather(x, 1, L.tensor([[0] * 6] * 4)),
        "gather_index_too_long": lambda L, x: L.gather(x, 0, L.tensor([[0] * 2] * 6)),
        "gather_out_dtype":
            lambda L, x: L.gather(x, 0, L.tensor(INDEX), out=L.empty(2, 5, dtype=L.int64)),
        "scatter_index_out_of_range": lambda L, x: L.zeros(4, 5).scatter(0, L.tensor([[4]]), 1.0),
        "scatter_source_dtype":
            lambda L, x: L.zeros(4, 5).scatter(0, L.tensor([[1]]), L.ones(1, 1, dtype=L.float64)),
        "scatter_source_too_small":
            lambda L, x: L.zeros(4, 5).scatter(0, L.tensor([[1, 2]]), L.ones(1, 1)),
        "scatter_reduce_unknown":
            lambda L, x: x.scatter_reduce(0, L.tensor(INDEX), x, "max"),
        "segment_unknown_reduction":
            lambda L, x: L.segment_reduce(x, "median", lengths=L.tensor([4])),
        "segment_lengths_do_not_cover":
            lambda L, x: L.segment_reduce(x, "sum", lengths=L.tensor([2, 1])),
        "segment_negative_length":
            lambda L, x: L.segment_reduce(x, "sum", lengths=L.tensor([6, -2])),
        "segment_without_lengths": lambda L, x: L.segment_reduce(x, "sum"),
        "segment_axis_not_the_lengths_last":
            lambda L, x: L.segment_reduce(x, "sum", lengths=L.tensor([5]), axis=1)}.items():
    refusal(_name, _call)


@scenario
def scatter_forms(lib):
    x, src, i = lib.zeros(4, 5), lib.tensor(X[:2] + 100), lib.tensor(INDEX)
    inplace = lib.zeros(4, 5)
    returned = inplace.scatter_(0, lib.tensor([[0, 1, 2, 3, 0]]), lib.ones(1, 5))
    return (x.scatter(0, i, src), lib.scatter(x, 1, i, src), x.scatter(0, i, 2.5),
            x.scatter(1, lib.tensor([[4, 3]]), src), inplace, returned is inplace,
            x.scatter(0, lib.zeros(0, 5, dtype=lib.long), lib.ones(1, 5)))


@scenario
def scatter_with_reduce_argument(lib):
    x, src, i = lib.ones(4, 5), lib.tensor(X[:2] + 1), lib.tensor(INDEX)
    return (x.scatter(0, i, src, reduce="add"), x.scatter(0, i, src, reduce="multiply"),
            x.clone().scatter_(0, i, 3.0, reduce="add"),
            x.clone().scatter_(0, i, 3.0, reduce="multiply"))


@scenario
def scatter_other_dtypes(lib):
    return (lib.zeros(3, dtype=lib.bool).scatter(0, lib.tensor([1]), True),
            lib.zeros(3, dtype=lib.bool).scatter(0, lib.tensor([2]), lib.tensor([True])),
            lib.zeros(3, dtype=lib.complex64).scatter_add(
                0, lib.tensor([1, 1]), lib.tensor([1 + 2j, 3j], dtype=lib.complex64)),
            lib.zeros(3, dtype=lib.long).scatter(0, lib.tensor([1]), 2.7))


@scenario
def scatter_into_transposed(lib):
    x = lib.zeros(5, 4).t()
    return x.scatter(1, lib.tensor(INDEX)[:, :2] % 5, 1.0), x.stride()


@scenario
def scatter_add_forms_and_gradients(lib):
    x = lib.ones(4, 5, requires_grad=True)
    src = lib.tensor(X[:2] + 1, requires_grad=True)
    i = lib.tensor(INDEX)
    out = x.scatter_add(0, i, src)
    weighted_backward(lib, out)
    return (out, x.grad, src.grad, lib.scatter_add(x.detach(), 1, i, src.detach()),
            x.detach().clone().scatter_add_(0, i, src.detach()))


@scenario
def scatter_gradients(lib):
    x = lib.ones(4, 5, requires_grad=True)
    src = lib.tensor(X[:2] + 1, requires_grad=True)
    out = x.scatter(0, lib.tensor([[0, 1, 2, 3, 0], [1, 2, 3, 0, 1]]), src)
    weighted_backward(lib, out)
    return out, x.grad, src.grad


def scatter_reduce_case(reduce, include_self):
    def values(lib):
        x, src, i = lib.tensor(X), lib.tensor(X[:2] * 1.5 - 3), lib.tensor(INDEX)
        ints = lib.tensor(X.astype(int)), lib.tensor((X[:2] * 3 - 7).astype(int))
        return (x.scatter_reduce(0, i, src, reduce=reduce, include_self=include_self),
                lib.scatter_reduce(x, 1, i, src, reduce, include_self=include_self),
                ints[0].scatter_reduce(0, i, ints[1], reduce=reduce, include_self=include_self))

    def gradients(lib):
        x = lib.tensor(X, requires_grad=True)
        src = lib.tensor(X[:2] * 1.5 - 3, requires_grad=True)
        out = x.scatter_reduce(0, lib.tensor(INDEX), src, reduce=reduce,
                               include_self=include_self)
        weighted_backward(lib, out)
        return out, x.grad, src.grad
    suffix = f"{reduce}_{'with' if include_self else 'without'}_self"
    values.__name__ = f"scatter_reduce_{suffix}"
    gradients.__name__ = f"scatter_reduce_grad_{suffix}"
    scenario(values)
    scenario(gradients)


for _reduce in ("sum", "prod", "mean", "amax", "amin"):
    scatter_reduce_case(_reduce, True)
    scatter_reduce_case(_reduce, False)


@scenario
def scatter_reduce_in_place(lib):
    x = lib.tensor(X)
    returned = x.scatter_reduce_(0, lib.tensor(INDEX), lib.tensor(X), "amax")
    return x, returned is x


@scenario
def take_along_dim_forms(lib):
    x = lib.tensor(X)
    return (lib.take_along_dim(x, lib.tensor(INDEX) % 4, 0),
            lib.take_along_dim(x, lib.tensor([[3, 0]]), 1),
            lib.take_along_dim(x, lib.tensor([7, 0])),
            x.take_along_dim(lib.tensor([[1]]), None),
            lib.take_along_dim(x, lib.tensor([[1], [0], [2], [4]]), 1),
            lib.take_along_dim(x, lib.tensor([[1, 0, 2, 1, 3]]), 0))


@scenario
def index_reduce_each_reduction(lib):
    x, src = lib.tensor(X), lib.tensor(X[:3] - 5)
    return [x.index_reduce(0, lib.tensor([0, 2, 0]), src, reduce, include_self=include)
            for reduce in ("prod", "mean", "amax", "amin") for include in (True, False)]


def segment_case(reduce):
    def lengths_1d(lib):
        x = lib.tensor(SEGMENTS, requires_grad=True)
        out = lib.segment_reduce(x, reduce, lengths=lib.tensor([2, 0, 3, 3]), initial=1.5)
        weighted_backward(lib, out)
        empty_default = lib.segment_reduce(x.detach(), reduce, lengths=lib.tensor([2, 0, 3, 3]))
        return out, x.grad, empty_default

    def along_axis(lib):
        x = lib.tensor(np.arange(24.0).reshape(2, 4, 3) % 5)
        return (lib.segment_reduce(x, reduce, lengths=lib.tensor([[1, 3], [2, 2]]), axis=1),
                lib.segment_reduce(x, reduce, offsets=lib.tensor([[0, 1, 4], [0, 2, 4]]), axis=1),
                lib.segment_reduce(x, reduce, lengths=lib.tensor([[1, 3], [2, 2]]), axis=1,
                                   initial=0.0))
    lengths_1d.__name__, along_axis.__name__ = f"segment_{reduce}", f"segment_{reduce}_axis"
    scenario(lengths_1d)
    scenario(along_axis)


for _reduce in ("sum", "mean", "max", "min", "prod"):
    segment_case(_reduce)


@scenario
def segment_offsets_and_dtypes(lib):
    x = lib.tensor(SEGMENTS)
    return (lib.segment_reduce(x, "sum", offsets=lib.tensor([0, 2, 2, 5, 8])),
            [lib.segment_reduce(x.to(getattr(lib, d)), "mean",
                                lengths=lib.tensor([4, 4], dtype=lib.int32)).float()
             for d in ("float16", "float32", "bfloat16")])


@scenario
def segment_prod_gradient_at_nan(lib):
    x = lib.tensor([np.nan, 4.0, -1.0], requires_grad=True)
    out = lib.segment_reduce(x, "prod", lengths=lib.tensor([3]))
    out.nan_to_num().sum().backward()
    return x.grad


DIFFERENCES = {"segment_prod_gradient_at_nan": (
    "PyTorch's segment prod backward multiplies the other elements of a segment, so a NaN's "
    "own gradient stays finite; gradjit divides the product by the element")}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_scatter_gather_scenario_matches_torch(name):
    check(SCENARIOS[name])


def test_segment_offsets_that_decrease_are_refused():
    import gradjit
    with pytest.raises(RuntimeError, match="negative lengths"):
        gradjit.segment_reduce(gradjit.arange(8.0), "sum", offsets=gradjit.tensor([0, 5, 3, 8]))
