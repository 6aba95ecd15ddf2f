"""The activation functions and layers against torch.nn: values and gradients (including the
boundaries of piecewise ones and infinities), grad_fn names, in-place forms, reprs, errors,
and the same functions compiled by gradjit.value_and_grad."""
import math

import numpy as np
import pytest

import gradjit
from gradjit import nn
from gradjit.nn import functional as F
from tests.nn.helpers import check, check_module, close, randn, same_error, torch

# boundaries of every piecewise function, large values on both sides, and random values
EDGES = np.array([-200, -30, -6, -3, -1, -0.5, 0, 0.5, 1, 3, 6, 19.9, 30, 200], np.float32)
X = np.concatenate([EDGES, randn(20) * 4])

CASES = [
    ("relu6", ()), ("elu", ()), ("elu", (0.5,)), ("selu", ()), ("celu", ()), ("celu", (2.0,)),
    ("silu", ()), ("mish", ()), ("softplus", ()), ("softplus", (2.0, 5.0)), ("softsign", ()),
    ("hardtanh", ()), ("hardtanh", (-2.0, 3.0)), ("hardsigmoid", ()), ("hardswish", ()),
    ("logsigmoid", ()), ("tanhshrink", ()), ("softshrink", ()), ("softshrink", (1.0,)),
    ("hardshrink", ()), ("hardshrink", (3.0,)), ("threshold", (0.5, 2.0)), ("gelu", ()),
    ("rrelu", ()), ("rrelu", (0.1, 0.3)),
]


@pytest.mark.parametrize("name, args", CASES)
def test_function_matches_torch(name, args):
    g_out, t_out = check(lambda x: getattr(F, name)(x, *args),
                         lambda x: getattr(torch.nn.functional, name)(x, *args), X,
                         rtol=2e-6, atol=1e-6 if name == "gelu" else 1e-7)
    assert g_out.grad_fn.name() == t_out.grad_fn.name()
    assert g_out.dtype is gradjit.float32


@pytest.mark.parametrize("name, args", [c for c in CASES if c[0] in (
    "relu6", "elu", "selu", "celu", "silu", "mish", "hardtanh", "hardsigmoid", "hardswish",
    "threshold", "rrelu")])
def test_in_place_form_matches_torch(name, args):
    """inplace=True writes into the input and names the grad_fn as PyTorch does."""
    def run(lib, x):
        y = x * 1
        out = getattr(lib.nn.functional, name)(y, *args, inplace=True)
        assert out is y
        return out
    g_out, t_out = check(lambda x: run(gradjit, x), lambda x: run(torch, x), X)
    assert g_out.grad_fn.name() == t_out.grad_fn.name()


def test_glu_prelu_softmin_match_torch():
    x = randn(3, 4, 6)
    for dim in (-1, 1, 0):
        if x.shape[dim] % 2 == 0:
            g_out, t_out = check(lambda t: F.glu(t, dim), lambda t: torch.nn.functional.glu(t, dim),
                                 x)
            assert g_out.grad_fn.name() == "GluBackward0"
    for weight in (np.array([0.25], np.float32), np.array([0.1, -0.2, 0.3, 0.4], np.float32)):
        g_out, t_out = check(F.prelu, torch.nn.functional.prelu, x, weight)
        assert g_out.grad_fn.name() == t_out.grad_fn.name()
    check(F.prelu, torch.nn.functional.prelu, randn(5), np.array([0.3], np.float32))
    for dim in (0, 1, -1):
        check(lambda t: F.softmin(t, dim), lambda t: torch.nn.functional.softmin(t, dim), x)
    check(lambda t: F.softmin(t, 1, gradjit.float64),
          lambda t: torch.nn.functional.softmin(t, 1, dtype=torch.float64), x)


def test_errors_match_torch():
    same_error(lambda: F.glu(gradjit.ones(3)), lambda: torch.nn.functional.glu(torch.ones(3)))
    same_error(lambda: F.glu(gradjit.tensor(1.0)),
               lambda: torch.nn.functional.glu(torch.tensor(1.0)))
    same_error(lambda: F.glu(gradjit.ones(2, 3), 1),
               lambda: torch.nn.functional.glu(torch.ones(2, 3), 1))
    same_error(lambda: F.prelu(gradjit.ones(2, 3), gradjit.ones(2)),
               lambda: torch.nn.functional.prelu(torch.ones(2, 3), torch.ones(2)))
    same_error(lambda: F.gelu(gradjit.ones(2), approximate="erf"),
               lambda: torch.nn.functional.gelu(torch.ones(2), approximate="erf"))


def test_non_finite_inputs_match_torch():
    """NaN passes through; infinities give PyTorch's limits and gradients (gelu at -inf is NaN
    in PyTorch's kernel too)."""
    special = np.array([math.inf, -math.inf, math.nan], np.float64)
    for name in ("elu", "selu", "celu", "softplus", "logsigmoid", "hardtanh", "relu6",
                 "hardsigmoid", "hardswish", "hardshrink", "softshrink", "gelu"):
        g_out, t_out, pairs = run_checked(name, special)
        for g, t in [(g_out, t_out), *pairs]:
            np.testing.assert_array_equal(np.asarray(g.detach()), t.detach().numpy(), name)
    g_out = F.gelu(gradjit.tensor(special), approximate="tanh")
    t_out = torch.nn.functional.gelu(torch.tensor(special), approximate="tanh")
    np.testing.assert_array_equal(g_out.numpy(), t_out.numpy())


def test_gelu_tanh_matches_torch():
    g_out, t_out = check(lambda x: F.gelu(x, approximate="tanh"),
                         lambda x: torch.nn.functional.gelu(x, approximate="tanh"), X,
                         rtol=2e-6, atol=1e-6)
    assert g_out.grad_fn.name() == t_out.grad_fn.name() == "GeluBackward0"


def run_checked(name, array, *args):
    from tests.nn.helpers import run_both
    return run_both(lambda x: getattr(F, name)(x, *args),
                    lambda x: getattr(torch.nn.functional, name)(x, *args), array)


LAYERS = [
    ("ReLU6", ()), ("ELU", (0.5,)), ("SELU", ()), ("CELU", (1.5,)), ("SiLU", ()), ("Mish", ()),
    ("Softplus", (2, 10)), ("Softsign", ()), ("Hardtanh", (-0.5, 0.5)), ("Hardsigmoid", ()),
    ("Hardswish", ()), ("LogSigmoid", ()), ("Tanhshrink", ()), ("Softshrink", (0.3,)),
    ("Hardshrink", ()), ("Threshold", (0.1, 20)), ("GLU", ()), ("GLU", (0,)), ("PReLU", ()),
    ("PReLU", (4,)), ("RReLU", ()), ("Softmin", (1,)), ("ReLU6", (True,)), ("ELU", (1.0, True)),
    ("Hardswish", (True,)), ("Threshold", (0.1, 20, True)), ("RReLU", (0.1, 0.2, True)),
]


@pytest.mark.parametrize("name, args", LAYERS)
def test_layer_matches_torch(name, args):
    gm, tm = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(gm) == repr(tm)
    gm.eval(), tm.eval()
    inplace = "True" in repr(tm) or args[-1:] == (True,)
    x = randn(4, 4)
    if inplace:  # an in-place layer needs a non-leaf input
        check(lambda t: gm(t * 1), lambda t: tm(t * 1), x)
    else:
        check_module(gm, tm, x)


def test_prelu_learns_its_weight_and_rrelu_samples_slopes_in_training():
    layer = nn.PReLU(3, init=0.1)
    assert [n for n, _ in layer.named_parameters()] == ["weight"]
    assert layer.weight.tolist() == pytest.approx([0.1] * 3)
    gradjit.manual_seed(0)
    x = -gradjit.ones(20000)
    slopes = (nn.RReLU(0.1, 0.3)(x) / x).numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 0.002 and abs(slopes.std() - 0.2 / math.sqrt(12)) < 0.002
    assert (nn.RReLU()(gradjit.ones(4)) == 1).all()  # positive inputs pass unchanged


def small_net(x, w):
    h = F.elu(x @ w) + F.softplus(x, 2.0) + F.hardswish(x) - F.logsigmoid(x)
    return (F.mish(h) * F.glu(F.hardtanh(h).repeat(1, 2), 1) + F.selu(h) + F.prelu(
        h, w[0, :1]) + F.gelu(h, approximate="tanh") + F.threshold(h, 0.2, -1.0)).sum()


def test_activations_compile_with_the_eager_gradients():
    x, w = gradjit.tensor(randn(5, 4)), gradjit.tensor(randn(4, 4, seed=1))
    xs, ws = x.clone().requires_grad_(), w.clone().requires_grad_()
    loss = small_net(xs, ws)
    loss.backward()
    compiled = gradjit.value_and_grad(small_net, argnums=(0, 1))
    value, (gx, gw) = compiled(x, w)
    close(value, loss, rtol=1e-5)
    close(gx, xs.grad, rtol=1e-4, atol=1e-5)
    close(gw, ws.grad, rtol=1e-4, atol=1e-5)
    close(gradjit.jit(small_net)(x, w), loss, rtol=1e-5)
