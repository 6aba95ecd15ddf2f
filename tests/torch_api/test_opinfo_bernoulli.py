"""Random draws against torch where the operator database found them apart: bernoulli's
gradient (zero, the draws still require grad) and its out=."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("call", [lambda t, p: t.bernoulli(p), lambda t, p: p.bernoulli()])
def test_bernoulli_of_probabilities_that_require_grad(call):
    draws = {}
    for lib in (gradjit, torch):
        lib.manual_seed(0)
        p = lib.tensor(np.linspace(0.05, 0.95, 12), requires_grad=True)
        out = call(lib, p)
        assert out.requires_grad and type(out.grad_fn).__name__ == "BernoulliBackward0"
        (out * 3).sum().backward()
        np.testing.assert_array_equal(p.grad.numpy(), np.zeros(12))
        draws[lib] = out.detach().numpy()
    np.testing.assert_array_equal(draws[gradjit], draws[torch])


def test_bernoulli_into_out_draws_what_it_returns_otherwise():
    p = np.linspace(0.05, 0.95, 12).reshape(3, 4)
    draws = {}
    for lib in (gradjit, torch):
        lib.manual_seed(3)
        out = lib.empty(3, 4, dtype=lib.float64)
        assert lib.bernoulli(lib.tensor(p), out=out) is out
        draws[lib.__name__] = out.numpy()
    np.testing.assert_array_equal(draws["gradjit"], draws["torch"])


def test_bernoulli_into_an_expanded_out_is_refused():
    same_error(lambda: gradjit.bernoulli(gradjit.full((6,), 0.5),
                                         out=gradjit.empty(1).expand(6)),
               lambda: torch.bernoulli(torch.full((6,), 0.5), out=torch.empty(1).expand(6)))
