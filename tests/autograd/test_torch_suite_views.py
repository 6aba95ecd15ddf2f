"""PyTorch's autograd suite, views and in-place part, side by side with torch: in-place
operations on views and bases, version counters, the errors for modified saved tensors and
leaves, detach, inference_mode and node hooks."""
import numpy as np
import pytest

from tests.autograd.torch_suite import A, B, Scenarios, cases, check

G = np.arange(1.0, 7.0).reshape(2, 3)
SCENARIOS = scenario = Scenarios()


def leaf(lib, a=A):
    return lib.tensor(a, requires_grad=True)


@scenario
def inplace_on_view_gradient(lib):
    x = leaf(lib)
    y = x.clone()
    v = y[0]
    v.mul_(2)
    (y * lib.tensor(G)).sum().backward()
    return y, x.grad, type(y.grad_fn).__name__, type(v.grad_fn).__name__


@scenario
def inplace_on_view_of_view(lib):
    x = leaf(lib, np.arange(12.0).reshape(3, 4))
    root = x.clone()
    v1 = root.narrow(0, 1, 2)
    v2 = v1.narrow(1, 1, 2)
    v2.mul_(3)
    (root * root).sum().backward()
    return root, x.grad, v2._base is root, v1._base is root


@scenario
def inplace_on_view_with_other_requiring_grad(lib):
    x = leaf(lib)
    w = leaf(lib, np.array([1.0, 2.0, 3.0]))
    y = x * 1
    y[1].add_(w * 2)
    (y ** 2).sum().backward()
    return y, x.grad, w.grad


@scenario
def inplace_on_base_then_view_used(lib):
    x = leaf(lib)
    y = x.clone()
    v = y[:, 1]
    y.mul_(2)
    (v * 3).sum().backward()
    return v, x.grad, type(v.grad_fn).__name__


@scenario
def inplace_on_view_then_base_used_twice(lib):
    x = leaf(lib)
    y = x * 1
    v = y.t()
    v.exp_()
    out = (y * 2).sum() + (v * 3).sum()
    out.backward()
    return y, x.grad


@scenario
def inplace_on_view_saved_output(lib):
    x = leaf(lib)
    y = x.clone()
    z = y[0].exp_()
    (z * 2).sum().backward()
    return z, x.grad, type(z.grad_fn).__name__


@scenario
def inplace_on_view_non_contig(lib):
    x = leaf(lib, np.arange(12.0).reshape(3, 4))
    y = x * 1
    v = y[:, ::2]
    v.pow_(2)
    y.sum().backward()
    return y, x.grad


@scenario
def inplace_on_view_multiple_outputs(lib):
    x = leaf(lib, np.arange(6.0))
    y = x * 1
    a, b = y.split(3)
    return a.mul_(2)


@scenario
def inplace_on_unbind_output(lib):
    x = leaf(lib, np.arange(6.0).reshape(2, 3))
    y = x * 1
    a, b = y.unbind(0)
    return a.mul_(2)


@scenario
def inplace_on_view_under_no_grad(lib):
    x = leaf(lib)
    y = x * 1
    v = y[0]
    with lib.no_grad():
        v.mul_(2)
    y.sum().backward()
    return y, x.grad, y._version


@scenario
def inplace_on_view_made_under_no_grad(lib):
    x = leaf(lib)
    y = x * 1
    with lib.no_grad():
        v = y[0]
    return v.mul_(2)


@scenario
def view_of_leaf_inplace(lib):
    x = leaf(lib)
    return x[0].add_(1)


@scenario
def view_of_leaf_setitem(lib):
    x = leaf(lib)
    x[0] = 1.0


@scenario
def leaf_setitem(lib):
    x = leaf(lib)
    x[0, 0] = 1.0


@scenario
def leaf_inplace_ops(lib):
    out = []
    for op in (lambda t: t.add_(1), lambda t: t.zero_(), lambda t: t.copy_(lib.zeros(2, 3)),
               lambda t: t.mul_(2), lambda t: t.clamp_(0, 1), lambda t: t.fill_(1),
               lambda t: t.exp_(), lambda t: t.t_(), lambda t: t.resize_(6),
               lambda t: t.unsqueeze_(0), lambda t: t.squeeze_()):
        x = leaf(lib)
        try:
            op(x)
            out.append(("ok", x))
        except RuntimeError as e:
            out.append(str(e))
    return out


@scenario
def saved_mul_operand_modified(lib):
    x = leaf(lib)
    a = x * 2
    b = a * a
    a.add_(1)
    return b.sum().backward()


@scenario
def saved_output_modified(lib):
    x = leaf(lib)
    y = x.exp()
    y.add_(1)
    return y.sum().backward()


@scenario
def saved_output_modified_through_view(lib):
    x = leaf(lib)
    y = x.sigmoid()
    y[0].zero_()
    return y.sum().backward()


@scenario
def saved_leaf_modified_under_no_grad(lib):
    x = leaf(lib)
    w = leaf(lib, B)
    z = (x * w).sum()
    with lib.no_grad():
        x *= 2
    return z.backward()


@scenario
def saved_modified_then_restored_version(lib):
    x = leaf(lib)
    y = x * 1
    z = y * y
    y.add_(0)
    return z.backward(lib.ones(2, 3))


@scenario
def version_counter_counts(lib):
    x = lib.tensor(A)
    versions = [x._version]
    x.add_(1)
    versions.append(x._version)
    x[0] = 3
    versions.append(x._version)
    v = x[1]
    v.mul_(2)
    versions.append((x._version, v._version))
    d = x.detach()
    d.zero_()
    versions.append((x._version, d._version))
    x.data.add_(1)
    versions.append(x._version)
    x.copy_(lib.ones(2, 3))
    versions.append(x._version)
    out = lib.zeros(2, 3)
    lib.add(x, x, out=out)
    versions.append(out._version)
    return versions


@scenario
def no_grad_setitem_keeps_leaf(lib):
    x = leaf(lib)
    with lib.no_grad():
        x[0] = lib.tensor([7.0, 8.0, 9.0], dtype=lib.float64)
    return x, x.requires_grad, x.grad_fn is None, x.is_leaf


@scenario
def setitem_on_constant_with_grad_value(lib):
    x = lib.zeros(2, 3, dtype=lib.float64)
    y = leaf(lib, np.array([1.0, 2.0, 3.0]))
    z = leaf(lib, np.array([4.0, 5.0, 6.0]))
    x[0] = y
    x[1] = 2 * z
    x.sum().backward()
    return x.requires_grad, x.is_leaf, type(x.grad_fn).__name__, y.grad, z.grad


@scenario
def detach_semantics(lib):
    x = leaf(lib)
    y = (x + 2).detach()
    z = y * 4 + 2
    w = x * 2
    d = w.detach()
    (x + d).sum().backward()
    return y.requires_grad, z.requires_grad, d.grad_fn is None, x.grad


@scenario
def detach_inplace_stops_gradient(lib):
    x, y = leaf(lib), leaf(lib, B)
    a = x * 2
    (y + a).sum().backward(retain_graph=True)
    a.detach_()
    (y + a).sum().backward()
    return a.requires_grad, x.grad, y.grad


@scenario
def detach_base_keeps_view(lib):
    x = leaf(lib)
    view = x.narrow(0, 1, 1)
    x.detach_()
    return x.requires_grad, view.requires_grad, view.grad_fn is not None, view._base is x


@scenario
def detach_of_view_is_not_view(lib):
    x = leaf(lib)
    v = x[0]
    d = v.detach()
    return d._is_view(), v._is_view(), d._base is None


@scenario
def view_properties(lib):
    x = leaf(lib)
    v = x.view(3, 2)
    t = x.t()
    c = x.clone()
    r = x.reshape(6)
    return (v._is_view(), v._base is x, t._base is x, c._is_view(), r._is_view(),
            type(v.grad_fn).__name__, type(t.grad_fn).__name__)


@scenario
def inference_mode_tensors(lib):
    x = leaf(lib)
    with lib.inference_mode():
        y = x * 2
        inside = [lib.is_inference_mode_enabled(), lib.is_grad_enabled(), y.requires_grad,
                  y.is_inference()]
    return inside, x.is_inference(), lib.is_inference_mode_enabled()


@scenario
def inference_tensor_version(lib):
    with lib.inference_mode():
        y = lib.ones(2)
    return y._version


@scenario
def inference_tensor_inplace_outside(lib):
    with lib.inference_mode():
        y = lib.ones(2)
    return y.add_(1)


@scenario
def inference_tensor_saved_for_backward(lib):
    with lib.inference_mode():
        y = lib.ones(2, dtype=lib.float64)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    return (x * y).sum().backward()


@scenario
def inference_tensor_saved_or_not(lib):
    """Refused only where the node saves it: not by add, by mul for the other's gradient."""
    with lib.inference_mode():
        y = lib.ones(2, dtype=lib.float64)
    x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    outcomes = []
    for op in (lambda: x + y, lambda: x * y, lambda: y / x, lambda: (x * 1).exp() * y,
               lambda: y.sin() + x):
        try:
            op().sum().backward()
            outcomes.append(x.grad.clone())
        except RuntimeError as e:
            outcomes.append(str(e))
    return outcomes


@scenario
def inference_mode_false_and_decorator(lib):
    x = leaf(lib)
    with lib.inference_mode():
        with lib.inference_mode(False):
            y = x * 2
            inner = (lib.is_inference_mode_enabled(), y.requires_grad)

    @lib.inference_mode()
    def f(t):
        return t * 2

    @lib.inference_mode
    def g(t):
        return t * 2
    return inner, f(x).requires_grad, g(x).is_inference()


@scenario
def requires_grad_on_inference_tensor(lib):
    with lib.inference_mode():
        y = lib.ones(2)
    return y.requires_grad_()


@scenario
def grad_fn_hooks_and_prehooks(lib):
    x = leaf(lib)
    y = x.exp()
    z = y * 2
    seen = []
    node = z.grad_fn

    def prehook(grad_outputs):
        seen.append(("pre", [g.tolist() for g in grad_outputs]))
        return (grad_outputs[0] * 10,)

    def hook(grad_inputs, grad_outputs):
        seen.append(("post", [None if g is None else g.tolist() for g in grad_inputs]))
    h1 = node.register_prehook(prehook)
    node.register_hook(hook)
    z.sum().backward(retain_graph=True)
    first = x.grad.clone()
    h1.remove()
    x.grad = None
    z.sum().backward()
    return first, x.grad, seen


@scenario
def grad_fn_post_hook_replaces(lib):
    x = leaf(lib)
    y = x * lib.tensor(B)
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 0 + 1, None))
    y.sum().backward()
    return x.grad


@scenario
def grad_fn_hooks_on_composite_nodes(lib):
    out = []
    for fn in (lambda t: t.mean(), lambda t: t.var(), lambda t: t.norm(),
               lambda t: t.softmax(0).sum(), lambda t: (t * lib.tensor(B)).sum(1).mean()):
        x = leaf(lib)
        y = fn(x)
        seen = []
        y.grad_fn.register_prehook(lambda go: seen.append(go[0].tolist()) or (go[0] * 3,))
        y.grad_fn.register_hook(lambda gi, go: seen.append(
            ([None if g is None else g.shape for g in gi], go[0].tolist())) or
            tuple(None if g is None else g * 2 for g in gi))
        y.backward()
        out.append((x.grad, seen))
    return out


@scenario
def tensor_hook_vs_prehook_order(lib):
    x = leaf(lib)
    y = x * 2
    z = y.exp()
    seen = []
    y.register_hook(lambda g: seen.append("tensor") or g * 2)
    y.grad_fn.register_prehook(lambda go: seen.append("pre") or None)
    z.sum().backward()
    return seen, x.grad


@scenario
def post_accumulate_grad_hook(lib):
    x = leaf(lib)
    seen = []

    def hook(t):
        seen.append(t.grad.clone())
        with lib.no_grad():
            t.mul_(0.5)
    h = x.register_post_accumulate_grad_hook(hook)
    (x * x).sum().backward()
    (x * 3).sum().backward()
    h.remove()
    (x * 3).sum().backward()
    return seen, x, x.grad


@scenario
def post_accumulate_grad_hook_on_nonleaf(lib):
    return (leaf(lib) * 2).register_post_accumulate_grad_hook(lambda t: None)


@scenario
def post_accumulate_grad_hook_without_grad(lib):
    return lib.tensor(A).register_post_accumulate_grad_hook(lambda t: None)


@scenario
def accumulate_grad_node_hooks(lib):
    x = leaf(lib)
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    seen = []
    acc.register_prehook(lambda go: seen.append("pre") or None)
    acc.register_hook(lambda gi, go: seen.append(("post", len(gi), len(go))))
    y.sum().backward()
    return type(acc).__name__, acc.variable is x, seen, x.grad


@scenario
def multi_grad_hook_any(lib):
    a, b = leaf(lib), leaf(lib, B)
    seen = []
    lib.autograd.graph.register_multi_grad_hook((a, b), lambda g: seen.append(g.tolist()),
                                                mode="any")
    (a * 2).sum().backward()
    return seen


@scenario
def retain_grad_then_hook_order(lib):
    x = leaf(lib)
    y = x * 2
    y.register_hook(lambda g: g * 3)
    y.retain_grad()
    y.register_hook(lambda g: g * 5)
    y.exp().sum().backward()
    return y.grad, x.grad


DIFFERENCES = {}


@pytest.mark.parametrize("name", cases(SCENARIOS, DIFFERENCES))
def test_view_scenario_matches_torch(name):
    check(SCENARIOS[name])
