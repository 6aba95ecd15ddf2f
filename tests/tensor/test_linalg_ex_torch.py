"""torch.linalg's inv_ex, solve_ex, cholesky_ex and vander against PyTorch 2.13: results,
LAPACK's info per matrix, reprs, gradients and check_errors."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

A = np.array([[[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]],
              [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]],
              [[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]])
B = np.arange(9.0).reshape(3, 3, 1)


def _calls(t):
    return {"inv_ex": lambda a: t.linalg.inv_ex(a),
            "solve_ex": lambda a: t.linalg.solve_ex(a, t.tensor(B)),
            "cholesky_ex": lambda a: t.linalg.cholesky_ex(a)}


@pytest.mark.parametrize("name", ["inv_ex", "solve_ex", "cholesky_ex"])
def test_info_and_results_as_torch(name):
    ours, theirs = _calls(gradjit)[name](gradjit.tensor(A)), _calls(torch)[name](torch.tensor(A))
    assert ours.info.tolist() == theirs.info.tolist()
    assert str(ours.info.dtype) == str(theirs.info.dtype)
    good = theirs.info.numpy() == 0
    np.testing.assert_allclose(ours[0].numpy()[good], theirs[0].numpy()[good], rtol=1e-12)
    assert type(ours).__name__ == type(theirs).__name__
    assert ours.info is ours[1] and theirs.info is theirs[1]


@pytest.mark.parametrize("name", ["inv_ex", "solve_ex", "cholesky_ex"])
def test_gradients_as_torch(name):
    grads = []
    for t in (torch, gradjit):
        a = t.tensor(A[:1], requires_grad=True)
        out = _calls(t)[name](a)[0]
        assert out.grad_fn.name().startswith("Linalg")
        (out * out).sum().backward()
        grads.append(a.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-10, atol=1e-15)


def test_check_errors_raises_as_the_plain_function():
    with pytest.raises(gradjit.linalg.LinAlgError):
        gradjit.linalg.inv_ex(gradjit.tensor(A), check_errors=True)
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.inv_ex(torch.tensor(A), check_errors=True)


def test_vander_as_torch():
    x = np.array([1.5, -2.0, 3.0])
    for n in (None, 2, 4):
        np.testing.assert_allclose(gradjit.linalg.vander(gradjit.tensor(x), N=n).numpy(),
                                   torch.linalg.vander(torch.tensor(x), N=n).numpy())
    same_error(lambda: gradjit.linalg.vander(gradjit.tensor(x), N=1),
               lambda: torch.linalg.vander(torch.tensor(x), N=1))
