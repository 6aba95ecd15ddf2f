"""PyTorch's test_torch suite, side by side with torch: tensor methods and their errors, dtype
conversions, copies and memory formats, set_/resize_, new_* constructors, and the tests of
equal/allclose/isclose, narrow/unfold/unbind and repeat/tile/expand."""
import copy

import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

SCENARIOS = scenario = Scenarios()
DIFFERENCES = {}


def grid(lib, *shape, dtype=None):
    x = lib.arange(float(np.prod(shape)), dtype=lib.float64).reshape(shape)
    return x if dtype is None else x.to(dtype)


def layout(v):
    return tuple(v.shape), v.stride(), v.storage_offset(), v.is_contiguous()


@scenario
def type_conversion_via_dtype_name(lib):
    x = lib.tensor([1])
    return [str(getattr(x, name)().dtype) for name in
            ("byte", "bool", "char", "double", "float", "half", "int", "bfloat16", "short",
             "long", "cfloat", "cdouble")]


@scenario
def type_strings(lib):
    x = lib.tensor([1.5, -2.0])
    return [x.type(), x.int().type(), x.type("torch.IntTensor").dtype, x.type(lib.int16).dtype,
            x.bool().type(), x.to(lib.complex64).type()]


@scenario
def dtype_properties(lib):
    out = []
    for d in (lib.float16, lib.bfloat16, lib.float32, lib.float64, lib.complex64,
              lib.complex128, lib.uint8, lib.int8, lib.int16, lib.int32, lib.int64, lib.bool):
        out.append((str(d), repr(d), d.is_floating_point, d.is_complex, d.is_signed, d.itemsize,
                    lib.empty(2, dtype=d).element_size()))
    return out


@scenario
def dtype_to_real_and_complex(lib):
    return [str(lib.complex64.to_real()), str(lib.float64.to_complex()),
            str(lib.float32.to_real()), str(lib.complex128.to_complex())]


@scenario
def element_size_and_nbytes(lib):
    return [(lib.empty(3, 2, dtype=d).element_size(), lib.empty(3, 2, dtype=d).nbytes,
             lib.empty(3, 2, dtype=d).itemsize)
            for d in (lib.uint8, lib.int16, lib.float32, lib.float64, lib.complex128, lib.bool)]


@scenario
def is_floating_point_and_signed(lib):
    return [(lib.empty(1, dtype=d).is_floating_point(), lib.empty(1, dtype=d).is_signed(),
             lib.empty(1, dtype=d).is_complex()) for d in
            (lib.uint8, lib.int8, lib.float16, lib.float64, lib.complex64, lib.bool)]


@scenario
def device_properties(lib):
    x = lib.ones(2)
    return [str(x.device), x.device.type, x.device.index, x.is_cuda, x.is_cpu, x.is_meta,
            str(lib.device("cpu")), repr(lib.device("cpu", 0)), lib.device("cpu", 0).index,
            x.get_device(), x.is_sparse, x.is_quantized, x.layout == lib.strided, str(x.layout)]


@scenario
def device_errors(lib):
    out = []
    for bad in ("cpu:-1", "cpu:1:2", "cpu1", "1cpu", "hello"):
        try:
            lib.device(bad)
        except RuntimeError as e:
            out.append(str(e))
    return out


@scenario
def to_with_dtype_and_copy(lib):
    x = grid(lib, 2, 3)
    same = x.to(lib.float64)
    copied = x.to(lib.float64, copy=True)
    other = lib.zeros(1, dtype=lib.int32)
    return [same is x, copied is x, x.to(other).dtype, x.to("cpu") is x,
            x.to("cpu", lib.float32).dtype, x.to(dtype=lib.int16, non_blocking=True)]


@scenario
def copy_broadcast_and_errors(lib):
    x = lib.zeros(3, 4)
    x.copy_(lib.arange(4.0))
    y = lib.zeros(2, 2)
    try:
        y.copy_(lib.ones(3))
    except RuntimeError as e:
        return x, str(e)


@scenario
def copy_casts_and_transposes(lib):
    x = lib.zeros(3, 4, dtype=lib.int32)
    x.copy_(grid(lib, 4, 3).t() * 1.7)
    z = lib.zeros(2, 2, dtype=lib.complex64)
    z.copy_(lib.tensor([[1.0, 2.0], [3.0, 4.0]]))
    b = lib.zeros(3, dtype=lib.bool)
    b.copy_(lib.tensor([0.0, 0.5, -2.0]))
    return x, z, b


@scenario
def copy_many_to_one(lib):
    x = lib.zeros(5, 6)
    try:
        x.expand(3, 5, 6).copy_(lib.ones(3, 5, 6))
    except RuntimeError as e:
        return str(e)


@scenario
def clone_preserves_layout(lib):
    x = grid(lib, 2, 3, 4).permute(2, 0, 1)
    y = grid(lib, 4, 6)[:, ::2]
    return [layout(x.clone()), layout(y.clone()),
            layout(x.clone(memory_format=lib.contiguous_format)),
            layout(grid(lib, 2, 3, 4, 5).clone(memory_format=lib.channels_last))]


@scenario
def contiguous_returns_self(lib):
    x = grid(lib, 3, 4)
    t = x.t()
    return [x.contiguous() is x, layout(t.contiguous()), t.contiguous() is t]


@scenario
def memory_format_channels_last(lib):
    x = grid(lib, 2, 3, 4, 5)
    cl = x.contiguous(memory_format=lib.channels_last)
    cl3 = grid(lib, 2, 3, 4, 5, 6).contiguous(memory_format=lib.channels_last_3d)
    return [cl.stride(), cl.is_contiguous(), cl.is_contiguous(memory_format=lib.channels_last),
            x.is_contiguous(memory_format=lib.channels_last), cl3.stride(),
            cl3.is_contiguous(memory_format=lib.channels_last_3d), cl, cl3.sum()]


@scenario
def memory_format_preserved_by_ops(lib):
    x = grid(lib, 2, 3, 4, 5).contiguous(memory_format=lib.channels_last)
    return [(x + 1).stride(), (x * x).stride(), x.abs().stride(), lib.empty_like(x).stride(),
            lib.zeros_like(x).stride(), x.clone().stride(), x.to(lib.float32).stride()]


@scenario
def memory_format_empty_and_to(lib):
    e = lib.empty(2, 3, 4, 5, memory_format=lib.channels_last)
    x = grid(lib, 2, 3, 4, 5).to(memory_format=lib.channels_last)
    return [e.stride(), x.stride(), x.contiguous().stride(),
            lib.empty_like(x, memory_format=lib.contiguous_format).stride()]


@scenario
def memory_format_errors(lib):
    out = []
    for call in (lambda: lib.empty(2, 3, memory_format=lib.channels_last),
                 lambda: grid(lib, 2, 3).contiguous(memory_format=lib.channels_last),
                 lambda: lib.empty(2, 3, 4, 5, memory_format=lib.channels_last_3d)):
        try:
            call()
        except RuntimeError as e:
            out.append(str(e))
    return out


@scenario
def channels_last_ambiguous_strides(lib):
    x = lib.empty(4, 1, 1, 1)
    y = lib.empty(1, 3, 1, 1).contiguous(memory_format=lib.channels_last)
    z = lib.empty(2, 3, 1, 1)
    return [x.is_contiguous(memory_format=lib.channels_last), y.is_contiguous(),
            y.stride(), z.is_contiguous(memory_format=lib.channels_last)]


@scenario
def set_shares_storage(lib):
    a = grid(lib, 2, 3)
    b = lib.empty(0, dtype=lib.float64)
    b.set_(a)
    b[0, 0] = 100
    c = lib.empty(0, dtype=lib.float64).set_(a.untyped_storage(), 1, (2, 2), (1, 2))
    return [a, b.shape, b.is_set_to(a), a.is_set_to(b), c, c.stride(), c.storage_offset(),
            lib.empty(0, dtype=lib.float64).set_().shape]


@scenario
def is_set_to_rules(lib):
    a = grid(lib, 2, 3)
    return [a.is_set_to(a), a.is_set_to(a.view(6)), a.is_set_to(a.clone()),
            a.t().is_set_to(a), a.view(2, 3).is_set_to(a), lib.empty(0).is_set_to(lib.empty(0))]


@scenario
def set_errors(lib):
    a = grid(lib, 2, 3)
    out = []
    for call in (lambda: a.set_(lib.zeros(2, dtype=lib.int32)),
                 lambda: lib.empty(0, dtype=lib.float64).set_(a.untyped_storage(), 2, (2,), (3,))):
        try:
            call()
            out.append("ok")
        except RuntimeError as e:
            out.append(str(e))
    return out


@scenario
def resize_grows_and_shrinks(lib):
    x = grid(lib, 2, 3)
    x.resize_(3, 2)
    kept = x.clone()
    x.resize_(2)
    small = x.clone()
    x.resize_(2, 2)
    y = grid(lib, 2, 3)
    y.resize_as_(lib.empty(3, 2))
    return [kept, small, x.shape, x.stride(), y, y.shape]


@scenario
def resize_errors(lib):
    out = []
    for call in (lambda: lib.zeros(2, 3).expand(4, 2, 3).resize_(4, 2, 4),
                 lambda: lib.zeros(2, requires_grad=True).resize_(3)):
        try:
            call()
            out.append("ok")
        except RuntimeError as e:
            out.append(str(e))
    return out


@scenario
def resize_memory_format(lib):
    x = lib.empty(2, 3, 4, 5)
    x.resize_(3, 4, 5, 6, memory_format=lib.channels_last)
    return [x.shape, x.stride()]


@scenario
def storage_shared_through_views(lib):
    a = grid(lib, 3, 4)
    v = a[1:, ::2]
    s, sv = a.untyped_storage(), v.untyped_storage()
    return [s.data_ptr() == sv.data_ptr(), v.data_ptr() - a.data_ptr(), s.nbytes(),
            len(s), v.storage_offset(), a.t().data_ptr() == a.data_ptr(),
            a.clone().data_ptr() == a.data_ptr()]


@scenario
def new_constructors(lib):
    x = lib.zeros(2, dtype=lib.int32)
    made = [x.new_zeros(2, 3), x.new_ones((2,)), x.new_full((2, 2), 7),
            x.new_empty(3, dtype=lib.float64).shape, x.new_tensor([1.5, 2.5]),
            x.new_tensor([1, 2], dtype=lib.float32), x.new_empty_strided((2, 3), (1, 2)).stride(),
            x.new_ones(2, requires_grad=False).requires_grad, x.new_full((1,), 2.5)]
    return [m if isinstance(m, (tuple, bool)) else (m.dtype, m) for m in made]


@scenario
def new_legacy(lib):
    x = lib.zeros(2, dtype=lib.float64)
    return [x.new().shape, x.new().dtype, x.new(2, 3).shape, x.new([1, 2]).dtype,
            x.new((2, 3)).tolist(), x.new(lib.Size([3])).shape]


@scenario
def new_grad_flags(lib):
    x = lib.zeros(2, requires_grad=True)
    return [x.new_zeros(2).requires_grad, x.new_tensor([1.0]).requires_grad,
            x.new_zeros(2, requires_grad=True).requires_grad, x.new_ones(2).is_leaf]


@scenario
def narrow_and_errors(lib):
    x = grid(lib, 3, 4)
    out = [x.narrow(0, 1, 2), x.narrow(1, -2, 2), x.narrow(1, lib.tensor(1), 2)]
    for call in (lambda: x.narrow(0, 2, 2), lambda: x.narrow(2, 0, 1),
                 lambda: x.narrow(0, 0, -1), lambda: lib.tensor(1.0).narrow(0, 0, 1),
                 lambda: x.narrow(0, lib.tensor([1, 2]), 1), lambda: x.narrow(0, -4, 1)):
        try:
            call()
            out.append("ok")
        except (RuntimeError, IndexError) as e:
            out.append((type(e).__name__, str(e)))
    return out


@scenario
def narrow_copy(lib):
    x = grid(lib, 3, 4)
    y = x.narrow_copy(1, 1, 2)
    y[0, 0] = -1
    return y, x, y.is_contiguous()


@scenario
def unfold_shapes_and_errors(lib):
    x = grid(lib, 7)
    out = [layout(x.unfold(0, 3, 2)), x.unfold(0, 3, 2), layout(lib.tensor(5.0).unfold(0, 1, 1)),
           layout(grid(lib, 3, 5).unfold(1, 5, 1))]
    for call in (lambda: x.unfold(0, 8, 1), lambda: x.unfold(0, 2, 0),
                 lambda: x.unfold(1, 2, 1), lambda: lib.tensor(5.0).unfold(0, 2, 1)):
        try:
            call()
            out.append("ok")
        except (RuntimeError, IndexError) as e:
            out.append((type(e).__name__, str(e)))
    return out


@scenario
def unbind_and_split_with_sizes(lib):
    x = grid(lib, 3, 4)
    out = [x.unbind(1), x.split_with_sizes([1, 3], 1), lib.split_with_sizes(x, [2, 1])]
    for call in (lambda: x.split_with_sizes([1, 1]), lambda: x.split_with_sizes([4, -1], 1),
                 lambda: x.unbind(2)):
        try:
            call()
            out.append("ok")
        except (RuntimeError, IndexError) as e:
            out.append((type(e).__name__, str(e)))
    return out


@scenario
def is_same_size(lib):
    return [lib.zeros(2, 3).is_same_size(lib.ones(2, 3)),
            lib.zeros(2, 3).is_same_size(lib.ones(3, 2)),
            lib.zeros(()).is_same_size(lib.ones(1))]


@scenario
def repeat_and_errors(lib):
    x = grid(lib, 2, 3)
    out = [x.repeat(2, 1), x.repeat(1, 2, 2), lib.tensor(3.0).repeat(2, 2),
           x.repeat(0, 1).shape, x.repeat(lib.Size([1, 2]))]
    for call in (lambda: x.repeat(2), lambda: x.repeat(-1, 2)):
        try:
            call()
            out.append("ok")
        except RuntimeError as e:
            out.append(str(e))
    return out


@scenario
def repeat_interleave_forms(lib):
    x = lib.tensor([[1, 2], [3, 4]])
    out = [x.repeat_interleave(2), x.repeat_interleave(3, dim=1),
           x.repeat_interleave(lib.tensor([1, 2]), dim=0),
           lib.repeat_interleave(lib.tensor([2, 0, 1])),
           x.repeat_interleave(lib.tensor([1, 2]), dim=0, output_size=3),
           x.repeat_interleave(lib.tensor(2))]
    for call in (lambda: x.repeat_interleave(lib.tensor([1, 2, 3]), dim=0),
                 lambda: x.repeat_interleave(lib.tensor([-1, 2]), dim=0),
                 lambda: lib.repeat_interleave(lib.tensor([[1, 2]])),
                 lambda: x.repeat_interleave(lib.tensor([1.0, 2.0]), dim=0)):
        try:
            call()
            out.append("ok")
        except RuntimeError as e:
            out.append(str(e))
    return out


@scenario
def tile_forms(lib):
    x = grid(lib, 2, 3)
    return [x.tile((2,)), x.tile((2, 1, 1)), lib.tile(x, (0, 2)).shape, x.tile(()).shape]


@scenario
def expand_errors(lib):
    x = grid(lib, 3, 1)
    out = [layout(x.expand(2, 3, 4)), layout(x.expand(-1, 5)), x.expand_as(lib.empty(3, 2))]
    for call in (lambda: x.expand(4), lambda: x.expand(2, 5), lambda: x.expand(-1, -1, 3)):
        try:
            call()
            out.append("ok")
        except RuntimeError as e:
            out.append(str(e))
    return out


@scenario
def equal_rules(lib):
    a = lib.tensor([1.0, 2.0])
    return [lib.equal(a, a.clone()), lib.equal(a, lib.tensor([1.0, 2.5])),
            lib.equal(a, lib.tensor([1.0, 2.0, 3.0])), lib.equal(a, lib.tensor([1, 2])),
            lib.equal(lib.tensor([float("nan")]), lib.tensor([float("nan")])),
            lib.equal(lib.empty(0), lib.empty(0)), a.equal(a.view(2, 1).squeeze()),
            lib.equal(lib.tensor([True]), lib.tensor([1]))]


@scenario
def allclose_rules(lib):
    inf, nan = float("inf"), float("nan")
    x = lib.tensor([1.0, 2.0, 3.0])
    y = lib.tensor([1.01, 2.01, 3.01])
    i = lib.tensor([inf])
    a, b = lib.tensor([2.0, 3.0, nan]), lib.tensor([2.01, 3.01, nan])
    return [lib.allclose(x, y, rtol=0, atol=0.02), lib.allclose(x, y, rtol=0.01, atol=0.0),
            lib.allclose(x, y), lib.allclose(lib.tensor([0.0]), lib.tensor([1e-8])),
            lib.allclose(a, b, rtol=1e-2), lib.allclose(a, b, rtol=1e-2, equal_nan=True),
            lib.allclose(i, i), lib.allclose(-i, -i), lib.allclose(i, -i),
            lib.allclose(i, lib.tensor([1e20]))]


@scenario
def isclose_dtypes_and_errors(lib):
    inf, nan = float("inf"), float("nan")
    out = [lib.isclose(lib.tensor([1, 2, 3]), lib.tensor([1, 3, 3])),
           lib.isclose(lib.tensor([1.0, nan, inf]), lib.tensor([1.0 + 1e-9, nan, inf])),
           lib.isclose(lib.tensor([1.0, nan]), lib.tensor([1.0, nan]), equal_nan=True),
           lib.isclose(lib.tensor([1 + 1j, nan + 1j]), lib.tensor([1 + 1j, nan + 1j]),
                       equal_nan=True),
           lib.isclose(lib.tensor([True, False]), lib.tensor([True, True])),
           lib.isclose(lib.tensor([10, 20]), lib.tensor([11, 20]), rtol=0.1, atol=0)]
    for call in (lambda: lib.isclose(lib.tensor([1.0]), lib.tensor([1.0]), rtol=-1),
                 lambda: lib.isclose(lib.tensor([1.0]), lib.tensor([1.0]), atol=-1),
                 lambda: lib.isclose(lib.tensor([1.0]), lib.tensor([1], dtype=lib.int64))):
        try:
            call()
            out.append("ok")
        except RuntimeError as e:
            out.append(str(e))
    return out


@scenario
def tolist_and_item(lib):
    x = grid(lib, 2, 2, dtype=lib.int32)
    out = [x.tolist(), lib.tensor(2.5).tolist(), lib.tensor([True]).item(),
           lib.tensor([[3]]).item(), lib.tensor(1 + 2j).item()]
    try:
        x.item()
    except RuntimeError as e:
        out.append(str(e))
    return out


@scenario
def bool_and_index_dunder(lib):
    out = [bool(lib.tensor([3])), int(lib.tensor(3.7)), float(lib.tensor([2])),
           [1, 2, 3][lib.tensor(1)], complex(lib.tensor(2.0))]
    for call in (lambda: bool(lib.tensor([1, 2])), lambda: [1, 2][lib.tensor(1.0)],
                 lambda: bool(lib.tensor([]))):
        try:
            call()
            out.append("ok")
        except (RuntimeError, TypeError) as e:
            out.append((type(e).__name__, str(e)))
    return out


@scenario
def apply_and_map(lib):
    x = grid(lib, 2, 3)
    x.apply_(lambda v: v * 2 + 1)
    y = lib.ones(2, 3)
    y.map_(lib.arange(3.0), lambda a, b: a + b)
    return x, y


@scenario
def dim_size_errors(lib):
    x = grid(lib, 2, 3)
    out = [x.size(-1), x.dim(), x.ndimension(), x.nelement(), x.ndim, lib.numel(x)]
    for call in (lambda: x.size(2), lambda: x.stride(-3), lambda: lib.tensor(1.0).size(0)):
        try:
            call()
        except IndexError as e:
            out.append(str(e))
    return out


@scenario
def fill_and_zero_errors(lib):
    x = lib.zeros(3)
    x.fill_(lib.tensor(2.5))
    out = [x.clone()]
    for call in (lambda: x.fill_(lib.tensor([1.0, 2.0])),
                 lambda: lib.zeros(2, dtype=lib.int32).fill_(1 + 2j)):
        try:
            call()
            out.append("ok")
        except RuntimeError as e:
            out.append(str(e))
    return out


@scenario
def requires_grad_errors(lib):
    out = []
    for call in (lambda: lib.zeros(2, dtype=lib.int64).requires_grad_(),
                 lambda: lib.zeros(2, dtype=lib.int64, requires_grad=True),
                 lambda: (lib.zeros(2, requires_grad=True) * 2).requires_grad_(False)):
        try:
            call()
            out.append("ok")
        except RuntimeError as e:
            out.append(str(e))
    return out


@scenario
def shapes_of_zero_and_one_dim_operands(lib):
    """The shapes PyTorch's scalar checks expect: a 0-d result only where every operand is
    0-d (or a number), and where a reduction over dim 0 drops the one dimension."""
    z, o = lib.tensor(0.5), lib.tensor([0.5])
    zi, oi = lib.tensor(1), lib.tensor([1])
    zb, ob = lib.tensor(True), lib.tensor([True])
    calls = [
        lambda: lib.remainder(z, z), lambda: lib.remainder(z, 2), lambda: lib.fmod(z, o),
        lambda: lib.fmod(o, z), lambda: lib.exp(z), lambda: lib.atanh(o), lambda: z.clamp(0, 1),
        lambda: o.clamp(max=1), lambda: lib.logcumsumexp(z, 0), lambda: lib.cumprod(z, 0),
        lambda: lib.cummax(z, 0)[0], lambda: lib.sort(z, 0)[1], lambda: lib.topk(z, 1)[0],
        lambda: lib.max(o, z), lambda: zi >> zi, lambda: oi << 1, lambda: zi | oi,
        lambda: zi & 1, lambda: lib.masked_select(zb, zb), lambda: lib.masked_select(ob, zb),
        lambda: lib.mode(z, dim=0, keepdim=True)[0], lambda: lib.mode(o, dim=0)[1],
        lambda: lib.max(o, dim=0, keepdim=True)[0], lambda: lib.amax(o, dim=0),
        lambda: lib.amin(z, dim=0, keepdim=True), lambda: lib.min(o, dim=0)[0],
        lambda: lib.randn(2, 3).take(zi), lambda: lib.randn(2, 3).take(oi),
        lambda: lib.gather(z, 0, lib.zeros((), dtype=lib.int64)),
        lambda: lib.gather(o, 0, lib.zeros((1,), dtype=lib.int64)),
        lambda: z.clone().set_(o.untyped_storage(), 0, (), ()),
        lambda: o.clone().set_(z), lambda: lib.normal(z, lib.tensor(1.0)),
        lambda: lib.normal(o, 1.0), lambda: lib.normal(1.0, lib.tensor(1.0))]
    return [tuple(call().shape) for call in calls]


@scenario
def deepcopy_keeps_attributes_and_zero_dim(lib):
    a = lib.tensor(5.0)
    a.foo = [1, 2]
    b = copy.deepcopy(a)
    b.foo.append(3)
    return b.shape, b, b.foo, a.foo


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_scenario(name):
    check(SCENARIOS[name])


def test_device_types_torch_knows_but_gradjit_lacks_are_refused():
    import torch

    import gradjit
    assert torch.device("mps").type == "mps"
    with pytest.raises(RuntimeError, match="gradjit has no mps device"):
        gradjit.device("mps")
