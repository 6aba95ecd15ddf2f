"""PyTorch's test_torch suite, side by side with torch: writes through indices and masks
(put_, index_put_, index_add_, index_fill_, index_copy_, masked_fill_, masked_scatter_),
their reads (take, take_along_dim, masked_select, nonzero, where) and their errors."""
import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()
DIFFERENCES = {}


def grid(lib, *shape, dtype=None):
    x = lib.arange(float(np.prod(shape)), dtype=lib.float64).reshape(shape)
    return x if dtype is None else x.to(dtype)


def errors(*calls):
    """Each call's result, or its error's type and message."""
    out = []
    for call in calls:
        try:
            out.append(call())
        except Exception as e:  # noqa: BLE001 - the error is what the scenario compares
            out.append((type(e).__name__, str(e)))
    return out


@scenario
def put_values_and_accumulate(lib):
    x = grid(lib, 3, 4)
    idx = lib.tensor([[0, -1], [5, 5]])
    src = lib.tensor([[10.0, 20.0], [30.0, 40.0]], dtype=lib.float64)
    a = x.clone().put_(idx, src)
    b = x.clone().put_(idx, src, accumulate=True)
    c = x.t().clone().put_(lib.tensor([1, 2]), lib.tensor([-1.0, -2.0], dtype=lib.float64))
    d = x.clone().put(idx, src, accumulate=True)
    return a, b, c, d, lib.put(x, idx, src)


@scenario
def put_gradients(lib):
    x = grid(lib, 2, 3).requires_grad_()
    v = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    out = x.put(lib.tensor([1, 4]), v, accumulate=False)
    (out * grid(lib, 2, 3)).sum().backward()
    return out, x.grad, v.grad, type(out.grad_fn).__name__


@scenario
def put_errors(lib):
    x = lib.zeros(3, 4)
    return errors(lambda: x.put_(lib.tensor([12]), lib.tensor([1.0])),
                  lambda: x.put_(lib.tensor([-13]), lib.tensor([1.0])),
                  lambda: x.put_(lib.tensor([1.0]), lib.tensor([1.0])),
                  lambda: x.put_(lib.tensor([1, 2]), lib.tensor([1.0])),
                  lambda: x.put_(lib.tensor([1]), lib.tensor([1], dtype=lib.int64)),
                  lambda: lib.zeros(0).put_(lib.tensor([0]), lib.tensor([1.0])))


@scenario
def take_and_errors(lib):
    x = grid(lib, 3, 4)
    return [x.take(lib.tensor([[0, 11], [-1, 5]])), lib.take(x.t(), lib.tensor([1, 2])),
            lib.take(x, lib.tensor([], dtype=lib.int64)).shape] + errors(
        lambda: x.take(lib.tensor([12])), lambda: x.take(lib.tensor([0.0])),
        lambda: lib.zeros(0).take(lib.tensor([0])))


@scenario
def take_along_dim_forms(lib):
    x = lib.tensor([[10, 30, 20], [60, 40, 50]])
    i = x.argsort(dim=1)
    return [lib.take_along_dim(x, i, dim=1), lib.take_along_dim(x, x.flatten().argmax()),
            lib.take_along_dim(x, lib.tensor([[0], [1]]), dim=1),
            lib.take_along_dim(x, lib.tensor([[1, 0]]).t(), dim=1),
            lib.take_along_dim(x, lib.tensor([[0, 1, 1]]), dim=0)] + errors(
        lambda: lib.take_along_dim(x, lib.tensor([0.0]), dim=0),
        lambda: lib.take_along_dim(x, lib.tensor([0]), dim=0),
        lambda: lib.take_along_dim(x, lib.tensor([[0, 1], [1, 0], [0, 0]]), dim=1),
        lambda: lib.take_along_dim(x, i, dim=2))


@scenario
def index_put_broadcast_and_accumulate(lib):
    x = lib.zeros(3, 4)
    x.index_put_((lib.tensor([0, 2]),), lib.tensor([1.0, 2.0, 3.0, 4.0]))
    y = lib.zeros(5)
    y.index_put_((lib.tensor([1, 1, 3]),), lib.tensor(2.0), accumulate=True)
    z = lib.zeros(2, 3).index_put((lib.tensor([True, False]),), lib.tensor(7.0))
    w = lib.zeros(3, 3)
    w.index_put_((lib.tensor([[0], [2]]), lib.tensor([0, 2])), lib.tensor([[1.0, 2.0]]))
    return x, y, z, w


@scenario
def index_put_errors(lib):
    x = lib.zeros(3, 4)
    return errors(lambda: x.index_put_((lib.tensor([3]),), lib.tensor(1.0)),
                  lambda: x.index_put_((lib.tensor([0]),), lib.tensor([1.0, 2.0])),
                  lambda: x.index_put_((lib.tensor([0.0]),), lib.tensor(1.0)),
                  lambda: x.index_put_((lib.tensor([0]), lib.tensor([0]), lib.tensor([0])),
                                       lib.tensor(1.0)),
                  lambda: x.index_put_((lib.tensor([0]),), lib.tensor(1, dtype=lib.int64)))


@scenario
def index_add_alpha_dims_and_dtypes(lib):
    out = []
    for dtype in (lib.float64, lib.int32, lib.complex64):
        x = lib.ones(3, 4, dtype=dtype)
        src = grid(lib, 3, 2, dtype=dtype)
        out.append(x.index_add(1, lib.tensor([3, 0]), src, alpha=2))
        out.append(x.clone().index_add_(0, lib.tensor([1, 1, 0]), grid(lib, 3, 4, dtype=dtype)))
    out.append(lib.index_add(lib.zeros(()), 0, lib.tensor([0]), lib.tensor(5.0)))
    out.append(lib.zeros(4).index_add_(0, lib.tensor([0, 0, 3], dtype=lib.int32),
                                       lib.tensor([1.0, 2.0, 3.0])))
    return out


@scenario
def index_add_errors(lib):
    x = lib.zeros(3, 4)
    return errors(lambda: x.index_add_(0, lib.tensor([0, 1]), lib.ones(3, 4)),
                  lambda: x.index_add_(0, lib.tensor([3]), lib.ones(1, 4)),
                  lambda: x.index_add_(0, lib.tensor([0.0]), lib.ones(1, 4)),
                  lambda: x.index_add_(0, lib.tensor([[0]]), lib.ones(1, 4)),
                  lambda: x.index_add_(0, lib.tensor([0]), lib.ones(1, 4, dtype=lib.float64)),
                  lambda: x.index_add_(0, lib.tensor([0]), lib.ones(1, 3)),
                  lambda: x.index_add_(2, lib.tensor([0]), lib.ones(1, 4)))


@scenario
def index_add_gradients(lib):
    x = grid(lib, 3, 2).requires_grad_()
    src = (grid(lib, 2, 2) + 1).requires_grad_()
    out = x.index_add(0, lib.tensor([2, 0]), src, alpha=3)
    (out * grid(lib, 3, 2)).sum().backward()
    return out, x.grad, src.grad, type(out.grad_fn).__name__


@scenario
def index_fill_and_copy(lib):
    x = grid(lib, 3, 4)
    return [x.clone().index_fill_(1, lib.tensor([0, 2]), -1.0),
            x.index_fill(0, lib.tensor([1]), lib.tensor(9.0)),
            lib.tensor(5.0).index_fill(0, lib.tensor([0]), 2.0),
            x.clone().index_copy_(0, lib.tensor([2, 0]), -grid(lib, 2, 4)),
            x.index_copy(1, lib.tensor([3]), lib.ones(3, 1, dtype=lib.float64))] + errors(
        lambda: x.index_fill(0, lib.tensor([[0]]), 1.0),
        lambda: x.index_fill(0, lib.tensor([0]), lib.tensor([1.0])),
        lambda: x.index_fill(0, lib.tensor([5]), 1.0),
        lambda: x.index_fill(0, lib.tensor([0.0]), 1.0),
        lambda: x.index_copy(0, lib.tensor([0]), lib.ones(2, 4)),
        lambda: x.index_copy(0, lib.tensor([0]), lib.ones(1, 4, dtype=lib.float32)))


@scenario
def masked_fill_broadcast_and_dtypes(lib):
    x = grid(lib, 3, 4)
    mask = lib.tensor([True, False, True, False])
    return [x.masked_fill(mask, -1.0), x.clone().masked_fill_(mask.view(1, 4), lib.tensor(2.0)),
            grid(lib, 2, 2, dtype=lib.int32).masked_fill(lib.tensor([[True], [False]]), 7),
            lib.tensor(3.0).masked_fill(lib.tensor(True), 0.0),
            x.masked_fill(mask, 2.5).dtype] + errors(
        lambda: x.masked_fill(mask.to(lib.uint8), 1.0),
        lambda: x.masked_fill(lib.tensor([1, 0, 1, 0]), 1.0),
        lambda: x.masked_fill(mask, lib.tensor([1.0, 2.0])),
        lambda: x.clone().masked_fill_(lib.ones(2, 3, 4, dtype=lib.bool), 1.0),
        lambda: x.masked_fill(lib.tensor([True, False]), 1.0),
        lambda: grid(lib, 2, dtype=lib.int32).masked_fill(lib.tensor([True, False]), 1.5))


@scenario
def masked_fill_gradients(lib):
    x = grid(lib, 2, 3).requires_grad_()
    v = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
    out = x.masked_fill(lib.tensor([[True, False, True]]), v)
    (out * grid(lib, 2, 3)).sum().backward()
    return out, x.grad, v.grad, type(out.grad_fn).__name__


@scenario
def masked_scatter_forms(lib):
    x = grid(lib, 2, 3)
    src = -grid(lib, 3, 3) - 1
    mask = lib.tensor([[True, False, True], [False, True, True]])
    return [x.masked_scatter(mask, src), x.clone().masked_scatter_(lib.tensor([True, False, True]),
                                                                    src),
            lib.masked_scatter(x, lib.tensor([[False], [True]]), src)] + errors(
        lambda: x.masked_scatter(mask.to(lib.uint8), src),
        lambda: x.masked_scatter(lib.ones(2, 3, dtype=lib.bool), lib.ones(5)),
        lambda: x.masked_scatter(mask, src.float()))


@scenario
def masked_scatter_gradients(lib):
    x = grid(lib, 2, 3).requires_grad_()
    src = (grid(lib, 2, 3) + 10).requires_grad_()
    out = x.masked_scatter(lib.tensor([[True, False, True], [False, False, True]]), src)
    (out * grid(lib, 2, 3)).sum().backward()
    return out, x.grad, src.grad


@scenario
def masked_select_broadcast(lib):
    x = grid(lib, 3, 4)
    return [x.masked_select(x > 5), lib.masked_select(x, lib.tensor([True, False, False, True])),
            lib.masked_select(lib.tensor([1.0, 2.0]), lib.tensor([[True], [False], [True]])),
            lib.masked_select(lib.tensor(2.0), lib.tensor(True)),
            lib.masked_select(x, lib.zeros(3, 4, dtype=lib.bool)).shape] + errors(
        lambda: x.masked_select(lib.tensor([1, 0, 1, 0])),
        lambda: x.masked_select(lib.ones(2, 4, dtype=lib.bool)))


@scenario
def nonzero_forms(lib):
    x = lib.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, float("nan")]])
    return [x.nonzero(), lib.nonzero(x, as_tuple=True), lib.tensor(3).nonzero(),
            lib.tensor(0).nonzero(as_tuple=True), lib.tensor([]).nonzero().shape,
            lib.zeros(2, 0, 3).nonzero().shape, lib.tensor([True, False, True]).nonzero(),
            lib.tensor([1 + 0j, 0j, 1j]).nonzero(), lib.count_nonzero(x, dim=0),
            lib.argwhere(x), x.nonzero().stride()]


@scenario
def where_forms_and_promotion(lib):
    cond = lib.tensor([[True, False], [False, True]])
    a, b = lib.tensor([1, 2], dtype=lib.int32), lib.tensor([[0.5], [1.5]], dtype=lib.float32)
    return [lib.where(cond, a, b), lib.where(cond, a, 2.5), lib.where(cond, 2, 3),
            lib.where(cond, 1.0, a), lib.where(cond), lib.where(lib.tensor(True), a, b),
            a.where(cond, lib.tensor(0, dtype=lib.int64)),
            lib.where(cond, lib.tensor(1.0, dtype=lib.float64), b),
            lib.where(cond, a.to(lib.uint8), lib.tensor(-1))] + errors(
        lambda: lib.where(cond.int(), a, b), lambda: lib.where(cond, lib.ones(3), b))


@scenario
def where_gradients(lib):
    a = grid(lib, 2, 2).requires_grad_()
    b = (grid(lib, 2, 1) - 5).requires_grad_()
    out = lib.where(a > 1, a, b)
    (out * grid(lib, 2, 2)).sum().backward()
    return out, a.grad, b.grad, type(out.grad_fn).__name__


@scenario
def zero_and_one_element_operands(lib):
    """index_copy_, index_select, take and put over every mix of 0-d and 1-element target,
    index and source."""
    out = []
    for t_shape, i_shape, s_shape in ((t, i, s) for t in ((), (1,)) for i in ((), (1,))
                                       for s in ((), (1,))):
        target, source = lib.full(t_shape, 2.0), lib.full(s_shape, 5.0)
        index = lib.zeros(i_shape, dtype=lib.int64)
        out += [target.clone().index_copy_(0, index, source), source.index_select(0, index),
                source.take(index), lib.put(target, index, source, accumulate=True),
                target.clone().put_(index, source), target.index_fill(0, index, -1)]
    return out


@scenario
def index_copy_out_of_range(lib):
    a = lib.randn(3, 5)
    c = lib.zeros(3, 8)
    return errors(lambda: a.index_copy_(1, lib.full((8,), 5), c),
                  lambda: a.index_copy_(1, lib.full((8,), -1), c),
                  lambda: a.index_copy_(1, lib.full((8,), -6), c))


@scenario
def take_and_put_of_nothing(lib):
    out = []
    for shape in ((0,), (0, 1, 2, 0), (1, 2, 3)):
        for index_shape in ((0,), (0, 1, 2, 0)):
            x = lib.zeros(shape)
            index = lib.empty(index_shape, dtype=lib.int64)
            out += [x.take(index).shape, x.put(index, lib.empty(index_shape), True).shape]
    return out


@scenario
def put_onto_noncontiguous(lib):
    dest = lib.arange(20.0).reshape(4, 5).t()
    index = lib.tensor([[0, 7], [19, 7]])
    source = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
    return [lib.put(dest, index, source, accumulate=True), dest.clone().put_(index.t(), source),
            dest.put(index[:, :1], source[:, :1]), lib.zeros(1).put(lib.zeros(300, dtype=lib.int64),
                                                                   lib.ones(300), accumulate=True)]


@scenario
def scatter_reductions_and_bools(lib):
    index = lib.tensor([[1], [2]])
    out = []
    for dtype in (lib.float32, lib.int64, lib.complex64):
        out.append(lib.zeros(4, 4, dtype=dtype).scatter_(0, index, lib.ones(2, 2, dtype=dtype),
                                                          reduce="add"))
        out.append(lib.full((4, 4), 2, dtype=dtype).scatter_(0, index, 3, reduce="multiply"))
        out.append(lib.full((2, 2), 2, dtype=dtype).scatter_(
            0, lib.zeros(2, 2, dtype=lib.int64), lib.full((2, 2), 2, dtype=dtype),
            reduce="multiply"))
    x = lib.ones(2, 5, dtype=lib.bool)
    out.append(lib.zeros(3, 3, dtype=lib.bool).scatter_(0, lib.tensor([[0, 1, 2], [0, 1, 2]]),
                                                         x[:, :3]))
    out.append(lib.zeros(3, 5, dtype=lib.bool).scatter_add_(
        0, lib.tensor([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]]), x))
    out.append(lib.ones(2, 6).scatter_add_(0, lib.zeros(2, 6, dtype=lib.int64), lib.ones(2, 6)))
    return out


@scenario
def masked_scatter_empty_and_bool(lib):
    dest = lib.empty((5, 0, 5))
    dest.masked_scatter_(lib.ones_like(dest, dtype=lib.bool), lib.empty((0,)))
    dest.masked_scatter_(lib.ones((5, 1, 5), dtype=lib.bool), lib.empty((0,)))
    dst = lib.tensor([False, False, False])
    dst.masked_scatter_(lib.tensor([False, True, False]), lib.tensor([True, True, True]))
    return [dest.shape, dst, dst.masked_scatter(lib.tensor([True, False, True]),
                                                lib.tensor([True, True, True]))]


@scenario
def masked_select_into_discontiguous_out(lib):
    vals = lib.arange(36.0).reshape(6, 6)
    mask = lib.zeros(6, 6, dtype=lib.bool)
    mask[:, ::2] = True
    out = []
    for v in (vals, vals.t()):
        for m in (mask, mask.t()):
            target = lib.zeros(36)[::2]
            lib.masked_select(v, m, out=target)
            out += [lib.masked_select(v, m), target]
    return out


@scenario
def masked_fill_permuted(lib):
    dst = lib.arange(-30.0, 30.0).reshape(3, 4, 5).permute(2, 0, 1)
    mask = dst.remainder(3) > 0
    a, b = dst.clone(), dst.contiguous()
    a.masked_fill_(mask, 0.5)
    b.masked_fill_(mask, 0.5)
    return a, b, a.stride(), b.stride()


@scenario
def where_scalars_and_tensors_of_every_dtype(lib):
    cond = lib.tensor([[True, False, True], [False, True, False]])
    out = []
    ys = [False, 4, 8.0, 2 + 0.5j] + [
        lib.full(shape, 17, dtype=d) for shape in ((), (3,), (1, 3))
        for d in (lib.bool, lib.uint8, lib.int8, lib.int16, lib.int64, lib.float16, lib.float32,
                  lib.float64, lib.complex64, lib.complex128)]
    for x in (True, 3, 7.0, 1 + 0.5j):
        for y in ys:
            out += [lib.where(cond, x, y), lib.where(cond, y, x)]
    return out


@scenario
def masked_scatter_noncontiguous(lib):
    t = lib.zeros(5, 2, dtype=lib.int64)
    mask = lib.tensor([[False, True], [False, True], [False, False], [True, True], [True, True]])
    source = lib.tensor([[1, 2, 3, 4, 5], [6, 7, 8, 9, 9]])
    nc, c = t.t(), t.t().contiguous()
    return [c.clone().masked_scatter_(mask.t().contiguous(), source),
            nc.clone().masked_scatter_(mask.t(), source),
            c.clone().masked_scatter_(mask.t(), source),
            t.t().masked_scatter_(mask.t().contiguous(), source), t]


@scenario
def copy_between_every_dtype_pair(lib):
    names = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
             "float32", "float64", "complex64", "complex128")
    values = [0.0, 1.0, -2.5, 3.75, 100.0, -0.5]
    out = []
    for target in names:
        for source in names:
            src = lib.tensor(values).to(getattr(lib, source))
            out.append(lib.zeros(6, dtype=getattr(lib, target)).copy_(src))
    return out + [lib.ones((), dtype=getattr(lib, n)).item() for n in names]


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_scenario(name):
    check(SCENARIOS[name])
