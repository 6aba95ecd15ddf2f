"""PyTorch's autograd suite, reentrant and miscellaneous part, side by side with torch:
backward inside backward and hooks, queued callbacks, out= with gradients, reductions with a
dtype, custom Functions returning views, anomaly mode inside Functions, data assignment."""
import numpy as np
import pytest

from tests.autograd.torch_suite import A, B, Scenarios, cases, check

V = np.array([0.3, -0.7, 1.1, 2.0])
SCENARIOS = scenario = Scenarios()


def t(lib, a, grad=False):
    return lib.tensor(a, requires_grad=grad)


def countdown(lib, order=None):
    class Reentrant(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with lib.enable_grad():
                ctx.x = x.detach().requires_grad_() - 1
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, g):
            if order is not None:
                order.append("Reentrant")
            if ctx.x < 0:
                return g
            with lib.enable_grad():
                Reentrant.apply(ctx.x).sum().backward()
            return g
    return Reentrant


@scenario
def deep_reentrant(lib):
    v = lib.tensor(60.0, requires_grad=True)
    countdown(lib).apply(v).sum().backward()
    return v.grad


@scenario
def reentrant_priority(lib):
    order = []

    class Plain(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            order.append("Plain")
            return g
    a = Plain.apply(lib.tensor(6.0, requires_grad=True))
    b = countdown(lib, order).apply(lib.tensor(9.0, requires_grad=True))
    (a * b).backward()
    return order


@scenario
def reentrant_with_leaf_hook(lib):
    param = t(lib, V, True)
    handle = None

    def penalty(grad):
        handle.remove()
        old = grad
        param.grad = None
        with lib.enable_grad():
            g = grad.detach().requires_grad_()
            new_param = param.detach().requires_grad_()
            ((g * 2) + new_param).sum().backward()
        res = g.grad + grad
        param.grad = old
        return res
    handle = param.register_hook(penalty)
    (param * param).sum().backward()
    return param.grad


@scenario
def reentrant_with_non_leaf_hook(lib):
    param = t(lib, V, True)
    handle = None

    def increase(grad):
        handle.remove()
        with lib.enable_grad():
            g = grad.detach().requires_grad_()
            ((g * 2) + 5).sum().backward()
        return g.grad + grad
    tmp = param * param
    handle = tmp.register_hook(increase)
    tmp.sum().backward()
    return param.grad


@scenario
def queue_callback(lib):
    calls = []

    class Queues(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            lib.autograd.Variable._execution_engine.queue_callback(
                lambda: calls.append("callback"))
            calls.append("backward")
            return g
    x = t(lib, V, True)
    (Queues.apply(x) * 2).sum().backward()
    calls.append("after")
    return calls, x.grad


@scenario
def queue_callback_sees_accumulated_grads(lib):
    """A callback queued by a post-accumulate hook runs after every leaf's .grad is written
    (what DistributedDataParallel's gradient averaging relies on)."""
    seen = []
    w, b = t(lib, V, True), t(lib, V, True)

    def hook(_):
        lib.autograd.Variable._execution_engine.queue_callback(
            lambda: seen.append((w.grad.clone(), None if b.grad is None else b.grad.clone())))
    w.register_post_accumulate_grad_hook(hook)
    (w * 3 + b * b).sum().backward()
    return seen


@scenario
def queue_callback_outside_backward(lib):
    return lib.autograd.Variable._execution_engine.queue_callback(lambda: None)


@scenario
def mul_out_requires_grad(lib):
    a, b = t(lib, A, True), t(lib, B, True)
    return lib.mul(a, b, out=lib.zeros(2, 3, dtype=lib.float64))


@scenario
def mul_out_under_no_grad(lib):
    a, b = t(lib, A, True), t(lib, B, True)
    x = lib.zeros(2, 3, dtype=lib.float64)
    with lib.no_grad():
        lib.mul(a, b, out=x)
    return x, x.requires_grad


@scenario
def mul_out_result_requires_grad(lib):
    x = lib.zeros(2, 3, dtype=lib.float64, requires_grad=True)
    return lib.mul(t(lib, A), t(lib, B), out=x)


@scenario
def reductions_with_dtype_grad(lib):
    out = []
    x = lib.tensor(A.astype(np.float32), requires_grad=True)
    for op in (lib.sum, lib.prod, lib.cumsum, lib.cumprod, lib.mean):
        if op in (lib.cumsum, lib.cumprod):
            g, = lib.autograd.grad(op(x, dim=0, dtype=lib.float64).sum(), x)
        else:
            g, = lib.autograd.grad(op(x, dtype=lib.float64), x)
        out.append(g)
    return out


@scenario
def diagonal_derivative_requires_grad(lib):
    a = lib.tensor(np.arange(30.0).reshape(5, 6), requires_grad=True)
    c = (lib.diagonal(a) ** 2).sum()
    d, = lib.autograd.grad(c, a, retain_graph=True, create_graph=True)
    return d.requires_grad, d


@scenario
def anomaly_in_function(lib):
    class NanGrad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, first):
            ctx.first = first
            return a.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx, g):
            gi = g.clone().expand(4).clone()
            gi[0] = 0
            gi[0] /= 0
            return (gi, None, None) if ctx.first else (None, gi, None)
    errors = []
    for first in (True, False):
        x = t(lib, V, True)
        try:
            with lib.autograd.detect_anomaly():
                NanGrad.apply(x, x, first).backward()
        except RuntimeError as e:
            errors.append(str(e))
    x = t(lib, V, True)
    NanGrad.apply(x, x, True).backward()
    return errors, x.grad


@scenario
def version_counter_and_data(lib):
    x = lib.tensor(A)
    v0 = x._version
    x.add_(1).add_(1)
    xz = x[:]
    same = [x._version == xz._version]
    xz.add_(1)
    same.append(x._version == xz._version)
    saved = x._version
    x.data = lib.tensor(B)
    same.append(x._version == saved)
    x.add_(1)
    same.append((x._version > saved, x._version == xz._version))
    b = lib.tensor(B)
    ident = id(b)
    b.data = lib.tensor(A)
    return v0, same, ident == id(b), b


@scenario
def views_codegen(lib):
    out = []
    for grad_mode, requires_grad in ((True, False), (True, True), (False, True), (False, False)):
        row = []
        for make in (lambda i: (i.view_as(i),), lambda i: i.unbind()):
            inp = lib.tensor([1.0, 2.0], requires_grad=requires_grad).clone()
            with lib.set_grad_enabled(grad_mode):
                views = make(inp)
            for v in views:
                try:
                    v.add_(1)
                    row.append((v._is_view(), "ok"))
                except RuntimeError as e:
                    row.append((v._is_view(), str(e)))
        out.append(row)
    return out


def id_two_output(lib):
    class IdTwoOutput(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, make_view):
            a = a.narrow(0, 0, 2) if make_view else a.clone()
            return a, a + b

        @staticmethod
        def backward(ctx, ga, gab):
            return ga + gab, gab, None
    return IdTwoOutput


@scenario
def function_returning_views_then_inplace(lib):
    out = []
    for make_view in (True, False):
        a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        try:
            t1, t2 = id_two_output(lib).apply(a.clone(), b.clone(), make_view)
            t1 += 3
            t2 += 3
            (t1 * t2).sum().backward()
            out.append((a.grad, b.grad))
        except RuntimeError as e:
            out.append(str(e))
    return out


@scenario
def function_returning_view_of_input(lib):
    class Narrow(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.narrow(0, 0, 2)

        @staticmethod
        def backward(ctx, g):
            return lib.cat([g, g.new_zeros(2)])
    a = t(lib, V, True)
    c = a.clone()
    n = Narrow.apply(c)
    (n * 3).sum().backward()
    return n._is_view(), n._base is c, a.grad


@scenario
def inplace_relu_on_view_then_clone(lib):
    a = lib.arange(10.0, requires_grad=True)
    b = a.narrow(0, 0, 2).clone().view(-1)
    b.relu_()
    c = b.clone()
    del b
    s = c.sum()
    s.backward()
    return s, a.grad


@scenario
def inplace_chain_on_view_of_leaf_op(lib):
    a = lib.tensor(V, requires_grad=True).narrow(0, 0, 4)
    b = a.relu_()
    c = b.add_(100)
    return c.sum().backward(lib.ones((), requires_grad=True))


@scenario
def threshold_inplace_double_backward(lib):
    inputs = lib.tensor(A, requires_grad=True)
    tmp1 = (inputs + 1).view_as(inputs)
    tmp2 = lib.nn.functional.threshold(tmp1, 0.0, 0.0, True)
    prob = lib.sigmoid(tmp2)
    g, = lib.autograd.grad(prob, inputs, grad_outputs=lib.ones(prob.size(), dtype=lib.float64),
                           create_graph=True, retain_graph=True)
    g.sum().backward()
    return g, inputs.grad


@scenario
def as_strided_gradients(lib):
    out = []
    for size, stride, offset in (([3, 3], [6, 2], 2), ([3, 3, 3], [0, 1, 0], 2),
                                 ([6, 6], [5, 1], 2), ([3, 2], [3, 6], 2)):
        x = lib.tensor(np.linspace(-1, 1, 40), requires_grad=True)
        y = x.as_strided(size, stride, offset)
        (y * lib.arange(float(y.numel()), dtype=lib.float64).view(y.shape)).sum().backward()
        out.append((y, x.grad))
    return out


@scenario
def lerp_broadcast_gradients(lib):
    out = []
    for shapes in (((3,), (2, 3), (2, 3)), ((2, 3), (), (2, 3)), ((2, 3), (2, 3), (3,))):
        args = [lib.tensor(np.linspace(-1, 1, int(np.prod(s))).reshape(s) + i,
                           requires_grad=True) for i, s in enumerate(shapes)]
        (lib.lerp(*args) ** 2).sum().backward()
        out.append([a.grad for a in args])
    return out


@scenario
def isolated_integer_node(lib):
    x, y = t(lib, A, True), t(lib, B, True)
    a = x + y
    b = lib.max(a, 1, True)[1].repeat(1, 3).double()
    (b + a).sum().backward()
    return b.requires_grad, x.grad


@scenario
def numpy_of_tensor_requiring_grad(lib):
    return t(lib, A, True).numpy()


@scenario
def pickle_keeps_requires_grad(lib):
    import pickle
    x, y = t(lib, A, True), t(lib, B)
    out = []
    for protocol in range(3):
        xc, yc = pickle.loads(pickle.dumps([x, y], protocol=protocol))
        out.append((xc, xc.requires_grad, yc.requires_grad))
    return out


@scenario
def backward_copy_buffers(lib):
    x = lib.ones(2, 2, requires_grad=True)
    y = lib.ones(2, 2, requires_grad=True)
    a, b, c = x + 2, y + 2, x + 2
    add2 = (a + b) + c
    for _ in range(4):
        a, b, c = a * 2, b * 2, c * 2
    (add2 + a + b + c).backward(lib.ones(2, 2))
    return x.grad, y.grad


@scenario
def type_conversion_backward(lib):
    f = lib.tensor(A.astype(np.float32), requires_grad=True)
    f.double().sum().backward()
    d = t(lib, A, True)
    d.float().sum().backward()
    return f.grad, d.grad


@pytest.mark.parametrize("name", cases(SCENARIOS, {}))
def test_reentrant_scenario_matches_torch(name):
    check(SCENARIOS[name])
