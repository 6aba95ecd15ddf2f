"""torch.autograd.Function against PyTorch: the examples of PyTorch's docs (a custom ReLU, exp
saving its output, the Legendre polynomial of the tutorial), ctx's options, and errors."""
import numpy as np
import pytest
import torch

import gradjit


def _classes(lib):
    """The docs' Functions, defined for `lib` (each library needs its own base class)."""
    class MyReLU(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return input.clamp(min=0)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            grad_input = grad_output.clone()
            grad_input[input < 0] = 0
            return grad_input

    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            result, = ctx.saved_tensors
            return grad_output * result

    class LegendrePolynomial3(lib.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2 - 1)

    class ScaleBy(lib.autograd.Function):
        """A non-tensor argument, ctx.needs_input_grad, and two outputs."""

        @staticmethod
        def forward(ctx, x, factor, y):
            ctx.factor = factor
            ctx.flags = ctx.needs_input_grad
            return x * factor, x * y

        @staticmethod
        def backward(ctx, g_scaled, g_product):
            return g_scaled * ctx.factor, None, None
    return MyReLU, Exp, LegendrePolynomial3, ScaleBy


def _both(run):
    return run(gradjit, *_classes(gradjit)), run(torch, *_classes(torch))


def _check(ours, theirs):
    for a, t in zip(ours, theirs):
        if isinstance(t, torch.Tensor):
            np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), rtol=1e-6)
        else:
            assert a == t


def test_custom_relu_and_its_grad_fn():
    def run(lib, MyReLU, *_):
        x = lib.tensor([[-1.0, 2.0, 0.5], [3.0, -0.2, -4.0]], requires_grad=True)
        y = MyReLU.apply(x * 2)
        (y * y).sum().backward()
        fn = y.grad_fn
        return y, x.grad, fn.name(), len(fn.next_functions), type(fn.next_functions[0][0]).__name__
    ours, theirs = _both(run)
    _check(ours, theirs)
    assert ours[2] == "MyReLUBackward"


def test_exp_saving_its_output_twice_differentiable():
    def run(lib, _, Exp, *__):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = Exp.apply(x)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        return y, g, gg
    _check(*_both(run))


def test_legendre_polynomial_training_follows_pytorch():
    """The tutorial's fit of sin with P3(a + b x) for 50 steps: same losses and weights."""
    def run(lib, _, __, P3, ___):
        x = lib.linspace(-np.pi, np.pi, 200)
        y = lib.sin(x)
        a, b, c, d = (lib.full((), v, requires_grad=True) for v in (0.0, -1.0, 0.0, 0.3))
        losses = []
        for _ in range(50):
            y_pred = a + b * P3.apply(c + d * x)
            loss = (y_pred - y).pow(2).sum()
            loss.backward()
            losses.append(loss.item())
            with lib.no_grad():
                for p in (a, b, c, d):
                    p -= 5e-6 * p.grad
                    p.grad = None
        return [lib.tensor(losses), a, b, c, d]
    ours, theirs = _both(run)
    for a, t in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), t.detach().numpy(), rtol=1e-4, atol=1e-6)


def test_gradient_matches_finite_differences():
    _, _, P3, _ = _classes(gradjit)
    x = gradjit.tensor([0.3, -0.7, 1.1], dtype=gradjit.float64, requires_grad=True)
    P3.apply(x).sum().backward()
    h = 1e-6
    xs = x.detach().numpy()
    fd = (0.5 * (5 * (xs + h) ** 3 - 3 * (xs + h)) - 0.5 * (5 * (xs - h) ** 3 - 3 * (xs - h)))
    np.testing.assert_allclose(x.grad.numpy(), fd / (2 * h), rtol=1e-7)


def test_non_tensor_arguments_and_two_outputs():
    def run(lib, *classes):
        ScaleBy = classes[3]
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0, 4.0])
        scaled, product = ScaleBy.apply(x, 3.0, y)
        scaled.sum().backward()
        return x.grad, scaled.grad_fn.name(), product.grad_fn is scaled.grad_fn
    ours, theirs = _both(run)
    _check(ours, theirs)


def test_backward_runs_once_for_several_outputs():
    def run(lib):
        calls = []

        class SinCos(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.sin(), x.cos().double()

            @staticmethod
            def backward(ctx, g_sin, g_cos):
                calls.append((g_sin.tolist(), g_cos.tolist()))
                x, = ctx.saved_tensors
                return g_sin * x.cos() - g_cos.float() * x.sin()
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        s, c = SinCos.apply(x)
        (s * 2 + c * 3).sum().backward()
        return x.grad, calls, s.grad_fn.name() == c.grad_fn.name() == "SinCosBackward"
    (ours, our_calls, our_names), (theirs, their_calls, their_names) = run(gradjit), run(torch)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    assert our_calls == their_calls and len(our_calls) == 1
    assert our_names and their_names


def test_needs_input_grad_mark_non_differentiable_and_materialize():
    for lib in (gradjit, torch):
        seen = {}

        class SortValues(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                seen["needs"] = ctx.needs_input_grad
                values, order = x.sort()
                ctx.mark_non_differentiable(order)
                ctx.set_materialize_grads(False)
                ctx.save_for_backward(order)
                return values * y, order

            @staticmethod
            def backward(ctx, g, g_order):
                seen["g_order"] = g_order
                order, = ctx.saved_tensors
                return g[order.argsort()], None
        x = lib.tensor([3.0, 1.0, 2.0], requires_grad=True)
        values, order = SortValues.apply(x, lib.ones(3))
        assert seen["needs"] == (True, False)
        assert not order.requires_grad and values.requires_grad
        (values * lib.tensor([1.0, 10.0, 100.0])).sum().backward()
        assert seen["g_order"] is None
        assert x.grad.tolist() == [100.0, 1.0, 10.0]


def test_without_inputs_that_require_grad_there_is_no_node():
    _, Exp, _, _ = _classes(gradjit)
    y = Exp.apply(gradjit.ones(2))
    assert y.grad_fn is None and not y.requires_grad
    with gradjit.no_grad():
        assert Exp.apply(gradjit.ones(2, requires_grad=True)).grad_fn is None


def test_a_broadcast_gradient_is_summed_to_the_input():
    for lib in (gradjit, torch):
        class Expand(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.expand(2, 3).clone()

            @staticmethod
            def backward(ctx, g):
                return g
        x = lib.ones(1, 3, requires_grad=True)
        (Expand.apply(x) * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        assert x.grad.tolist() == [[2.0, 4.0, 6.0]]


def test_errors_match_pytorch():
    def wrong_count(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2
        return Twice.apply(lib.ones(2, requires_grad=True), lib.ones(2)).sum().backward()

    def wrong_shape(lib):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return lib.ones(5)
        return Bad.apply(lib.ones(2, requires_grad=True)).sum().backward()

    def modified(lib):
        x = lib.ones(2, requires_grad=True)
        y = _classes(lib)[1].apply(x)
        y.add_(1)
        return y.sum().backward()
    def twice(lib):
        y = _classes(lib)[1].apply(lib.ones(2, requires_grad=True)).sum()
        y.backward()
        return y.backward()
    for case in (wrong_count, wrong_shape, modified, twice):
        with pytest.raises(RuntimeError) as theirs:
            case(torch)
        with pytest.raises(RuntimeError) as ours:
            case(gradjit)
        assert str(ours.value).split(":")[0] == str(theirs.value).split(":")[0]


@pytest.mark.parametrize("which", [0, 1, 2], ids=["MyReLU", "Exp", "LegendrePolynomial3"])
@pytest.mark.parametrize("transform", ["grad", "jit-of-grad", "value_and_grad"])
def test_the_docs_functions_compile_with_their_backward(which, transform):
    """Inside grad/jit a Function is one op whose gradient is the user's backward: equal to
    eager gradjit and to torch."""
    x = np.linspace(-2, 2, 9)
    ours_cls, theirs_cls = _classes(gradjit)[which], _classes(torch)[which]

    def loss(t):
        return (ours_cls.apply(t) * t.sin()).sum()
    make = {"grad": gradjit.grad, "jit-of-grad": lambda f: gradjit.jit(gradjit.grad(f)),
            "value_and_grad": lambda f: lambda t: gradjit.value_and_grad(f)(t)[1]}[transform]
    compiled = make(loss)(gradjit.tensor(x))
    t = torch.tensor(x, requires_grad=True)
    (theirs_cls.apply(t) * t.sin()).sum().backward()
    np.testing.assert_allclose(compiled.numpy(), t.grad.numpy(), rtol=1e-14)
    values = gradjit.jit(lambda a: ours_cls.apply(a) * 2)(gradjit.tensor(x))
    np.testing.assert_allclose(values.numpy(), theirs_cls.apply(torch.tensor(x)).numpy() * 2,
                               rtol=1e-14)


def test_a_number_argument_and_a_wrong_gradient_count_under_tracing():
    class MulConstant(gradjit.autograd.Function):
        @staticmethod
        def forward(ctx, tensor, constant):
            ctx.constant = constant
            return tensor * constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    class Forgetful(MulConstant):
        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant

    x = np.arange(3.0)
    got = gradjit.grad(lambda t: (MulConstant.apply(t, 3.0) ** 2).sum())(gradjit.tensor(x))
    np.testing.assert_allclose(got.numpy(), 18 * x)
    with pytest.raises(RuntimeError, match="ForgetfulBackward returned an incorrect number of "
                                           r"gradients \(expected 2, got 1\)"):
        gradjit.grad(lambda t: Forgetful.apply(t, 3.0).sum())(gradjit.tensor(x))
    with pytest.raises(NotImplementedError, match="takes positional arguments only"):
        gradjit.grad(lambda t: MulConstant.apply(t, constant=3.0).sum())(gradjit.tensor(x))


def test_several_outputs_under_tracing_as_eagerly():
    got = gradjit.func.grad(lambda t: _classes(gradjit)[3].apply(t, 2.0, t)[0].sum())(
        gradjit.tensor(np.arange(3.0)))
    x = torch.tensor(np.arange(3.0), requires_grad=True)
    _classes(torch)[3].apply(x, 2.0, x)[0].sum().backward()  # torch.func wants setup_context
    np.testing.assert_allclose(got.numpy(), x.grad.numpy())


def test_non_tensor_outputs_under_tracing_are_refused_with_a_message():
    class ToList(gradjit.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return [x * 2]

    with pytest.raises(NotImplementedError, match="must return Tensors there, not a list"):
        gradjit.grad(lambda t: ToList.apply(t)[0].sum())(gradjit.tensor(np.ones(3)))


def test_missing_methods_and_bad_saves_raise_as_in_pytorch():
    for lib in (gradjit, torch):
        class NoBackward(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        class NoForward(lib.autograd.Function):
            pass

        class SavesANumber(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x
        x = lib.ones(2, requires_grad=True)
        with pytest.raises(NotImplementedError, match="implement either the backward or vjp"):
            NoBackward.apply(x).sum().backward()
        with pytest.raises(NotImplementedError, match="implement the forward function"):
            NoForward.apply(x)
        with pytest.raises(TypeError, match="argument 1 is of type int"):
            SavesANumber.apply(x)


def test_an_unused_output_gets_none_without_materialized_grads():
    for lib in (gradjit, torch):
        seen = []

        class Split(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g_a, g_b):
                seen.append(g_b)
                return g_a * 2
        x = lib.ones(2, requires_grad=True)
        a, _ = Split.apply(x)
        a.sum().backward()
        assert seen == [None] and x.grad.tolist() == [2.0, 2.0]
