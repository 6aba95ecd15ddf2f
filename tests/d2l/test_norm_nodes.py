"""Normalization layers' results carry PyTorch's grad_fn names, as d2l's printed tensors show."""
import pytest
import torch

import gradjit

CASES = [
    ("layer_norm", lambda F, x, w, b: F.layer_norm(x, (4,), w, b), (4,)),
    ("batch_norm", lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True), (4,)),
    ("group_norm", lambda F, x, w, b: F.group_norm(x, 2, w, b), (4,)),
]


@pytest.mark.parametrize("name,fn,pshape", CASES, ids=[c[0] for c in CASES])
def test_norm_grad_fn_name_value_and_gradients(name, fn, pshape):
    data = torch.randn(3, 4, 5)
    grads = []
    for lib in (torch, gradjit):
        x = lib.tensor(data.numpy(), requires_grad=True)
        w = lib.ones(pshape, requires_grad=True)
        b = lib.zeros(pshape, requires_grad=True)
        out = fn(lib.nn.functional, x if name != "layer_norm" else x.transpose(1, 2), w, b)
        (out * lib.arange(out.numel()).reshape(out.shape)).sum().backward()
        grads.append((type(out.grad_fn).__name__, out.detach().numpy(), x.grad.numpy(),
                      w.grad.numpy()))
    assert grads[0][0] == grads[1][0]
    for expected, got in zip(grads[0][1:], grads[1][1:]):
        assert got == pytest.approx(expected, abs=1e-4)


def test_module_reprs_in_eval_show_native_batch_norm():
    x = [[1.0, 2.0], [2.0, 3.0]]
    texts = []
    for lib in (torch, gradjit):
        bn, ln = lib.nn.BatchNorm1d(2), lib.nn.LayerNorm(2)
        texts.append((repr(ln(lib.tensor(x))), repr(bn(lib.tensor(x)))))
        bn.eval()
        texts.append(repr(bn(lib.tensor(x))))
    assert texts[0] == texts[2] and texts[1] == texts[3]
