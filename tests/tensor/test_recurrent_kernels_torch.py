"""torch.rnn_tanh/rnn_relu/lstm/gru (padded, batch-first and packed) and their cells against
torch with the weights of torch's modules: outputs, final states and input gradients."""
import numpy as np
import pytest

import gradjit
from tests.nn.helpers import torch

RNG = np.random.default_rng(1)
X = RNG.standard_normal((5, 3, 4))
MODULES = {"rnn_tanh": lambda **k: torch.nn.RNN(4, 6, **k),
           "rnn_relu": lambda **k: torch.nn.RNN(4, 6, nonlinearity="relu", **k),
           "lstm": lambda **k: torch.nn.LSTM(4, 6, **k),
           "lstm_proj": lambda **k: torch.nn.LSTM(4, 6, proj_size=2, **k),
           "gru": lambda **k: torch.nn.GRU(4, 6, **k)}
SETTINGS = {"plain": dict(num_layers=1, bidirectional=False, bias=True),
            "deep_bidirectional": dict(num_layers=2, bidirectional=True, bias=True),
            "no_bias": dict(num_layers=2, bidirectional=False, bias=False)}


def _states(name, module, batch):
    layers = module.num_layers * (2 if module.bidirectional else 1)
    h = RNG.standard_normal((layers, batch, module.proj_size or 6) if name == "lstm_proj" else
                            (layers, batch, 6))
    return [h, RNG.standard_normal((layers, batch, 6))] if name.startswith("lstm") else [h]


def _call(lib, name, x, hx, weights, module, batch_first=False, lengths=None):
    kernel = getattr(lib, name.removesuffix("_proj"))
    hx = [lib.tensor(h, dtype=lib.float32) for h in hx]
    hx = hx if name.startswith("lstm") else hx[0]
    weights = [lib.tensor(w.detach().numpy()) for w in module._flat_weights]
    rest = (weights, module.bias, module.num_layers, 0.0, False, module.bidirectional)
    if lengths is None:
        return kernel(x, hx, *rest, batch_first)
    packed = lib.nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=True)
    return kernel(packed.data, packed.batch_sizes, hx, *rest)


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("name", MODULES)
@pytest.mark.parametrize("form", ["padded", "batch_first", "packed"])
def test_kernel_matches_torch(name, setting, form):
    module = MODULES[name](**SETTINGS[setting])
    hx = _states(name, module, 3)
    arrays = X.transpose(1, 0, 2).copy() if form == "batch_first" else X
    lengths = [5, 4, 2] if form == "packed" else None
    results = []
    for lib in (torch, gradjit):
        x = lib.tensor(arrays, dtype=lib.float32, requires_grad=True)
        outs = _call(lib, name, x, hx, None, module, form == "batch_first", lengths)
        sum((o * o).sum() for o in outs).backward()
        results.append(([o.detach().numpy() for o in outs], x.grad.numpy()))
    (want, want_grad), (got, got_grad) = results
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell"])
def test_cell_matches_torch(name):
    cell = {"rnn_tanh_cell": torch.nn.RNNCell(4, 6), "lstm_cell": torch.nn.LSTMCell(4, 6),
            "rnn_relu_cell": torch.nn.RNNCell(4, 6, nonlinearity="relu"),
            "gru_cell": torch.nn.GRUCell(4, 6)}[name]
    hx = [RNG.standard_normal((3, 6)) for _ in range(2)]
    results = []
    for lib in (torch, gradjit):
        x = lib.tensor(X[0], dtype=lib.float32, requires_grad=True)
        h = [lib.tensor(a, dtype=lib.float32) for a in hx]
        weights = [lib.tensor(getattr(cell, n).detach().numpy())
                   for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
        out = getattr(lib, name)(x, h if name == "lstm_cell" else h[0], *weights)
        outs = out if isinstance(out, tuple) else (out,)
        sum((o * o).sum() for o in outs).backward()
        results.append(([o.detach().numpy() for o in outs], x.grad.numpy(),
                        [type(o.grad_fn).__name__ for o in outs]))
    (want, want_grad, want_nodes), (got, got_grad, got_nodes) = results
    assert got_nodes == want_nodes
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-5, atol=1e-6)
