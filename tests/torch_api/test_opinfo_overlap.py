"""Shared memory against torch: out= tensors that share memory with an input or within
themselves, and in-place writes into expanded tensors, refused with torch's errors where torch
refuses them; as_strided over a view's storage and with overlapping strides. op_db's inputs
that alias one storage are replayed with their memory shared."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402


def aliased(value, storages):
    """A torch sample's value in gradjit, tensors that share torch storage sharing memory, laid
    out with torch's strides."""
    if isinstance(value, torch.Tensor):
        storage = value.untyped_storage()
        key = (storage.data_ptr(), value.dtype)
        if key not in storages:
            whole = torch.tensor([], dtype=value.dtype).set_(storage)
            storages[key] = whole.numpy().copy()
        base = storages[key]
        size = base.itemsize
        view = np.ndarray(tuple(value.shape), base.dtype, buffer=base,
                          offset=value.storage_offset() * size,
                          strides=tuple(s * size for s in value.stride()))
        return gradjit.from_numpy(view).requires_grad_(value.requires_grad)
    if isinstance(value, (list, tuple)):
        return type(value)(aliased(v, storages) for v in value)
    if isinstance(value, dict):
        return {k: aliased(v, storages) for k, v in value.items()}
    return value


def _overlap_inputs():
    for op in op_db:
        if op.name in ("masked_select", "gather", "index_select", "take", "cat"):
            for index, error in enumerate(op.error_inputs("cpu")):
                if "unsupported operation" in error.error_regex:
                    yield pytest.param(op, error.sample_input, id=f"{op.name}-{index}")


@pytest.mark.parametrize("op, sample", _overlap_inputs())
def test_op_db_overlap_error_inputs_raise_torch_errors(op, sample):
    storages = {}
    args = aliased((sample.input, *sample.args), storages)
    kwargs = aliased(sample.kwargs, storages)
    same_error(lambda: getattr(gradjit, op.name)(*args, **kwargs),
               lambda: op.op(sample.input, *sample.args, **sample.kwargs))


def _views(lib):
    """A storage of 20 and (4, 4) views of it: a, one sharing part of a's memory, a itself
    seen again."""
    storage = lib.arange(20.0)
    return storage[:16].view(4, 4), storage[2:18].view(4, 4), storage[:16].view(4, 4)


_OUT_OPS = {
    "add": lambda t, a, o: t.add(a, 1, out=o),
    "mul": lambda t, a, o: t.mul(a, a, out=o),
    "exp": lambda t, a, o: t.exp(a, out=o),
    "atan2": lambda t, a, o: t.atan2(a, a, out=o),
    "clamp": lambda t, a, o: t.clamp(a, 2, 9, out=o),
    "cumsum": lambda t, a, o: t.cumsum(a, 1, out=o),
    "sort": lambda t, a, o: t.sort(a, 1, out=(o, t.empty(4, 4, dtype=t.int64))),
    "max": lambda t, a, o: t.max(a, 1, out=(o[0], t.empty(4, dtype=t.int64))),
    "sum": lambda t, a, o: t.sum(a, 1, out=o[0]),
    "mm": lambda t, a, o: t.mm(a, a, out=o),
    "gather": lambda t, a, o: t.gather(a, 0, t.zeros(4, 4, dtype=t.int64), out=o),
    "index_select": lambda t, a, o: t.index_select(a, 0, t.tensor([3, 0, 1, 2]), out=o),
    "take": lambda t, a, o: t.take(a, t.arange(16).reshape(4, 4), out=o),
    "cat": lambda t, a, o: t.cat([a[:2], a[2:]], out=o),
    "stack": lambda t, a, o: t.stack([a[0], a[1], a[2], a[3]], out=o),
    "vstack": lambda t, a, o: t.vstack([a[:2], a[2:]], out=o),
}


def _outcome(call):
    try:
        value = call()
    except RuntimeError as error:
        return str(error)
    return np.asarray(value[0] if isinstance(value, tuple) else value)


# kernels that check no overlap: what they write where out= meets an input depends on the
# order they write in, so only their accepting the call is compared
_UNCHECKED = {"sum", "mm"}


@pytest.mark.parametrize("which", ["partial", "full"])
@pytest.mark.parametrize("name", _OUT_OPS)
def test_out_sharing_an_inputs_memory_as_torch(name, which):
    """Elementwise kernels refuse a partial overlap and write into the input itself; gather,
    cat and their kin refuse both; reductions and matrix products check neither."""
    def run(lib):
        a, partial, same = _views(lib)
        return _outcome(lambda: _OUT_OPS[name](lib, a, partial if which == "partial" else same))
    expected, actual = run(torch), run(gradjit)
    if isinstance(expected, str):
        assert actual == expected
    else:
        assert not isinstance(actual, str), actual
        if name not in _UNCHECKED:
            np.testing.assert_allclose(actual, expected, rtol=1e-6)


@pytest.mark.parametrize("name", ["add", "exp", "mm", "gather", "cat"])
def test_out_whose_elements_share_memory_is_refused(name):
    same_error(lambda: _OUT_OPS[name](gradjit, gradjit.rand(4, 4), gradjit.rand(1, 4).expand(4, 4)),
               lambda: _OUT_OPS[name](torch, torch.rand(4, 4), torch.rand(1, 4).expand(4, 4)))


def test_a_strided_out_is_too_hard_to_tell_so_torch_lets_it_be():
    """torch checks only dense tensors: a partial overlap through every other element passes."""
    for lib in (torch, gradjit):
        a = lib.arange(20.0)
        lib.add(a[:10], 1, out=a[1::2])


_IN_PLACE = {
    "add_": lambda t, x: x.add_(1),
    "copy_": lambda t, x: x.copy_(t.ones(3, 3)),
    "copy_itself": lambda t, x: x.copy_(x),
    "fill_": lambda t, x: x.fill_(2),
    "masked_fill_": lambda t, x: x.masked_fill_(t.ones(3, 3, dtype=t.bool), 1.0),
    "index_fill_": lambda t, x: x.index_fill_(0, t.tensor([0]), 1.0),
    "index_put_": lambda t, x: x.index_put_((t.tensor([0]),), t.tensor(1.0)),
    "index_put_accumulate": lambda t, x: x.index_put_((t.tensor([0]),), t.tensor(1.0),
                                                      accumulate=True),
    "setitem_row": lambda t, x: x.__setitem__(0, 1.0),
    "setitem_column": lambda t, x: x.__setitem__((slice(None), 0), 1.0),
    "setitem_all": lambda t, x: x.__setitem__(Ellipsis, t.ones(3, 3)),
    "setitem_corner": lambda t, x: x.__setitem__((slice(1, None), slice(1, None)), 1.0),
    "setitem_rows": lambda t, x: x.__setitem__([0, 1], 1.0),
    "setitem_mask": lambda t, x: x.__setitem__(t.ones(3, 3, dtype=t.bool), 1.0),
}


@pytest.mark.parametrize("name", _IN_PLACE)
def test_in_place_writes_into_an_expanded_tensor_as_torch(name):
    """torch refuses where the written elements share memory, except for the fills and the
    index writes, whose kernels write them all."""
    expected, actual = (_outcome(lambda: _IN_PLACE[name](lib, lib.arange(3.0).expand(3, 3)))
                        for lib in (torch, gradjit))
    if isinstance(expected, str):
        assert actual == expected
    else:
        assert not isinstance(actual, str), actual


def test_as_strided_partial_views_read_the_whole_storage():
    """op_db's as_strided.partial_views samples, their input a view into a larger storage,
    replayed with that storage: values and gradients as torch's."""
    op = next(o for o in op_db if o.name == "as_strided" and o.variant_test_name)
    for sample in op.sample_inputs("cpu", torch.float64, requires_grad=True):
        view = aliased(sample.input, {})
        try:
            expected = op.op(sample.input, *sample.args, **sample.kwargs)
        except RuntimeError:
            same_error(lambda: view.as_strided(*sample.args, **sample.kwargs),
                       lambda: op.op(sample.input, *sample.args, **sample.kwargs))
            continue
        actual = view.as_strided(*sample.args, **sample.kwargs)
        np.testing.assert_array_equal(actual.detach().numpy(), expected.detach().numpy())
        weights = np.linspace(0.5, 1.5, 4).reshape(2, 2)
        t_grad, = torch.autograd.grad((expected * torch.tensor(weights)).sum(), sample.input)
        g_grad, = gradjit.autograd.grad((actual * gradjit.tensor(weights)).sum(), view)
        np.testing.assert_allclose(g_grad.numpy(), t_grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("make, size, stride, offset", [
    (lambda b: b[4:20], (3, 3), (1, 1), None),
    (lambda b: b[4:20], (3, 3), (1, 1), 0),
    (lambda b: b.view(4, 6).t(), (3, 3), (2, 1), 1),
    (lambda b: b[:4].view(1, 4).expand(3, 4), (2, 3), (1, 1), None),
    (lambda b: b.view(4, 6), (4, 4), (1, 1), 0),
    (lambda b: b.view(4, 6), (3, 2), (0, 1), 2),
    (lambda b: b[::2], (3, 3), (1, 2), 0),
    (lambda b: (b * 2)[3:], (2, 5), (3, 1), 1),
], ids=["view", "view-from-0", "transposed", "expanded", "overlapping", "stride-0", "stepped",
        "computed"])
def test_as_strided_with_overlapping_strides_sums_its_gradient_into_the_storage(
        make, size, stride, offset):
    """Positions read more than once give the sum of their cotangents, positions of the
    storage outside the input none, as torch's backward through the storage does."""
    def run(lib):
        base = lib.tensor(np.arange(1.0, 25.0), requires_grad=True)
        out = make(base).as_strided(size, stride, offset)
        weights = lib.tensor(np.linspace(0.5, 1.5, int(np.prod(size))).reshape(size))
        (out * weights).sum().backward()
        return out.detach().numpy(), base.grad.numpy()
    (t_out, t_grad), (g_out, g_grad) = run(torch), run(gradjit)
    np.testing.assert_array_equal(g_out, t_out)
    np.testing.assert_allclose(g_grad, t_grad, rtol=1e-12)
