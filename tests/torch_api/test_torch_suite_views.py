"""PyTorch's view-ops suite, side by side with torch: which operations return views of their
input (`_is_view`, `_base`), that writes through a view reach the base, the views' sizes,
strides, offsets and contiguity, and the errors of view, reshape, flatten, narrow, expand,
split, chunk, tensor_split, transposes, view(dtype), view_as_real and view_as_complex."""
import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()


def grid(lib, *shape, dtype=None):
    x = lib.arange(float(np.prod(shape)), dtype=lib.float64).reshape(shape)
    return x if dtype is None else x.to(dtype)


def is_view_of(base, other):
    return other._is_view() and other is not base and other._base is base


def layout(v):
    return tuple(v.shape), v.stride(), v.storage_offset(), v.is_contiguous()


STRIDE_OF_SIZE_ONE = "the stride of a dimension of size 1 is numpy's, not PyTorch's"
DIFFERENCES = {
    "atleast_nd": STRIDE_OF_SIZE_ONE,
    "expand_sizes_and_strides": STRIDE_OF_SIZE_ONE,
    "tensor_split_like_numpy": "the parts of an empty dimension have numpy's strides",
    "conj_views": "conj() of a complex tensor is a copy, not a view with the conjugate bit",
}
VIEW_DIFFERENCES = {
    "newaxis": STRIDE_OF_SIZE_ONE,
}


# name: (the base's shape, the view of it, an index into the view to write 0 at)
VIEWS = {
    "diagonal": ((5, 5), lambda lib, t: lib.diagonal(t), (0,)),
    "diagonal_offset": ((3, 3, 3), lambda lib, t: lib.diagonal(t, offset=1, dim1=1, dim2=2),
                        (0, 0)),
    "select": ((5, 5), lambda lib, t: t.select(0, 2), (0,)),
    "expand": ((5, 1), lambda lib, t: t.expand(5, 5), (2, 2)),
    "expand_as": ((5, 1), lambda lib, t: t.expand_as(lib.empty(5, 5)), (2, 2)),
    "narrow": ((5, 5), lambda lib, t: lib.narrow(t, 1, 2, 2), (0, 0)),
    "narrow_negative": ((5, 5), lambda lib, t: t.narrow(-2, -2, 2), (1, 3)),
    "permute": ((5, 5), lambda lib, t: t.permute(1, 0), (0, 1)),
    "transpose": ((5, 5), lambda lib, t: lib.transpose(t, 0, 1), (0, 1)),
    "swapdims": ((5, 5), lambda lib, t: lib.swapdims(t, 0, 1), (0, 1)),
    "swapaxes": ((5, 5), lambda lib, t: lib.swapaxes(t, 0, 1), (0, 1)),
    "t": ((5, 5), lambda lib, t: t.t(), (0, 1)),
    "T": ((5, 5), lambda lib, t: t.T, (0, 1)),
    "H": ((5, 5), lambda lib, t: t.H, (0, 1)),
    "mT": ((2, 5, 5), lambda lib, t: t.mT, (1, 0, 1)),
    "mH": ((2, 5, 5), lambda lib, t: t.mH, (1, 0, 1)),
    "adjoint": ((2, 5, 5), lambda lib, t: t.adjoint(), (1, 0, 1)),
    "unfold": ((10,), lambda lib, t: t.unfold(0, 3, 2), (1, 0)),
    "unfold_2d": ((4, 6), lambda lib, t: t.unfold(1, 2, 2), (3, 1, 1)),
    "squeeze": ((5, 1, 5), lambda lib, t: lib.squeeze(t), (0, 1)),
    "squeeze_dims": ((1, 5, 1, 5), lambda lib, t: t.squeeze((0, 2)), (4, 1)),
    "unsqueeze": ((5, 5), lambda lib, t: lib.unsqueeze(t, 1), (0, 0, 1)),
    "as_strided": ((5, 5), lambda lib, t: lib.as_strided(t, (25,), (1,)), (6,)),
    "as_strided_offset": ((5, 5), lambda lib, t: t.as_strided((3, 3), (6, 2), 2), (1, 2)),
    "view": ((5, 5), lambda lib, t: t.view(25), (6,)),
    "view_as": ((5, 5), lambda lib, t: t.view_as(lib.empty(25)), (6,)),
    "reshape": ((5, 5), lambda lib, t: lib.reshape(t, (25,)), (6,)),
    "reshape_as": ((5, 5), lambda lib, t: t.reshape_as(lib.empty(25)), (6,)),
    "flatten": ((1, 2, 3, 4), lambda lib, t: t.flatten(), (5,)),
    "flatten_0d": ((), lambda lib, t: t.flatten(), (0,)),
    "ravel": ((2, 3), lambda lib, t: t.ravel(), (4,)),
    "unflatten": ((2, 6), lambda lib, t: t.unflatten(1, (2, 3)), (1, 1, 2)),
    "slice": ((5, 5), lambda lib, t: t[:2, :3], (0, 0)),
    "slice_step": ((5, 5), lambda lib, t: t[1::2, ::3], (1, 1)),
    "ellipsis": ((5, 5), lambda lib, t: t[..., :2], (0, 0)),
    "newaxis": ((5, 5), lambda lib, t: t[None, :2, 3], (0, 0)),
    "movedim": ((3, 3), lambda lib, t: lib.movedim(t, (0, 1), (1, 0)), (0, 2)),
    "moveaxis": ((3, 3, 2), lambda lib, t: lib.moveaxis(t, 0, 2), (0, 2, 1)),
    "real": ((3, 3), lambda lib, t: t.real, (1, 2)),
    "imag": ((3, 3), lambda lib, t: t.imag, (1, 2)),
    "view_as_real": ((3, 4), lambda lib, t: lib.view_as_real(t), (1, 2, 1)),
    "view_dtype": ((3, 4), lambda lib, t: t.view(lib.int64), (1, 2)),
    "view_dtype_narrower": ((3, 4), lambda lib, t: t.view(lib.int32), (1, 3)),
    "ellipsis_only": ((3, 4), lambda lib, t: t[...], (1, 3)),
    "detach": ((3, 4), lambda lib, t: t.detach(), (1, 3)),
}


@pytest.mark.parametrize("name", cases(VIEWS, VIEW_DIFFERENCES))
def test_view_writes_reach_the_base(name):
    """The view of a fresh tensor: whether it is a view of it, its layout, its values and
    the base after a write of 0 through it."""
    shape, view, index = VIEWS[name]

    def call(lib):
        t = grid(lib, *shape) + 1
        if name in ("real", "imag", "view_as_real"):
            t = t * (1 - 2j)
        v = view(lib, t)
        values = v.clone()
        v[index] = 0
        return is_view_of(t, v) or t.data_ptr() == v.data_ptr(), layout(v), values, t
    check(call)


SPLITS = {
    "split": lambda lib, t: t.split(2),
    "split_sizes": lambda lib, t: t.split([1, 3, 1], dim=0),
    "chunk": lambda lib, t: t.chunk(3),
    "unbind": lambda lib, t: lib.unbind(t),
    "unbind_1": lambda lib, t: t.unbind(1),
    "tensor_split": lambda lib, t: t.tensor_split(3),
    "tensor_split_indices": lambda lib, t: lib.tensor_split(t, (1, 4), dim=1),
    "hsplit": lambda lib, t: lib.hsplit(t, 2),
    "vsplit": lambda lib, t: lib.vsplit(t, [2]),
}


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_split_parts_are_views(name):
    def call(lib):
        t = grid(lib, 5, 4)
        parts = SPLITS[name](lib, t)
        flags = [is_view_of(t, p) for p in parts]
        shapes = [layout(p) for p in parts]
        for i, p in enumerate(parts):
            if p.numel():
                p.view(-1)[0] = -1 - i if p.is_contiguous() else p.flatten()[0]
        return flags, shapes, t
    check(call)


@scenario
def dsplit_writes_through(lib):
    t = grid(lib, 4, 4, 4)
    parts = lib.dsplit(t, 2)
    t[2, 2, 2] = 7
    return [is_view_of(t, p) for p in parts], parts[1][2, 2, 0]


@scenario
def inplace_view_methods(lib):
    out = []
    for method, args in [("swapdims_", (0, 1)), ("swapaxes_", (0, 1)), ("transpose_", (0, 1)),
                         ("t_", ()), ("squeeze_", ()), ("unsqueeze_", (1,)),
                         ("as_strided_", ((25,), (1,)))]:
        t = grid(lib, 5, 5)
        v = t.view_as(t)
        w = getattr(v, method)(*args)
        w[(0,) * w.dim()] = -5
        out += [w is v, is_view_of(t, w), layout(w), t]
    return out


@scenario
def contiguous_and_reshape_copies(lib):
    t = grid(lib, 5, 5)
    same = t.contiguous() is t
    copy = t.t().contiguous()
    copy[0, 0] = -1
    flat = lib.reshape(t.t(), (25,))
    flat[6] = -2
    return same, is_view_of(t, copy), copy._is_view(), flat._is_view(), t


@scenario
def advanced_indexing_is_a_copy(lib):
    t = grid(lib, 3, 3)
    rows, cols = lib.tensor([[0, 0], [2, 2]]), lib.tensor([[0, 1], [2, 2]])
    nv = t[rows, cols]
    nv[1, 1] = -1
    t[rows, cols] = -2
    return nv._is_view(), nv, t


@scenario
def flatten_views_and_copies(lib):
    t = lib.ones(1, 2, 3, 4).transpose(2, 3)
    v = t.flatten(0, 1)
    strided = lib.ones(720).as_strided((2, 3, 2, 3, 5, 4), (6, 2, 15, 5, 1, 0))
    v1 = strided.flatten(0, 1)
    v2 = v1.flatten(1, 3)
    v3 = v2.flatten(2, 2)
    nv = lib.ones(2, 3, 2, 3).transpose(2, 3).flatten(1, 3)
    square = lib.ones(2, 2)
    return ([layout(x) for x in (v, v1, v2, v3, nv)], v._base is t._base, nv._is_view(),
            square.flatten(1, 1) is square, lib.ones(2, 2).T.flatten()._is_view())


@scenario
def flatten_dims_out_of_range(lib):
    return grid(lib, 5, 5, 5, 5).flatten(5, 10)


@scenario
def flatten_start_after_end(lib):
    return grid(lib, 5, 5, 5, 5).flatten(2, 0)


@scenario
def flatten_shapes(lib):
    src = grid(lib, 3, 2, 4, 5)
    return [src.flatten(a, b).shape for a, b in [(0, -1), (0, 2), (0, 1), (1, 2), (2, 3),
                                                 (-2, -1), (2, 2)]]


@scenario
def ravel_views_and_copies(lib):
    out = []
    for t in (grid(lib, 5, 5), grid(lib, 0, 2, 3), grid(lib, 3, 0, 2), lib.tensor(123),
              lib.ones(10)[::2], grid(lib, 5, 5).t()):
        flat = t.ravel()
        out += [flat._base is t, layout(flat)]
    return out


@scenario
def empty_reshape_and_view(lib):
    x = lib.zeros(0, 6)
    return (x.reshape(1, 0, 6, 1, 1).shape, x.view(1, 0, 6, 1, 1).shape,
            x.reshape(1, 0, 6, 1, 1)._is_view(), lib.zeros(0).view(10, 3, -1).shape,
            lib.zeros(0).view(0, 3, 0, 1).view(0).shape, lib.tensor([]).reshape([1, -1]).shape)


@pytest.mark.parametrize("shape", [(0, -1), (-1, -1), (2,), (1,)])
def test_reshape_refusals(shape):
    check(lambda lib: {2: lib.zeros(()), 1: lib.tensor([])}.get(shape[0], lib.zeros(0, 6))
          .reshape(*shape) if shape[0] > 0 else lib.zeros(0, 6).reshape(*shape))


@pytest.mark.parametrize("shape", [(-1, 0), (3, 0, -1, 0)])
def test_view_of_empty_with_free_dimension(shape):
    check(lambda lib: lib.zeros(0).view(*shape))


@pytest.mark.parametrize("shape", [(15, 0), (7, -1), (15, -1, -1)])
def test_view_refusals(shape):
    check(lambda lib: lib.zeros(15).view(*shape))


@scenario
def reshape_view_semantics(lib):
    t = grid(lib, 3, 3)
    y = grid(lib, 4, 4, 4)[:, 0, :]
    s = lib.tensor(2.5)
    return (t.reshape(-1)._is_view(), t.reshape(1, 9, 1)._is_view(), y.reshape(-1)._is_view(),
            y.reshape(2, 2, 4)._is_view(), layout(y.reshape(2, 2, 4)), s.reshape(())._is_view(),
            s.reshape(-1).shape, t.reshape_as(lib.zeros(1, 9, 1))._is_view())


@scenario
def view_of_noncontiguous_tensor(lib):
    t = lib.arange(4 * 2 * 5 * 6 * 2 * 9 * 3.0).view(4, 2, 5, 1, 6, 2, 9, 3)
    t = t.transpose(-1, 2).transpose(-2, 3)
    sizes = [[8, 1, 3, 3, 3, 4, 1, 3, 5], [2, 4, 3, 1, 9, 2, 2, 3, 5, 1],
             [1, 1, 2, 1, 4, 3, 1, 1, 9, 1, 2, 1, 2, 3, 1, 5, 1, 1]]
    expanded = lib.ones(1, 1).expand(3, 4)
    return ([t.view(*s).stride() for s in sizes], [t.view(*s) for s in sizes],
            [expanded.view(*s).stride() for s in [(-1,), (1, -1, 1), (6, 2, 1)]])


@pytest.mark.parametrize("size", [(-1,), (24, 9, 6, 2, 1, 5), (8, 3, 9, 6, 10),
                                  (8, 3, 54, 2, 1, 5)])
def test_view_crossing_strides_refused(size):
    def call(lib):
        t = lib.zeros(4, 2, 5, 1, 6, 2, 9, 3).transpose(-1, 2).transpose(-2, 3)
        return t.view(*size)
    check(call)


@scenario
def expand_sizes_and_strides(lib):
    tensor = grid(lib, 1, 8, 1)
    tensor2 = grid(lib, 5)
    template = lib.zeros(4, 8, 5)
    noncontig = grid(lib, 5, 2, 1, 3)[:, 0]
    return (tensor.expand_as(template).stride(), tensor.expand(4, 8, 5).stride(),
            tensor2.expand(1, 5).expand(2, 2, 5), noncontig.expand(2, 5, 4, 3),
            tensor2.expand(1, 1, 5).stride(), tensor2.unsqueeze(0).unsqueeze(1).stride(),
            tensor.expand(4, -1, 5), lib.zeros(0).expand((0,)))


@scenario
def expand_leading_free_dimension(lib):
    return grid(lib, 5).expand(-1, -1)


@pytest.mark.parametrize("method", ["narrow", "narrow_tensor_start"])
def test_narrow(method):
    def call(lib):
        x = lib.tensor([[0, 1, 2], [3, 4, 5], [6, 7, 8]])
        start = lib.tensor if method == "narrow_tensor_start" else int
        return [x.narrow(d, start(s), n) for d, s, n in
                [(0, 0, 1), (0, 0, 2), (0, 1, 1), (0, -1, 1), (0, -2, 2), (0, -3, 3),
                 (-1, -1, 1), (-2, -1, 1)]]
    check(call)


@pytest.mark.parametrize("start", ["0.", "[0]", "[0, 1]"])
def test_narrow_start_must_be_an_integer(start):
    check(lambda lib: lib.tensor([[0, 1, 2], [3, 4, 5]]).narrow(0, lib.tensor(eval(start)), 1))


@scenario
def narrow_out_of_range(lib):
    return grid(lib, 3, 3).narrow(0, 2, 2)


@scenario
def t_of_low_ranks(lib):
    return lib.tensor(2.0).t(), lib.arange(4).t(), grid(lib, 2, 2).t()


@scenario
def t_of_3d(lib):
    return grid(lib, 2, 2, 2).t()


@scenario
def transposes_of_all_ranks(lib):
    out = []
    for shape in ((), (2, 3)):
        a = grid(lib, *shape, dtype=lib.complex128) * (1 + 2j)
        out += [a.T, a.H.resolve_conj()]
    for shape in ((2, 3), (2, 3, 4)):
        a = grid(lib, *shape, dtype=lib.complex128) * (1 - 1j)
        out += [a.mT, a.mH.resolve_conj(), a.adjoint().resolve_conj()]
    b = grid(lib, 2, 3, 4)
    return out + [b.T, b.T.stride(), lib.tensor(5).T]


@pytest.mark.parametrize("op, shape", [("H", (2,)), ("H", (2, 3, 4)), ("mT", (2,)),
                                       ("mH", (2,)), ("adjoint", (2,)), ("mT", ())])
def test_transposes_of_wrong_ranks(op, shape):
    def call(lib):
        a = grid(lib, *shape)
        out = getattr(a, op)
        return out() if op == "adjoint" else out
    check(call)


@pytest.mark.parametrize("fn", ["swapdims", "swapaxes", "transpose"])
@pytest.mark.parametrize("dims", [(5, 0), (0, 5)])
def test_transpose_dims_out_of_range(fn, dims):
    check(lambda lib: getattr(lib, fn)(grid(lib, 2, 3, 4, 5), *dims))


@scenario
def transposes_like_numpy(lib):
    x = grid(lib, 2, 3, 4, 5)
    return [lib.swapdims(x, a, b).stride() for a in range(-4, 4) for b in range(-4, 4)] + \
        [lib.swapaxes(x, 1, -1), lib.transpose(x, 0, 0)._is_view()]


@scenario
def unsqueeze_of_noncontiguous(lib):
    x = grid(lib, 2, 3, 4)
    y = x[:, 1]
    return (x.unsqueeze(1), x.clone().unsqueeze_(2).stride(), y.is_contiguous(),
            y.unsqueeze(1).stride(), y.clone().unsqueeze_(2).stride(), y.unsqueeze(-1).stride())


@scenario
def split_and_chunk_sizes(lib):
    t = grid(lib, 20, 10)
    return ([p.shape for p in grid(lib, 7, 4).split(3)], [p.shape for p in t.split([5, 5, 10])],
            [p.shape for p in t.split([2, 2, 6], 1)],
            [p.shape for p in grid(lib, 4, 7).chunk(3, 1)],
            [p.stride() for p in t.split([2, 2, 6], 1)], [p.storage_offset() for p in t.chunk(3)])


@pytest.mark.parametrize("chunks", [0, -2])
def test_chunk_of_no_chunks(chunks):
    check(lambda lib: grid(lib, 4, 7).chunk(chunks))


@scenario
def split_sizes_not_summing(lib):
    return grid(lib, 5, 2).split([2, 2])


@scenario
def tensor_split_like_numpy(lib):
    out = []
    for shape in [(0,), (10,), (10, 0), (0, 10), (4, 10), (12, 3)]:
        a = grid(lib, *shape)
        for dim in range(-a.dim(), a.dim()):
            for sections in range(1, 2 * a.size(dim)):
                out.append([p.shape for p in lib.tensor_split(a, sections, dim)])
            out.append([p.shape for p in lib.tensor_split(a, lib.tensor(3), dim)])
            for indices in [(), (0,), (3,), (10,), (-1,), (-10,), (2, -1), (0, -1, 0, 10)]:
                out.append([layout(p) for p in lib.tensor_split(a, indices, dim)])
                out.append([p.shape for p in lib.tensor_split(a, lib.tensor(indices,
                                                                            dtype=lib.int64), dim)])
    return out


@pytest.mark.parametrize("case", ["dim", "0d", "dim_indices", "0d_indices", "zero", "negative",
                                  "float_tensor", "2d_tensor"])
def test_tensor_split_refusals(case):
    def call(lib):
        a, s, d = {"dim": ((10,), 10, 1), "0d": ((), 10, 0), "dim_indices": ((10,), (10,), 1),
                   "0d_indices": ((), (10,), 0), "zero": ((10,), 0, 0),
                   "negative": ((10,), -1, 0), "float_tensor": ((10,), lib.tensor(1.1), 0),
                   "2d_tensor": ((10,), lib.tensor(((1,),)), 0)}[case]
        return lib.tensor_split(grid(lib, *a), s, d)
    check(call)


@scenario
def broadcast_tensors_and_shapes(lib):
    x0, x1, x2 = grid(lib, 2, 1, 3), grid(lib, 3), grid(lib, 3, 1)
    outs = lib.broadcast_tensors(x0, x1, x2)
    shapes = [(), (1,), (2,), (1, 1), (3, 1), (3, 2), (4, 1, 1), (4, 3, 2)]
    return ([layout(o) for o in outs], [outs[1]._is_view()],
            [tuple(lib.broadcast_shapes(a, b)) for a in shapes for b in shapes
             if len(a) <= len(b) and all(x in (1, y) for x, y in zip(a[::-1], b[::-1]))],
            tuple(lib.broadcast_shapes(1, (5,))), tuple(lib.broadcast_shapes(3, (1,))))


@pytest.mark.parametrize("shapes", [((3, 5), (2, 4, 1)), ((1, 1, -12),), ((-1, 1),),
                                    ((4, -11),), ((1.1, 2.0),), (1.1,)])
def test_broadcast_shapes_refusals(shapes):
    check(lambda lib: lib.broadcast_shapes(*shapes))


@scenario
def broadcast_to_values(lib):
    sizes = [(), (1,), (2,), (1, 1), (3, 1), (3, 2), (4, 1, 1), (4, 3, 2)]
    return [lib.broadcast_to(grid(lib, *a), b) for i, a in enumerate(sizes) for b in sizes[i:]
            if all(x in (1, y) for x, y in zip(a[::-1], b[::-1])) and len(a) <= len(b)]


@scenario
def broadcast_to_refused(lib):
    return lib.broadcast_to(grid(lib, 3, 2), (4, 3, 3))


@scenario
def view_shapes(lib):
    tensor = grid(lib, 15)
    empty = lib.zeros(0)
    return (tensor.view_as(lib.zeros(3, 5)).shape, tensor.view(3, 5).shape, tensor.view(-1, 5),
            tensor.view(3, -1).stride(), empty.view_as(empty).shape, empty.view(0).shape,
            empty.view(-1).shape, [grid(lib, 3, 2).to(d).view(6).dtype for d in
                                   (lib.float16, lib.bool, lib.int8, lib.complex64)])


VIEW_DTYPES = ["float32", "float64", "int64", "int32", "int16", "uint8", "int8", "bool",
               "float16", "complex64", "complex128"]


@pytest.mark.parametrize("source", ["float32", "int16", "complex64", "uint8"])
def test_view_dtype_sizes_strides_and_bits(source):
    def call(lib):
        out = []
        def fresh(*shape):  # the view ops alone decide the layouts below
            return (grid(lib, *shape) % 7).to(getattr(lib, source))
        for make in (lambda: fresh(4, 4, 8), lambda: fresh(4, 8, 4).permute(2, 0, 1),
                     lambda: fresh(2, 5, 16)[1::2, 1:, ::2], lambda: fresh(0, 5, 8),
                     lambda: fresh(1, 5, 1).expand(5, 5, 8), lambda: fresh()):
            a = make()
            for name in VIEW_DTYPES:
                try:
                    v = a.view(getattr(lib, name))
                except RuntimeError as error:
                    out.append(str(error))
                    continue
                out += [layout(v), v.view(a.dtype).equal(a), v.data_ptr() == a.data_ptr()]
                if name != "bool":
                    out.append(v)
        return out
    check(call)


@pytest.mark.parametrize("case", ["divisible", "offset", "stride"])
def test_view_dtype_upsize_errors(case):
    def call(lib):
        if case == "stride":
            return lib.zeros(4, 4, 2, dtype=lib.int16).as_strided((4, 4, 2), (2, 1, 1)).view(
                lib.int32)
        a = lib.zeros(4, 4, 3, dtype=lib.int16)
        return a.view(lib.int32) if case == "divisible" else a[:, :, 1:].view(lib.int32)
    check(call)


@scenario
def view_dtype_drops_requires_grad(lib):
    t = grid(lib, 5, 5, 4).requires_grad_()
    return [t.view(d).requires_grad for d in (lib.float32, lib.float64, lib.complex64)]


@scenario
def view_as_complex_and_real(lib):
    t = grid(lib, 3, 2, 2)
    res = lib.view_as_complex(t)
    tt = t.transpose(0, 1)
    empty = lib.tensor([], dtype=lib.float64)
    z = lib.tensor(2 + 3j)
    c = lib.view_as_complex(grid(lib, 3, 4, 2)).transpose(0, 1)
    real = lib.view_as_real(c)
    return (res, is_view_of(t, res), layout(res), lib.view_as_complex(tt),
            lib.view_as_complex(empty.reshape(0, 2)).shape, real, layout(real),
            lib.view_as_real(z), lib.view_as_real(lib.tensor([], dtype=lib.complex64)).shape)


@pytest.mark.parametrize("case", ["last_size", "last_stride", "strides", "empty", "0d"])
def test_view_as_complex_refusals(case):
    def call(lib):
        t = grid(lib, 3, 2, 2)
        x = {"last_size": lambda: t.transpose(0, 2), "last_stride": lambda: t.transpose(1, 2),
             "strides": lambda: lib.as_strided(grid(lib, 3, 3), (2, 2), (1, 1)),
             "empty": lambda: lib.tensor([]), "0d": lambda: lib.tensor(2.0)}[case]()
        return lib.view_as_complex(x)
    check(call)


@scenario
def view_as_real_of_real(lib):
    return lib.view_as_real(grid(lib, 2))


@scenario
def real_imag_views(lib):
    t = grid(lib, 3, 3, dtype=lib.complex128) * (1 - 2j)
    u = t.T
    a = grid(lib, 10, dtype=lib.complex128) * 1j + 1
    return (u.real, u.imag, is_view_of(t, u.real), is_view_of(t, u.imag), layout(u.imag),
            a[5:].real, a.real[5:], a[5:].imag, a.imag[5:], layout(a[5:].imag),
            grid(lib, 2, 2).real._is_view())


@scenario
def imag_of_real(lib):
    return lib.imag(grid(lib, 5, 5))


@scenario
def conj_views(lib):
    t = grid(lib, 4, 5, dtype=lib.complex128) * (1 + 1j)
    v = t.conj()
    ones = lib.ones(5, 5)
    return (is_view_of(t, v), v.resolve_conj(), v.imag.resolve_neg(), v.is_conj(),
            v.imag.is_neg(), is_view_of(t, v.imag), ones.conj() is ones,
            lib.resolve_conj(v).is_conj())


@scenario
def set_real_and_imag(lib):
    out = []
    for dtype in (lib.float64, lib.int64, lib.complex64, lib.bool):
        x = grid(lib, 10, dtype=lib.complex128) * (1 - 1j)
        x.real = (grid(lib, 10) % 3 - 1).to(dtype)
        x.imag = (grid(lib, 10) % 4).to(dtype)
        out.append(x)
    return out


@scenario
def view_copy_is_not_a_view(lib):
    a = grid(lib, 4).requires_grad_()
    copy = lib.view_copy(a, (2, 2))
    diag_out = lib.empty(2, dtype=lib.float64)
    lib.diagonal_copy(grid(lib, 2, 2), out=diag_out)
    out1, out2 = lib.empty(2, dtype=lib.float64), lib.empty(2, dtype=lib.float64)
    lib.split_copy(grid(lib, 4), 2, out=(out1, out2))
    (copy * lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64)).sum().backward()
    return copy._is_view(), a.grad, diag_out, out1, out2, type(copy.grad_fn).__name__


@scenario
def unbind_gradients(lib):
    stacked = grid(lib, 3, 2, 2).requires_grad_()
    x, y, z = stacked.unbind()
    lib.autograd.backward([x, y, z], list(grid(lib, 3, 2, 2).unbind()))
    partial = grid(lib, 3, 2, 2).requires_grad_()
    g, = lib.autograd.grad(partial.unbind()[1], partial, lib.ones(2, 2, dtype=lib.float64))
    return stacked.grad, g, [type(p.grad_fn).__name__ for p in (x, y)]


@scenario
def atleast_nd(lib):
    out = []
    for fn in (lib.atleast_1d, lib.atleast_2d, lib.atleast_3d):
        for shape in ((), (4,), (4, 3), (4, 3, 2), (4, 3, 2, 1)):
            x = grid(lib, *shape)
            out += [fn(x).shape, fn(x.T).stride(), fn(x)._is_view()]
        out.append([r.shape for r in fn(grid(lib, 2), lib.tensor(1.0))])
    return out


@scenario
def atleast_gradients(lib):
    xs = [grid(lib, *s).requires_grad_() for s in ((), (4,), (4, 3), (4, 3, 2))]
    outs = lib.atleast_3d(*xs)
    sum((o * (i + 1)).sum() for i, o in enumerate(outs)).backward()
    return [x.grad for x in xs]


@scenario
def resize_keeps_strides(lib):
    x = lib.empty(2, 3).t()
    old = x.stride()
    x.resize_as_(x)
    y = lib.tensor([[1, 2], [3, 4], [5, 6]])
    y.resize_((2, 2))
    z = lib.tensor([[1, 2], [3, 4], [5, 6]])
    z.resize_as_(lib.zeros(2, 3))
    return old, x.stride(), y, z.shape


@scenario
def contiguous_with_size_one_dimension(lib):
    x = lib.zeros(1, 16, 5, 5)
    return x.as_strided(x.shape, (20, 25, 5, 1)).is_contiguous(), x[:, ::2].is_contiguous()


@scenario
def python_types_as_dtypes(lib):
    return (lib.zeros((1, 2), dtype=float).dtype, lib.arange(10, 20, dtype=int).dtype,
            lib.tensor([True, False], dtype=bool).dtype)




@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_views_like_torch(name):
    check(SCENARIOS[name])
