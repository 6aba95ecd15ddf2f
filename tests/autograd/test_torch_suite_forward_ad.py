"""PyTorch's autograd suite, forward-mode part, side by side with torch: dual levels and
their errors, tangents through views, in-place operations, reductions and linear algebra,
and forward mode mixed with backward."""
import numpy as np
import pytest

from tests.autograd.torch_suite import A, B, Scenarios, cases, check

S = np.array([[2.0, 1.0], [0.5, 3.0]])
SCENARIOS = scenario = Scenarios()


def dual(lib, primal, tangent):
    return lib.autograd.forward_ad.make_dual(lib.tensor(primal), lib.tensor(tangent))


def tangent(lib, t):
    return lib.autograd.forward_ad.unpack_dual(t).tangent


@scenario
def nested_dual_levels(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        with fwAD.dual_level():
            pass


@scenario
def exit_level_errors(lib):
    fwAD = lib.autograd.forward_ad
    level = fwAD.enter_dual_level()
    errors = []
    for call in (lambda: fwAD.exit_dual_level(level=level + 3), fwAD.exit_dual_level,
                 fwAD.exit_dual_level):
        try:
            call()
            errors.append("ok")
        except RuntimeError as e:
            errors.append(str(e))
    return level, errors


@scenario
def make_dual_integer_tangent(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        return fwAD.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1, 2]))


@scenario
def dual_level_numbers(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level() as level:
        first = level
    with fwAD.dual_level() as level:
        second = level
    return first, second


@scenario
def make_dual_tangent_dtype_mismatch(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        return fwAD.make_dual(lib.tensor(A), lib.tensor(A, dtype=lib.float32))


@scenario
def make_dual_integer(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        return fwAD.make_dual(lib.tensor([1, 2]), lib.tensor([1, 2]))


@scenario
def unpack_dual_type(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        d = dual(lib, A, B)
        u = fwAD.unpack_dual(d)
        return type(u).__name__, u._fields, u.primal, u.tangent, d.requires_grad


@scenario
def tangents_through_ops(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        x = dual(lib, A, B)
        s = dual(lib, S, S[::-1].copy())
        outs = [x.sum(), x.mean(1), x.max(), x.norm(), x.softmax(1), x.log_softmax(0),
                x.t() @ s, s.inverse(), s.det(), x.abs(), x.clamp(-1, 1), x.relu(),
                x.cumsum(1), x.prod(1), x.var(1), lib.where(x > 0, x, x * 3),
                x.reshape(3, 2).expand(2, 3, 2), x[:, [2, 0]], x.flip(1),
                lib.cat([x, x * 2]), lib.stack([x, x]).sum(0), x.sigmoid() * x.tanh(),
                x.exp().log1p(), x ** 3, 2 ** x, lib.atan2(x, x + 5)]
        return [tangent(lib, o) for o in outs]


@scenario
def tangents_through_views_and_inplace(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        x = dual(lib, A, B)
        base = lib.zeros(2, 3, dtype=lib.float64)
        base[0] = x[1]
        view = base[1]
        view.copy_(x[0] * 2)
        y = x.clone()
        y.mul_(x)
        y[:, 0] = 5.0
        z = lib.tensor(A)
        z.add_(x)
        return (tangent(lib, base), tangent(lib, view), tangent(lib, y), tangent(lib, z),
                tangent(lib, x.view(3, 2)), tangent(lib, x.unbind(1)[2]))


@scenario
def tangent_of_plain_and_constant(lib):
    fwAD = lib.autograd.forward_ad
    with fwAD.dual_level():
        x = dual(lib, A, B)
        c = lib.tensor(A) * 2
        return tangent(lib, c), tangent(lib, x.detach()), tangent(lib, x * 0 + c)


@scenario
def forward_ad_with_backward(lib):
    fwAD = lib.autograd.forward_ad
    p = lib.tensor(A, requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(p, lib.tensor(B))
        y = (d.sin() * d).sum()
        t = tangent(lib, y)
        y.backward()
    return t, p.grad


@scenario
def jvp_of_grad_forward_over_reverse(lib):
    fwAD = lib.autograd.forward_ad
    p = lib.tensor(A, requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(p, lib.tensor(B))
        g, = lib.autograd.grad((d ** 3).sum(), d, create_graph=True)
        return tangent(lib, g)


@scenario
def func_jvp_and_jacfwd(lib):
    f = lambda x: (x.sin() * x).sum(0)  # noqa: E731
    out, jv = lib.func.jvp(f, (lib.tensor(A),), (lib.tensor(B),))
    return out, jv, lib.func.jacfwd(f)(lib.tensor(A)), lib.func.jacrev(f)(lib.tensor(A))


@scenario
def func_vmap_grad(lib):
    f = lambda x: (x ** 3).sum()  # noqa: E731
    return lib.func.vmap(lib.func.grad(f))(lib.tensor(A)), lib.func.hessian(f)(lib.tensor(A[0]))


@pytest.mark.parametrize("name", cases(SCENARIOS, {}))
def test_forward_ad_scenario_matches_torch(name):
    check(SCENARIOS[name])
