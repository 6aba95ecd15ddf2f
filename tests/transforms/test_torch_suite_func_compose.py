"""torch.func's transformations composed (grad of vjp, vjp of grad, jacrev of vmap, vmap of
grad: per-sample gradients), over pytrees, views and in-place updates, against torch.func."""
import functools

import numpy as np
import pytest

import gradjit
from tests.transforms.test_torch_suite_func import same

torch = pytest.importorskip("torch")
rng = np.random.default_rng(1)
A, M = rng.standard_normal(3), rng.standard_normal((3, 5))
W, X, T, Y = (rng.standard_normal((6, 2)), rng.standard_normal((5, 1, 6)),
              rng.standard_normal((5, 2)), rng.standard_normal((5, 4)))


def t(L, a):
    return L.tensor(a)


def s(L, v=0.4):
    return L.tensor(v)


def _grad_of_vjp(L):
    out, fn = L.func.vjp(L.sin, s(L))
    return L.func.grad(lambda y: fn(y)[0])(s(L, 0.9))


def _vjp_of_grad(L):
    out, fn = L.func.vjp(L.func.grad(L.sin), s(L))
    return fn(s(L, 0.9))


def _gvg(L):
    df, fn = L.func.vjp(L.func.grad(lambda x: -L.cos(x)), s(L))
    return L.func.grad(lambda y: fn(y)[0])(s(L, 0.9))


def _composed_autograd(L):
    x = s(L).requires_grad_()
    y = L.func.grad(L.sin)(x)
    return L.autograd.grad(y, x)


def _views(L):
    x = s(L).requires_grad_()
    y = s(L, 0.3).requires_grad_()
    r = L.func.grad(lambda x: x.view([]).sin())(x) + L.cos(y)
    return L.autograd.grad(r, [x, y])


def _inplace_view_base(L):
    def foo(x):
        y = x.clone()
        y0 = y[0]
        y.sin_()
        return y0
    return L.func.grad(foo)(t(L, A))


def _inplace_view(L):
    def foo(x):
        y = x.clone()
        y0 = y[0]
        y0.sin_()
        return y.sum()
    return L.func.grad(foo)(t(L, A))


def _view_inplace_simple(L):
    def foo(x):
        x = x.clone()
        x.view([]).sin_()
        return x
    return L.func.grad(foo)(s(L))


def _cross_entropy(L):
    y = t(L, M[:2])
    targets = L.tensor([1, 4])
    return L.func.grad(lambda y, tg: L.nn.functional.cross_entropy(y, tg))(y, targets)


def _unrelated(L):
    y = s(L, 2.0)
    return L.func.grad(lambda x: y)(s(L))


def _unrelated_vjp(L):
    y = s(L, 2.0)
    out, fn = L.func.vjp(lambda w, x: (y, y, x), s(L, 3.0), s(L, 4.0))
    return fn((s(L, 1.0), s(L, 1.0), s(L, 1.0)))


def _unrelated_hessian(L):
    W = t(L, M.T)
    return L.func.jacrev(L.func.jacrev(lambda x: W @ x))(t(L, A))


def _vjp_pytree_in(L):
    x = s(L)
    out, fn = L.func.vjp(lambda x: x[0] * x[1][0], (x, (x, x)))
    return out, fn(s(L, 0.7))


def _vjp_pytree_out(L):
    _, fn = L.func.vjp(lambda x: (x, (x, x)), s(L))
    return fn((s(L, 0.1), (s(L, 0.2), s(L, 0.3))))


def _vjp_list_out(L):
    x = t(L, M)
    out, fn = L.func.vjp(lambda x: [x, x.sum()], x)
    return out, fn([x * 2, x.sum()])


def _vjp_composite(L):
    x = t(L, M)
    out, fn = L.func.vjp(lambda x: [(x.sum(), {"a": x, "out": [x, x.sum()]})], x)
    return out, fn([(x.sum(), {"a": x, "out": [x, x.sum()]})])


def _zero_grad(L):
    return L.func.grad(lambda d: (d["a"] ** 2.0).sum())({"a": t(L, A), "b": t(L, A)})


def _pytree_args(L):
    x = s(L)
    def f(a, b):
        return 1 * a[0] + 2 * a[1] + 3 * b["foo"]
    args = ((x, x), {"foo": x})
    return tuple(L.func.grad(f, argnums=n)(*args) for n in (0, (0,), (0, 1)))


def _out_of_order(L):
    return L.func.grad(L.mul, argnums=(1, 0))(s(L), s(L, 0.8))


def _vjp_grad_outside(L):
    x = t(L, A).requires_grad_()
    out, fn = L.func.vjp(L.sin, x)
    return out.requires_grad, fn(t(L, A))[0].requires_grad


def _jvp_pytree(L):
    return L.func.jvp(lambda d: {"o": d["a"] * d["b"][0]}, ({"a": t(L, A), "b": (t(L, A),)},),
                      ({"a": t(L, A), "b": (t(L, A) * 0 + 1,)},))


def _jvp_list_primals(L):
    return L.func.jvp(lambda x: [x, x.sum()], (t(L, A),), (t(L, A),))


def _jacrev_multiple_out_in(L):
    return L.func.jacrev(lambda x, y: (x * y, x.sum() * y), argnums=(0, 1))(
        t(L, A), t(L, A[::-1].copy()))


def _jacfwd_argnums_reorder(L):
    return L.func.jacfwd(lambda x, y: x * y.sum(), argnums=(1, 0))(t(L, A), t(L, A))


def _jacrev_aux_pytree(L):
    return L.func.jacrev(lambda x: (x.sin(), {"c": x.cos(), "d": [x * 2]}), has_aux=True)(t(L, A))


def _jacfwd_aux(L):
    return L.func.jacfwd(lambda x: (x.sin(), {"c": x.cos()}), has_aux=True)(t(L, A))


def _hessian_scalar_input(L):
    return L.func.hessian(lambda x: x ** 3)(s(L))


def _jacrev_vmap_inside(L):
    return L.func.jacrev(L.func.vmap(lambda x: x.sin() * x.sum()))(t(L, M))


def _grad_vmap_inside(L):
    return L.func.grad(lambda x: L.func.vmap(lambda r: r.dot(r))(x).sum())(t(L, M))


def _vmap_jvp(L):
    return L.func.vmap(lambda x, v: L.func.jvp(L.sin, (x,), (v,)))(t(L, M), t(L, M) * 2)


def _vmap_vjp(L):
    return L.func.vmap(lambda x, v: L.func.vjp(L.sin, x)[1](v))(t(L, M), t(L, M) * 2)


def _vmap_functional_call(L):
    L.manual_seed(0)
    net = L.nn.Linear(5, 2).double()
    p = {k: v.detach() for k, v in net.named_parameters()}
    return L.func.vmap(L.func.grad(lambda p, x: L.func.functional_call(net, p, (x,)).pow(2).sum()),
                       in_dims=(None, 0))(p, t(L, M))


def _squeeze_(L):
    def loss(w, x, t):
        x = x.mm(w)
        y = x.squeeze_(0)
        return (y - t).sum()
    return L.func.vmap(functools.partial(L.func.grad(loss), t(L, W)))(t(L, X), t(L, T))


def _new_zeros(L):
    def foo(y, x):
        r = x.new_zeros((4,))
        r.copy_(y)
        return r.sum()
    return L.func.vmap(L.func.grad(foo))(t(L, Y), t(L, Y[:, 0]))


def _new_empty(L):
    def foo(y, x):
        r = x.new_empty((4,))
        r.copy_(y)
        return (r * 2).sum()
    return L.func.vmap(L.func.grad(foo))(t(L, Y), t(L, Y[:, 0]))


def _simple(L):
    loss = lambda w, x, t: ((x @ w - t) ** 2).sum()
    return L.func.vmap(functools.partial(L.func.grad(loss), t(L, W)))(t(L, X[:, 0]), t(L, T))


def _model_ensemble_grads(L):
    L.manual_seed(0)
    net = L.nn.Sequential(L.nn.Linear(6, 3), L.nn.Tanh(), L.nn.Linear(3, 2)).double()
    p = {k: v.detach() for k, v in net.named_parameters()}
    loss = lambda p, x, t: L.nn.functional.mse_loss(L.func.functional_call(net, p, (x,)), t)
    return L.func.vmap(L.func.grad(loss), in_dims=(None, 0, 0))(p, t(L, X[:, 0]), t(L, T))


def _vmap_out_list(L):
    return L.func.vmap(lambda x: [x, x * 2])(t(L, Y))


def _vmap_nested_out_dims(L):
    return L.func.vmap(lambda x: (x, (x * 2, x.sum())), out_dims=(0, (1, 0)))(t(L, Y))


def _vmap_in_dims_nested_tuple(L):
    return L.func.vmap(lambda p, q: p[0] * p[1] + q, in_dims=((0, None), 1))(
        (t(L, Y), t(L, Y[0])), t(L, Y.T.copy()))


def _vmap_empty_batch(L):
    return L.func.vmap(L.sin)(L.ones(0, 3, dtype=L.float64))


def _vmap_zero_dim_batch_tensor(L):
    return L.func.vmap(lambda x: x * 2)(L.arange(4.0))


def _vmap_methods(L):
    return L.func.vmap(lambda x: (x.view(2, 2).t().reshape(-1), x.unsqueeze(0).expand(3, 4),
                                  x[1:3], x.flip(0)))(t(L, Y))


def _vmap_reductions(L):
    return L.func.vmap(lambda x: (x.sum(), x.mean(0), x.max(), x.argmax(), x.softmax(0),
                                  x.cumsum(0), x.norm()))(t(L, Y))


def _vmap_matmul_shapes(L):
    return L.func.vmap(lambda a, b: (a @ b, a.outer(b), L.dot(a, b)))(t(L, Y), t(L, Y * 2))

def constant_under_no_grad(L, x):
    with L.no_grad():
        c = x ** 2
    return x.sin() * c


def _no_grad_inside(L):
    x = t(L, A)
    ones = L.ones(3, dtype=L.float64)
    return (L.func.grad(lambda x: constant_under_no_grad(L, x).sum())(x),
            L.func.vjp(lambda x: constant_under_no_grad(L, x), x)[1](ones),
            L.func.jacrev(lambda x: constant_under_no_grad(L, x))(x),
            L.func.jvp(lambda x: constant_under_no_grad(L, x), (x,), (ones,)),
            L.func.jacfwd(lambda x: constant_under_no_grad(L, x))(x))


def _no_grad_inside_forward_over_reverse(L):
    # no_grad cuts reverse mode only: the tangent of the value computed under it still flows
    # (hessian is jacfwd of jacrev), and the tangent, computed under the same no_grad, is cut
    # from a reverse mode over the jvp
    x = t(L, A)
    ones = L.ones(3, dtype=L.float64)
    return (L.func.hessian(lambda x: constant_under_no_grad(L, x).sum())(x),
            L.func.jacfwd(L.func.jacrev(lambda x: constant_under_no_grad(L, x)))(x),
            L.func.grad(lambda x: L.func.jvp(lambda x: constant_under_no_grad(L, x), (x,),
                                             (ones,))[1].sum())(x),
            L.func.jacrev(lambda x: L.func.jvp(lambda x: constant_under_no_grad(L, x), (x,),
                                               (ones,))[1])(x))


def _no_grad_outside(L):
    with L.no_grad():
        return (L.func.grad(lambda x: x.sin().sum())(t(L, A)),
                L.func.vjp(L.exp, t(L, A))[1](t(L, A)))


SCENARIOS = {name[1:]: fn for name, fn in dict(globals()).items()
             if name.startswith("_") and not name.startswith("__") and callable(fn)}


@pytest.mark.parametrize("name", SCENARIOS)
def test_composed_as_torch(name):
    same(SCENARIOS[name](gradjit), SCENARIOS[name](torch))
