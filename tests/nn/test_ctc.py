"""F.ctc_loss and nn.CTCLoss against PyTorch: values, gradients, grad_fn names and errors."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error, weighted_gradients

torch = pytest.importorskip("torch")

T, N, C = 7, 3, 5


def _inputs(seed=0, dtype=np.float32, logits=False):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T, N, C)).astype(dtype)
    targets = rng.integers(1, C, (N, 4))
    targets[0, 1] = targets[0, 0]  # a repeated label needs a blank between its copies
    return x, targets


def _compare(fn, x, rtol=1e-5, atol=1e-6):
    g_out, g_grads = weighted_gradients(gradjit, lambda t, a: fn(t, a), [x], x.dtype)
    t_out, t_grads = weighted_gradients(torch, lambda t, a: fn(t, a), [x], x.dtype)
    np.testing.assert_allclose(np.asarray(g_out.detach()), t_out.detach().numpy(), rtol, atol)
    np.testing.assert_allclose(np.asarray(g_grads[0]), t_grads[0].numpy(), rtol, atol)
    assert type(g_out.grad_fn).__name__ == type(t_out.grad_fn).__name__
    return g_out


def _lengths(t, values, as_tensor):
    return t.tensor(values) if as_tensor else tuple(values)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("as_tensor", [False, True])
def test_padded_targets_match_torch(reduction, zero_infinity, as_tensor):
    x, targets = _inputs()

    def fn(t, a):
        return t.nn.functional.ctc_loss(a.log_softmax(-1), t.tensor(targets),
                                        _lengths(t, [7, 5, 4], as_tensor),
                                        _lengths(t, [4, 2, 0], as_tensor),
                                        reduction=reduction, zero_infinity=zero_infinity)
    _compare(fn, x)


@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_gradient_with_respect_to_log_probs_themselves(reduction):
    """Not through log_softmax: PyTorch's gradient then keeps its exp(log_probs) term."""
    x, targets = _inputs(1)
    _compare(lambda t, a: t.nn.functional.ctc_loss(a, t.tensor(targets), (7, 6, 7), (3, 4, 1),
                                                   reduction=reduction), x)


def test_concatenated_targets_and_blank():
    x, _ = _inputs(2, np.float64)
    flat = [0, 1, 1, 3, 4, 0, 4]

    def fn(t, a):
        return t.nn.functional.ctc_loss(a.log_softmax(-1), t.tensor(flat), t.tensor([7, 6, 5]),
                                        t.tensor([3, 2, 2]), blank=2, reduction="none")
    _compare(fn, x, rtol=1e-10, atol=1e-12)


def test_unbatched_input():
    x, targets = _inputs(3)

    def fn(t, a):
        return t.nn.functional.ctc_loss(a[:, 0].log_softmax(-1), t.tensor(targets[0, :3]),
                                        t.tensor(6), t.tensor(3), reduction="none")
    assert _compare(fn, x).shape == ()
    same_error(lambda: gradjit.nn.functional.ctc_loss(gradjit.tensor(x[:, 0]),
                                                      gradjit.tensor(targets[0]), (6,), (3,)),
               lambda: torch.nn.functional.ctc_loss(torch.tensor(x[:, 0]),
                                                    torch.tensor(targets[0]), (6,), (3,)))


def test_infeasible_alignments_are_infinite_or_zeroed():
    x, _ = _inputs(4)
    targets = np.array([[1, 1, 1]] * N)
    args = (targets, (2, 5, 4), (3, 2, 1))

    def fn(t, a, zero_infinity):
        return t.nn.functional.ctc_loss(a.log_softmax(-1), t.tensor(args[0]), args[1], args[2],
                                        reduction="none", zero_infinity=zero_infinity)
    g, t = (fn(lib, lib.tensor(x), False) for lib in (gradjit, torch))
    np.testing.assert_allclose(np.asarray(g), t.numpy(), rtol=1e-5)
    assert np.isinf(np.asarray(g)[0])
    _compare(lambda t, a: fn(t, a, True), x)


def test_input_length_zero():
    x, targets = _inputs(5)
    _compare(lambda t, a: t.nn.functional.ctc_loss(a.log_softmax(-1), t.tensor(targets),
                                                   (0, 0, 7), (0, 1, 2), reduction="none",
                                                   zero_infinity=True), x)


def test_module_and_torch_namespace():
    x, targets = _inputs(6)
    assert repr(gradjit.nn.CTCLoss(blank=1)) == repr(torch.nn.CTCLoss(blank=1))
    _compare(lambda t, a: t.nn.CTCLoss(blank=0, reduction="sum")(
        a.log_softmax(-1), t.tensor(targets), (7, 7, 3), (4, 3, 2)), x)
    _compare(lambda t, a: t.ctc_loss(a.log_softmax(-1), t.tensor(targets), (7, 7, 3),
                                     (4, 3, 2), 0, 0, False), x)


@pytest.mark.parametrize("case", [
    dict(input_lengths=(6, 5), target_lengths=(3, 2, 1)),
    dict(input_lengths=(6, 5, 4), target_lengths=(3, 2)),
    dict(input_lengths=(8, 5, 4), target_lengths=(3, 2, 1)),
    dict(input_lengths=(6, 5, -1), target_lengths=(3, 2, 1)),
    dict(input_lengths=(6, 5, 4), target_lengths=(3, 2, -1)),
    dict(input_lengths=(6, 5, 4), target_lengths=(3, 2, 5)),
    dict(input_lengths=(6, 5, 4), target_lengths=(3, 2, 1), blank=5),
    dict(input_lengths=(6, 5, 4), target_lengths=(3, 2, 1), reduction="average"),
    dict(input_lengths=(6, 5, 4), target_lengths=(3, 2, 1), flat=True),
    dict(input_lengths=[6.0, 5.0, 4.0], target_lengths=[3, 2, 1], tensors=True),
    dict(input_lengths=[6, 5, 4], target_lengths=[3.0, 2.0, 1.0], tensors=True),
])
def test_errors_match_torch(case):
    x, targets = _inputs()
    case = dict(case)
    flat, tensors = case.pop("flat", False), case.pop("tensors", False)
    if flat:
        targets = targets.reshape(-1)[:5]

    def call(t):
        lengths = {k: t.tensor(case[k]) if tensors else case[k]
                   for k in ("input_lengths", "target_lengths")}
        rest = {k: v for k, v in case.items() if k not in lengths}
        return lambda: t.nn.functional.ctc_loss(t.tensor(x).log_softmax(-1),
                                                t.tensor(targets), **lengths, **rest)
    same_error(call(gradjit), call(torch))
