"""nn behaviours that PyTorch's tutorials rely on, compared with torch."""
import numpy as np
import torch

import gradjit


def _per_sample_grads(t, x, y, w):
    func = t.func

    def loss(w, sample, target):
        logits = sample.unsqueeze(0) @ w
        return t.nn.functional.nll_loss(logits.log_softmax(1), target.unsqueeze(0))
    return func.vmap(func.grad(loss), in_dims=(None, 0, 0))(w, x, y)


def test_nll_loss_per_sample_gradients_under_vmap():
    # the per-sample-gradients tutorial: vmap(grad(loss)) over (sample, class index) pairs
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((6, 4), np.float32), rng.standard_normal((4, 3), np.float32)
    y = rng.integers(0, 3, 6)
    got = _per_sample_grads(gradjit, gradjit.tensor(x), gradjit.tensor(y), gradjit.tensor(w))
    want = _per_sample_grads(torch, torch.tensor(x), torch.tensor(y), torch.tensor(w))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_module_to_meta_moves_parameters():
    texts = []
    for t in (torch, gradjit):
        t.manual_seed(0)
        layer = t.nn.Linear(3, 2).to("meta")
        texts.append((str(layer.weight.device), repr(layer.weight), repr(layer.bias)))
    assert texts[0] == texts[1]
