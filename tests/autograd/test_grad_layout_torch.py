"""The layout of a first .grad (PyTorch's AccumulateGrad gives it the parameter's strides where
the parameter is dense, C order where not) and repeated backward through a retained graph,
against PyTorch 2.13."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")

# leaf from a (3, 4, 5) array -> the loss whose gradient lands in its .grad
LEAVES = {
    "contiguous, matmul's transposed cotangent": (
        lambda x: x[0], lambda lib, p: (lib.ones(2, 5) @ p.t()).sum()),  # nn.Linear's weight
    "transposed": (lambda x: x[0].t(), lambda lib, p: (p * lib.arange(20.).reshape(5, 4)).sum()),
    "permuted 3-d": (lambda x: x.permute(2, 0, 1), lambda lib, p: (p * p).sum()),
    "sliced, not dense": (lambda x: x[:, ::2, 1:], lambda lib, p: p.sin().sum()),
    "0-d": (lambda x: x[0, 0, 0], lambda lib, p: p * 3),
}


@pytest.mark.parametrize("name", LEAVES)
def test_first_grad_has_torchs_strides_and_later_ones_accumulate_in_place(name):
    make, loss = LEAVES[name]
    base = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(np.float32)
    grads = {}
    for lib in (gradjit, torch):
        p = make(lib.tensor(base)).detach().requires_grad_()
        loss(lib, p).backward()
        first = p.grad
        loss(lib, p).backward()
        assert p.grad is first
        grads[lib] = (p.grad.stride(), p.grad.is_contiguous(), p.grad.detach().numpy().copy())
    assert grads[gradjit][:2] == grads[torch][:2]
    np.testing.assert_allclose(grads[gradjit][2], grads[torch][2], rtol=1e-6)


def _chain(lib):
    x = lib.tensor(np.linspace(-1, 1, 6, dtype=np.float32), requires_grad=True)
    w = lib.tensor(np.linspace(0.5, 2, 6, dtype=np.float32))
    h = x * w
    y = (h.sin() + 0.5) * h
    return x, h, y.sum()


def test_repeated_backward_of_a_retained_graph_accumulates_torchs_gradients():
    grads = {}
    for lib in (gradjit, torch):
        x, _, loss = _chain(lib)
        for _ in range(3):
            loss.backward(retain_graph=True)
        grads[lib] = x.grad.numpy()
    np.testing.assert_allclose(grads[gradjit], grads[torch], rtol=1e-6)


def test_a_saved_value_modified_after_a_backward_fails_the_next_as_in_torch():
    def run(lib):
        _, h, loss = _chain(lib)
        loss.backward(retain_graph=True)
        with lib.no_grad():
            h.add_(1)
        loss.backward()
    same_error(lambda: run(gradjit), lambda: run(torch))
