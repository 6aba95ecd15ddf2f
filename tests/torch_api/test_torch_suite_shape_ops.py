"""PyTorch's shape-ops suite side by side with torch: cat/stack and their h/v/d/column forms,
flip/roll/rot90, diag/diagflat/diag_embed/diagonal, tril/triu with offsets, clamp, nonzero,
repeat_interleave, tensor_split/hsplit/vsplit/dsplit, movedim, take_along_dim, unbind."""
import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

X = np.arange(24.0).reshape(2, 3, 4) % 7 - 3.0
M = np.arange(1.0, 13.0).reshape(3, 4)
SCENARIOS = scenario = Scenarios()


def grad_of(lib, fn, *arrays):
    """fn's result on leaves of the arrays and the leaves' gradients of its weighted sum."""
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*xs)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    total = sum((o * lib.arange(1.0, o.numel() + 1, dtype=o.dtype).reshape(o.shape)).sum()
                for o in outs)
    total.backward()
    return out, [x.grad for x in xs]


@scenario
def cat_dims_and_gradients(lib):
    a, b = np.ones((2, 3)), np.arange(6.0).reshape(2, 3)
    return (grad_of(lib, lambda x, y: lib.cat([x, y]), a, b),
            grad_of(lib, lambda x, y: lib.cat((x, y), dim=-1), a, b),
            grad_of(lib, lambda x, y: lib.concat([x, y], 1), a, b),
            grad_of(lib, lambda x, y: lib.concatenate([x, y], axis=0), a, b))


@scenario
def cat_skips_legacy_empty(lib):
    x = lib.tensor(M)
    return lib.cat([x, lib.tensor([]), x]), lib.cat([lib.tensor([]), lib.tensor([])])


@scenario
def cat_promotes(lib):
    return (lib.cat([lib.tensor([1, 2]), lib.tensor([0.5])]),
            lib.cat([lib.tensor([True]), lib.tensor([3], dtype=lib.uint8)]),
            lib.cat([lib.tensor([1], dtype=lib.int8), lib.tensor([1.0 + 1j])]))


@scenario
def cat_zero_size_inputs(lib):
    return (lib.cat([lib.zeros(0, 3), lib.ones(2, 3)]),
            lib.cat([lib.zeros(2, 0), lib.ones(2, 3)], 1),
            lib.stack([lib.zeros(0, 2), lib.zeros(0, 2)], 1))


@scenario
def cat_shape_mismatch(lib):
    return lib.cat([lib.ones(2, 3), lib.ones(2, 4)])


@scenario
def cat_dim_out_of_range(lib):
    return lib.cat([lib.ones(2, 3), lib.ones(2, 3)], 2)


@scenario
def cat_rank_mismatch(lib):
    return lib.cat([lib.ones(2, 3), lib.ones(3)])


@scenario
def cat_out(lib):
    out = lib.empty(0)
    r = lib.cat([lib.ones(2), lib.zeros(3)], out=out)
    return r is out, out


@scenario
def stack_dims_and_gradients(lib):
    a, b = np.ones((2, 3)), np.arange(6.0).reshape(2, 3)
    return [grad_of(lib, lambda x, y: lib.stack([x, y], d), a, b) for d in (0, 1, 2, -1, -3)]


@scenario
def stack_shape_mismatch(lib):
    return lib.stack([lib.ones(2, 3), lib.ones(3, 2)])


@scenario
def stack_dim_out_of_range(lib):
    return lib.stack([lib.ones(2), lib.ones(2)], 3)


@scenario
def stack_empty_list(lib):
    return lib.stack([])


@scenario
def stack_out(lib):
    out = lib.empty(0)
    lib.stack([lib.ones(2), lib.zeros(2)], 1, out=out)
    return out


def stacker(name):
    """name over 0-d, 1-d, 2-d and 3-d inputs, with gradients."""
    def run(lib):
        outs = []
        for shape in ((), (3,), (2, 3), (2, 3, 2)):
            a = np.arange(float(np.prod(shape))).reshape(shape)
            outs.append(grad_of(lib, lambda x, y: getattr(lib, name)([x, y]), a, a + 10))
        outs.append(getattr(lib, name)((lib.tensor([1, 2]), lib.tensor([3.5, 4]))))
        return outs
    run.__name__ = f"{name}_ranks"
    scenario(run)


for _name in ("hstack", "vstack", "dstack", "column_stack", "row_stack"):
    stacker(_name)


@scenario
def hstack_mismatch(lib):
    return lib.hstack([lib.ones(2, 3), lib.ones(3, 3)])


@scenario
def flip_dims(lib):
    x = lib.tensor(X)
    outs = [x.flip(d) for d in (0, 1, 2, -1, (0, 1), (0, 1, 2), (2, 0), [])]
    outs += [lib.flip(x, dims=(1,)), x.flip(0, 2), x.transpose(0, 2).flip(0, 1),
             lib.tensor([[1, 2, 3]]).expand(3, 3).flip(0), lib.zeros(3, 0, 2).flip(1),
             lib.tensor(5.0).flip(0), lib.tensor([True, False]).flip(0)]
    return outs


@scenario
def flip_gradient(lib):
    return grad_of(lib, lambda x: x.flip(0, 2), X)


@scenario
def flip_repeated_dim(lib):
    return lib.tensor(X).flip(0, 1, 1)


@scenario
def flip_dim_out_of_range(lib):
    return lib.tensor(X).flip(3)


@scenario
def flip_no_dims(lib):
    return lib.tensor(X).flip()


@scenario
def fliplr_flipud(lib):
    x = lib.tensor(X)
    return lib.fliplr(x), lib.flipud(x), lib.flipud(lib.tensor([1, 2, 3])), x.fliplr()


@scenario
def fliplr_1d_raises(lib):
    return lib.fliplr(lib.tensor([1.0, 2.0]))


@scenario
def flipud_0d_raises(lib):
    return lib.flipud(lib.tensor(1.0))


@scenario
def roll_shifts(lib):
    x = lib.tensor(M)
    return (x.roll(1), x.roll(-5), x.roll(2, 0), x.roll(1, -1), x.roll((1, 2), (0, 1)),
            x.roll(shifts=(5, -7), dims=(1, 0)), lib.roll(lib.zeros(0, 3), 2, 1),
            lib.roll(lib.tensor(3.0), 1), lib.roll(x, 0, 1), lib.roll(x.t(), 1, 0))


@scenario
def roll_gradient(lib):
    return grad_of(lib, lambda x: lib.roll(x, (1, -2), (0, 2)), X)


@scenario
def roll_mismatched_shifts(lib):
    return lib.tensor(M).roll((1, 2), (0,))


@scenario
def roll_dim_out_of_range(lib):
    return lib.tensor(M).roll(1, 2)


@scenario
def rot90_values(lib):
    d = lib.arange(1, 5).view(2, 2)
    x = lib.tensor(X)
    return ([d.rot90(k, [0, 1]) for k in (0, 1, 2, 3, 5, -1, -5)] + [d.rot90(), d.rot90(1, [1, 0])]
            + [x.rot90(1, [1, 2]), x.rot90(1, [1, -1]), lib.rot90(x, 2, (0, 2)),
               lib.tensor(X + 1j).rot90(3)])


@scenario
def rot90_gradient(lib):
    return grad_of(lib, lambda x: x.rot90(1, [2, 0]), X)


def rot90_error(name, dims):
    def run(lib):
        return lib.tensor(X).rot90(1, dims)
    run.__name__ = f"rot90_{name}_raises"
    scenario(run)


for _name, _dims in (("out_of_range", [0, 3]), ("same", [1, 1]), ("three", [0, 1, 2]),
                     ("one", [0]), ("negative_out_of_range", [0, -4])):
    rot90_error(_name, _dims)


@scenario
def rot90_1d_raises(lib):
    return lib.tensor([1.0, 2.0]).rot90()


@scenario
def diag_family(lib):
    v = lib.tensor([1.0, 2.0, 3.0])
    m = lib.tensor(M)
    return ([lib.diag(v, k) for k in (0, 1, -2)] + [lib.diag(m, k) for k in (0, 1, -1, 5, -4)]
            + [lib.diagflat(v), lib.diagflat(m, 1), lib.diagflat(v, -2),
               lib.diag_embed(v), lib.diag_embed(m, 1), lib.diag_embed(m, -1, 0, 2),
               lib.diag_embed(m, 0, -1, 0), lib.diagonal(lib.tensor(X), 1, 2, 0),
               lib.diagonal(lib.tensor(X), -1, -1, -2), m.diagonal(2), m.diagonal(9)])


@scenario
def diag_gradients(lib):
    return (grad_of(lib, lambda x: lib.diag(x, 1), M), grad_of(lib, lambda x: lib.diagflat(x), M),
            grad_of(lib, lambda x: lib.diag_embed(x, -1), M),
            grad_of(lib, lambda x: x.diagonal(0, 0, 2), X))


@scenario
def diag_3d_raises(lib):
    return lib.diag(lib.tensor(X))


@scenario
def diag_embed_same_dims_raises(lib):
    return lib.diag_embed(lib.tensor(M), 0, 1, 1)


@scenario
def diagonal_same_dims_raises(lib):
    return lib.tensor(X).diagonal(0, 1, -2)


@scenario
def diag_out(lib):
    out = lib.empty(0, dtype=lib.float64)
    r = lib.diag(lib.tensor(M), 1, out=out)
    return r is out, out


@scenario
def diag_out_dtype_raises(lib):
    return lib.diag(lib.tensor(M), out=lib.empty(0))


@scenario
def tril_triu_offsets(lib):
    outs = []
    for a in (M, X, M.T, np.ones((0, 3))):
        x = lib.tensor(a)
        outs += [x.tril(k) for k in (-5, -1, 0, 1, 2, 10)]
        outs += [x.triu(k) for k in (-5, -1, 0, 1, 2, 10)]
    return outs + [lib.tril(lib.tensor(INT_M)), lib.triu(lib.tensor(INT_M) > 5, 1)]


INT_M = np.arange(12).reshape(3, 4)


@scenario
def tril_triu_gradients(lib):
    return grad_of(lib, lambda x: x.tril(-1), M), grad_of(lib, lambda x: x.triu(1), X)


@scenario
def tril_1d_raises(lib):
    return lib.tril(lib.tensor([1.0, 2.0]))


@scenario
def triu_inplace_and_out(lib):
    x = lib.tensor(M)
    x.triu_(1)
    out = lib.empty(0, dtype=lib.float64)
    lib.tril(lib.tensor(M), -1, out=out)
    return x, out


@scenario
def tril_out_dtype_raises(lib):
    return lib.tril(lib.tensor(INT_M), out=lib.empty(0))


@scenario
def clamp_shapes(lib):
    x = lib.tensor(M)
    lo = lib.tensor([[2.0], [6.0], [9.0]])
    hi = lib.tensor([3.0, 5.0, 7.0, 11.0])
    return (x.clamp(lo, hi), x.clamp(min=lo), x.clamp(max=hi), lib.clamp(x, 3, 8),
            lib.clamp(x, min=5), lib.clip(x, max=4), lib.clamp(lib.tensor(2.0), lo, hi),
            x.clamp(8, 3), lib.clamp(lib.tensor(INT_M), 2.5, 7), lib.clamp(lib.tensor(INT_M), 2, 7))


@scenario
def clamp_nan(lib):
    x = lib.tensor([1.0, float("nan"), 5.0])
    return (x.clamp(0, 2), x.clamp(min=float("nan")), x.clamp(max=float("nan")),
            x.clamp(lib.tensor([float("nan"), 0.0, 0.0]), lib.tensor(3.0)))


@scenario
def clamp_gradient(lib):
    a = np.array([[-2.0, 0.0, 1.0, 3.0], [2.0, 5.0, -1.0, 1.0]])
    return (grad_of(lib, lambda x: x.clamp(0, 2), a),
            grad_of(lib, lambda x, lo, hi: x.clamp(lo, hi), a, np.zeros((2, 1)),
                    np.array([1.0, 2.0, 3.0, 1.0])))


@scenario
def clamp_no_bounds(lib):
    return lib.tensor(M).clamp()


@scenario
def clamp_broadcast_to_larger(lib):
    return lib.tensor([1.0, 2.0]).clamp(lib.zeros(3, 2))


@scenario
def clamp_out(lib):
    out = lib.empty(0)
    lib.clamp(lib.tensor(M), 2, 9, out=out)
    return out


@scenario
def nonzero_shapes(lib):
    outs = []
    for a in (INT_M % 3, (INT_M % 2).reshape(2, 3, 2), np.array([0, 1, 0, 2]), np.zeros((2, 0)),
              np.array(5), np.array(0), np.array([[True, False], [True, True]]),
              np.array([0.0, -0.0, np.nan, 1.5])):
        x = lib.tensor(a)
        outs += [x.nonzero(), lib.nonzero(x, as_tuple=True), x.nonzero(as_tuple=False),
                 lib.argwhere(x)]
    return outs


@scenario
def nonzero_out(lib):
    out = lib.empty(0, dtype=lib.long)
    r = lib.nonzero(lib.tensor(INT_M % 3), out=out)
    return r is out, out


@scenario
def nonzero_out_float_raises(lib):
    return lib.nonzero(lib.tensor(INT_M % 3), out=lib.empty(0))


@scenario
def nonzero_as_tuple_out_raises(lib):
    return lib.nonzero(lib.tensor(INT_M), as_tuple=True, out=lib.empty(0, dtype=lib.long))


@scenario
def nonzero_static(lib):
    x = lib.tensor([0, 3, 0, 5, 7])
    return (lib.nonzero_static(x, size=2), lib.nonzero_static(x, size=5, fill_value=-7),
            lib.nonzero_static(lib.tensor(INT_M % 3), size=4))


@scenario
def repeat_interleave_forms(lib):
    x = lib.tensor(M)
    return (x.repeat_interleave(2), x.repeat_interleave(2, dim=0), x.repeat_interleave(3, 1),
            x.repeat_interleave(lib.tensor([1, 0, 2]), dim=0),
            lib.repeat_interleave(lib.tensor([3, 0, 1])), lib.repeat_interleave(x, 0, 1),
            lib.repeat_interleave(x, lib.tensor([2]), dim=1),
            lib.repeat_interleave(lib.tensor(5.0), 3),
            lib.repeat_interleave(x, lib.tensor([1, 2, 1]), dim=0, output_size=4))


@scenario
def repeat_interleave_gradient(lib):
    return (grad_of(lib, lambda x: x.repeat_interleave(2, 1), M),
            grad_of(lib, lambda x: x.repeat_interleave(lib.tensor([2, 0, 1]), 0), M))


@scenario
def repeat_interleave_bad_repeats(lib):
    return lib.tensor(M).repeat_interleave(lib.tensor([1, 2]), dim=0)


@scenario
def repeat_interleave_negative(lib):
    return lib.repeat_interleave(lib.tensor([1, -1]))


@scenario
def repeat_interleave_negative_int(lib):
    return lib.tensor(M).repeat_interleave(-1)


@scenario
def repeat_interleave_repeats_for_flattened(lib):
    return lib.repeat_interleave(lib.ones(3), lib.tensor([1, 2, 3, 4]))


@scenario
def repeat_interleave_2d_repeats(lib):
    return lib.repeat_interleave(lib.tensor([[1, 2]]))


@scenario
def repeat_interleave_float_repeats(lib):
    return lib.repeat_interleave(lib.tensor([1.0, 2.0]))


@scenario
def tensor_split_forms(lib):
    x = lib.arange(14.0).reshape(2, 7)
    return (x.tensor_split(3, 1), x.tensor_split(7, 1), x.tensor_split(10, dim=1),
            x.tensor_split([1, 4], 1), x.tensor_split((5, 2, 9), dim=-1),
            x.tensor_split(lib.tensor(3), 1), x.tensor_split(lib.tensor([1, 6]), 1),
            lib.tensor_split(x, 2), lib.tensor_split(lib.arange(5), []),
            lib.tensor_split(lib.arange(5), indices=[2]), lib.tensor_split(x, sections=2, dim=0))


@scenario
def tensor_split_gradient(lib):
    return grad_of(lib, lambda x: x.tensor_split([1, 3], 2), X)


@scenario
def tensor_split_zero_sections(lib):
    return lib.arange(5).tensor_split(0)


@scenario
def tensor_split_0d_raises(lib):
    return lib.tensor(1.0).tensor_split(2)


@scenario
def tensor_split_2d_indices_raises(lib):
    return lib.arange(5).tensor_split(lib.tensor([[1]]))


@scenario
def tensor_split_float_indices_raises(lib):
    return lib.arange(5).tensor_split(lib.tensor([1.0]))


@scenario
def hvd_split(lib):
    x = lib.arange(48.0).reshape(2, 4, 6)
    return (lib.hsplit(x, 2), lib.hsplit(x, [1, 3]), lib.vsplit(x, 2), lib.vsplit(x, [1]),
            lib.dsplit(x, 3), lib.dsplit(x, [2, 5]), lib.hsplit(lib.arange(6), 3),
            x.hsplit(4), x.vsplit([0]), x.dsplit((1, 1)))


@scenario
def hsplit_uneven_raises(lib):
    return lib.hsplit(lib.arange(7), 2)


@scenario
def vsplit_1d_raises(lib):
    return lib.vsplit(lib.arange(6), 2)


@scenario
def dsplit_2d_raises(lib):
    return lib.dsplit(lib.ones(2, 4), 2)


@scenario
def dsplit_uneven_raises(lib):
    return lib.dsplit(lib.ones(2, 2, 5), 2)


@scenario
def hsplit_0d_raises(lib):
    return lib.hsplit(lib.tensor(1.0), 1)


@scenario
def split_forms(lib):
    x = lib.arange(10.0).reshape(5, 2)
    return (x.split(2), x.split([1, 4]), lib.split(x, 1, 1), x.chunk(3), x.chunk(6),
            lib.chunk(lib.arange(5), 2), lib.arange(0).chunk(3), x.unbind(1), lib.unbind(x))


@scenario
def split_sizes_mismatch(lib):
    return lib.arange(10.0).split([2, 3])


@scenario
def movedim_forms(lib):
    x = lib.tensor(X)
    return (x.movedim(0, 2), x.movedim(-1, 0), lib.movedim(x, (0, 1), (2, 0)),
            lib.moveaxis(x, [2, -3], [0, -1]), x.movedim((), ()), x.movedim(1, 1),
            lib.movedim(lib.tensor(3.0), 0, 0), x.moveaxis(0, -1))


@scenario
def movedim_gradient(lib):
    return grad_of(lib, lambda x: lib.movedim(x, (0, 2), (1, 0)), X)


def movedim_error(name, source, destination):
    def run(lib):
        return lib.movedim(lib.tensor(X), source, destination)
    run.__name__ = f"movedim_{name}_raises"
    scenario(run)


for _args in (("source_out_of_range", 5, 0), ("destination_out_of_range", 0, 5),
              ("sizes_differ", (1, 0), (0,)), ("repeated_source", (0, 0), (0, 1)),
              ("repeated_source_three", (0, 1, 0), (0, 1, 2)),
              ("repeated_destination", (0, 1), (1, 1)),
              ("repeated_destination_three", (0, 1, 2), (1, 0, 1))):
    movedim_error(*_args)


@scenario
def take_along_dim_forms(lib):
    x = lib.tensor(X)
    i = lib.argsort(x, dim=1)
    return (lib.take_along_dim(x, i, 1), x.take_along_dim(lib.tensor([[[0]], [[2]]]), 1),
            lib.take_along_dim(x, lib.tensor([0, 5, 23])), x.take_along_dim(i[:, :1], dim=1),
            lib.take_along_dim(x, lib.argmax(x, 2, keepdim=True), 2),
            lib.take_along_dim(x, lib.tensor([[[-1]]]), -1))


@scenario
def take_along_dim_gradient(lib):
    idx = np.array([[[0, 0, 2]], [[1, 1, 1]]])
    return grad_of(lib, lambda x: lib.take_along_dim(x, lib.tensor(idx), 2), X)


@scenario
def take_along_dim_float_index_raises(lib):
    return lib.take_along_dim(lib.tensor(X), lib.tensor([[[0.0]]]), 1)


@scenario
def take_along_dim_flat_float_index_raises(lib):
    return lib.take_along_dim(lib.tensor(X), lib.tensor([0.0]))


@scenario
def take_along_dim_flat_int32_index(lib):
    return lib.take_along_dim(lib.tensor(X), lib.tensor([3, 0], dtype=lib.int32))


@scenario
def take_along_dim_rank_mismatch(lib):
    return lib.take_along_dim(lib.tensor(X), lib.tensor([0, 1]), 1)


@scenario
def take_along_dim_out(lib):
    out = lib.empty(0)
    lib.take_along_dim(lib.tensor(M, dtype=lib.float32), lib.tensor([[1], [0], [3]]), 1, out=out)
    return out


@scenario
def unbind_trace_tolist(lib):
    x = lib.tensor(X)
    nc = x.transpose(0, 2).select(1, 1)
    return (x.unbind(2), lib.unbind(x, -2), lib.tensor(INT_M).trace(), lib.tensor(M).trace(),
            nc.tolist(), lib.tensor([]).tolist(), lib.tensor(INT_M).tolist(),
            lib.tensor(INT_M, dtype=lib.int8).trace())


@scenario
def nonzero_every_dtype(lib):
    outs = []
    for dt in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
               "float32", "float64", "complex64"):
        x = lib.tensor(INT_M % 2, dtype=getattr(lib, dt)).reshape(3, 2, 2)
        outs += [x.nonzero(), lib.nonzero(x, as_tuple=True), lib.count_nonzero(x, 1)]
    return outs


@scenario
def clamp_in_place_forms(lib):
    x = lib.tensor(M)
    a, b, c = x.clone(), x.clone(), x.clone()
    r = a.clamp_(2, 8)
    b.clip_(max=5)
    c.clamp_(min=lib.tensor([[3.0], [6.0], [7.0]]))
    return r is a, a, b, c


@scenario
def clamp_in_place_no_bounds(lib):
    return lib.tensor(M).clamp_()


@scenario
def clamp_function_no_bounds(lib):
    return lib.clamp(lib.tensor(M))


@scenario
def clamp_integer_with_float_bounds(lib):
    x = lib.tensor(INT_M)
    return (x.clamp(2.5, 7.5), x.clamp(min=lib.tensor(3.5)),
            lib.clamp(x, max=lib.tensor([1, 2, 3, 4])))


@scenario
def diagonal_multidim(lib):
    x = lib.arange(2.0 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    return (x.diagonal(2, 2, 3), x.diagonal(2), x.diagonal(-2, 1, 2), x.diagonal(0, -2, -1),
            x.permute(1, 2, 3, 0).diagonal(0, -2, -1), lib.diagonal(x, offset=-1, dim1=3, dim2=0))


@scenario
def trace_dtypes(lib):
    outs = []
    for dt in ("uint8", "int8", "int16", "int32", "int64", "float32", "float64"):
        for shape in ((4, 1), (1, 4), (3, 3), (2, 4)):
            outs.append(lib.tensor(np.arange(np.prod(shape)).reshape(shape) % 5,
                                   dtype=getattr(lib, dt)).trace())
    return outs


@scenario
def trace_gradient(lib):
    return grad_of(lib, lambda x: x.trace(), M)


@scenario
def trace_bool_raises(lib):
    return lib.ones(2, 2, dtype=lib.bool).trace()


@scenario
def trace_3d_raises(lib):
    return lib.tensor(X).trace()


@scenario
def flip_every_dim_combination(lib):
    x = lib.arange(24).reshape(2, 3, 4)
    import itertools
    return [x.flip(d) for r in (1, 2, 3) for d in itertools.permutations(range(3), r)]


DIFFERENCES = {}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_shape_scenario_matches_torch(name):
    check(SCENARIOS[name])
