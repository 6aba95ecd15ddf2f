"""PyTorch's autograd suite, custom Function forms part, side by side with torch:
setup_context, apply's arguments and non-tensor outputs, saved-tensor hooks, vjp and vmap
staticmethods, the node and ctx attributes PyTorch exposes."""
import pytest

from tests.autograd.torch_suite import A, B, Scenarios, cases, check, leaves, square_function
from tests.autograd.test_torch_suite_function import identity_times_two

SCENARIOS = scenario = Scenarios()


@scenario
def setup_context_style(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(x, k):
            return x ** 3 * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, k = inputs
            ctx.save_for_backward(x)
            ctx.k = k

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 3 * x ** 2 * ctx.k * g, None
    x = leaves(lib, A)[0]
    y = Cube.apply(x, 2.0)
    y.sum().backward()
    return y, x.grad, type(y.grad_fn).__name__


@scenario
def function_grad_fn_metadata(lib):
    x = leaves(lib, A)[0]
    y = identity_times_two(lib).apply(x * 1)
    node = y.grad_fn
    node.metadata["k"] = 1
    return (type(node).__name__, node.name(), node.metadata, len(node.next_functions),
            type(node.next_functions[0][0]).__name__, repr(node).split(" object")[0])


@scenario
def function_kwargs_in_apply(lib):
    class K(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale=2.0):
            return x * scale

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return K.apply(leaves(lib, A)[0], scale=3.0)


@scenario
def function_non_tensor_output(lib):
    class Mixed(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 7, None

        @staticmethod
        def backward(ctx, g, g_int, g_none):
            return g * 2
    x = leaves(lib, A)[0]
    y, k, n = Mixed.apply(x)
    y.sum().backward()
    return k, n, x.grad


@scenario
def function_integer_output(lib):
    class ArgMax(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.argmax(), x * 2

        @staticmethod
        def backward(ctx, gi, gx):
            return gx * 2
    x = leaves(lib, A)[0]
    i, y = ArgMax.apply(x)
    y.sum().backward()
    return i, i.requires_grad, x.grad


@scenario
def function_saved_tensors_hooks(lib):
    packed = []

    Square = square_function(lib)
    x = leaves(lib, A)[0]
    with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t * 2,
                                                lambda t: t):
        y = Square.apply(x)
    y.sum().backward()
    return len(packed) > 0, x.grad


@scenario
def function_double_backward_through_backward(lib):
    Square = square_function(lib)
    x = leaves(lib, A)[0]
    g, = lib.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    gg, = lib.autograd.grad((g ** 2).sum(), x)
    return g, gg


@scenario
def vjp_alias(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2
        @staticmethod
        def vjp(ctx, g):
            return g * 5
    x = lib.tensor(A, requires_grad=True)
    F.apply(x).sum().backward()
    return x.grad

@scenario
def custom_vmap_rule(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2
        @staticmethod
        def setup_context(ctx, inputs, output):
            pass
        @staticmethod
        def backward(ctx, g):
            return g * 2
        @staticmethod
        def vmap(info, in_dims, x):
            return x * 3, in_dims[0]
    return lib.vmap(F.apply)(lib.tensor(A))


@scenario
def custom_vmap_rule_dims(lib):
    """The rule sees None for a shared input and its output's batch axis is moved to 0."""
    calls = []

    class F(lib.autograd.Function):
        @staticmethod
        def forward(x, y):
            return x * y
        @staticmethod
        def setup_context(ctx, inputs, output):
            pass
        @staticmethod
        def backward(ctx, g):
            return g, g
        @staticmethod
        def vmap(info, in_dims, x, y):
            calls.append((info.batch_size, in_dims))
            return (x * y + 1).t(), 1
    out = lib.func.vmap(F.apply, in_dims=(0, None))(lib.tensor(A), lib.tensor(B[0]))
    return out, calls

@scenario
def saved_tensors_twice(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2
        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_tensors
            b, = ctx.saved_tensors
            return g * a * b
    x = lib.tensor(A, requires_grad=True)
    F.apply(x).sum().backward()
    return x.grad

@scenario
def saved_variables_deprecated(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2
        @staticmethod
        def backward(ctx, g):
            a, = ctx.saved_variables
            return g * a
    x = lib.tensor(A, requires_grad=True)
    F.apply(x).sum().backward()
    return x.grad

@scenario
def function_apply_without_tensors(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b
        @staticmethod
        def backward(ctx, g):
            return g, g
    return F.apply(1.0, 2.0)

@scenario
def function_returns_list(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return [x * 2, x * 3]
        @staticmethod
        def backward(ctx, g):
            return g
    return F.apply(lib.tensor(A, requires_grad=True))

@scenario
def function_double_backward_needs_input_grad(lib):
    class Sq(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x
        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return SqBack.apply(x, g)
    class SqBack(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, g):
            ctx.save_for_backward(x, g)
            return 2 * x * g
        @staticmethod
        def backward(ctx, gg):
            x, g = ctx.saved_tensors
            return 2 * g * gg, 2 * x * gg
    x = lib.tensor(A, requires_grad=True)
    g, = lib.autograd.grad(Sq.apply(x).sum(), x, create_graph=True)
    gg, = lib.autograd.grad(g.sum(), x)
    return g, gg

@scenario
def mark_non_differentiable_input(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_non_differentiable(x)
            return x
        @staticmethod
        def backward(ctx, g):
            return g
    x = lib.tensor(A, requires_grad=True) * 1
    y = F.apply(x)
    return y.requires_grad, y is x


@scenario
def backward_and_vjp_both(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

        @staticmethod
        def vjp(ctx, g):
            return g
    x = lib.tensor(A, requires_grad=True)
    return F.apply(x).sum().backward()


@scenario
def ctx_attributes(lib):
    seen = []

    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            seen.append((ctx.needs_input_grad, hasattr(ctx, "materialize_grads")))
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g, None
    x = lib.tensor(A, requires_grad=True)
    F.apply(x, lib.tensor(A)).sum().backward()
    return seen


@scenario
def function_node_not_callable(lib):
    x = lib.tensor(A, requires_grad=True)
    y = identity_times_two(lib).apply(x * 1)
    return y.grad_fn(lib.ones(2, 3, dtype=lib.float64))


DIFFERENCES = {}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_function_forms_scenario_matches_torch(name):
    check(SCENARIOS[name])
