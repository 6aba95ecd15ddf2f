"""PyTorch's autograd suite, custom Function ctx part, side by side with torch: mark_dirty,
saved tensors and their errors, needs_input_grad, reentrant backward, setup_context, vjp
as backward's other name."""
import numpy as np
import pytest

from tests.autograd.torch_suite import A, B, Scenarios, cases, check, leaves, square_function
from tests.autograd.test_torch_suite_function import identity_times_two

SCENARIOS = scenario = Scenarios()


@scenario
def mark_dirty_returns_input(lib):
    class DoubleInplace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2
    x = leaves(lib, A)[0]
    c = x.clone()
    before = c._version
    r = DoubleInplace.apply(c)
    (r * lib.tensor(B)).sum().backward()
    return r is c, c._version - before, r, x.grad, type(r.grad_fn).__name__


@scenario
def mark_dirty_twice_returned(lib):
    class DoubleInplace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x, x

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 2
    x = leaves(lib, A)[0]
    a, b = DoubleInplace.apply(x.clone())
    (a + b).sum().backward()
    return a is b, x.grad


@scenario
def mark_dirty_on_leaf(lib):
    class Inplace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.add_(1)

        @staticmethod
        def backward(ctx, g):
            return g
    return Inplace.apply(leaves(lib, A)[0])


@scenario
def mark_dirty_on_view_returning_two(lib):
    class Inplace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.add_(1), x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + g2 * 2
    return Inplace.apply(leaves(lib, A)[0].clone()[0])


@scenario
def mark_dirty_on_view(lib):
    class Inplace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.mul_(3)

        @staticmethod
        def backward(ctx, g):
            return g * 3
    x = leaves(lib, A)[0]
    base = x * 1
    view = base[0]
    r = Inplace.apply(view)
    base.sum().backward()
    return r is view, base, x.grad, type(base.grad_fn).__name__


@scenario
def mark_dirty_on_view_of_leaf(lib):
    class Inplace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.mul_(2)

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return Inplace.apply(leaves(lib, A)[0][:1])


@scenario
def mark_dirty_not_returned(lib):
    class Inplace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            x.add_(1)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return Inplace.apply(leaves(lib, A)[0].clone())


@scenario
def mark_dirty_leaf_without_grad(lib):
    class Inplace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.mark_dirty(a)
            return a.add_(b), b + 2

        @staticmethod
        def backward(ctx, ga, gb):
            return ga, ga + gb
    x = lib.tensor(A)
    y = leaves(lib, B)[0]
    q, p = Inplace.apply(x, y)
    q.sum().backward()
    return q is x, q.requires_grad, x.is_leaf, type(q.grad_fn).__name__, y.grad


@scenario
def save_output_nr(lib):
    seen = []

    class Split(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:2], x[2:]

        @staticmethod
        def backward(ctx, *g):
            return lib.cat(g)

    class Use(lib.autograd.Function):
        @staticmethod
        def forward(ctx, b):
            ctx.save_for_backward(b)
            return b * 2

        @staticmethod
        def backward(ctx, g):
            b, = ctx.saved_tensors
            seen.append(b.output_nr)
            return g * 2
    x = lib.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
    a, b = Split.apply(x)
    Use.apply(b).sum().backward()
    return a.output_nr, b.output_nr, seen, x.grad


@scenario
def save_none_for_backward(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(None, x, None)
            return x * x

        @staticmethod
        def backward(ctx, g):
            n1, x, n2 = ctx.saved_tensors
            return 2 * x * g, n1, n2
    x = leaves(lib, A)[0]
    Square.apply(x).sum().backward()
    return x.grad


@scenario
def save_non_tensor(lib):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g
    return Bad.apply(leaves(lib, A)[0])


@scenario
def save_intermediate_and_output(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            sq = x * x
            out = sq * x
            ctx.save_for_backward(sq, out, x)
            return out

        @staticmethod
        def backward(ctx, g):
            sq, out, x = ctx.saved_tensors
            return g * 3 * out / x
    x = leaves(lib, A)[0]
    y = Cube.apply(x)
    g1, = lib.autograd.grad(y.sum(), x, create_graph=True)
    g2, = lib.autograd.grad(g1.sum(), x)
    return y, g1, g2


@scenario
def saved_tensors_after_free(lib):
    kept = []

    class Id(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            kept.append(ctx)
            return g
    p = lib.zeros(1, requires_grad=True)
    Id.apply(p).backward()
    return kept[0].saved_tensors


@scenario
def saved_input_modified(lib):
    Square = square_function(lib)
    x = leaves(lib, A)[0]
    c = x * 1
    y = Square.apply(c)
    c.add_(1)
    return y.sum().backward()


@scenario
def needs_input_grad(lib):
    seen = []

    class Mix(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, y, z):
            seen.append(ctx.needs_input_grad)
            return x * k + y + z

        @staticmethod
        def backward(ctx, g):
            seen.append(ctx.needs_input_grad)
            return g, None, g, g
    x, y = leaves(lib)
    Mix.apply(x, 2.0, lib.tensor(B), y).sum().backward()
    return seen, x.grad, y.grad


@scenario
def dependent_non_differentiable(lib):
    class F1(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = lib.zeros_like(x)
            ctx.mark_non_differentiable(out)
            return x, out

        @staticmethod
        def backward(ctx, g, ignored):
            return g

    class F2(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, ignored):
            return x

        @staticmethod
        def backward(ctx, g):
            return g, None
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a, b = F1.apply(x)
    b = b + 1
    c = F2.apply(a, b)
    c.backward(lib.ones(3))
    return a.requires_grad, b.requires_grad, x.grad


@scenario
def return_leaf_with_hook(lib):
    class Identity(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a, a + b

        @staticmethod
        def backward(ctx, ga, gb):
            return ga + gb, gb
    seen = []
    x, y = leaves(lib)
    q, p = Identity.apply(x, y)
    q.register_hook(seen.append)
    (q + p + x).sum().backward()
    return x.grad, y.grad, seen


@scenario
def no_grad_input(lib):
    x = leaves(lib, A)[0]
    with lib.no_grad():
        y = identity_times_two(lib).apply(x)
    return x.requires_grad, y.grad_fn is None, y.requires_grad


@scenario
def reentrant_backward(lib):
    y_data = lib.tensor(B)

    class Reenter(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with lib.enable_grad():
                ctx.x = x.detach().requires_grad_()
                ctx.out = ctx.x * y_data
            return ctx.out.detach()

        @staticmethod
        def backward(ctx, g):
            with lib.enable_grad():
                ctx.out.sum().backward()
            return ctx.x.grad * g
    x = leaves(lib, A)[0]
    Reenter.apply(x).sum().backward()
    return x.grad


@scenario
def reentrant_child_error(lib):
    class Fails(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            raise RuntimeError("Simulate error on backward pass")
    b = leaves(lib, B)[0]
    root = Fails.apply(b * b).sum()

    class Outer(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            root.backward()
            return g
    a = leaves(lib, A)[0]
    return Outer.apply(a * a).sum().backward()


@scenario
def repeated_double_backward(lib):
    class Mult(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.prod(dim=-1).prod(dim=-1)
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return (g * y)[:, None, None] / x
    x = lib.tensor(np.linspace(0.5, 1.5, 32).reshape(2, 4, 4), requires_grad=True)
    y = Mult.apply(x)
    out = []
    for _ in range(2):
        gy, = lib.autograd.grad(y[0], x, create_graph=True)
        out.append(lib.autograd.grad(gy[0, 0, 0], x, retain_graph=True)[0])
    return out


@scenario
def no_early_free(lib):
    class Double(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x ** 2
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * 2 * y / x
    x = lib.tensor(2.0, dtype=lib.double).requires_grad_()
    y = Double.apply(x)
    first = lib.autograd.grad(y, x, create_graph=True)
    return first, lib.autograd.grad(y, x)


DIFFERENCES = {}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_function_ctx_scenario_matches_torch(name):
    check(SCENARIOS[name])
