"""gradjit.compile applies a function's in-place updates of its Tensor arguments (methods,
index assignment, out=, views, arguments inside lists and dicts) to the caller's tensors, as
eager PyTorch and torch.compile do; aliased arguments and arguments that require grad run
eagerly, so their values, errors and gradients are eager PyTorch's."""
import numpy as np
import pytest

import gradjit as torch
from tests.torch_reference import same_error

real = pytest.importorskip("torch")


X = np.arange(6, dtype=np.float32).reshape(2, 3)

UPDATES = {
    "add_": lambda t, x: x.add_(1),
    "setitem": lambda t, x: x.__setitem__(0, 5.0),
    "copy_": lambda t, x: x.copy_(t.ones(2, 3) * 7),
    "zero_": lambda t, x: x.zero_(),
    "out=": lambda t, x: t.add(t.ones(2, 3), t.full((2, 3), 2.0), out=x),
    "view add_": lambda t, x: x[0].add_(1),
    "view(-1) setitem": lambda t, x: x.view(-1).__setitem__(2, 1.0),
    "transposed view mul_": lambda t, x: x.t()[1].mul_(3),
}


def step(t, update):
    def f(x, y):
        update(t, x)
        return x * y
    return f


def compiled(fn):
    return torch.compile(fn, fullgraph=True)


@pytest.mark.parametrize("name", UPDATES)
def test_an_argument_updated_in_place_is_updated_for_the_caller(name):
    f = compiled(step(torch, UPDATES[name]))
    ref = real.compile(step(real, UPDATES[name]), backend="eager")
    x, theirs = torch.tensor(X), real.tensor(X)
    for _ in range(3):  # the traced call, then the cached program
        version = x._version
        got, want = f(x, torch.tensor(X)), ref(theirs, real.tensor(X))
        np.testing.assert_array_equal(x.numpy(), theirs.numpy())
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert x._version > version
    assert f.eager_calls == 0 and f.program.cache_info()[0] == 1


def test_torch_compile_agrees():
    def f(t):
        def g(x):
            x[0].add_(1)
            x.view(-1)[4] = -1
            return x.sum()
        return g
    x, theirs = torch.tensor(X), real.tensor(X)
    got, want = compiled(f(torch))(x), real.compile(f(real))(theirs)
    np.testing.assert_array_equal(x.numpy(), theirs.numpy())
    assert got.item() == want.item()


def test_arguments_inside_lists_and_dicts_are_updated():
    def f(t):
        def g(xs, named):
            xs[1].mul_(2)
            named["a"][0, 0] = 9
            return xs[0] + named["a"]
        return g
    xs, named = [torch.tensor(X), torch.tensor(X)], {"a": torch.tensor(X)}
    ys, tnamed = [real.tensor(X), real.tensor(X)], {"a": real.tensor(X)}
    for _ in range(2):
        got, want = compiled(f(torch))(xs, named), f(real)(ys, tnamed)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        for a, b in zip(xs + [named["a"]], ys + [tnamed["a"]]):
            np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_a_view_argument_writes_through_to_its_base():
    def f(row):
        row.add_(10)
        return row.sum()
    base, theirs = torch.tensor(X), real.tensor(X)
    got, want = compiled(f)(base[1]), f(theirs[1])
    np.testing.assert_array_equal(base.numpy(), theirs.numpy())
    assert got.item() == want.item() and base._version == 1


def test_an_updated_argument_returned_is_the_callers_tensor():
    f = compiled(lambda x: x.add_(1))
    x = torch.tensor(X)
    for _ in range(2):
        assert f(x) is x
    theirs = real.tensor(X)
    assert real.compile(lambda x: x.add_(1), backend="eager")(theirs) is theirs
    np.testing.assert_array_equal(x.numpy(), (theirs + 1).numpy())


@pytest.mark.parametrize("args", ["same tensor", "view of the other"])
def test_aliased_arguments_see_each_others_updates(args):
    def f(x, y):
        x.add_(1)
        return y * 2
    x, theirs = torch.tensor(X), real.tensor(X)
    pick = (lambda a: (a, a)) if args == "same tensor" else (lambda a: (a, a[0]))
    g = torch.compile(f)
    for _ in range(2):
        got, want = g(*pick(x)), f(*pick(theirs))
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        np.testing.assert_array_equal(x.numpy(), theirs.numpy())
    assert "shares memory" in str(g.explain())
    unaliased = torch.tensor(X)
    np.testing.assert_array_equal(g(unaliased, torch.tensor(X)).numpy(), X * 2)
    np.testing.assert_array_equal(unaliased.numpy(), X + 1)


def test_an_argument_updated_with_a_parameter_it_views():
    lin = torch.nn.Linear(3, 3, bias=False)

    def f(w):
        w.mul_(0)
        return lin(torch.ones(1, 3))
    with torch.no_grad():
        got = torch.compile(f)(lin.weight.detach())
    assert not got.any() and not lin.weight.any()


def test_a_leaf_that_requires_grad_updated_in_place_is_torchs_error():
    def f(t):
        return lambda x: x.add_(1).sum()
    same_error(lambda: torch.compile(f(torch))(torch.tensor(X, requires_grad=True)),
               lambda: f(real)(real.tensor(X, requires_grad=True)))


def test_a_leaf_that_requires_grad_updated_under_no_grad():
    def f(x):
        x.add_(1)
        return x * 2
    x = torch.tensor(X, requires_grad=True)
    with torch.no_grad():
        got = torch.compile(f)(x)
    np.testing.assert_array_equal(x.detach().numpy(), X + 1)
    np.testing.assert_array_equal(got.numpy(), (X + 1) * 2)


def test_a_non_leaf_argument_updated_in_place_keeps_the_eager_graph():
    def f(x):
        x.mul_(3)
        return (x * x).sum()

    def run(t, fn):
        w = t.tensor(X, requires_grad=True)
        x = w * 2
        out = fn(x)
        out.backward()
        return out.item(), x.detach().numpy(), x.grad_fn.name(), w.grad.numpy()
    got, want = run(torch, torch.compile(f)), run(real, f)
    assert got[0] == want[0] and got[2] == want[2]
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_allclose(got[3], want[3])


def test_an_out_argument_resized_runs_eagerly():
    def f(t):
        return lambda x: t.add(t.ones(2, 3), 1.0, out=x)
    x, theirs = torch.empty(0), real.empty(0)
    g = torch.compile(f(torch))
    got, want = g(x), f(real)(theirs)
    assert got is x and want is theirs and tuple(x.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(x.numpy(), theirs.numpy())
    assert "resized" in str(g.explain())


def test_an_argument_viewing_a_parameter_the_step_updates_sees_the_update():
    def build(t):
        t.manual_seed(0)
        lin = t.nn.Linear(3, 3, bias=False)

        def f(w):
            with t.no_grad():
                lin.weight.mul_(2)
            return w.sum()
        return lin, f
    (lin, f), (ref, g) = build(torch), build(real)
    got, want = torch.compile(f)(lin.weight.detach()), g(ref.weight.detach())
    assert got.item() == pytest.approx(want.item())
    np.testing.assert_allclose(lin.weight.detach().numpy(), ref.weight.detach().numpy())


def test_gradients_see_an_updated_argument_as_it_was_when_read():
    def f(w, buf):
        buf.add_(1)
        return (w * buf).sum()

    def run(t, fn):
        w, buf = t.tensor(X, requires_grad=True), t.tensor(X)
        outs = []
        for _ in range(2):
            out = fn(w, buf)
            out.backward()
            outs.append(out.item())
        return outs, buf.numpy(), w.grad.numpy(), buf._version
    g = torch.compile(f)
    got, want = run(torch, g), run(real, f)
    assert got[0] == want[0] and got[3] == want[3] and g.eager_calls == 0
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[2], want[2])


def test_a_compiled_module_updating_its_input_in_place():
    x, theirs = torch.tensor(X - 2), real.tensor(X - 2)
    got = torch.compile(torch.nn.ReLU(inplace=True))(x)
    want = real.compile(real.nn.ReLU(inplace=True), backend="eager")(theirs)
    assert got is x and want is theirs and x._version == theirs._version
    np.testing.assert_array_equal(x.numpy(), theirs.numpy())


@pytest.mark.parametrize("alpha", [1, 2])
def test_an_update_by_a_number_argument_keeps_tensors(alpha):
    def f(x, n):
        x.add_(n, alpha=alpha)
        return x.add(n, alpha=alpha)
    x, theirs = torch.tensor(X), real.tensor(X)
    got, want = compiled(f)(x, 2), f(theirs, 2)
    assert isinstance(got, torch.Tensor)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(x.numpy(), theirs.numpy())


def test_zero_dim_and_keyword_arguments_are_updated():
    def f(x, *, total):
        total.add_(x.sum())
        return total * 2
    x, total, theirs = torch.tensor(X), torch.tensor(1.0), real.tensor(1.0)
    g = compiled(f)
    for _ in range(2):
        got, want = g(x, total=total), f(real.tensor(X), total=theirs)
        assert got.item() == want.item() and total.item() == theirs.item()
    assert total._version == theirs._version
