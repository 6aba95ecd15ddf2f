"""PyTorch's indexing suite, side by side with torch: basic and advanced getitem and setitem
(integers, slices with steps, None, Ellipsis, bool and byte masks, index tensors of int64 and
int32), index_put_ with accumulate, the index_* family and their errors and warnings."""
import warnings

import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()


def consec(lib, *shape, start=1.0):
    return lib.arange(start, start + np.prod(shape), dtype=lib.float64).reshape(shape)


def caught(fn):
    """fn()'s result and the messages of the warnings it raised."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        result = fn()
    return result, [str(w.message) for w in record]


@scenario
def ellipsis_and_none(lib):
    r = consec(lib, 3, 3, 3)
    r5 = consec(lib, 3, 3, 3, 3, 3)
    return (r[..., 2], r[0, ..., 2], r[2, ..., 2, 2], r[2, 2, 2, ...], r[...], r[2, None],
            r[2, None, None], r[2:4, None], r[None, 2, None, None], r[None, 2:5, None, None],
            r5[2, 1, 0, ..., 1], r5[..., 1, 0].stride(), r[None].shape, r[:, None, None].shape)


@scenario
def empty_and_zero_length_slices(lib):
    r = consec(lib, 5, 5, 5)
    return (r[lib.tensor([], dtype=lib.int64)], r[slice(0)], r[slice(0), 2], r[2, slice(0)],
            r[2, 1:1, 2], r[2, 1:1].stride())


@scenario
def slices_with_steps(lib):
    r = consec(lib, 10, 10)
    out = [r[1:5:2], r[1:9:4], r[2:4, 1:5:2], r[3, 1:6:2], r[None, 2, 1:9:4], r[:, 2:3, 1:6:2]]
    out += [r[a:b:s, c:d:u] for a, b, s, c, d, u in
            [(0, 10, 3, 1, 7, 2), (4, 5, 7, 9, 10, 1), (2, 9, 5, 0, 10, 4)]]
    v = lib.arange(10)
    return out + [v[::11], v[::3].stride(), r[::3, 1::4].stride(), r[1:9:4].storage_offset()]


@pytest.mark.parametrize("index", ["1:9:0", "1:9:-1"])
def test_slice_step_refused(index):
    def call(lib):
        start, stop, step = (int(p) for p in index.split(":"))
        return consec(lib, 10)[start:stop:step]
    check(call)


@scenario
def too_many_indices(lib):
    return consec(lib, 3, 3, 3)[1, 1, 1, 1]


@scenario
def too_many_indices_with_slice(lib):
    return consec(lib, 3, 3, 3)[1, 1, 1, 1:1]


@scenario
def float_index(lib):
    return consec(lib, 3, 3)[0.0]


@scenario
def float_slice(lib):
    return consec(lib, 3, 3)[0.0:2.0]


@scenario
def float_index_with_slice(lib):
    return consec(lib, 3, 3, 3)[0.0, :, 0.0]


@scenario
def delete_item(lib):
    x = consec(lib, 3)
    del x[0]


@scenario
def string_slice(lib):
    return consec(lib, 4, 4)["0":"1"]


@scenario
def integer_arrays_get_and_set(lib):
    x = consec(lib, 10)
    got = [x[[0]], x[lib.tensor([3]), ], x[(2, 3, 4), ], x[[[2, 1], [0, 3]]]]
    x[[0]] = -2
    x[[2, 3, 4]] = 4
    x[lib.tensor([0, 2, 4]), ] = lib.tensor([5.0, 4.0, 3.0])
    return got, x


@scenario
def integer_arrays_on_strided_views(lib):
    base = lib.arange(0.0, 24).view(3, 8)
    strided = base.as_strided((2, 4), (8, 2), 1)
    got = [strided[[0, 1], [0]], strided[[1], [0, 1, 1, 0, 3]], strided[[[0, 0], [1, 1]], [0]],
           strided[[[0, 1], [1, 0]], [1, 2]], strided[[[0, 0], [1, 1]], [[0, 1], [1, 2]]]]
    window = base.as_strided((2, 2), (7, 1), 10)
    window[[0, 1], [1, 0]] = lib.tensor([-1.0, 2.0])
    window[[[0], [1]], [[0, 1], [0, 1]]] = lib.tensor([[4.0, 6.0], [2.0, 3.0]])
    return got, base


@scenario
def integer_arrays_on_transposed(lib):
    r = lib.arange(12.0).view(3, 4).t_()
    got = [r[[0, 1, 2], [0]], r[[0, 1, 1, 0, 3], [1]], r[[[0, 0], [1, 3]], [[0, 1], [1, 2]]]]
    r[[0, 1, 2], [0]] = lib.tensor([-1.0, 2.0, -4.0])
    r[[[0, 0], [1, 2]], [1, 0]] = lib.tensor([[4.0, 6.0], [2.0, 3.0]])
    return got, r, r.stride()


GET_INDEXERS_2D = [(slice(None), [1, 3]), ([0, 2], slice(None)), (slice(None), [[0, 1], [2, 3]]),
                   ([-1], [0]), ([0, 2], [-1]), (slice(None), [-1]),
                   (slice(None), [0, 1, 1, 2, 2])]
INDEXERS_3D = [
    (slice(None), slice(None), (0, 3, 4)), (slice(None), (2, 4, 5, 7), slice(None)),
    (slice(None), (0, 2, 3), (1, 3, 4)), (slice(None), ((0, 1), (1, 0)), ((2, 3),)),
    (slice(None), ((5, 6),), ((0, 3), (4, 4))), ((0, 2, 3), (1, 3, 4), slice(None)),
    (((0, 1), (1, 0)), ((2, 1), (3, 5)), slice(None)), (((2,),), ((0, 3), (4, 1)), slice(None)),
    ((0, 2, 3), slice(None), (1, 3, 4)), ((0, 2), Ellipsis), ((0, 2), (1, 3), Ellipsis),
    (Ellipsis, (1, 3), (2, 3)), (slice(None), Ellipsis, (2, 3, 4)),
    (slice(None), slice(None), (0, 3, 4), Ellipsis),
    (((0, 1), (1, 0)), ((2, 1), (3, 5)), Ellipsis, slice(None)),
    (slice(None), [[0, 1], [1, 0]], [[2, 3], [3, 0]]), (slice(None), [[2]], [[0, 3], [4, 4]]),
    (None, (0, 2), None, (1, 3)), ((1, 2), None, slice(None), (4, 0)),
]


def as_index(lib, indexer):
    """Tuples inside the indexer become int64 tensors (torch's own tests pick among tuples,
    lists and tensors at random; each is a sequence of integers)."""
    return tuple(lib.tensor(i) if isinstance(i, tuple) else i for i in indexer)


@pytest.mark.parametrize("shape, indexers", [((4, 5), GET_INDEXERS_2D), ((4, 8, 5), INDEXERS_3D)])
def test_advanced_indexing_against_torch(shape, indexers):
    """Get, set with a number and with a tensor, and the gradient through the get, for every
    indexer of the table."""
    for indexer in indexers:
        def call(lib):
            x = lib.arange(float(np.prod(shape)), dtype=lib.float64).view(shape)
            got = x[as_index(lib, indexer)]
            by_number, by_tensor = x.clone(), x.clone()
            by_number[as_index(lib, indexer)] = 212
            by_tensor[as_index(lib, indexer)] = -lib.arange(float(got.numel())).view(got.shape)
            leaf = x.clone().requires_grad_()
            picked = leaf[as_index(lib, indexer)]
            (picked * lib.arange(float(picked.numel())).view(picked.shape)).sum().backward()
            return got, by_number, by_tensor, leaf.grad
        check(call)


@scenario
def setitem_scalar_tensor_gradient(lib):
    z = lib.zeros(4, 3)
    w = lib.tensor(1.5, requires_grad=True)
    z[:, 0] = w
    (z * lib.arange(12.0).view(4, 3)).sum().backward()
    return z, w.grad, type(z.grad_fn).__name__


@scenario
def step_assignment(lib):
    v = lib.zeros(4, 4)
    v[0, 1::2] = lib.tensor([3.0, 4.0])
    v[1:, ::3] = lib.tensor([7.0, 8.0])
    return v


@scenario
def bool_indices_and_byte_warning(lib):
    v = consec(lib, 5, 7, 3)
    picked = v[lib.tensor([True, False, True, True, False])]
    flags = lib.tensor([True, False, True])
    by_bool, by_byte = flags[lib.tensor([True, False, False])], None
    by_byte, said = caught(lambda: flags[lib.tensor([1, 0, 0], dtype=lib.uint8)])
    return picked, by_bool, by_byte, said


@scenario
def list_of_ranges_index(lib):
    t = lib.arange(100.0)
    windows = [range(i, i + 10) for i in range(90)]
    return t[windows].shape, t[windows[:32]].shape


@scenario
def list_of_31_ranges_is_a_tuple(lib):
    return lib.arange(100.0)[[range(i, i + 10) for i in range(31)]]


@scenario
def accumulate_with_empty_bool_mask(lib):
    mask = lib.zeros(10, dtype=lib.bool)
    y = lib.ones(10, 10)
    return y.index_put_((mask,), y[mask], accumulate=True)


@scenario
def accumulate_with_empty_byte_mask(lib):
    mask = lib.zeros(10, dtype=lib.uint8)
    y = lib.ones(10, 10)
    return caught(lambda: y.index_put_((mask,), y[mask], accumulate=True))


@scenario
def multiple_bool_masks(lib):
    v = consec(lib, 5, 7, 3)
    mask1 = lib.tensor([1, 0, 1, 1, 0], dtype=lib.bool)
    mask2 = lib.tensor([1, 1, 1], dtype=lib.bool)
    return v[mask1, :, mask2]


@scenario
def multiple_byte_masks(lib):
    v = consec(lib, 5, 7, 3)
    mask1 = lib.tensor([1, 0, 1, 1, 0], dtype=lib.uint8)
    mask2 = lib.tensor([1, 1, 1], dtype=lib.uint8)
    return caught(lambda: v[mask1, :, mask2])


@scenario
def multi_dimensional_bool_mask(lib):
    x = consec(lib, 2, 2, 3)
    b = ((True, False), (False, False))
    m, z, t, f = lib.tensor(b), lib.tensor(0), lib.tensor(True), lib.tensor(False)
    shapes = [tuple(x[(k,) + rest].shape) for k in (b, m) for rest in
              [(), (slice(None, None, 2),), (None,), (0,), (z,), (True,), (True,) * 4, (False,),
               (True, True, False, True), (t,), (f,)]]
    y = consec(lib, 3, 2, 2, 5)
    return shapes, y[:, m, :], y[0, m, ::2], y[..., m, ::2], y[None, ..., m, ::2]


@scenario
def bool_mask_assignment(lib):
    v = lib.tensor([[1, 2], [3, 4]])
    mask = lib.tensor([1, 0], dtype=lib.bool)
    w = v.clone()
    v[mask, :] = 0
    w[:, mask] = 0
    u = lib.tensor([[[[1], [2]], [[3], [4]]]])
    u[:, lib.tensor([[1, 0], [0, 1]], dtype=lib.bool), :] = 0
    return v, w, u


@scenario
def byte_mask(lib):
    v = consec(lib, 5, 7, 3)
    picked, said = caught(lambda: v[lib.tensor([1, 0, 1, 1, 0], dtype=lib.uint8)])
    one = lib.tensor([1.0])
    return picked, said, one[one == 0], v[v[..., 0] > 50]


@scenario
def byte_tensor_assignment(lib):
    x = lib.arange(0.0, 16).view(4, 4)
    b = lib.tensor([True, False, True, False], dtype=lib.uint8)
    _, said = caught(lambda: x.__setitem__(b, lib.tensor([3.0, 4.0, 5.0, 6.0])))
    return x, said


@scenario
def index_put_accumulate_expanded_values(lib):
    t = lib.zeros(5, 2)
    indices = [lib.tensor([0, 1, 2, 3]), lib.tensor([1])]
    t.index_put_(indices, lib.tensor(1.0), accumulate=True)
    t.index_put_(indices, lib.tensor([1.0]), accumulate=True)
    u = lib.zeros(4, 3, 2)
    grid = [lib.tensor([0]), lib.arange(3)[:, None], lib.arange(2)[None, :]]
    u.index_put_(grid, lib.tensor([-1.0, -2.0]), accumulate=True)
    u.index_put_(grid, lib.tensor([[-1.0, -2.0]]), accumulate=True)
    return t, u


@scenario
def index_put_accumulate_duplicates(lib):
    indices = lib.tensor([0, 1, 1, 2, 1, 0, 0, 3, 4, 3, 3, 5, 2])
    values = lib.arange(13.0) / 7
    x = lib.arange(6.0)
    return (x.index_put((indices,), values, accumulate=True), x,
            x.index_put((indices,), values, accumulate=False)[4:],
            lib.index_put(x, (indices[-3:],), lib.tensor(9.0)))


@scenario
def index_put_accumulate_int8_negative(lib):
    a = lib.ones(7, dtype=lib.int8)
    a.index_put_((lib.tensor([-2, 0, -2, -1, 0, -1, 1]),),
                 lib.tensor([6, 5, 6, 6, 5, 7, 11], dtype=lib.int8), accumulate=True)
    b = lib.ones(2, 5, dtype=lib.int8)
    b.index_put_((lib.tensor([0, -1, 0, 1]), lib.tensor([-2, -1, 0, 1])),
                 lib.tensor([12, 13, 10, 11], dtype=lib.int8), accumulate=True)
    return a, b


@scenario
def index_put_value_shape_mismatch(lib):
    t = lib.zeros(2, 3, 4)
    t[..., lib.tensor([0, 1])] = lib.ones(6, 2)


@scenario
def index_put_broadcast_value(lib):
    t = lib.zeros(2, 3, 4)
    t[lib.tensor([0, 1])] = lib.arange(6.0).view(2, 3, 1)
    u = lib.zeros(4, 2)
    u[..., lib.tensor([1, 0])] = lib.tensor([1.0, 2.0])
    u[lib.tensor([1, 3])] = lib.tensor([[5.0], [6.0]])
    return t, u


@scenario
def index_int32_and_int64_agree(lib):
    x = consec(lib, 4, 4)
    ind_long = lib.tensor([3, 0, 2, 2])
    ind_int = ind_long.int()
    got = [x[ind_int, ind_int], x[ind_int, :], x[:, ind_int], x[ind_long, ind_long]]
    src = lib.tensor([0.5, -1.0, 2.0, 4.0], dtype=lib.float64)
    puts = []
    for accumulate in (True, False):
        for ind in (lib.arange(4), lib.arange(4).int()):
            y = x.clone()
            lib.index_put_(y, (ind, ind), src, accumulate)
            puts.append(y)
    return got, puts


@scenario
def index_put_with_no_indices(lib):
    return lib.rand([]).index_put([], lib.tensor([1.0]), True)


@scenario
def index_put_dtype_of_values(lib):
    out = []
    for dtype in (lib.complex64, lib.float32, lib.int64, lib.bool):
        src = lib.ones(3, 2, 4, dtype=dtype)
        out.append(src.index_put_((lib.tensor([0, 2, 1]),), lib.ones(3, 2, 4, dtype=dtype),
                                  accumulate=True))
        got = src[[0, 2, 1], :, :]
        src[[0, 2, 1], :, :] = got
        out.append(src)
    return out


@scenario
def index_put_values_of_other_dtype(lib):
    x = lib.zeros(3)
    x.index_put_((lib.tensor([0]),), lib.tensor([1], dtype=lib.int64))


@scenario
def setitem_values_of_other_dtype(lib):
    x = lib.zeros(3, dtype=lib.int32)
    x[lib.tensor([0, 2])] = lib.tensor([1.7, -2.9])


@scenario
def setitem_basic_casts_values(lib):
    x = lib.zeros(3, dtype=lib.int32)
    x[1] = lib.tensor(5.5)
    x[lib.tensor([0, 2])] = -2.9
    y = lib.zeros(2, dtype=lib.bool)
    y[0] = 3
    return x, y


@scenario
def integer_indices_shapes(lib):
    v = consec(lib, 5, 7, 3)
    x = lib.arange(0, 12).view(4, 3)
    rows, columns = lib.tensor([[0, 0], [3, 3]]), lib.tensor([[0, 2], [0, 2]])
    return (v[[0, 4, 2]].shape, v[:, [0, 4, 2]].shape, v[:, [[0, 1], [4, 3]]].shape,
            x[rows, columns], x[lib.tensor([0, 3])[:, None], lib.tensor([0, 2])],
            lib.arange(0, 123344, dtype=lib.int32)[[0, 123, 44488, 68807, 123343], ])


@scenario
def empty_index(lib):
    x = lib.arange(0, 12).view(4, 3)
    idx = lib.tensor([], dtype=lib.long)
    y = x.clone()
    y[idx] = -1
    y[lib.zeros(4, 3).bool()] = -1
    return x[idx], y


@scenario
def empty_ndim_index(lib):
    x = consec(lib, 2, 3, 4, 5)
    e = lib.empty(10, 0)
    return (consec(lib, 5)[lib.empty(0, 2, dtype=lib.int64)], x[:, lib.empty(0, 6).long()].shape,
            e[[1, 2]].shape, e[[], []].shape)


@scenario
def index_of_dimension_with_size_zero(lib):
    return lib.empty(10, 0)[:, [0, 1]]


@scenario
def empty_byte_mask_of_wrong_shape(lib):
    return consec(lib, 5)[lib.empty(0, 2, dtype=lib.uint8)]


@scenario
def empty_slice_strides(lib):
    z = consec(lib, 2, 3, 4, 5)[:, :, :, 1][:, 1:1, :]
    return z.shape, z.stride(), z.is_contiguous()


@scenario
def bool_scalar_indices_copy_or_view(lib):
    out = []
    for a in (consec(lib, 2, 3), lib.tensor(3.0)):
        true, false = lib.tensor(1, dtype=lib.uint8), lib.tensor(0, dtype=lib.uint8)
        out += [a[True], a[False], a[true], a[false], a[None]._is_view(), a[...]._is_view(),
                a[True]._is_view(), a[None].data_ptr() == a.data_ptr()]
    return out


@scenario
def bool_scalar_setitem(lib):
    out = []
    for a in (consec(lib, 2, 3), lib.tensor(3)):
        neg = (lib.ones_like(a) * -1).unsqueeze(0).unsqueeze(0)
        a[True] = neg
        a[False] = 5
        a[lib.tensor(1, dtype=lib.uint8)] = neg * 2
        a[lib.tensor(0, dtype=lib.uint8)] = 5
        a[None] = neg * 3
        a[...] = neg * 4
        out.append(a.clone())
    return out


@scenario
def zero_dim_slice_assignment(lib):
    a = lib.tensor(3)
    a[:] = 5


@scenario
def index_scalar_with_bool_mask(lib):
    out = []
    for a in (lib.tensor(1), lib.tensor(True)):
        out += [a[lib.tensor(True, dtype=lib.uint8)], a[lib.tensor(True)]]
    return out


@scenario
def setitem_expansion_error(lib):
    a = consec(lib, 2, 3)
    a[True] = a.expand(5, 1, 2, 3)


@scenario
def setitem_expansion_error_tensor_true(lib):
    a = consec(lib, 2, 3)
    a[lib.tensor(True)] = a.expand(5, 1, 2, 3)


@scenario
def getitem_scalars(lib):
    zero, one = lib.tensor(0), lib.tensor(1)
    a = consec(lib, 2, 3)
    return (a[zero], a[zero][one], a[0, one], a[zero, 1], a[one.int()], a[one.short()],
            a[zero, one]._is_view(), a[one.short()]._is_view(), consec(lib, 1)[0][...])


@scenario
def zero_dim_sliced(lib):
    return lib.tensor(2.0)[:]


@scenario
def zero_dim_indexed_by_zero_dim(lib):
    return lib.tensor(2.0)[lib.tensor(0)]


@scenario
def zero_dim_indexed_by_int(lib):
    return lib.tensor(10)[0]


@scenario
def setitem_scalars(lib):
    zero = lib.tensor(0)
    a = consec(lib, 2, 3)
    b = lib.tensor([7.0, 8.0, 9.0])
    by_number, by_scalar = a.clone(), a.clone()
    by_number[0] = b
    by_scalar[zero] = b
    a[1, zero] = 7.7
    r = lib.tensor(0.5)
    r[...] = 9.9
    s = lib.tensor(1)
    s[(Ellipsis,)] = 2
    return by_number, by_scalar, a, r, s


@scenario
def zero_dim_setitem_by_zero_dim(lib):
    r = lib.tensor(0.5)
    r[lib.tensor(0)] = 8.8


@scenario
def basic_advanced_combined(lib):
    x = lib.arange(0, 12).view(4, 3)
    same = x[1:2, 1:3], x[1:2, [1, 2]]
    x[1:2, [1, 2]].zero_()
    copy = x.clone()
    x[1:2, [1, 2]] = 0
    return same, copy, x


@scenario
def int_assignment(lib):
    x = lib.arange(0, 4).view(2, 2)
    y = x.clone()
    x[1] = 5
    y[1] = lib.arange(5, 7)
    return x, y


@scenario
def variable_slicing(lib):
    x = lib.arange(0, 16).view(4, 4)
    i, j = lib.tensor([0, 1], dtype=lib.int32)
    k = lib.tensor(3)
    return x[i:j], x[k:], x[::k], x[k]


@scenario
def ellipsis_tensor(lib):
    x = lib.arange(0, 9).view(3, 3)
    idx = lib.tensor([0, 2])
    return x[..., idx], x[idx, ...]


@pytest.mark.parametrize("index", [(0, 5), (4, 5), (0, 1, 15), (slice(None), slice(None), 12),
                                   (10,), (-11,), ([10],), ([-101],), ([0], [1], [-11]),
                                   (1 << 30,), (-(1 << 63),), ((1 << 63) - 1,)])
def test_out_of_bound_index(index):
    def call(lib):
        x = lib.arange(0, 100).view(2, 5, 10) if len(index) > 1 else lib.arange(10)
        return x[tuple(lib.tensor(i) if isinstance(i, list) else i for i in index)]
    check(call)


@scenario
def index_too_large_for_int64(lib):
    return lib.arange(3)[1 << 64]


@scenario
def out_of_bound_setitem(lib):
    x = lib.zeros(3)
    x[lib.tensor([0, 3])] = 1.0


@scenario
def index_of_empty_tensor(lib):
    return lib.tensor([])[0]


@scenario
def index_select_and_scalars(lib):
    src = consec(lib, 3, 4, 5)
    idx = lib.tensor([2, 0, 1, 1, 0])
    out = [lib.index_select(src, d, idx[:3]) for d in range(3)]
    out += [src.index_select(1, idx.int()), src.transpose(0, 2).index_select(1, idx[::2])]
    for shape_s in ((), (1,)):
        for shape_i in ((), (1,)):
            out.append(consec(lib, *shape_s).index_select(0, lib.zeros(shape_i).long()))
    return out


@scenario
def index_fill_zero_dim(lib):
    x = lib.tensor([[1, 2], [4, 5]])
    x.index_fill_(1, lib.tensor([0]), 0)
    y = lib.tensor(1.0)
    return x, y.index_fill(0, lib.tensor([0]), -1), y.index_fill_(0, lib.tensor([0]), -1).dim()


@scenario
def index_fill_complex_into_real(lib):
    x = lib.tensor([[1, 2], [4, 5]])
    x.index_fill_(1, lib.tensor([0]), 1 + 1j)


@scenario
def index_copy_and_scalars(lib):
    dest = consec(lib, 4, 5, 3)
    src = -consec(lib, 4, 2, 3)
    out = [dest.clone().index_copy_(1, lib.tensor([3, 0]), src),
           dest.transpose(0, 1).clone().index_copy_(0, lib.tensor([1, 0]), src.transpose(0, 1))]
    for shapes in [((), (), ()), ((1,), (), (1,)), ((), (1,), ()), ((1,), (1,), (1,))]:
        t = consec(lib, *shapes[0])
        out.append(t.index_copy_(0, lib.zeros(shapes[1]).long(), -consec(lib, *shapes[2])))
    return out


@scenario
def index_copy_slice_shape_mismatch(lib):
    return consec(lib, 5, 4, 3).index_copy_(1, lib.tensor([1, 0]), consec(lib, 2, 4, 3))


@pytest.mark.parametrize("fill", [5, -1, -6])
def test_index_copy_index_out_of_range(fill):
    check(lambda lib: lib.randn(3, 5).index_copy_(1, lib.full((8,), fill), lib.zeros(3, 8)))


def test_index_copy_source_rank_mismatch():
    check(lambda lib: consec(lib, 5, 4, 3).index_copy_(1, lib.tensor([1, 0]), consec(lib, 5, 2)))


@scenario
def index_add_with_alpha(lib):
    x = lib.zeros(5, 4, 3, dtype=lib.float64)
    index = lib.tensor([4, 0, 4, 1, 1, 3])
    src = consec(lib, 5, 6, 3)
    return [lib.index_add(x.transpose(0, 1), 1, index[:3], src.transpose(0, 1)[:, :3],
                          alpha=1.5),
            x.index_add(1, index[:4], src[:, :4], alpha=-2)]


@pytest.mark.parametrize("reduce", ["prod", "amin", "amax", "mean"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce(reduce, include_self):
    def call(lib):
        out = []
        for dtype in (lib.float64, lib.int64):
            dest = (consec(lib, 3, 4, 5) % 7 - 3).to(dtype)
            src = (consec(lib, 3, 6, 5) % 5 - 2).to(dtype)
            for index in (lib.tensor([0, 3, 3, 1, 0, 3]), lib.tensor([2, 2, 0, 1, 1, 0]).int()):
                out.append(dest.clone().index_reduce_(1, index, src, reduce,
                                                      include_self=include_self))
        return out
    check(call)


@scenario
def take_along_dim(lib):
    t = consec(lib, 2, 3, 5) % 7
    out = [lib.take_along_dim(t, lib.argsort(t, dim=d), dim=d) for d in range(3)]
    out.append(lib.take_along_dim(t, lib.argsort(t.view(-1))))
    out.append(lib.take_along_dim(lib.ones(3, 4, 1), lib.ones(1, 2, 5, dtype=lib.long), 1))
    out.append(lib.take_along_dim(lib.ones(3, 4, 5), lib.ones(3, 0, 5, dtype=lib.long), 1))
    return out


@pytest.mark.parametrize("case", ["rank", "bool", "float", "int32", "dim7", "dim-7"])
def test_take_along_dim_refusals(case):
    def call(lib):
        t = consec(lib, 2, 3, 1, 4)
        indices = lib.argsort(t, dim=0)
        index, dim = {"rank": (indices[0], 0), "bool": (indices.bool(), 0),
                      "float": (indices.float(), 0), "int32": (indices.int(), 0),
                      "dim7": (indices, 7), "dim-7": (indices, -7)}[case]
        return lib.take_along_dim(t, index, dim=dim)
    check(call)


@scenario
def index_no_floats(lib):
    a = lib.tensor([[[5.0]]])
    errors = []
    for index in [(0, 0.0), (0.0, 0), (0.0, slice(None)), (slice(None), -1.4, slice(None)),
                  (0, 0, -1.4), (-1.4,)]:
        try:
            a[index]
        except IndexError as error:
            errors.append(str(error))
    return errors


@scenario
def empty_tuple_and_fancy_index(lib):
    a = lib.tensor([1, 2, 3])
    return a[()], a[()]._is_view(), a[[]], a[lib.tensor([]).long()], a[0, ..., None]


@scenario
def float_tensor_index(lib):
    return lib.tensor([1, 2, 3])[lib.tensor([]).float()]


@scenario
def single_int_and_bool_index(lib):
    a = lib.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    return a[0], a[-1], a[True], a[False], a[None][0:0]


@pytest.mark.parametrize("mask", ["[True]", "[False] * 6", "zeros(4, 4)", "colon zeros(4, 4)"])
def test_boolean_shape_mismatch(mask):
    def call(lib):
        arr = lib.ones((5, 4, 3))
        if mask.endswith("zeros(4, 4)"):
            index = lib.zeros(4, 4, dtype=lib.uint8)
            return arr[(slice(None), index)] if mask.startswith("colon") else arr[index]
        return arr[lib.tensor(eval(mask))]
    check(call)


@scenario
def boolean_indexing_onedim_and_twodim(lib):
    a = lib.tensor([[0.0, 0.0, 0.0]])
    b = lib.tensor([True])
    got = a[b]
    a[b] = 1.0
    c = lib.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    m = lib.tensor([[True, False, True], [False, True, False], [True, False, True]])
    got2 = c[m], c[m[1]], c[m[0]]
    c[m] = 0
    return got, a, got2, c


@pytest.mark.parametrize("value", [[], [1, 2, 3]])
@pytest.mark.parametrize("length", [4, 1])
def test_boolean_assignment_value_mismatch(value, length):
    def call(lib):
        a = lib.arange(0, 4)[:length]
        a[a > -1] = lib.tensor(value)
    check(call)


@scenario
def boolean_indexing_weirdness(lib):
    a = lib.ones((2, 3, 4))
    true = lib.tensor(True)
    return (a[False, True, ...].shape, a[True, [0, 1], True, True, [1], [[2]]],
            a[true, [0, 1], true, true, [1], [[2]]], a[True, True].shape)


@scenario
def false_with_integer_list(lib):
    return lib.ones((2, 3, 4))[False, [0, 1], ...]


@scenario
def boolean_list_indexing(lib):
    a = lib.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    b, c = [True, False, False], [True, True, False]
    return a[b], a[b, b], a[c], a[c, c]


@scenario
def everything_returns_views(lib):
    a = lib.tensor([[1, 2, 3], [4, 5, 6]])
    views = [a[...], a[:], a[1:], a[None], a[0]]
    views[0].fill_(7)
    return [v._is_view() for v in views], a


@scenario
def broaden_and_broadcast_setitem(lib):
    a = lib.zeros(5, 4)
    a[...] = lib.arange(4.0)
    a[:, [0, 2]] = lib.tensor([[10.0], [20.0], [30.0], [40.0], [50.0]])
    b = lib.zeros(3, 3)
    b[[0, 1]] = lib.ones(1, 1, 3)
    return a, b


@scenario
def setitem_broadcast_error(lib):
    a = lib.zeros(5, 4)
    a[:, 1:3] = lib.ones(5, 3)


@scenario
def setitem_sequence_of_tensors(lib):
    a = lib.zeros(3, 2)
    a[[0, 2]] = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
    a[lib.tensor([1]), lib.tensor([0])] = 9
    return a


@scenario
def index_with_negative_step_list_and_numpy(lib):
    a = consec(lib, 4, 5)
    return a[np.array([3, 1])], a[:, np.array([True, False, True, False, True])], a[[-1, -4]]


@scenario
def setitem_gradient_through_advanced_index(lib):
    x = lib.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    v = lib.tensor([5.0, 7.0], dtype=lib.float64, requires_grad=True)
    y = x * 2
    y[[0, 1], [2, 0]] = v * 3
    (y * consec(lib, 2, 3)).sum().backward()
    return y, x.grad, v.grad, type(y.grad_fn).__name__


@scenario
def index_put_gradient_accumulate(lib):
    x = lib.tensor(np.arange(4.0), requires_grad=True)
    v = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    y = x.index_put((lib.tensor([0, 0, 2]),), v * 2, accumulate=True)
    (y * consec(lib, 4)).sum().backward()
    return y, x.grad, v.grad, type(y.grad_fn).__name__


@scenario
def masked_getitem_gradient(lib):
    x = lib.tensor(np.arange(6.0).reshape(2, 3) - 2, requires_grad=True)
    y = x[x > 0]
    (y * consec(lib, y.numel())).sum().backward()
    return y, x.grad, type(y.grad_fn).__name__


@scenario
def slice_gradient_grad_fn_names(lib):
    x = lib.tensor(np.arange(24.0).reshape(2, 3, 4), requires_grad=True)
    parts = [x[1], x[:, 1:3], x[..., ::2], x[None], x[:, [0, 2]], x[0, 1, 2]]
    sum(p.sum() * (i + 1) for i, p in enumerate(parts)).backward()
    return x.grad, [type(p.grad_fn).__name__ for p in parts]


DIFFERENCES = {}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_indexing_like_torch(name):
    check(SCENARIOS[name])
