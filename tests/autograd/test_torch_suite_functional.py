"""PyTorch's autograd suite, higher-level part, side by side with torch: autograd.functional
(vjp, jvp, jacobian, hessian, hvp, vhp and their options), gradcheck, forward-mode dual
numbers, checkpoint, anomaly mode and saved-tensor hooks."""
import numpy as np
import pytest

from tests.autograd.torch_suite import A, B, Scenarios, cases, check

V = np.array([0.3, -0.7, 1.1])
SCENARIOS = scenario = Scenarios()


def t(lib, a, grad=False):
    return lib.tensor(a, requires_grad=grad)


def square_sum(x):
    return (x ** 2 * x.sin()).sum()


def two_in_two_out(x, y):
    return x * y.exp(), (x + y).sum(0)


@scenario
def vjp_single(lib):
    return lib.autograd.functional.vjp(lambda x: x.exp() * 2, t(lib, V), t(lib, V[::-1].copy()))


@scenario
def vjp_tuple_and_scalar(lib):
    out = lib.autograd.functional.vjp(two_in_two_out, (t(lib, A), t(lib, B)),
                                      (t(lib, B), t(lib, V)))
    scalar = lib.autograd.functional.vjp(square_sum, t(lib, V))
    return out, scalar


@scenario
def vjp_create_graph(lib):
    x = t(lib, V, True)
    out, g = lib.autograd.functional.vjp(lambda a: (a ** 3).sum(), x, create_graph=True)
    g.sum().backward()
    return out.requires_grad, g.requires_grad, x.grad


@scenario
def vjp_v_missing_for_vector(lib):
    return lib.autograd.functional.vjp(lambda x: x * 2, t(lib, V))


@scenario
def vjp_v_wrong_size(lib):
    return lib.autograd.functional.vjp(lambda x: x * 2, t(lib, V), lib.ones(2))


@scenario
def vjp_strict_independent(lib):
    return lib.autograd.functional.vjp(lambda x: lib.ones(3), t(lib, V), lib.ones(3),
                                       strict=True)


@scenario
def vjp_independent_not_strict(lib):
    return lib.autograd.functional.vjp(lambda x: lib.ones(3), t(lib, V), lib.ones(3))


@scenario
def vjp_returns_non_tensor(lib):
    return lib.autograd.functional.vjp(lambda x: 3.0, t(lib, V))


@scenario
def vjp_inputs_not_tensor(lib):
    return lib.autograd.functional.vjp(lambda x: x, [1.0, 2.0])


@scenario
def jvp_single_and_tuple(lib):
    one = lib.autograd.functional.jvp(lambda x: x.exp() * 2, t(lib, V), t(lib, V[::-1].copy()))
    two = lib.autograd.functional.jvp(two_in_two_out, (t(lib, A), t(lib, B)),
                                      (t(lib, B), t(lib, A)))
    return one, two


@scenario
def jvp_create_graph(lib):
    x = t(lib, V, True)
    out, jv = lib.autograd.functional.jvp(lambda a: a ** 3, x, lib.ones(3), create_graph=True)
    jv.sum().backward()
    return out.requires_grad, jv.requires_grad, x.grad


@scenario
def jvp_strict_independent(lib):
    return lib.autograd.functional.jvp(lambda x: x.detach() * 2, t(lib, V), lib.ones(3),
                                       strict=True)


@scenario
def jacobian_forms(lib):
    J = lib.autograd.functional.jacobian
    return (J(lambda x: x.exp() * x.sum(), t(lib, V)),
            J(two_in_two_out, (t(lib, A), t(lib, B))),
            J(square_sum, t(lib, V)),
            J(lambda x: x.sin(), t(lib, A)))


@scenario
def jacobian_vectorize(lib):
    J = lib.autograd.functional.jacobian
    return (J(lambda x: x.exp() * x.sum(), t(lib, V), vectorize=True),
            J(two_in_two_out, (t(lib, A), t(lib, B)), vectorize=True))


@scenario
def jacobian_forward_mode(lib):
    J = lib.autograd.functional.jacobian
    return (J(lambda x: x.exp() * x.sum(), t(lib, V), vectorize=True, strategy="forward-mode"),
            J(two_in_two_out, (t(lib, A), t(lib, B)), vectorize=True,
              strategy="forward-mode"))


@scenario
def jacobian_forward_mode_needs_vectorize(lib):
    return lib.autograd.functional.jacobian(lambda x: x * 2, t(lib, V), strategy="forward-mode")


@scenario
def jacobian_bad_strategy(lib):
    return lib.autograd.functional.jacobian(lambda x: x * 2, t(lib, V), strategy="sideways")


@scenario
def jacobian_create_graph(lib):
    x = t(lib, V, True)
    j = lib.autograd.functional.jacobian(lambda a: a ** 3, x, create_graph=True)
    j.sum().backward()
    return j.requires_grad, x.grad


@scenario
def jacobian_strict_independent_output(lib):
    return lib.autograd.functional.jacobian(lambda x: (x * 2, lib.ones(2)), t(lib, V),
                                            strict=True)


@scenario
def jacobian_independent_output_not_strict(lib):
    return lib.autograd.functional.jacobian(lambda x: (x * 2, lib.ones(2)), t(lib, V))


@scenario
def jacobian_strict_with_vectorize(lib):
    return lib.autograd.functional.jacobian(lambda x: x * 2, t(lib, V), strict=True,
                                            vectorize=True)


@scenario
def hessian_forms(lib):
    H = lib.autograd.functional.hessian
    return (H(square_sum, t(lib, V)),
            H(lambda x, y: (x * y.exp()).sum() + (x ** 2 * y).sum(), (t(lib, A), t(lib, B))),
            H(square_sum, t(lib, V), vectorize=True),
            H(square_sum, t(lib, V), vectorize=True, outer_jacobian_strategy="forward-mode"))


@scenario
def hessian_non_scalar(lib):
    return lib.autograd.functional.hessian(lambda x: x ** 2, t(lib, V))


@scenario
def hessian_linear_function(lib):
    return lib.autograd.functional.hessian(lambda x: x.sum() * 3, t(lib, V))


@scenario
def hessian_linear_function_strict(lib):
    return lib.autograd.functional.hessian(lambda x: x.sum() * 3, t(lib, V), strict=True)


@scenario
def hvp_and_vhp(lib):
    F = lib.autograd.functional
    fn = lambda x, y: (x * y.exp()).sum() + (x ** 2 * y).sum()  # noqa: E731
    inputs, v = (t(lib, A), t(lib, B)), (t(lib, B), t(lib, A))
    return (F.hvp(square_sum, t(lib, V), t(lib, V * 2)), F.vhp(square_sum, t(lib, V),
                                                               t(lib, V * 2)),
            F.hvp(fn, inputs, v), F.vhp(fn, inputs, v))


@scenario
def hvp_create_graph(lib):
    x = t(lib, V, True)
    out, hv = lib.autograd.functional.hvp(square_sum, x, lib.ones(3), create_graph=True)
    hv.sum().backward()
    return hv.requires_grad, x.grad


@scenario
def vhp_v_missing(lib):
    return lib.autograd.functional.vhp(square_sum, t(lib, V))


@scenario
def vhp_non_scalar(lib):
    return lib.autograd.functional.vhp(lambda x: x ** 2, t(lib, V), lib.ones(3))


@scenario
def vhp_independent_strict(lib):
    return lib.autograd.functional.vhp(lambda x, y: (x ** 2).sum(), (t(lib, V), t(lib, V)),
                                       (lib.ones(3), lib.ones(3)), strict=True)


@scenario
def vhp_linear_strict(lib):
    return lib.autograd.functional.vhp(lambda x: x.sum(), t(lib, V), lib.ones(3), strict=True)


@scenario
def hvp_constant_jacobian_strict(lib):
    return lib.autograd.functional.hvp(lambda x: (x * lib.tensor(V)).sum() + x.sum() ** 2,
                                       t(lib, V), lib.ones(3), strict=True)


@scenario
def gradcheck_passes(lib):
    x = t(lib, A, True)
    y = t(lib, B, True)
    return (lib.autograd.gradcheck(lambda a, b: (a * b.sin()).sum(1), (x, y)),
            lib.autograd.gradgradcheck(lambda a, b: (a * b.sin()).sum(1), (x, y)),
            lib.autograd.gradcheck(lambda a: a.exp(), (x,), check_forward_ad=True),
            lib.autograd.gradcheck(lambda a: a.exp(), (x,), fast_mode=True))


def wrong_gradient(lib):
    class Wrong(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3
    return Wrong.apply


@scenario
def gradcheck_fails_quietly(lib):
    x = t(lib, V, True)
    return lib.autograd.gradcheck(wrong_gradient(lib), (x,), raise_exception=False)


@scenario
def gradcheck_error_type(lib):
    x = t(lib, V, True)
    try:
        lib.autograd.gradcheck(wrong_gradient(lib), (x,))
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, isinstance(e, RuntimeError), str(e).split("\n")[0]


@scenario
def gradcheck_no_input_requires_grad(lib):
    return lib.autograd.gradcheck(lambda a: a * 2, (t(lib, V),))


@scenario
def dual_numbers(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        x = fwAD.make_dual(t(lib, V), t(lib, V * 0 + 1))
        y = fwAD.make_dual(t(lib, V[::-1].copy()), t(lib, V))
        z = (x * y).sin() + x.exp() / y
        p, tz = fwAD.unpack_dual(z)
        named = fwAD.unpack_dual(z)
        plain = fwAD.unpack_dual(t(lib, V))
        m = x.view(3, 1) @ y.view(1, 3)
        return p, tz, named.primal, named.tangent, plain.tangent, fwAD.unpack_dual(m).tangent


@scenario
def dual_views_and_inplace(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        x = fwAD.make_dual(t(lib, A), t(lib, B))
        v = x[0]
        c = x.clone()
        c[1].mul_(3)
        c.add_(x)
        return (fwAD.unpack_dual(v).tangent, fwAD.unpack_dual(c).tangent,
                fwAD.unpack_dual(x.t()).tangent, fwAD.unpack_dual(x.sum(1)).tangent)


@scenario
def dual_outside_level(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        x = fwAD.make_dual(t(lib, V), t(lib, V))
    return fwAD.unpack_dual(x).tangent, x


@scenario
def make_dual_without_level(lib):
    return lib.autograd.forward_ad.make_dual(t(lib, V), t(lib, V))


@scenario
def make_dual_wrong_size(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        return fwAD.make_dual(t(lib, V), lib.ones(2, dtype=lib.float64))


@scenario
def dual_with_backward(lib):
    fwAD = lib.autograd.forward_ad
    x = t(lib, V, True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t(lib, V * 0 + 1))
        y = (d ** 3).sum()
        tangent = fwAD.unpack_dual(y).tangent
        y.backward()
    return tangent, x.grad


@scenario
def function_jvp_staticmethod(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 3 * x ** 2 * g

        @staticmethod
        def jvp(ctx, tx):
            x, = ctx.saved_tensors
            return 3 * x ** 2 * tx
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(t(lib, V), t(lib, V * 0 + 2))
        tangent = fwAD.unpack_dual(Cube.apply(d)).tangent
    x = t(lib, V, True)
    Cube.apply(x).sum().backward()
    return tangent, x.grad


@scenario
def function_without_jvp_in_forward_mode(lib):
    class NoJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(t(lib, V), t(lib, V))
        return NoJvp.apply(d)


@scenario
def function_vmap_staticmethod(lib):
    class Scale(lib.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x * 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g * 3
    return lib.vmap(Scale.apply)(t(lib, A))


@scenario
def checkpoint_matches(lib):
    from importlib import import_module
    cp = import_module(f"{lib.__name__}.utils.checkpoint")
    out = []
    for reentrant in (False, True):
        x = t(lib, A, True)
        w = t(lib, B, True)
        y = cp.checkpoint(lambda a, b: (a * b).sin().exp(), x, w, use_reentrant=reentrant)
        (y * 2).sum().backward()
        out.append((y, x.grad, w.grad))
    return out


@scenario
def checkpoint_kwargs_and_sequential(lib):
    from importlib import import_module
    cp = import_module(f"{lib.__name__}.utils.checkpoint")
    x = t(lib, A, True)
    y = cp.checkpoint(lambda a, scale=1.0: a.exp() * scale, x, scale=3.0, use_reentrant=False)
    y.sum().backward()
    g1 = x.grad
    lib.manual_seed(0)
    layers = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2))
    with lib.no_grad():
        for i, p in enumerate(layers.parameters()):
            p.copy_(lib.linspace(-1, 1, p.numel()).view(p.shape) * (i + 1))
    z = lib.tensor(A.astype(np.float32), requires_grad=True)
    out = cp.checkpoint_sequential(layers, 2, z, use_reentrant=False)
    out.sum().backward()
    return g1, out, z.grad, layers[0].weight.grad


@scenario
def checkpoint_reentrant_without_grad_input(lib):
    from importlib import import_module
    cp = import_module(f"{lib.__name__}.utils.checkpoint")
    w = t(lib, B, True)
    y = cp.checkpoint(lambda a: a * w, t(lib, A), use_reentrant=True)
    return y.requires_grad


@scenario
def checkpoint_with_autograd_grad(lib):
    from importlib import import_module
    cp = import_module(f"{lib.__name__}.utils.checkpoint")
    x = t(lib, A, True)
    y = cp.checkpoint(lambda a: a.sin() * a, x, use_reentrant=False)
    g, = lib.autograd.grad(y.sum(), x, create_graph=True)
    gg, = lib.autograd.grad(g.sum(), x)
    return g, gg


@scenario
def anomaly_nan_message(lib):
    x = t(lib, np.array([0.0, 1.0]), True)
    with lib.autograd.detect_anomaly():
        y = x / x
        y.sum().backward()


@scenario
def anomaly_nan_check_off(lib):
    x = t(lib, np.array([0.0, 1.0]), True)
    with lib.autograd.detect_anomaly(check_nan=False):
        (x / x).sum().backward()
        return x.grad, lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()


@scenario
def anomaly_flags(lib):
    states = [lib.is_anomaly_enabled()]
    with lib.autograd.detect_anomaly():
        states.append(lib.is_anomaly_enabled())
    lib.autograd.set_detect_anomaly(True)
    states.append(lib.is_anomaly_enabled())
    lib.autograd.set_detect_anomaly(False)
    with lib.autograd.set_detect_anomaly(True, check_nan=False):
        states.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    states.append(lib.is_anomaly_enabled())
    return states


@scenario
def anomaly_inplace_hint(lib):
    x = t(lib, A, True)
    with lib.autograd.detect_anomaly():
        y = x.exp()
        y.add_(1)
        try:
            y.sum().backward()
        except RuntimeError as e:
            return str(e)


@scenario
def saved_hooks_pack_unpack(lib):
    seen = []

    def pack(x):
        seen.append(("pack", tuple(x.shape)))
        return x.detach() * 1

    def unpack(x):
        seen.append(("unpack", tuple(x.shape)))
        return x
    a, b = t(lib, A, True), t(lib, B, True)
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (a * b).exp().sum()
    y.backward()
    return len(seen) > 0, a.grad, b.grad


@scenario
def saved_hooks_pack_count(lib):
    seen = []
    a, b = t(lib, A, True), t(lib, B, True)
    with lib.autograd.graph.saved_tensors_hooks(lambda x: seen.append("pack") or x,
                                                lambda x: seen.append("unpack") or x):
        y = (a * b).exp().sum()
    y.backward()
    return seen


@scenario
def saved_hooks_pack_count_per_operation(lib):
    """What each common node saves: its operands, its result, or nothing (a product saves an
    operand only for the other's gradient), with the gradients through the unpacked ones."""
    counts = []
    ops = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a / b, lambda a, b: a * 3,
           lambda a, b: a.exp(), lambda a, b: a.tanh(), lambda a, b: a.sin(),
           lambda a, b: b.abs().sqrt(), lambda a, b: a.abs().log(), lambda a, b: a ** 2,
           lambda a, b: a @ b.t(), lambda a, b: a.view(6).sum(), lambda a, b: a.mean(1),
           lambda a, b: a.relu(), lambda a, b: a.sigmoid()]
    grads = []
    for op in ops:
        a, b = t(lib, A, True), t(lib, B, True)
        seen = []
        with lib.autograd.graph.saved_tensors_hooks(lambda x: seen.append("pack") or x,
                                                    lambda x: seen.append("unpack") or x):
            y = op(a, b)
        y.sum().backward()
        counts.append(seen)
        grads.append(a.grad)
    return counts, grads


@scenario
def saved_hooks_pack_modifies_input(lib):
    a = t(lib, A, True)

    def pack(x):
        x.mul_(2)
        return x
    with lib.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
        y = (a * 1).exp()
    return y


@scenario
def saved_hooks_disabled(lib):
    graph = lib.autograd.graph
    with graph.disable_saved_tensors_hooks("no hooks here"):
        with graph.saved_tensors_hooks(lambda x: x, lambda x: x):
            pass


@scenario
def saved_hooks_unpack_wrong_type(lib):
    a = t(lib, A, True)
    with lib.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: 3):
        y = (a * a).sum()
    return y.backward()


@scenario
def save_on_cpu_gradients(lib):
    a, b = t(lib, A, True), t(lib, B, True)
    with lib.autograd.graph.save_on_cpu(pin_memory=False):
        y = (a * b.sin()).sum()
    y.backward()
    return a.grad, b.grad


DIFFERENCES = {}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_functional_scenario_matches_torch(name):
    check(SCENARIOS[name])
