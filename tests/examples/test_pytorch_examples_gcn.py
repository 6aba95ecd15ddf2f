"""gcn/main.py's renormalization D^-1/2 (I + A) D^-1/2 with D sparse: a strided matrix times a
sparse one is strided (MmBackward0), both gradients strided, as torch.mm's."""
import numpy as np
import pytest
import torch

import gradjit


def _operands(t):
    d = t.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
    dense = np.array([[0, 2.0], [0, 0], [1.5, 0], [0, -3.0]])
    s = t.tensor(dense).to_sparse().requires_grad_()
    return d, s


@pytest.mark.parametrize("call", ["matmul", "mm", "torch.mm", "spmm"])
def test_strided_times_sparse_is_strided_as_torchs(call):
    results = []
    for t in (gradjit, torch):
        d, s = _operands(t)
        fn = {"matmul": lambda: d @ s, "mm": lambda: d.mm(s), "torch.mm": lambda: t.mm(d, s),
              "spmm": lambda: t.spmm(d, s)}[call]
        out = fn()
        (out * t.tensor([[1.0, -2.0]])).sum().backward()
        results.append((out, d.grad, s.grad))
    (out, dg, sg), (want, want_dg, want_sg) = results
    assert type(out.grad_fn).__name__ == type(want.grad_fn).__name__ == "MmBackward0"
    for got, ref in ((out, want), (dg, want_dg), (sg, want_sg)):
        assert str(got.layout) == str(ref.layout)
        np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy(), rtol=1e-12)


def test_gcn_renormalization_chain():
    got, want = [(lambda deg, adj: (deg @ adj @ deg).to_dense())(
        t.diag(t.tensor([0.5, 1.0, 2.0])).to_sparse(),
        t.eye(3) + t.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], t.ones(3), (3, 3)))
        for t in (gradjit, torch)]
    np.testing.assert_allclose(got.numpy(), want.numpy())
