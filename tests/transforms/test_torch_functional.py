"""torch.autograd.functional and torch.func under gradjit's names, against torch 2.13 itself:
values, the nesting of tuples in results, create_graph, strict mode and error types."""
import numpy as np
import pytest
import torch

import gradjit
from gradjit.autograd import functional as F

rng = np.random.default_rng(3)
X, Y = rng.standard_normal(3), rng.standard_normal(2)


def both(fn_name, make_args, **kwargs):
    """(gradjit's result, torch's result) of one autograd.functional call; make_args(lib)
    gives the positional arguments built with that library."""
    ours = getattr(F, fn_name)(*make_args(gradjit), **kwargs)
    theirs = getattr(torch.autograd.functional, fn_name)(*make_args(torch), **kwargs)
    return ours, theirs


def same(ours, theirs):
    """Equal nesting of tuples, equal values, equal requires_grad."""
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            same(a, b)
        return
    assert isinstance(ours, gradjit.Tensor) and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    assert ours.requires_grad == theirs.requires_grad


def pair(lib):
    return lib.tensor(X), lib.tensor(Y)


FUNCS = {
    "one_to_one": (lambda a: a.exp() * a.sum(), lambda lib: lib.tensor(X)),
    "many_to_many": (lambda a, b: (a.sin() * b.sum(), (a ** 2).sum() * b), pair),
    "many_to_one": (lambda a, b: a.sum() * b.tanh(), pair),
    "one_to_many": (lambda a: (a.cos(), a.prod()), lambda lib: lib.tensor(X)),
    "unused_input": (lambda a, b: a.exp(), pair),
}


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian_against_torch(name, create_graph):
    fn, args = FUNCS[name]
    same(*both("jacobian", lambda lib: (fn, args(lib)), create_graph=create_graph))


SCALARS = {
    "one": (lambda a: (a ** 3).sum() * a.sin().sum(), lambda lib: lib.tensor(X)),
    "two": (lambda a, b: (a ** 3).sum() * b.exp().sum() + (a[:2] * b).sum(), pair),
}


@pytest.mark.parametrize("name", SCALARS)
def test_hessian_hvp_vhp_against_torch(name):
    fn, args = SCALARS[name]

    def vectors(lib):
        made = args(lib)
        many = isinstance(made, tuple)
        v = tuple(lib.ones_like(t) * 0.5 for t in (made if many else (made,)))
        return fn, made, v if many else v[0]
    same(*both("hessian", lambda lib: (fn, args(lib))))
    same(*both("hvp", vectors))
    same(*both("vhp", vectors))


@pytest.mark.parametrize("name", FUNCS)
def test_vjp_and_jvp_against_torch(name):
    fn, args = FUNCS[name]

    def with_v(lib, over):
        made = args(lib)
        inputs = made if isinstance(made, tuple) else (made,)
        like = inputs if over == "inputs" else (fn(*inputs) if isinstance(fn(*inputs), tuple)
                                               else (fn(*inputs),))
        v = tuple(lib.tensor(rng_like(t)) for t in like)
        many = isinstance(made if over == "inputs" else fn(*inputs), tuple)
        return fn, made, v if many else v[0]
    same(*both("vjp", lambda lib: with_v(lib, "outputs")))
    same(*both("jvp", lambda lib: with_v(lib, "inputs")))


def rng_like(t):
    return np.linspace(-1, 1, t.numel()).reshape(tuple(t.shape))


def test_create_graph_gives_differentiable_results():
    x = gradjit.tensor(X, requires_grad=True)
    tx = torch.tensor(X, requires_grad=True)
    (F.jacobian(lambda a: a.exp() * a.sum(), x, create_graph=True) ** 2).sum().backward()
    (torch.autograd.functional.jacobian(lambda a: a.exp() * a.sum(), tx, create_graph=True)
     ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10)


ERRORS = [
    ("jacobian", lambda lib: (lambda a, b: a.exp(), pair(lib)), {"strict": True}),
    ("jacobian", lambda lib: (lambda a: lib.ones(2), lib.tensor(X)), {"strict": True}),
    ("jacobian", lambda lib: (lambda a: a, [lib.tensor(X)]), {}),
    ("jacobian", lambda lib: (lambda a: 3, lib.tensor(X)), {}),
    ("jacobian", lambda lib: (lambda a: a, lib.tensor(X)), {"strategy": "forward-mode"}),
    ("jacobian", lambda lib: (lambda a: a, lib.tensor(X)), {"strategy": "sideways"}),
    ("hessian", lambda lib: (lambda a: a.exp(), lib.tensor(X)), {}),
    ("hessian", lambda lib: (lambda a: (a.sum(), a.sum()), lib.tensor(X)), {}),
    ("vjp", lambda lib: (lambda a: a.exp(), lib.tensor(X)), {}),
    ("vjp", lambda lib: (lambda a: a.exp(), lib.tensor(X), lib.ones(2)), {}),
    ("vjp", lambda lib: (lambda a, b: a.exp(), pair(lib), lib.ones(3)), {"strict": True}),
    ("jvp", lambda lib: (lambda a: a.exp(), lib.tensor(X)), {}),
    ("hvp", lambda lib: (lambda a: a.exp(), lib.tensor(X), lib.ones(3)), {}),
    ("vjp", lambda lib: (lambda a: a.exp(), lib.tensor(X), (lib.ones(3), lib.ones(3))), {}),
    ("jvp", lambda lib: (lambda a, b: a.exp(), pair(lib), (lib.ones(3),)), {}),
]
ERROR_IDS = ["strict-unused-input", "strict-constant-output", "list-inputs", "int-output",
             "forward-mode-unvectorized", "unknown-strategy", "hessian-non-scalar",
             "hessian-two-outputs", "vjp-no-v", "vjp-v-size", "vjp-strict", "jvp-no-v",
             "hvp-non-scalar", "vjp-v-length", "jvp-v-length"]


@pytest.mark.parametrize("fn_name, make_args, kwargs", ERRORS, ids=ERROR_IDS)
def test_errors_are_torchs(fn_name, make_args, kwargs):
    with pytest.raises(Exception) as theirs:
        getattr(torch.autograd.functional, fn_name)(*make_args(torch), **kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        getattr(F, fn_name)(*make_args(gradjit), **kwargs)
    assert str(ours.value) == str(theirs.value)


def mlp(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 1))


def test_func_grad_of_functional_call_against_torch():
    ours, theirs = mlp(gradjit), mlp(torch)
    batch = rng.standard_normal((5, 3)).astype(np.float32)

    def loss(lib, model):
        return lambda p, x: (lib.func.functional_call(model, p, (x,)) ** 2).mean()
    before = list(ours.parameters())
    p_ours = {k: v.detach() * 2 for k, v in ours.named_parameters()}
    p_theirs = {k: v.detach() * 2 for k, v in theirs.named_parameters()}
    g_ours = gradjit.func.grad(loss(gradjit, ours))(p_ours, gradjit.tensor(batch))
    g_theirs = torch.func.grad(loss(torch, theirs))(p_theirs, torch.tensor(batch))
    assert list(g_ours) == list(g_theirs)
    for k in g_theirs:  # float32 sums that cancel: absolute error relative to the largest
        want = g_theirs[k].numpy()
        np.testing.assert_allclose(g_ours[k].numpy(), want, rtol=1e-5,
                                   atol=1e-6 * np.abs(want).max())
    assert all(p is q for p, q in zip(ours.parameters(), before))  # put back after the call


def test_functional_call_errors_are_torchs():
    for lib in (torch, gradjit):
        model = mlp(lib)
        w = {"0.weight": lib.ones(4, 3)}
        with pytest.raises(RuntimeError, match=r"Missing key\(s\): '0.bias', '2.bias'"):
            lib.func.functional_call(model, w, (lib.ones(1, 3),), strict=True)
        with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
            lib.func.functional_call(model, (w, w), (lib.ones(1, 3),))


def test_func_names_against_torch():
    x = rng.standard_normal((4, 3))
    f = (lambda a: (a.sin() * a).sum())
    for name in ("grad", "jacrev", "jacfwd", "hessian"):
        ours = getattr(gradjit.func, name)(f)(gradjit.tensor(x))
        theirs = getattr(torch.func, name)(f)(torch.tensor(x))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, err_msg=name)
    g, (v, aux) = gradjit.func.grad_and_value(lambda a: (f(a), a.sum()), has_aux=True)(
        gradjit.tensor(x))
    tg, (tv, taux) = torch.func.grad_and_value(lambda a: (f(a), a.sum()), has_aux=True)(
        torch.tensor(x))
    for a, b in ((g, tg), (v, tv), (aux, taux)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10)
    out, tangent, aux = gradjit.func.jvp(lambda a: (a.exp(), a.sum()), (gradjit.tensor(x),),
                                         (gradjit.ones(4, 3, dtype=gradjit.float64),),
                                         has_aux=True)
    np.testing.assert_allclose(tangent.numpy(), np.exp(x), rtol=1e-12)
    np.testing.assert_allclose(aux.numpy(), x.sum(), rtol=1e-12)


def test_func_vmap_takes_torchs_argument_names():
    x, y = rng.standard_normal((4, 3)), rng.standard_normal(3)
    f = (lambda a, b: (a * b).sum())
    ours = gradjit.func.vmap(f, in_dims=(0, None))(gradjit.tensor(x), gradjit.tensor(y))
    theirs = torch.func.vmap(f, in_dims=(0, None))(torch.tensor(x), torch.tensor(y))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    for lib, error in ((torch, RuntimeError), (gradjit, RuntimeError)):
        with pytest.raises(error, match="Only allowed values for randomness"):
            lib.func.vmap(f, randomness="sometimes")(lib.tensor(x), lib.tensor(x))
        with pytest.raises(ValueError, match="chunk_size should be None or greater than 0"):
            lib.func.vmap(f, chunk_size=0)(lib.tensor(x), lib.tensor(x))
