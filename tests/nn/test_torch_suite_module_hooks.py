"""Module hooks as PyTorch's own nn tests exercise them (test_module_hooks.py): forward
pre-hooks and hooks with kwargs, prepend and always_call, global hooks, registration hooks and
handles, each scenario run in gradjit and torch and compared."""

import warnings

import pytest

from tests.nn.helpers import same_outcome


def seeded_linear(t):
    t.manual_seed(0)
    return t.nn.Linear(3, 2)


class Recorder:
    """Hooks that log their calls by name and optionally return a value."""

    def __init__(self):
        self.calls = []

    def hook(self, name, returns=None):
        def hook(*args):
            self.calls.append((name, len(args)))
            return returns

        return hook


def kwargs_module(t):
    class Scaled(t.nn.Module):
        def forward(self, x, scale=1.0, shift=0.0):
            return x * scale + shift

    return Scaled()


def pre_hook_rewrites_args_and_kwargs(t):
    module = kwargs_module(t)
    module.register_forward_pre_hook(
        lambda m, args, kwargs: ((args[0] + 1,), {"scale": 3.0}), with_kwargs=True
    )
    return module(t.ones(2), scale=2.0, shift=5.0)


def pre_hook_without_kwargs_returns_a_single_value(t):
    module = kwargs_module(t)
    module.register_forward_pre_hook(lambda m, args: args[0] * 4)
    return module(t.ones(2), shift=1.0)


def pre_hook_with_kwargs_bad_return(t):
    module = kwargs_module(t)
    module.register_forward_pre_hook(lambda m, args, kwargs: (args,), with_kwargs=True)
    return module(t.ones(2))


def forward_hook_with_kwargs_sees_them(t):
    module, seen = kwargs_module(t), []

    def hook(m, args, kwargs, out):
        seen.append(sorted(kwargs.items()))
        return out * 10

    module.register_forward_hook(hook, with_kwargs=True)
    return module(t.ones(2), scale=2.0), seen


def hooks_order_with_prepend(t):
    module, rec = seeded_linear(t), Recorder()
    module.register_forward_hook(rec.hook("fwd1"))
    module.register_forward_hook(rec.hook("fwd2"), prepend=True)
    module.register_forward_hook(rec.hook("fwd3"))
    module.register_forward_pre_hook(rec.hook("pre1"))
    module.register_forward_pre_hook(rec.hook("pre2"), prepend=True)
    module(t.ones(1, 3))
    return rec.calls


def always_call_hooks_run_when_forward_raises(t):
    class Failing(t.nn.Module):
        def forward(self, x):
            raise ValueError("forward failed")

    module, rec = Failing(), Recorder()
    module.register_forward_hook(rec.hook("always"), always_call=True)
    module.register_forward_hook(rec.hook("plain"))
    module.register_forward_hook(rec.hook("kw-always"), with_kwargs=True, always_call=True)
    try:
        module(t.ones(1))
    except ValueError as error:
        return rec.calls, str(error)


def always_call_hook_error_is_a_warning(t):
    class Failing(t.nn.Module):
        def forward(self, x):
            raise ValueError("forward failed")

    def broken(*args):
        raise KeyError("hook failed")

    module = Failing()
    module.register_forward_hook(broken, always_call=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            module(t.ones(1))
        except ValueError as error:
            return str(error), [str(w.message) for w in caught]


def always_call_hook_after_a_failing_hook(t):
    module, rec = seeded_linear(t), Recorder()

    def failing(*args):
        raise RuntimeError("first hook failed")

    module.register_forward_hook(failing)
    module.register_forward_hook(rec.hook("always"), always_call=True)
    try:
        module(t.ones(1, 3))
    except RuntimeError as error:
        return rec.calls, str(error)


def handle_as_context_manager(t):
    module, rec = seeded_linear(t), Recorder()
    with module.register_forward_hook(rec.hook("inside")):
        module(t.ones(1, 3))
    module(t.ones(1, 3))
    return rec.calls


def removed_handle_forgets_options(t):
    module = seeded_linear(t)
    handle = module.register_forward_hook(lambda *a: None, with_kwargs=True, always_call=True)
    handle.remove()
    handle.remove()
    return (
        len(module._forward_hooks),
        len(module._forward_hooks_with_kwargs),
        len(module._forward_hooks_always_called),
    )


def forward_hook_output_reaches_the_gradient(t):
    module = seeded_linear(t)
    module.register_forward_hook(lambda m, args, out: out * out)
    module.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
    x = t.tensor([[1.0, -2.0, 0.5]], requires_grad=True)
    module(x).sum().backward()
    return x.grad, module.weight.grad, module.bias.grad


def global_forward_hooks(t):
    from_module = t.nn.modules.module
    rec = Recorder()
    handles = [
        from_module.register_module_forward_pre_hook(rec.hook("gpre")),
        from_module.register_module_forward_hook(rec.hook("gfwd")),
        from_module.register_module_forward_hook(rec.hook("gkw"), with_kwargs=True),
    ]
    try:
        module = seeded_linear(t)
        module.register_forward_hook(rec.hook("local"))
        module.register_forward_pre_hook(rec.hook("local-pre"))
        out = module(t.ones(1, 3))
    finally:
        for handle in handles:
            handle.remove()
    module(t.ones(1, 3))
    return rec.calls, out


def global_always_call_hook(t):
    class Failing(t.nn.Module):
        def forward(self, x):
            raise ValueError("forward failed")

    rec = Recorder()
    handle = t.nn.modules.module.register_module_forward_hook(rec.hook("g"), always_call=True)
    try:
        Failing()(t.ones(1))
    except ValueError:
        pass
    finally:
        handle.remove()
    return rec.calls


def global_full_backward_hooks(t):
    from_module, seen = t.nn.modules.module, []
    handles = [
        from_module.register_module_full_backward_hook(
            lambda m, gin, gout: seen.append(("full", type(m).__name__, gin, gout))
        ),
        from_module.register_module_full_backward_pre_hook(lambda m, gout: (gout[0] * 2,)),
    ]
    try:
        module = seeded_linear(t)
        x = t.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        module(x).sum().backward()
    finally:
        for handle in handles:
            handle.remove()
    return seen, x.grad


def registration_hooks_replace_what_is_registered(t):
    from_module, seen = t.nn.modules.module, []

    def on_parameter(module, name, value):
        seen.append(("param", name))
        return t.nn.Parameter(t.zeros_like(value)) if name == "weight" else None

    def on_buffer(module, name, value):
        seen.append(("buffer", name))

    def on_module(module, name, value):
        seen.append(("module", name))
        return t.nn.Tanh() if name == "act" else None

    handles = [
        from_module.register_module_parameter_registration_hook(on_parameter),
        from_module.register_module_buffer_registration_hook(on_buffer),
        from_module.register_module_module_registration_hook(on_module),
    ]
    try:
        holder = t.nn.Module()
        holder.lin = seeded_linear(t)
        holder.act = t.nn.ReLU()
        holder.register_buffer("count", t.zeros(1))
        holder.add_module("other", t.nn.ReLU())
    finally:
        for handle in handles:
            handle.remove()
    return seen, holder.lin.weight, repr(holder)


def two_in(t):
    class M(t.nn.Module):
        def forward(self, a, b):
            return a * b, a + b

    return M()


def full_backward_hook_sees_gradients(t, **kw):
    m, seen = seeded_linear(t), []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)), **kw)
    x = t.ones(2, 3, requires_grad=True)
    m(x).sum().backward()
    return seen, x.grad


def full_backward_hook_replaces_grad_input(t):
    m = seeded_linear(t)
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 3,))
    x = t.ones(2, 3, requires_grad=True)
    m(x).sum().backward()
    return x.grad, m.weight.grad


def backward_pre_hooks_in_order(t):
    m, seen = seeded_linear(t), []
    m.register_full_backward_pre_hook(lambda mod, go: seen.append(go))
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 2,), prepend=True)
    x = t.ones(2, 3, requires_grad=True)
    m(x).sum().backward()
    return seen, x.grad, m.weight.grad


def two_inputs_two_outputs(t):
    m, seen = two_in(t), []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    a = t.tensor([1.0, 2.0], requires_grad=True)
    b = t.tensor([3.0, 4.0], requires_grad=True)
    x, y = m(a, b)
    (x.sum() + 2 * y.sum()).backward()
    return seen, a.grad, b.grad


def one_of_two_inputs_needs_a_gradient(t):
    m, seen = two_in(t), []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    a = t.tensor([1.0, 2.0], requires_grad=True)
    b = t.tensor([3.0, 4.0])
    x, y = m(a, b)
    x.sum().backward()
    return seen, a.grad


def no_input_needs_a_gradient(t):
    m, seen = seeded_linear(t), []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m(t.ones(2, 3)).sum().backward()
    return seen, [str(x.message)[:50] for x in w]


def keyword_input_is_not_hooked(t):
    class M(t.nn.Module):
        def forward(self, x, scale=None):
            return x * scale

    m, seen = M(), []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    x = t.ones(2, requires_grad=True)
    s = t.full((2,), 3.0, requires_grad=True)
    m(x, scale=s).sum().backward()
    return seen, x.grad, s.grad


def no_hooks_under_no_grad(t):
    m, seen = seeded_linear(t), []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(1))
    with t.no_grad():
        out = m(t.ones(1, 3))
    return out.requires_grad, seen


def backward_hook_returns_too_many(t):
    m = seeded_linear(t)
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    x = t.ones(2, 3, requires_grad=True)
    m(x).sum().backward()


def deprecated_backward_hook(t):
    m, seen = seeded_linear(t), []
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        m.register_backward_hook(lambda mod, gi, go: seen.append(len(gi)))
        x = t.ones(2, 3, requires_grad=True)
        m(x).sum().backward()
    return seen


def deprecated_and_full_backward_hooks_mixed(t):
    m = seeded_linear(t)
    m.register_backward_hook(lambda *a: None)
    m.register_full_backward_hook(lambda *a: None)


def backward_twice(t):
    m, seen = seeded_linear(t), []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append(gi))
    x = t.ones(2, 3, requires_grad=True)
    out = m(x).sum()
    out.backward(retain_graph=True)
    out.backward()
    return seen, x.grad


def dict_output_is_not_hooked(t):
    class M(t.nn.Module):
        def forward(self, x):
            return {"a": x * 2}

    m, seen = M(), []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    x = t.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m(x)["a"].sum().backward()
    return seen, x.grad, [str(i.message)[:80] for i in w]


BACKWARD = [
    full_backward_hook_sees_gradients,
    full_backward_hook_replaces_grad_input,
    backward_pre_hooks_in_order,
    two_inputs_two_outputs,
    one_of_two_inputs_needs_a_gradient,
    no_input_needs_a_gradient,
    keyword_input_is_not_hooked,
    no_hooks_under_no_grad,
    backward_hook_returns_too_many,
    deprecated_backward_hook,
    deprecated_and_full_backward_hooks_mixed,
    backward_twice,
    dict_output_is_not_hooked,
]

SCENARIOS = BACKWARD + [
    pre_hook_rewrites_args_and_kwargs,
    pre_hook_without_kwargs_returns_a_single_value,
    pre_hook_with_kwargs_bad_return,
    forward_hook_with_kwargs_sees_them,
    hooks_order_with_prepend,
    always_call_hooks_run_when_forward_raises,
    always_call_hook_error_is_a_warning,
    always_call_hook_after_a_failing_hook,
    handle_as_context_manager,
    removed_handle_forgets_options,
    forward_hook_output_reaches_the_gradient,
    global_forward_hooks,
    global_always_call_hook,
    global_full_backward_hooks,
    registration_hooks_replace_what_is_registered,
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
def test_module_hooks_match_torch(scenario):
    same_outcome(scenario)
