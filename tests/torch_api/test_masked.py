"""torch.masked against torch: the masked reductions and normalizations (values, gradients,
errors) and MaskedTensor (reprs, elementwise ops, reductions, gradients, errors)."""
import math
import warnings

import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error, weighted_gradients

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore:The PyTorch API of MaskedTensors")

RNG = np.random.default_rng(0)
DATA = RNG.standard_normal((3, 4))
# the middle row is masked out entirely
MASK = np.array([[True, False, True, True], [False] * 4, [True, True, False, True]])
ROW_MASK = np.array([True, False, True, True])  # broadcast against DATA

CALLS = {
    "sum": lambda t, x, m: t.masked.sum(x, 1, mask=m),
    "sum_all": lambda t, x, m: t.masked.sum(x, mask=m),
    "sum_keepdim": lambda t, x, m: t.masked.sum(x, (0, 1), keepdim=True, mask=m),
    "prod": lambda t, x, m: t.masked.prod(x, 1, mask=m),
    "prod_dims": lambda t, x, m: t.masked.prod(x, (1, 0), mask=m),
    "amax": lambda t, x, m: t.masked.amax(x, 1, mask=m),
    "amin": lambda t, x, m: t.masked.amin(x, 0, keepdim=True, mask=m),
    "mean": lambda t, x, m: t.masked.mean(x, 1, mask=m),
    "mean_all": lambda t, x, m: t.masked.mean(x, mask=m),
    "median": lambda t, x, m: t.masked.median(x, 1, mask=m),
    "norm": lambda t, x, m: t.masked.norm(x, 2.0, 1, mask=m),
    "norm_inf": lambda t, x, m: t.masked.norm(x, -math.inf, 0, mask=m),
    "norm_1": lambda t, x, m: t.masked.norm(x, 1, None, mask=m),
    "var": lambda t, x, m: t.masked.var(x, 1, mask=m),
    "var_biased": lambda t, x, m: t.masked.var(x, 0, False, keepdim=True, mask=m),
    "std": lambda t, x, m: t.masked.std(x, 1, correction=0, mask=m),
    "std_all": lambda t, x, m: t.masked.std(x, mask=m),
    "logsumexp": lambda t, x, m: t.masked.logsumexp(x, 1, mask=m),
    "softmax": lambda t, x, m: t.masked.softmax(x, 1, mask=m),
    "log_softmax": lambda t, x, m: t.masked.log_softmax(x, 0, mask=m),
    "softmin": lambda t, x, m: t.masked.softmin(x, -1, mask=m),
    "normalize": lambda t, x, m: t.masked.normalize(x, 2.0, 1, mask=m),
    "cumsum": lambda t, x, m: t.masked.cumsum(x, 1, mask=m),
    "cumprod": lambda t, x, m: t.masked.cumprod(x, 0, mask=m),
    "logaddexp": lambda t, x, m: t.masked.logaddexp(x, x.flip(0), input_mask=m,
                                                    other_mask=m.flip(0)),
    "sum_no_mask": lambda t, x, m: t.masked.sum(x, 0),
    "var_no_mask": lambda t, x, m: t.masked.var(x, 1),
}


def _values(t, call, mask):
    return weighted_gradients(t, lambda lib, x: call(lib, x, lib.tensor(mask)), [DATA],
                              np.float64)


@pytest.mark.parametrize("mask", [MASK, ROW_MASK], ids=["full", "broadcast"])
@pytest.mark.parametrize("name", CALLS)
def test_masked_function_values_and_gradients(name, mask):
    got, got_grads = _values(gradjit, CALLS[name], mask)
    want, want_grads = _values(torch, CALLS[name], mask)
    assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(got_grads[0].numpy(), want_grads[0].numpy(), rtol=1e-10,
                               atol=1e-12)


INTEGER_CALLS = {
    "sum": lambda t, x, m: t.masked.sum(x, 1, mask=m),
    "prod": lambda t, x, m: t.masked.prod(x, mask=m),
    "amax": lambda t, x, m: t.masked.amax(x, 1, mask=m),
    "argmin": lambda t, x, m: t.masked.argmin(x, 1, mask=m),
    "argmax": lambda t, x, m: t.masked.argmax(x, 0, keepdim=True, mask=m),
    "var": lambda t, x, m: t.masked.var(x, 1, mask=m),
    "cumsum": lambda t, x, m: t.masked.cumsum(x, 1, dtype=t.float64, mask=m),
    "mean_dtype": lambda t, x, m: t.masked.mean(x, 1, dtype=t.float32, mask=m),
}


@pytest.mark.parametrize("name", INTEGER_CALLS)
def test_masked_function_on_integers(name):
    data, mask = RNG.integers(-5, 5, (3, 4)).astype(np.int32), MASK.copy()
    mask[1, 0] = True  # argmax of a masked-out row depends on the kernel's tie order
    got = INTEGER_CALLS[name](gradjit, gradjit.tensor(data), gradjit.tensor(mask))
    want = INTEGER_CALLS[name](torch, torch.tensor(data), torch.tensor(mask))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_allclose(got.numpy(), want.numpy())


ERRORS = {
    "repeated_dim": lambda t: t.masked.sum(t.ones(2, 2), (0, 0), mask=t.ones(2, 2).bool()),
    "dim_out_of_range": lambda t: t.masked.amax(t.ones(2, 2), 2, mask=t.ones(2).bool()),
    "mask_of_more_dims": lambda t: t.masked.sum(t.ones(2), 0, mask=t.ones(1, 2).bool()),
    "mean_of_integers": lambda t: t.masked.mean(t.ones(2, dtype=t.int64)),
    "mean_to_integers": lambda t: t.masked.mean(t.ones(2), dtype=t.int32),
    "median_of_masked_integers": lambda t: t.masked.median(
        t.ones(2, 2, dtype=t.int64), 1, mask=t.tensor([[True, True], [False, False]])),
    "unbiased_and_correction": lambda t: t.masked.var(t.ones(3), 0, True, correction=1),
    "norm_inf_of_integers": lambda t: t.masked.norm(
        t.ones(3, dtype=t.int64), -math.inf, 0, mask=t.ones(3).bool()),
    "amax_of_bool": lambda t: t.masked.amax(t.ones(3).bool(), mask=t.ones(3).bool()),
}


@pytest.mark.parametrize("name", ERRORS)
def test_masked_function_errors(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


def _pair(data, mask, **kwargs):
    return {t: t.masked.masked_tensor(t.tensor(data), t.tensor(mask), **kwargs)
            for t in (gradjit, torch)}


FLOATS = (np.arange(12, dtype=np.float32).reshape(3, 4) - 3.5) / 2


@pytest.mark.parametrize("data, mask", [
    (FLOATS, MASK), (np.arange(5), np.array([True, False, True, True, False])),
    (np.float32(2.5), np.bool_(True)), (np.float32(2.5), np.bool_(False)), (np.int64(7), True),
    (FLOATS[None] * 100, MASK[None]),
])
def test_masked_tensor_repr(data, mask):
    pair = _pair(data, mask)
    assert repr(pair[gradjit]) == repr(pair[torch])
    assert str(pair[gradjit]) == str(pair[torch])


MT_CALLS = {
    "exp": lambda t, a, b: a.exp(), "torch_sin": lambda t, a, b: t.sin(a),
    "neg": lambda t, a, b: -a, "pow": lambda t, a, b: a ** 2, "abs": lambda t, a, b: abs(a),
    "add": lambda t, a, b: a + b, "radd": lambda t, a, b: 1.5 + a, "mul": lambda t, a, b: a * b,
    "div_tensor": lambda t, a, b: a / b.get_data(), "torch_add": lambda t, a, b: t.add(a, b),
    "lt": lambda t, a, b: a < b, "eq": lambda t, a, b: a == 0.5, "rdiv": lambda t, a, b: 2 / a,
    "maximum": lambda t, a, b: t.maximum(a, b),
    "sum": lambda t, a, b: a.sum(), "sum_dim": lambda t, a, b: a.sum(1),
    "torch_sum": lambda t, a, b: t.sum(a, 0, keepdim=True), "mean": lambda t, a, b: a.mean(),
    "mean_dim": lambda t, a, b: a.mean(1), "amax": lambda t, a, b: a.amax(0),
    "argmin": lambda t, a, b: a.argmin(1), "prod": lambda t, a, b: a.prod(1),
    "var": lambda t, a, b: a.var(1), "std": lambda t, a, b: a.std(),
    "all": lambda t, a, b: (a > 0).all(1),
    "clamp": lambda t, a, b: a.clamp(min=0),
    "softmax": lambda t, a, b: a.softmax(-1), "torch_softmax": lambda t, a, b: t.softmax(a, 0),
    "index": lambda t, a, b: a[1:], "select": lambda t, a, b: a[2], "t": lambda t, a, b: a.t(),
    "transpose": lambda t, a, b: a.transpose(0, 1), "view": lambda t, a, b: a.view(4, 3),
    "unsqueeze": lambda t, a, b: a.unsqueeze(0), "clone": lambda t, a, b: a.clone(),
}


@pytest.mark.parametrize("name", MT_CALLS)
def test_masked_tensor_ops(name):
    mask = MASK.copy()
    mask[1, 1] = True  # a row masked out entirely makes the mean of the row NaN in both
    data = _pair(FLOATS, mask)
    other = _pair(FLOATS[::-1].copy() + 3, mask)
    got = MT_CALLS[name](gradjit, data[gradjit], other[gradjit])
    want = MT_CALLS[name](torch, data[torch], other[torch])
    assert repr(got) == repr(want)
    np.testing.assert_array_equal(got.get_mask().numpy(), want.get_mask().numpy())
    np.testing.assert_allclose(got.to_tensor(0).detach().numpy(),
                               want.to_tensor(0).detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("reduce", [lambda a: a.sum(), lambda a: (a * a).sum(1).sum(),
                                    lambda a: a.exp().mean(), lambda a: (a.softmax(1) * 2).sum()])
def test_masked_tensor_gradient(reduce):
    grads = {}
    for t, mt in _pair(FLOATS, MASK, requires_grad=True).items():
        reduce(mt).backward()
        grads[t] = mt.grad
    assert repr(grads[gradjit]) == repr(grads[torch])


def test_as_masked_tensor_gradient_reaches_the_data():
    grads = {}
    for t in (gradjit, torch):
        x = t.tensor(FLOATS, requires_grad=True)
        t.masked.as_masked_tensor(x, t.tensor(MASK)).exp().sum().backward()
        grads[t] = x.grad if t is gradjit else x.grad.to_tensor(0)
    np.testing.assert_allclose(grads[gradjit].numpy() * MASK, grads[torch].numpy() * MASK,
                               rtol=1e-6)


@pytest.mark.parametrize("call", [lambda a, b: a.exp_(), lambda a, b: a.add_(b),
                                  lambda a, b: a.mul_(2.5), lambda a, b: a.clamp_(0, 1)])
def test_masked_tensor_in_place(call):
    results = {}
    for t in (gradjit, torch):
        a, b = (t.masked.masked_tensor(t.tensor(x), t.tensor(MASK))
                for x in (FLOATS, FLOATS[::-1].copy()))
        data = a.get_data()
        assert call(a, b) is a
        results[t] = repr(a), a.to_tensor(0).numpy(), data.numpy()
    assert results[gradjit][0] == results[torch][0]
    for got, want in zip(results[gradjit][1:], results[torch][1:]):  # the data changed too
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_masked_tensor_warns_as_torch():
    for t in (gradjit, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t.masked.masked_tensor(t.ones(2, requires_grad=True), t.ones(2).bool())
        assert [str(w.message)[:40] for w in caught] == [
            "The PyTorch API of MaskedTensors is in p", "It is not recommended to create a Masked"]


MT_ERRORS = {
    "in_place_masks_differ": lambda t: t.masked.masked_tensor(t.ones(2), t.tensor(
        [True, False])).sub_(t.masked.masked_tensor(t.ones(2), t.tensor([False, True]))),
    "rsub": lambda t: 1.5 - t.masked.masked_tensor(t.ones(2), t.ones(2).bool()),
    "data_not_tensor": lambda t: t.masked.masked_tensor([1.0], t.ones(1).bool()),
    "mask_not_tensor": lambda t: t.masked.masked_tensor(t.ones(1), [True]),
    "mask_not_bool": lambda t: t.masked.masked_tensor(t.ones(2), t.ones(2)),
    "shapes_differ": lambda t: t.masked.masked_tensor(t.ones(2), t.ones(3).bool()),
    "dims_differ": lambda t: t.masked.masked_tensor(t.ones(2), t.ones(1, 2).bool()),
    "dtype": lambda t: t.masked.masked_tensor(t.ones(2, dtype=t.uint8), t.ones(2).bool()),
    "masks_differ": lambda t: t.masked.masked_tensor(t.ones(2), t.tensor([True, False])) +
    t.masked.masked_tensor(t.ones(2), t.tensor([False, True])),
    "unary_tensor_argument": lambda t: t.masked.masked_tensor(
        t.ones(2), t.ones(2).bool()).pow(t.ones(2)),
}


@pytest.mark.parametrize("name", MT_ERRORS)
def test_masked_tensor_errors(name):
    same_error(lambda: MT_ERRORS[name](gradjit), lambda: MT_ERRORS[name](torch))


def test_is_masked_tensor():
    for t in (gradjit, torch):
        mt = t.masked.masked_tensor(t.ones(2), t.ones(2).bool())
        assert t.masked.is_masked_tensor(mt) and not t.masked.is_masked_tensor(t.ones(2))
        assert tuple(mt.shape) == (2,) and mt.dim() == 1 and str(mt.dtype).endswith("float32")


def test_masked_tensor_cuts_the_history_of_its_data():
    for t in (gradjit, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mt = t.masked.masked_tensor(t.ones(2, requires_grad=True), t.ones(2).bool())
        assert not mt.requires_grad and not mt.sum().requires_grad


@pytest.mark.parametrize("call", [
    lambda t, mt, m: t.masked.sum(mt, 1), lambda t, mt, m: t.masked.amax(mt),
    lambda t, mt, m: t.masked.mean(mt), lambda t, mt, m: t.masked.mean(mt, 1, mask=m),
    lambda t, mt, m: t.masked.var(mt, 1), lambda t, mt, m: t.masked.std(mt, 0, mask=m),
    lambda t, mt, m: t.masked.softmax(mt, 1), lambda t, mt, m: t.masked.sum(mt, 0, mask=~m),
])
def test_masked_functions_of_a_masked_tensor(call):
    """A MaskedTensor's own mask decides its sums; the count of a mean or variance is the
    mask given (all elements without one), as torch computes them."""
    mask = np.array([[True, False, True, True], [True, True, False, True], [False] * 4])
    results = []
    for t in (gradjit, torch):
        mt = t.masked.masked_tensor(t.tensor(FLOATS), t.tensor(mask))
        results.append(call(t, mt, t.tensor(MASK)).numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)
