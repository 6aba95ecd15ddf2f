"""nn.LinearCrossEntropyLoss and F.linear_cross_entropy against PyTorch: losses and gradients
for class indices and probabilities, K extra output dims, bias, class weights, ignore_index,
label smoothing and chunking options; repr and errors."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error, weighted_gradients

CASES = {
    "indices": dict(),
    "k-dims-bias": dict(out_features=(3, 2), bias=True),
    "weight-ignore-smoothing": dict(weight=True, ignore_index=1, label_smoothing=0.1),
    "none": dict(reduction="none", bias=True),
    "probabilities": dict(probabilities=True, reduction="sum"),
    "options": dict(options=True),
}


@pytest.mark.parametrize("name", CASES)
def test_loss_and_gradients_match_pytorch(name):
    case = dict(CASES[name])
    probabilities = case.pop("probabilities", False)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5))
    shape = (4, 3, *case.get("out_features", ()))
    target = rng.random(shape) if probabilities else rng.integers(0, 3, (4,) +
                                                                  shape[2:])
    class_weight = rng.random(3) + 0.5

    def run(lib, x):
        kwargs = dict(case)
        if kwargs.pop("weight", False):
            kwargs["weight"] = lib.tensor(class_weight)
        if kwargs.pop("options", False):
            kwargs["options"] = lib.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
        lib.manual_seed(0)
        m = lib.nn.LinearCrossEntropyLoss(5, 3, dtype=lib.float64, **kwargs)
        with lib.no_grad():
            for p in m.parameters():
                p.copy_(lib.tensor(np.linspace(-1, 1, p.numel()).reshape(tuple(p.shape))))
        return m(x, lib.tensor(target))
    got, (got_grad,) = weighted_gradients(gradjit, run, [x], "float64")
    want, (want_grad,) = weighted_gradients(torch, run, [x], "float64")
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(got_grad.numpy(), want_grad.numpy(), rtol=1e-10, atol=1e-14)


def test_repr_matches_pytorch():
    def make(lib):
        return lib.nn.LinearCrossEntropyLoss(8, 4, out_features=(3, 2), bias=True,
                                             ignore_index=2, label_smoothing=0.1)
    assert repr(make(gradjit)) == repr(make(torch))
    assert repr(gradjit.nn.LinearCrossEntropyOptions()) == \
        repr(torch.nn.LinearCrossEntropyOptions())


def call(lib, x_shape=(4, 5), w_shape=(3, 5), t_shape=(4,), bias_shape=None, **kwargs):
    target = lib.rand(*t_shape) if kwargs.pop("probabilities", False) else \
        lib.zeros(*t_shape, dtype=lib.int64)
    bias = None if bias_shape is None else lib.zeros(*bias_shape)
    return lib.nn.functional.linear_cross_entropy(lib.ones(*x_shape), lib.ones(*w_shape),
                                                  target, linear_bias=bias, **kwargs)


ERRORS = {
    "input-rank": lambda t: call(t, x_shape=(2, 4, 5)),
    "weight-rank": lambda t: call(t, w_shape=(5,)),
    "in-features": lambda t: call(t, w_shape=(3, 4)),
    "bias-shape": lambda t: call(t, bias_shape=(4,)),
    "unbatched-k-dims": lambda t: call(t, x_shape=(5,), w_shape=(3, 2, 5), t_shape=(2,)),
    "probabilities-ignore-index": lambda t: call(t, t_shape=(4, 3), probabilities=True,
                                                 ignore_index=1),
    "module-weight": lambda t: t.nn.LinearCrossEntropyLoss(3, 2, weight=t.ones(3)),
    "module-smoothing": lambda t: t.nn.LinearCrossEntropyLoss(3, 2, label_smoothing=2.0),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_pytorch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))


def test_options_on_a_path_pytorch_cannot_chunk_warn():
    def run(lib):
        options = lib.nn.LinearCrossEntropyOptions()
        with pytest.warns(UserWarning, match="``options`` ignored") as seen:
            call(lib, label_smoothing=0.1, options=options)
        return str(seen[0].message)
    assert run(gradjit) == run(torch)


@pytest.mark.parametrize("reduction", ["mean", "none"])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("given", ["", "bias", "bias-weight"])
def test_chunked_loss_records_the_kernel_node_as_pytorch(reduction, batched, given):
    """With options, PyTorch records its chunked kernel as one node over the input, linear
    weight, target and the bias and class weights given (an unbatched input unsqueezed)."""
    rng = np.random.default_rng(1)
    x, w, b = rng.standard_normal((4, 5)), rng.standard_normal((3, 5)), rng.standard_normal(3)
    target, class_weight = rng.integers(0, 3, 4), rng.random(3) + 0.5

    def graph(lib):
        kwargs = dict(reduction=reduction,
                      options=lib.nn.LinearCrossEntropyOptions(batch_chunk_size=2))
        if "bias" in given:
            kwargs["linear_bias"] = lib.tensor(b, requires_grad=True)
        if "weight" in given:
            kwargs["weight"] = lib.tensor(class_weight)
        xs, ts = (x, target) if batched else (x[0], target[0])
        inputs = lib.tensor(xs, requires_grad=True), lib.tensor(w, requires_grad=True)
        loss = lib.nn.functional.linear_cross_entropy(*inputs, lib.tensor(ts), **kwargs)
        node = loss.grad_fn
        names = [node.name()]
        while not names[-1].startswith("Generated"):
            node = node.next_functions[0][0]
            names.append(node.name())
        names.append([n.name() if n is not None else None for n, _ in node.next_functions])
        grads = [g.numpy() for g in lib.autograd.grad(loss.sum(), inputs)]
        return names, loss.detach().numpy(), grads

    got, want = graph(gradjit), graph(torch)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    for g, t in zip(got[2], want[2]):
        np.testing.assert_allclose(g, t, rtol=1e-10, atol=1e-14)
