"""torch.normal and torch.multinomial as PyTorch's operator database calls them, against torch
2.13: the same seeded draws for tensor and number means and stds (0-d ones too), the factory
keywords, the zero gradients torch records for tensor arguments; multinomial's refusals and
out=."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")

CALLS = {
    "tensor mean and std": lambda t, m, s: t.normal(m, s),
    "number mean": lambda t, m, s: t.normal(2.0, s),
    "number std": lambda t, m, s: t.normal(m, 0.5),
    "0-d mean": lambda t, m, s: t.normal(m[0, 0]),
}


@pytest.mark.parametrize("name", CALLS)
def test_normal_draws_and_gradients_like_torch(name):
    def run(t):
        t.manual_seed(42)
        m = t.tensor([[0.5, 1.0], [2.0, 3.0]], dtype=t.float64, requires_grad=True)
        s = t.tensor([0.1, 2.0], dtype=t.float64, requires_grad=True)
        out = CALLS[name](t, m, s)
        grads = t.autograd.grad((out * 1.5).sum(), [m, s], allow_unused=True)
        return out, [np.zeros((2, 2) if i == 0 else (2,)) if g is None else g.numpy()
                     for i, g in enumerate(grads)]
    (g_out, g_grads), (t_out, t_grads) = run(gradjit), run(torch)
    assert g_out.grad_fn.name() == t_out.grad_fn.name()
    np.testing.assert_array_equal(g_out.detach().numpy(), t_out.detach().numpy())
    for g, t in zip(g_grads, t_grads):
        np.testing.assert_array_equal(g, t)


def test_normal_of_numbers_takes_the_factory_keywords():
    def run(t):
        t.manual_seed(0)
        return t.normal(1.6, 0.3, [2, 2], dtype=t.float64, layout=t.strided, device="cpu",
                        pin_memory=False)
    np.testing.assert_array_equal(run(gradjit).numpy(), run(torch).numpy())


MULTINOMIAL_ERRORS = {
    "3-d": lambda t: t.multinomial(t.ones(1, 2, 3), 1),
    "0-d": lambda t: t.multinomial(t.ones(()), 1),
    "integers": lambda t: t.multinomial(t.ones(3, dtype=t.int64), 1),
    "no samples": lambda t: t.multinomial(t.ones(3), 0),
    "float out": lambda t: t.multinomial(t.ones(1, 2), 2, out=t.zeros(1, 2)),
    "too many categories": lambda t: t.multinomial(t.ones(2 ** 24 + 1), 3),
}


@pytest.mark.parametrize("name", MULTINOMIAL_ERRORS)
def test_multinomial_refuses_as_torch(name):
    same_error(lambda: MULTINOMIAL_ERRORS[name](gradjit), lambda: MULTINOMIAL_ERRORS[name](torch))


def test_multinomial_writes_into_out():
    def run(t):
        t.manual_seed(3)
        out = t.zeros(5, dtype=t.int64)
        return out, t.multinomial(t.tensor([[0.2, 0.8, 0.5]]), 2, out=out)
    (g_out, g), (t_out, t) = run(gradjit), run(torch)
    assert g is g_out and t is t_out and g.tolist() == t.tolist()
