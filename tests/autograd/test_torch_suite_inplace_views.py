"""PyTorch's autograd suite, in-place-on-view part of its device tests, side by side with
torch: writes through views and views of views, bases made to require grad by a write, views
made before their base required grad, unsafe splits, grad assignment and layouts."""
import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

R = np.array([[0.5, -1.0], [2.0, 0.25]])
M = np.linspace(-1.0, 1.5, 16).reshape(4, 4)
N = np.array([[0.5, -2.0], [1.5, 3.0]])
SCENARIOS = scenario = Scenarios()


@scenario
def backprop_base_view_and_view_of_view(lib):
    out = []
    for mode in range(3):
        root = lib.tensor(R, requires_grad=True)
        x = root.clone()
        v1 = x.narrow(0, 0, 1)
        if mode == 0:
            v1.mul_(2)
            x.sum().backward()
        elif mode == 1:
            v2 = x.narrow(0, 0, 1)
            v1.mul_(2)
            v2.sum().backward()
        else:
            v1.narrow(1, 1, 1).mul_(2)
            x.sum().backward()
        out.append(root.grad)
    return out


@scenario
def nested_views_multiplied(lib):
    a = lib.tensor(M, requires_grad=True)
    b = lib.tensor(N, requires_grad=True)
    x = a.clone()
    x.narrow(1, 2, 2).narrow(0, 1, 2).mul_(b)
    x.narrow(1, 0, 2).narrow(0, 1, 2).mul_(b)
    go = lib.tensor(M[::-1].copy())
    ga, gb = lib.autograd.grad(x, (a, b), go, create_graph=True)
    gga, ggb = lib.autograd.grad((ga * ga).sum() + (gb ** 3).sum(), (a, b), allow_unused=True)
    return x, ga, gb, gga, ggb


@scenario
def write_makes_base_require_grad(lib):
    a = lib.tensor(M)
    b = lib.tensor(M[:, :2].copy(), requires_grad=True)
    x = a.clone()
    before = x.requires_grad
    x.narrow(1, 2, 2).mul_(b)
    after = x.requires_grad
    x.sum().backward()
    return before, after, b.grad, type(x.grad_fn).__name__


@scenario
def backprop_through_written_view(lib):
    a = lib.tensor([2.0, 5.0])
    b = lib.tensor([3.0], requires_grad=True)
    res = a.narrow(0, 1, 1).mul_(b)
    res.sum().backward()
    return b.grad, a.grad is None, a.requires_grad, a


@scenario
def view_made_before_base_required_grad(lib):
    r = lib.ones(1, requires_grad=True)
    x = lib.ones(5)
    v = x.select(0, 1)
    before = (v.requires_grad, v.grad_fn is None)
    x.add_(r * 3)
    after = v.requires_grad
    (v * 2).backward()
    return before, after, r.grad


@scenario
def function_mark_dirty_on_nested_views(lib):
    class PyAdd(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.mark_dirty(x)
            x.add_(y)
            return x

        @staticmethod
        def backward(ctx, g):
            return g, g
    a = lib.tensor(M, requires_grad=True)
    b = lib.tensor(N, requires_grad=True)
    x = a.clone()
    PyAdd.apply(x.narrow(1, 2, 2).narrow(0, 1, 2), b)
    PyAdd.apply(x.narrow(1, 0, 2).narrow(0, 1, 2), b)
    (x * lib.tensor(M)).sum().backward()
    return x, a.grad, b.grad


@scenario
def non_contiguous_root(lib):
    root = lib.ones(2, 3, 2).select(2, 1).t().requires_grad_(True)
    x = root.clone()
    x.narrow(0, 0, 1).narrow(1, 1, 1).mul_(2)
    x.sum().backward()
    return root.grad


@scenario
def unsafe_split_allows_writes(lib):
    out = []
    for f in (lambda t: t.unsafe_split(1), lambda t: t.unsafe_split_with_sizes((1, 1, 1)),
              lambda t: t.unsafe_chunk(3)):
        a = lib.tensor(np.arange(9.0).reshape(3, 3), requires_grad=True)
        s1, s2, s3 = f(a + a)
        s1.mul_(s2)
        s1.sum().backward()
        out.append(a.grad)
    return out


@scenario
def safe_split_refuses_writes(lib):
    out = []
    for f in (lambda t: t.split(1), lambda t: t.split_with_sizes((1, 1, 1)),
              lambda t: t.chunk(3)):
        a = lib.tensor(np.arange(9.0).reshape(3, 3), requires_grad=True)
        s1, s2, s3 = f(a + a)
        try:
            s1.mul_(s2)
            out.append("ok")
        except RuntimeError as e:
            out.append(str(e)[:40])
    return out


@scenario
def grad_assignment_errors(lib):
    x = lib.tensor(M)
    out = []
    for value in (lib.ones(2, 2, dtype=lib.float64), lib.ones(4, 4, dtype=lib.long), x):
        try:
            x.grad = value
            out.append("ok")
        except RuntimeError as e:
            out.append(str(e))
    return out


@scenario
def factories_like_with_requires_grad(lib):
    x = lib.tensor(M)
    out = []
    for fn in (lib.ones_like, lib.zeros_like, lib.empty_like, lib.full_like):
        for requires_grad in (True, False):
            args = (x, 2.0) if fn is lib.full_like else (x,)
            o = fn(*args, dtype=lib.float32, requires_grad=requires_grad)
            out.append((o.requires_grad, str(o.dtype), o.is_leaf))
    return out


@scenario
def copy_into_other_dtype_requires_grad(lib):
    x = lib.tensor(np.linspace(-1, 1, 4), requires_grad=True)
    out = []
    for dt in (lib.float32, lib.float16, lib.bfloat16, lib.float64):
        y = lib.empty(4, dtype=dt)
        y.copy_(x)
        (y.float() * 2).sum().backward()
        out.append((y.requires_grad, type(y.grad_fn).__name__, x.to(dt).requires_grad))
    return out, x.grad


@scenario
def leaky_relu_inplace_slopes(lib):
    a = lib.tensor([-1.0, 1.0], requires_grad=True)
    b = lib.nn.functional.leaky_relu_(a.clone(), 0.0)
    b.backward(lib.ones(2))
    first = a.grad
    a = lib.tensor([-1.0, 1.0], requires_grad=True)
    b = lib.nn.functional.leaky_relu_(a.clone(), -2)
    try:
        b.backward(lib.ones(2))
        err = None
    except RuntimeError as e:
        err = str(e)
    return first, err


@scenario
def shape_op_gradients(lib):
    x = lib.tensor(np.linspace(-1, 1, 24).reshape(4, 3, 2, 1), requires_grad=True)
    outs = [lib.movedim(x, (0, 1, 2, 3), (3, 2, 1, 0)), lib.movedim(x, (0, -1), (-2, 0))]
    s = lib.tensor(0.5, requires_grad=True)
    v = lib.tensor([1.0, 2.0], requires_grad=True)
    outs += [*lib.atleast_1d(s, v), *lib.atleast_2d(s, v), *lib.atleast_3d(s, v)]
    total = sum((o * lib.arange(float(o.numel())).view(o.shape)).sum() for o in outs)
    total.backward()
    return x.grad, s.grad, v.grad


@scenario
def where_with_scalars_gradients(lib):
    x = lib.tensor(M, requires_grad=True)
    cond = lib.tensor(M > 0)
    y = lib.where(cond, 4.0, x) * 2 + lib.where(cond, x, 4.0) * 3
    y.sum().backward()
    a = lib.tensor(np.ones((4, 1, 4)), requires_grad=True)
    b = lib.tensor(np.ones((4, 4, 1)) * 2, requires_grad=True)
    (lib.where(cond, a, b) * lib.arange(64.0).view(4, 4, 4)).sum().backward()
    return x.grad, a.grad, b.grad


@scenario
def mv_with_expanded_vector(lib):
    mat = lib.tensor(N)
    vec = lib.tensor([0.7], dtype=lib.float64, requires_grad=True)
    (mat @ vec.expand(2)).sum().backward()
    return vec.grad


@scenario
def logcumsumexp_large_values(lib):
    a = lib.tensor(np.linspace(0, 1, 8).reshape(2, 4), requires_grad=True)
    with lib.no_grad():
        a[0] = 10000
    (a.logcumsumexp(1) * lib.arange(8.0).view(2, 4)).sum().backward()
    return a.grad


@scenario
def leaf_grad_layout_strides(lib):
    a = lib.tensor(np.linspace(0, 1, 120).reshape(2, 3, 4, 5)).to(
        memory_format=lib.channels_last).requires_grad_()
    a.sum().backward()
    b = lib.tensor(np.linspace(0, 1, 120).reshape(2, 3, 4, 5)).to(
        memory_format=lib.channels_last).requires_grad_()
    (b * 2).sum().backward()
    return a.grad.stride() == a.stride(), b.grad.stride() == b.stride(), a.grad.stride()


DIFFERENCES = {}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_inplace_view_scenario_matches_torch(name):
    check(SCENARIOS[name])
