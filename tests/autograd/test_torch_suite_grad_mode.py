"""PyTorch's autograd suite, requires_grad and grad-mode part, side by side with torch:
requires_grad propagation and its errors, in-place writes and saved values, no_grad and
set_grad_enabled, indexing and setitem gradients, the .grad setter, detach."""
import numpy as np
import pytest

from tests.autograd.torch_suite import A, B, Scenarios, cases, check, leaves

SCENARIOS = scenario = Scenarios()


@scenario
def requires_grad_propagation(lib):
    x, y = lib.tensor(A), lib.tensor(B)
    z = lib.tensor(A, requires_grad=True)
    a = x + y
    b = a + z
    return a.requires_grad, b.requires_grad, a.is_leaf, b.is_leaf, b.grad_fn.name()


@scenario
def requires_grad_underscore(lib):
    x, y = lib.tensor(A), lib.tensor(B, requires_grad=True)
    same = [x is x.requires_grad_(), y is y.requires_grad_(True)]
    z = x * y
    try:
        z.requires_grad_(False)
        err = None
    except RuntimeError as e:
        err = str(e)
    same += [z is z.requires_grad_(), x is x.requires_grad_(False)]
    return same, err, x.requires_grad, z.requires_grad


@scenario
def requires_grad_on_int_tensor(lib):
    return lib.tensor([1, 2]).requires_grad_()


@scenario
def requires_grad_set_on_nonleaf(lib):
    x = leaves(lib, A)[0] * 2
    x.requires_grad = False
    return x


@scenario
def requires_grad_int_factory(lib):
    return lib.ones(2, dtype=lib.long, requires_grad=True)


@scenario
def requires_grad_inplace_add(lib):
    a = lib.tensor(A)
    a += lib.tensor(B, requires_grad=True)
    c = lib.tensor(A) + 0
    c += lib.tensor(B, requires_grad=True)
    return a.requires_grad, a.is_leaf, a.grad_fn.name(), c.requires_grad


@scenario
def inplace_before_requires_grad(lib):
    a = lib.tensor(A)
    a.add_(5)
    a.requires_grad = True
    a.sum().backward()
    b = lib.tensor(A)
    v = b[:]
    v.add_(5)
    b.requires_grad = True
    b.sum().backward()
    return a.grad, b.grad


@scenario
def inplace_on_leaf_requiring_grad(lib):
    a = lib.tensor(A)
    a.requires_grad = True
    return a.add_(5)


@scenario
def inplace_on_view_of_leaf_requiring_grad(lib):
    a = lib.tensor(A)
    b = a[:]
    a.requires_grad = True
    return b.add_(5)


@scenario
def inplace_on_leaf_under_no_grad(lib):
    a = leaves(lib, A)[0]
    with lib.no_grad():
        a.add_(1)
    return a, a.requires_grad, a.is_leaf, a._version


@scenario
def delete_grad(lib):
    x = leaves(lib, A)[0]
    x.sum().backward()
    del x.grad
    return x.grad is None


@scenario
def data_set_to_none(lib):
    x = leaves(lib, A)[0]
    x.data = None


@scenario
def delete_data(lib):
    x = leaves(lib, A)[0]
    del x.data


@scenario
def hook_changing_dtype(lib):
    x = leaves(lib, A)[0]
    y = x * 2
    y.register_hook(lambda g: g.float())
    return y.sum().backward()


@scenario
def hook_returning_number(lib):
    x = leaves(lib, A)[0]
    x.register_hook(lambda g: 3.0)
    return (x * 2).sum().backward()


@scenario
def grads_batched_shape_mismatch(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    return lib.autograd.grad(x * 2, x, grad_outputs=lib.ones(3, 2), is_grads_batched=True)


@scenario
def delete_requires_grad(lib):
    x = leaves(lib, A)[0]
    del x.requires_grad


@scenario
def next_functions_of_add(lib):
    x, y = leaves(lib)
    a = x + y
    nf = a.grad_fn.next_functions
    b = a + 5
    nf2 = b.grad_fn.next_functions
    return ([type(f).__name__ for f, _ in nf], [i for _, i in nf], len(nf2),
            nf2[0][0] is a.grad_fn, nf2[1][0] is None, nf[0][0].variable is x)


@scenario
def inplace_errors_on_saved(lib):
    x = lib.ones(2, 2, requires_grad=True)
    y = (lib.ones(2, 2) * 4).requires_grad_(True)
    z = x * y
    q = z + y
    w = z * y
    z.add_(2)
    q.backward(lib.ones(2, 2), retain_graph=True)
    return x.grad, w.backward(lib.ones(2, 2))


@scenario
def inplace_result_is_last(lib):
    x = lib.ones(2, 2, requires_grad=True)
    y = (lib.ones(2, 2) * 4).requires_grad_(True)
    z = x * y
    q = z * y
    r = z + y
    w = z.add_(y)
    w.backward(lib.ones(2, 2), retain_graph=True)
    r.backward(lib.ones(2, 2), retain_graph=True)
    return w is z, x.grad, y.grad, q.backward(lib.ones(2, 2))


@scenario
def inplace_exp_uses_result(lib):
    x = lib.ones(2, 2, requires_grad=True)
    y = (lib.ones(2, 2) * 4).requires_grad_(True)
    z = x / 2 + y / 8
    q = z * y
    r = z + y
    before = z._version
    w = z.exp_()
    r.backward(lib.ones(2, 2), retain_graph=True)
    g1 = x.grad.clone()
    w.backward(lib.ones(2, 2), retain_graph=True)
    return z._version != before, g1, x.grad, w.grad_fn.name(), q.backward(lib.ones(2, 2))


@scenario
def inplace_on_clone_of_leaf(lib):
    leaf = lib.ones(2, 2, requires_grad=True)
    x = leaf.clone()
    x.add_(10)
    y = x + 2
    y.backward(lib.ones(2, 2))
    z = x * y
    x.add_(2)
    return x, leaf.grad, z.backward(lib.ones(2, 2))


@scenario
def no_grad_context_and_decorator(lib):
    x = lib.ones(2, 2, requires_grad=True)
    y = lib.ones(2, 2) * 4
    with lib.no_grad():
        w = x + y

    @lib.no_grad()
    def adder(a, b):
        return a + b
    z = adder(x, y)
    with lib.no_grad():
        inside = [lib.is_grad_enabled(), adder(x, y).requires_grad, lib.is_grad_enabled()]
    return w.requires_grad, w.grad_fn is None, z.requires_grad, inside, lib.is_grad_enabled()


@scenario
def no_grad_backward_raises(lib):
    x = lib.ones(2, 2, requires_grad=True)
    with lib.no_grad():
        w = x + 1
    return w.backward(lib.ones(2, 2))


@scenario
def grad_mode_generators(lib):
    seen = []

    @lib.no_grad()
    def gen_off():
        for i in range(3):
            seen.append(("off", lib.is_grad_enabled()))
            yield i

    @lib.enable_grad()
    def gen_on():
        for i in range(3):
            seen.append(("on", lib.is_grad_enabled()))
            yield i
    with lib.enable_grad():
        for _ in gen_off():
            seen.append(("outside-on", lib.is_grad_enabled()))
    with lib.no_grad():
        for _ in gen_on():
            seen.append(("outside-off", lib.is_grad_enabled()))
    return seen


@scenario
def set_grad_enabled_forms(lib):
    x = lib.ones(2, requires_grad=True)
    out = []
    with lib.set_grad_enabled(False):
        out.append((x * 2).requires_grad)
        with lib.set_grad_enabled(True):
            out.append((x * 2).requires_grad)
    lib.set_grad_enabled(False)
    out.append((x * 2).requires_grad)
    lib.set_grad_enabled(True)
    out.append((x * 2).requires_grad)

    @lib.set_grad_enabled(False)
    def f(a):
        return a * 2
    out.append(f(x).requires_grad)
    out.append(lib.is_grad_enabled())
    return out


@scenario
def no_grad_on_class_method(lib):
    class Foo:
        @lib.no_grad()
        def twice(self, a):
            return a * 2
    x = lib.ones(2, requires_grad=True)
    return Foo().twice(x).requires_grad, lib.is_grad_enabled()


@scenario
def no_grad_requires_parentheses(lib):
    @lib.no_grad
    def f(a):
        return a * 2
    return f(lib.ones(2, requires_grad=True)).requires_grad


@scenario
def enable_grad_inside_no_grad_function(lib):
    x = lib.ones(2, requires_grad=True)
    with lib.no_grad():
        with lib.enable_grad():
            y = x * 2
        z = x * 2
    return y.requires_grad, z.requires_grad


@scenario
def no_grad_python_function(lib):
    class AddOne(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x + 1

        @staticmethod
        def backward(ctx, g):
            return g
    x = lib.ones(2, requires_grad=True)
    with lib.no_grad():
        y = AddOne.apply(x)
    return y.requires_grad, y.grad_fn is None


@scenario
def indexing_gradients(lib):
    x = lib.arange(1.0, 17).view(4, 4).requires_grad_()
    grads = []
    for idx in (1, (1, 1), slice(1, None), (slice(None, 2), 2), (1, slice(2, None)),
                lib.tensor([0, 2]), (Ellipsis, slice(2, None)), ([0], [0]),
                ([1, 2, 3], [0]), ([1, 2], [2, 1]), ([[1, 2], [3, 0]], [[0, 1], [2, 3]]),
                (slice(None), [2, 3]), ([2, 3], slice(None)), [0], ([0],),
                lib.tensor([[True, False, True, True]] * 4)):
        x.grad = None
        v = x[idx]
        v.sum().backward()
        grads.append((v, x.grad))
    return grads


@scenario
def indexing_duplicates(lib):
    x = lib.arange(1.0, 17).view(4, 4).requires_grad_()
    x[lib.tensor([1, 1, 3, 2, 1, 2])].sum().backward()
    g1 = x.grad.clone()
    x.grad = None
    x[[[1, 1, 3, 2, 1, 2], [0]]].sum().backward()
    g2 = x.grad.clone()
    x.grad = None
    x[[[[1, 2], [0, 0]], [[0, 1], [1, 1]]]].sum().backward()
    y = lib.arange(1.0, 65).view(4, 4, 4).requires_grad_()
    y[[[1, 1, 1], slice(None), slice(None)]].sum().backward()
    return g1, g2, x.grad, y.grad


@scenario
def masked_setitem_of_itself(lib):
    a = lib.tensor([1.0, 0, 0])
    b = lib.zeros(3, requires_grad=True)
    t = b + 0
    t[a != 0] = t[a != 0]
    t.backward(lib.zeros_like(t))
    return b.grad


@scenario
def setitem_gradients(lib):
    out = []
    for size, index in (((5, 5), 1), ((5,), 1), ((1,), 0), ((10,), [[0, 4, 2]]),
                        ((5, 5), [[0, 4], [2, 2]]), ((5, 5, 5), (slice(None), slice(None), [1, 3])),
                        ((5, 5, 5), (slice(None), [2, 4], [1, 3])),
                        ((5, 5, 5), ([1, 3], [2, 4], slice(None)))):
        x = lib.ones(*size, requires_grad=True)
        y = x + 2
        before = y._version
        y[index] = 2
        y.backward(lib.ones(*size))
        out.append((y._version != before, x.grad))
    return out


@scenario
def setitem_tensor_gradients(lib):
    out = []
    for size, index in (((5, 5), 3), ((5, 5), [[0, 1], [1, 0]]), ((5,), 3),
                        ((5,), lib.tensor([3]).sum()), ((5, 5, 5), (slice(None), [1, 3])),
                        ((5, 5, 5), (lib.tensor([1, 3]), [2, 4], slice(None)))):
        x = lib.ones(*size, requires_grad=True)
        y = x + 2
        value = x.new(x[index].size()).fill_(7)
        value.requires_grad = True
        y[index] = value
        y.backward(lib.ones(*size))
        out.append((x.grad, value.grad))
    x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = lib.zeros(2, 3, 4)
    y[1] = x
    y.backward(lib.ones(2, 3, 4))
    return out, x.grad


@scenario
def stack_family_gradients(lib):
    xs = leaves(lib, A, B, A * B)
    out = []
    for fn in (lambda t: lib.stack(t, 0), lib.hstack, lib.vstack, lib.dstack,
               lambda t: lib.cat(t, 1), lib.column_stack):
        for x in xs:
            x.grad = None
        r = fn(xs)
        r.backward(lib.arange(float(r.numel())).view(r.shape))
        out.append([x.grad for x in xs])
    return out


@scenario
def unbind_single_gradient(lib):
    s = lib.tensor(np.arange(12.0).reshape(3, 2, 2), requires_grad=True)
    outs = s.unbind()
    g = lib.tensor(np.ones((2, 2)))
    return [lib.autograd.grad(outs[i], s, g, retain_graph=True) for i in range(3)]


@scenario
def unused_chunk_output(lib):
    x = lib.tensor(np.arange(20.0).reshape(10, 2), requires_grad=True)
    o = x.chunk(5)[2] * 4 + 2
    o.sum().backward()
    g1 = x.grad.clone()
    x.grad = None
    x.chunk(5)[0].backward(lib.ones(2, 2))
    return g1, x.grad


@scenario
def put_and_fill(lib):
    root = lib.tensor(np.arange(20.0).reshape(4, 5), requires_grad=True)
    values = lib.tensor(np.arange(6.0) + 0.5, requires_grad=True)
    out = []
    for accumulate, idx in ((False, [1, 2, 3, -1, -2, -3]), (True, [1, 2, 3, 1, 2, 3])):
        root.grad = values.grad = None
        x = root.clone()
        x.put_(lib.tensor(idx), values, accumulate=accumulate)
        (x * lib.arange(20.0).view(4, 5)).sum().backward()
        out.append((x, root.grad, values.grad, x.grad_fn.name()))
    root.grad = None
    x = root.clone()
    x.fill_(2)
    x.sum().backward()
    return out, root.grad, x.grad_fn.name()


@scenario
def gather_sparse_grad_option(lib):
    x = lib.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    idx = lib.tensor([[0, 1, 2, 0], [2, 2, 1, 0]])
    lib.gather(x, 0, idx).backward(lib.ones(2, 4))
    return x.grad


@scenario
def no_unnecessary_save(lib):
    mu = lib.ones(1, requires_grad=True)
    x = lib.empty(1)
    loss = 0
    for i in range(3):
        x.detach_()
        x.copy_(mu + i)
        loss += (x * lib.tensor([float(i)])).sum()
    loss.backward()
    return mu.grad


@scenario
def grad_setter_validation(lib):
    x = lib.tensor(A, requires_grad=True)
    errors = []
    for value in (lib.ones(3), lib.ones(2, 3, dtype=lib.float32), lib.ones(2, 3, dtype=lib.long),
                  3.0):
        try:
            x.grad = value
            errors.append(("ok", str(x.grad.dtype)))
        except Exception as e:  # noqa: BLE001
            errors.append((type(e).__name__, str(e)))
    x.grad = lib.ones(2, 3, dtype=lib.float64)
    x.grad = None
    return errors, x.grad is None


@scenario
def grad_assignment_to_nonleaf_then_read(lib):
    x = lib.tensor(A, requires_grad=True) * 2
    x.grad = lib.ones(2, 3, dtype=lib.float64)
    return x.grad


@scenario
def backward_grad_dtype_mismatch(lib):
    x = lib.tensor(A, requires_grad=True)
    (x * 2).backward(lib.ones(2, 3, dtype=lib.float32))
    return x.grad


@scenario
def backward_complex_scalar(lib):
    x = lib.tensor([1 + 2j], requires_grad=True)
    return (x * x).sum().backward()


@scenario
def autograd_grad_is_grads_batched(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x ** 2
    one = lib.autograd.grad(y, x, grad_outputs=lib.eye(3), is_grads_batched=True,
                            retain_graph=True)
    two = lib.autograd.grad([y, y.sum()], x, grad_outputs=[lib.eye(3), lib.ones(3)],
                            is_grads_batched=True, create_graph=True)
    return one, two, two[0].requires_grad


@scenario
def grad_outputs_as_scalar_number(lib):
    x = lib.tensor(3.0, requires_grad=True)
    return lib.autograd.grad(x * 2, x, grad_outputs=lib.tensor(5.0))


@scenario
def deep_graph_backward(lib):
    x = lib.tensor([1.0], requires_grad=True)
    y = x.clone()
    for _ in range(3000):
        y = y + y * 1e-6
    y.backward()
    return x.grad


@scenario
def volatile_and_data(lib):
    x = leaves(lib, A)[0]
    d = x.data
    d.add_(1)
    return x, d.requires_grad, x._version, d is x


@scenario
def detach_shares_storage_and_version(lib):
    x = leaves(lib, A)[0]
    y = x * 2
    d = y.detach()
    before = y._version
    d.zero_()
    return y, y._version != before, d.requires_grad, d.is_leaf


@scenario
def detach_then_inplace_breaks_backward(lib):
    x = leaves(lib, A)[0]
    y = x.exp()
    y.detach().zero_()
    return y.sum().backward()


@scenario
def detach_underscore_on_view(lib):
    x = leaves(lib, A)[0]
    v = x.clone()[0]
    return v.detach_()


@scenario
def detach_underscore(lib):
    x = leaves(lib, A)[0]
    y = x * 2
    z = y.detach_()
    return z is y, y.requires_grad, y.grad_fn is None, y.is_leaf


DIFFERENCES = {}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_grad_mode_scenario_matches_torch(name):
    check(SCENARIOS[name])
