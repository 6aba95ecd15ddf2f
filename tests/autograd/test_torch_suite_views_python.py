"""PyTorch's autograd suite, custom Functions with views and in-place inputs and complex
views, side by side with torch: mark_dirty on views and with several outputs, views returned
under no_grad, grad mode inside backward, integer outputs, real/imag/view_as_real grads."""
import numpy as np
import pytest

from tests.autograd.torch_suite import Scenarios, cases, check

V = np.array([0.3, -0.7, 1.1, 2.0])
SCENARIOS = scenario = Scenarios()


def adder(lib, calls, outputs):
    class Adder(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return (a, a + b) if outputs == 2 else a

        @staticmethod
        def backward(ctx, *grads):
            calls.append(len(grads))
            g = sum(grads)
            return g, g
    return Adder


@scenario
def mark_dirty_single_output_variants(lib):
    calls, out = [], []
    a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
    fn = adder(lib, calls, 1)
    c = fn.apply(a.clone(), b)
    c.sum().backward()
    c = fn.apply(a.clone(), b)
    c += 2
    c.sum().backward()
    c = fn.apply(a.clone().view_as(a), b)
    c.sum().backward()
    out.append((calls, a.grad, b.grad, type(c.grad_fn).__name__))
    return out


@scenario
def mark_dirty_two_outputs_variants(lib):
    calls = []
    a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
    fn = adder(lib, calls, 2)
    c, d = fn.apply(a.clone(), b)
    (c * d).sum().backward()
    c, d = fn.apply(a.clone(), b)
    c += 2
    (c * d).sum().backward()
    try:
        fn.apply(a.clone().view_as(a), b)
        err = None
    except RuntimeError as e:
        err = str(e)[:80]
    return calls, a.grad, b.grad, err


@scenario
def mark_dirty_non_input(lib):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            c = 3 * a
            c.add_(b)
            ctx.mark_dirty(c)
            return c

        @staticmethod
        def backward(ctx, g):
            return 3 * g, g
    a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
    c = Bad.apply(a.clone(), b)
    c.sum().backward()
    return c, a.grad, b.grad


@scenario
def mark_dirty_returns_clone_instead(lib):
    class OutPlace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return a.clone(), a + b

        @staticmethod
        def backward(ctx, ga, gab):
            return ga + gab, ga + 2 * gab
    a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
    return OutPlace.apply(a.clone().view_as(a), b)


@scenario
def function_view_under_no_grad(lib):
    class Alias(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:]

        @staticmethod
        def backward(ctx, g):
            return g
    inp = lib.tensor(V, requires_grad=True)
    with lib.no_grad():
        out = Alias.apply(inp)
        expected = inp[:]
    try:
        out.zero_()
        err = None
    except RuntimeError as e:
        err = str(e)
    return out.requires_grad, expected.requires_grad, err


@scenario
def view_under_no_grad_requires_grad(lib):
    """It requires grad as its base does, a leaf with no grad_fn: what is computed from it
    requires grad too, but backward sends nothing to the base or to it."""
    inp = lib.tensor(V, requires_grad=True)
    with lib.no_grad():
        view, product = inp[:], inp * 2
    out = view * 3
    out.sum().backward()
    return (view.requires_grad, view.is_leaf, view.grad_fn is None, product.requires_grad,
            out.requires_grad, type(out.grad_fn).__name__, inp.grad is None, view.grad is None)


@scenario
def function_complex_view(lib):
    calls = []

    class Select(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, idx):
            a.narrow(0, idx, 1)
            ctx.save_for_backward(a)
            ctx.idx = idx
            return a.select(0, idx)

        @staticmethod
        def backward(ctx, g):
            calls.append(1)
            a, = ctx.saved_tensors
            res = lib.zeros_like(a)
            res.select(0, ctx.idx).copy_(g)
            return res, None
    a = lib.ones(2, 3, requires_grad=True)
    out = Select.apply(a.clone(), 1)
    (out * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
    return calls, a.grad, out._is_view()


@scenario
def grad_mode_inside_backward(lib):
    seen = []

    class Check(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            original = lib.is_grad_enabled()
            with lib.enable_grad():
                foo = lib.tensor(V, requires_grad=True)
                grad, = lib.autograd.grad(foo ** 3, foo, grad_outputs=g)
                inner = lib.is_grad_enabled()
            seen.append((original, inner, lib.is_grad_enabled()))
            return grad
    x = lib.tensor(V, requires_grad=True)
    Check.apply(x).sum().backward()
    Check.apply(x).sum().backward(create_graph=True)
    return seen, x.grad


@scenario
def power_of_zero_gradients(lib):
    a = lib.tensor([0.0, 0.0, 0.0])
    b = lib.tensor([-1.0, 0.0, 1.0], requires_grad=True)
    lib.sum(a ** b).backward()
    c = lib.tensor([-1.0, 0.0, 1.0], requires_grad=True)
    lib.sum(0 ** c).backward()
    d = lib.tensor([0.0, 1.0, 2.0], requires_grad=True)
    lib.sum(d ** 0.0).backward()
    return b.grad, c.grad, d.grad


@scenario
def nansum_gradients(lib):
    x = lib.tensor(np.array([[1.0, np.nan], [np.nan, 2.0]]), requires_grad=True)
    out = []
    for fn in (lambda t: t.nansum(), lambda t: t.nansum(0), lambda t: t.nansum((0, 1), True)):
        x.grad = None
        fn(x).sum().backward()
        out.append(x.grad)
    f = lib.tensor(V.astype(np.float32), requires_grad=True)
    lib.sum(f, dtype=lib.float64).backward()
    return out, f.grad


@scenario
def function_without_forward(lib):
    class BadFw(lib.autograd.Function):
        @staticmethod
        def backward(ctx, g):
            return g
    return BadFw.apply(lib.tensor(V, requires_grad=True))


@scenario
def function_without_backward(lib):
    class BadBw(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()
    return BadBw.apply(lib.tensor(V, requires_grad=True)).sum().backward()


@scenario
def function_local_inplace_name(lib):
    class Local(lib.autograd.Function):
        @staticmethod
        def forward(ctx, inp, inplace):
            view = inp.clone()[:3]
            if inplace:
                view += 2
            return view

        @staticmethod
        def backward(ctx, g):
            return lib.cat([g, g.new_zeros(1)]), None
    base = lib.tensor(V, requires_grad=True)
    return [type(Local.apply(base, flag).grad_fn).__name__ for flag in (False, True)]


@scenario
def integer_outputs(lib):
    inp = lib.tensor(V, requires_grad=True)
    val = lib.tensor(0.5, requires_grad=True)
    outs = (inp.argmax(), inp.argmin(), inp.argsort(), lib.searchsorted(inp.sort()[0], val),
            inp > 0, inp.long(), inp.sort()[1], inp.max(0)[1], inp.topk(2)[1])
    return [(str(o.dtype), o.requires_grad, o.grad_fn is None) for o in outs]


@scenario
def complex_real_imag_grads(lib):
    z = lib.tensor(np.array([1 + 2j, -0.5 + 1j, 3 - 1j]), requires_grad=True)
    z.real.sum().backward()
    g1 = z.grad.clone()
    z.grad = None
    z.imag.sum().backward()
    g2 = z.grad.clone()
    z.grad = None
    lib.view_as_real(z).sum().backward()
    g3 = z.grad
    x = lib.tensor(np.arange(6.0).reshape(3, 2), requires_grad=True)
    lib.view_as_complex(x).sum().backward()
    return g1, g2, g3, x.grad


@scenario
def complex_view_inplace(lib):
    x = lib.tensor(np.linspace(-1, 1, 8).reshape(2, 2, 2), requires_grad=True)
    x0 = x.clone()
    x2 = lib.view_as_real(lib.view_as_complex(x0))
    x2.mul_(2)
    x2.sum().backward()
    y = lib.tensor(np.linspace(-1, 1, 8).reshape(2, 2, 2), requires_grad=True)
    b = lib.view_as_complex(y.clone()).reshape(4)
    b.mul_(2)
    (b.real + b.imag * 3).sum().backward()
    return x.grad, y.grad


@scenario
def complex_abs_and_angle_grads(lib):
    z = lib.tensor(np.array([1 + 2j, -0.5 + 1j, 3 - 1j]), requires_grad=True)
    (z.abs() + z.angle() * 2).sum().backward()
    w = lib.tensor(np.array([1 + 2j, -0.5 + 1j]), requires_grad=True)
    (w * w.conj()).real.sum().backward()
    return z.grad, w.grad


DIFFERENCES = {}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_views_python_scenario_matches_torch(name):
    check(SCENARIOS[name])
