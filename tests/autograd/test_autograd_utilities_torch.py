"""torch.autograd's utilities against PyTorch 2.13: gradcheck and gradgradcheck, the legacy
Variable constructor, anomaly mode and forward_ad's dual tensors."""
import sys
import warnings

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as torch_fwad

import gradjit
import gradjit.autograd.forward_ad as fwad
from tests.torch_reference import same_error


def _double(t, values, requires_grad=True):
    return t.tensor(np.array(values), dtype=t.float64, requires_grad=requires_grad)


@pytest.mark.parametrize("fn", [lambda t, x, y: (x * y).sin().sum(),
                                lambda t, x, y: (x.exp() / (1 + y * y), x.tanh()),
                                lambda t, x, y: t.special.erfcx(x) + t.special.i1(y)])
def test_gradcheck_and_gradgradcheck_pass_as_torch(fn):
    for t in (torch, gradjit):
        args = (_double(t, [0.3, -1.2, 2.0]), _double(t, [1.5, 0.25, -0.7]))
        assert t.autograd.gradcheck(lambda *a: fn(t, *a), args) is True
        assert t.autograd.gradgradcheck(lambda *a: fn(t, *a), args) is True


def _wrong(t, x):
    return x.detach() * 2 + x  # the tape sees only the second term


def test_gradcheck_mismatch_message_as_torch():
    errors = []
    for t in (torch, gradjit):
        with pytest.raises(sys.modules[t.__name__ + ".autograd.gradcheck"].GradcheckError) as info:
            t.autograd.gradcheck(lambda x: _wrong(t, x), (_double(t, [1.0, 2.0]),))
        errors.append(info.value)
    assert type(errors[1]).__name__ == type(errors[0]).__name__
    assert str(errors[1]) == str(errors[0])
    assert gradjit.autograd.gradcheck(lambda x: _wrong(gradjit, x),
                                      (_double(gradjit, [1.0, 2.0]),),
                                      raise_exception=False) is False
    assert issubclass(sys.modules["gradjit.autograd.gradcheck"].GradcheckError, RuntimeError)


def test_gradcheck_errors_and_warnings_as_torch():
    same_error(lambda: gradjit.autograd.gradcheck(lambda x: x * 2,
                                                  (_double(gradjit, [1.0], False),)),
               lambda: torch.autograd.gradcheck(lambda x: x * 2, (_double(torch, [1.0], False),)))
    for t in (torch, gradjit):
        with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double"):
            t.autograd.gradcheck(lambda x: x * 2, (t.ones(2, requires_grad=True),),
                                 raise_exception=False)


def test_variable_returns_tensors_as_torch():
    for t in (torch, gradjit):
        a = t.ones(2, requires_grad=True)
        v = t.autograd.Variable(a)
        assert v is not a and not v.requires_grad and v.grad_fn is None
        w = t.autograd.Variable(t.ones(2), requires_grad=True)
        assert w.requires_grad and w.is_leaf
        assert isinstance(t.ones(1), t.autograd.Variable)
        (w * 3).sum().backward()
        assert w.grad.tolist() == [3.0, 3.0]


def _nan_backward(t):
    x = t.tensor([0.0], requires_grad=True)
    (x / x).sum().backward()


def test_detect_anomaly_raises_on_nan_gradients_as_torch():
    def anomalous(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with t.autograd.detect_anomaly():
                _nan_backward(t)
    same_error(lambda: anomalous(gradjit), lambda: anomalous(torch))
    for t in (torch, gradjit):
        with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
            with t.autograd.detect_anomaly():
                pass
        _nan_backward(t)  # off again: no error
        t.autograd.set_detect_anomaly(True)
        with pytest.raises(RuntimeError, match="returned nan values in its 1th output"):
            _nan_backward(t)
        t.autograd.set_detect_anomaly(False)
        with t.autograd.set_detect_anomaly(True):
            with pytest.raises(RuntimeError):
                _nan_backward(t)
        _nan_backward(t)


@pytest.mark.parametrize("fn", [lambda t, x, y: (x * x).sin(),
                                lambda t, x, y: x @ y.reshape(3, 1) + x.exp().sum(),
                                lambda t, x, y: t.nn.functional.softmax(x * y, 0),
                                lambda t, x, y: t.tanh(x).log1p() * 2])
def test_forward_ad_tangents_as_torch(fn):
    x, y = np.array([0.5, 1.5, -0.25]), np.array([2.0, -1.0, 0.75])
    tx, ty = np.array([1.0, 0.0, -2.0]), np.array([0.5, 0.5, 1.0])
    results = []
    for t, ad in ((torch, torch_fwad), (gradjit, fwad)):
        with ad.dual_level():
            dx = ad.make_dual(t.tensor(x), t.tensor(tx))
            dy = ad.make_dual(t.tensor(y), t.tensor(ty))
            primal, tangent = ad.unpack_dual(fn(t, dx, dy))
            results.append((primal.numpy(), tangent.numpy()))
            assert ad.unpack_dual(t.ones(1)).tangent is None
        assert ad.unpack_dual(dx).tangent is None
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12)
    assert type(ad.unpack_dual(t.ones(1))).__name__ == "UnpackedDualTensor"


def test_forward_ad_errors_as_torch():
    same_error(lambda: fwad.make_dual(gradjit.ones(2), gradjit.ones(2)),
               lambda: torch_fwad.make_dual(torch.ones(2), torch.ones(2)))
    with fwad.dual_level(), torch_fwad.dual_level():
        same_error(lambda: fwad.make_dual(gradjit.ones(2), gradjit.ones(3)),
                   lambda: torch_fwad.make_dual(torch.ones(2), torch.ones(3)))


def test_inference_mode_in_autograd():
    with gradjit.autograd.inference_mode():
        y = gradjit.ones(2, requires_grad=True) * 2
    assert not y.requires_grad
