"""torch.channels_last and the other memory formats against torch: strides of contiguous(),
clone(), to(), the *_like factories and empty(), is_contiguous, dim_order, Module.to."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")

DATA = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)


def _both(make):
    return make(gradjit), make(torch)


def _same_layout(got, want):
    assert tuple(got.stride()) == tuple(want.stride())
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5)


@pytest.mark.parametrize("make", [
    lambda t: t.tensor(DATA).contiguous(memory_format=t.channels_last),
    lambda t: t.tensor(DATA).to(memory_format=t.channels_last),
    lambda t: t.tensor(DATA).to(t.float64, memory_format=t.channels_last),
    lambda t: t.tensor(DATA).clone(memory_format=t.channels_last),
    lambda t: t.tensor(DATA).to(memory_format=t.channels_last) + 1,
    lambda t: t.tensor(DATA).to(memory_format=t.channels_last).clone(),
    lambda t: t.tensor(DATA).to(memory_format=t.channels_last).contiguous(),
    lambda t: t.tensor(DATA).to(memory_format=t.channels_last).clone(
        memory_format=t.contiguous_format),
    lambda t: t.tensor(DATA.reshape(2, 3, 4, 5, 1)).contiguous(
        memory_format=t.channels_last_3d),
    lambda t: t.tensor(DATA).contiguous(memory_format=t.preserve_format),
    lambda t: t.zeros_like(t.tensor(DATA).to(memory_format=t.channels_last)),
    lambda t: t.empty_like(t.tensor(DATA).transpose(1, 3)).zero_(),
    lambda t: t.full_like(t.tensor(DATA).to(memory_format=t.channels_last), 2.0,
                          memory_format=t.contiguous_format),
    lambda t: t.ones_like(t.tensor(DATA).to(memory_format=t.channels_last)[:, :, ::2]),
    lambda t: t.empty(2, 3, 4, 5, memory_format=t.channels_last).zero_(),
])
def test_strides_follow_the_memory_format(make):
    _same_layout(*_both(make))


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 1, 4, 5), (2, 3, 1, 1), (2, 3)])
@pytest.mark.parametrize("layout", ["plain", "channels_last"])
def test_is_contiguous_and_dim_order(shape, layout):
    def make(t):
        x = t.tensor(np.ones(shape, np.float32))
        return x.contiguous(memory_format=t.channels_last) if layout != "plain" and \
            len(shape) == 4 else x
    got, want = _both(make)
    for name in ("contiguous_format", "channels_last", "preserve_format"):
        assert got.is_contiguous(memory_format=getattr(gradjit, name)) == \
            want.is_contiguous(memory_format=getattr(torch, name))
    assert got.dim_order() == want.dim_order()


def test_gradient_through_a_relayout():
    out = {}
    for t in (gradjit, torch):
        x = t.tensor(DATA, requires_grad=True)
        y = x.to(memory_format=t.channels_last)
        (y * t.arange(120.0).reshape(2, 3, 4, 5)).sum().backward()
        out[t] = y.grad_fn.name(), x.grad.numpy()
    assert out[gradjit][0] == out[torch][0]
    np.testing.assert_array_equal(out[gradjit][1], out[torch][1])


def test_module_to_lays_out_only_4d_weights():
    def convert(t):
        t.manual_seed(0)
        return t.nn.Conv2d(3, 4, 3).to(memory_format=t.channels_last)
    got, want = _both(convert)
    _same_layout(got.weight, want.weight)
    _same_layout(got.bias, want.bias)


@pytest.mark.parametrize("make", [
    lambda t: t.ones(2, 3).contiguous(memory_format=t.channels_last),
    lambda t: t.ones(2, 3).clone(memory_format=t.channels_last),
    lambda t: t.empty(2, 3, memory_format=t.channels_last),
    lambda t: t.ones(2, 3, 4, 5).to(memory_format=t.channels_last_3d),
])
def test_a_format_of_another_rank_is_refused(make):
    same_error(lambda: make(gradjit), lambda: make(torch))


def test_formats_print_as_torch_names():
    for name in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
        assert repr(getattr(gradjit, name)) == repr(getattr(torch, name))
        assert isinstance(getattr(gradjit, name), gradjit.memory_format)


@pytest.mark.parametrize("check", [False, True, "channels_last", "both", "text", "number"])
@pytest.mark.parametrize("make", [lambda t: t.zeros(1, 2, 3, 4), lambda t: t.zeros(2, 3, 4, 5),
                                  lambda t: t.zeros(2, 3, 4, 5).to(memory_format=t.channels_last),
                                  lambda t: t.zeros(2, 3, 4, 5).transpose(1, 2)])
def test_dim_order_ambiguity_check(check, make):
    def order(t):
        argument = {"channels_last": [t.channels_last],
                    "both": [t.contiguous_format, t.channels_last],
                    "text": "ILLEGAL", "number": [1]}.get(check, check)
        return make(t).dim_order(ambiguity_check=argument)
    try:
        want = order(torch)
    except Exception:  # noqa: BLE001 - the same refusal is what gradjit must give
        same_error(lambda: order(gradjit), lambda: order(torch))
        return
    assert order(gradjit) == want
