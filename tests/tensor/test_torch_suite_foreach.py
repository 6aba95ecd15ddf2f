"""torch._foreach_* against torch itself: every unary, binary and ternary family in its scalar,
list, scalar-list and tensor forms, in place and not, values, dtypes, gradients and errors."""
import numpy as np
import pytest

import gradjit
from gradjit.tensor import foreach
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")
rng = np.random.default_rng(7)
SHAPES = [(3,), (2, 2), ()]
ARRAYS = [rng.uniform(0.1, 0.9, s) for s in SHAPES]
OTHERS = [rng.uniform(0.5, 1.5, s) for s in SHAPES]


def tensors(L, arrays=ARRAYS, grad=False):
    return [L.tensor(a, requires_grad=grad) for a in arrays]


def same(ours, theirs):
    assert type(ours) is type(theirs) and len(ours) == len(theirs)
    for g, t in zip(ours, theirs):
        assert str(g.dtype) == str(t.dtype) and tuple(g.shape) == tuple(t.shape)
        np.testing.assert_allclose(g.detach().numpy(), t.detach().numpy(), rtol=1e-6,
                                   atol=1e-12)


def with_gradients(L, run):
    """run(L, xs, others)'s results and the gradients of their weighted sum."""
    xs, others = tensors(L, grad=True), tensors(L, OTHERS, grad=True)
    out = run(L, xs, others)
    sum(((o * (i + 1)).sum() for i, o in enumerate(out)), L.tensor(0.0)).backward()
    return out, [x.grad if x.grad is not None else L.zeros_like(x) for x in xs + others]


def both(run, grads=True):
    if grads:
        (g_out, g_grads), (t_out, t_grads) = (with_gradients(L, run) for L in (gradjit, torch))
        same(g_grads, t_grads)
    else:
        g_out, t_out = run(gradjit, tensors(gradjit), tensors(gradjit, OTHERS)), \
            run(torch, tensors(torch), tensors(torch, OTHERS))
    same(g_out, t_out)


def inplace(name, *operands):
    """The in-place form run on copies: (the list it returns is the one given, the values)."""
    def run(L, xs, others):
        xs = [x.detach().clone() for x in xs]
        args = [others if o == "list" else o for o in operands]
        assert getattr(L, f"_foreach_{name}_")(xs, *args) is xs
        return tuple(xs)
    return run


@pytest.mark.parametrize("name", foreach.UNARY)
def test_unary(name):
    both(lambda L, xs, others: getattr(L, f"_foreach_{name}")(xs))
    both(inplace(name), grads=False)


FORMS = {
    "scalar": lambda L, others: 0.75,
    "int-scalar": lambda L, others: 2,
    "list": lambda L, others: others,
    "scalars": lambda L, others: [0.5, 2.0, -1.5],
    "tensor": lambda L, others: L.tensor(1.25, dtype=L.float64),
}
TENSOR_FORM = ("add", "sub", "mul", "div")


@pytest.mark.parametrize("name, form", [(n, f) for n in foreach.BINARY for f in FORMS
                                        if f != "tensor" or n in TENSOR_FORM])
def test_binary(name, form):
    both(lambda L, xs, others: getattr(L, f"_foreach_{name}")(xs, FORMS[form](L, others)))

    def updated(L, xs, others):
        return inplace(name, FORMS[form](L, tensors(L, OTHERS)))(L, xs, others)
    both(updated, grads=False)


@pytest.mark.parametrize("name, form", [("add", "list"), ("sub", "list"), ("add", "tensor")])
def test_alpha(name, form):
    both(lambda L, xs, others: getattr(L, f"_foreach_{name}")(xs, FORMS[form](L, others),
                                                              alpha=-0.5))


def test_pow_of_a_number_and_integer_promotion():
    both(lambda L, xs, others: L._foreach_pow(2.0, xs))
    for op in ("add", "div", "mul", "pow"):
        same(getattr(gradjit, f"_foreach_{op}")([gradjit.arange(3), gradjit.arange(4.0)], 2),
             getattr(torch, f"_foreach_{op}")([torch.arange(3), torch.arange(4.0)], 2))


SCALARS = {
    "default": lambda L: (),
    "scalar": lambda L: (0.25,),
    "scalars": lambda L: ([0.5, -2.0, 3.0],),
    "tensor": lambda L: (L.tensor([0.5, -2.0, 3.0], dtype=L.float64),),
}


@pytest.mark.parametrize("form", SCALARS)
@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
def test_addcmul_addcdiv(name, form):
    # torch has no derivative of the tensor form, and its addcdiv backward fails on 0-dim ones
    grads = name == "addcmul" and form != "tensor"
    both(lambda L, xs, others: getattr(L, f"_foreach_{name}")(xs, others, xs, *SCALARS[form](L)),
         grads)
    both(lambda L, xs, others: inplace(name, "list", tensors(L), *SCALARS[form](L))(
        L, xs, others), grads=False)


@pytest.mark.parametrize("form", ["scalar", "scalars", "list"])
def test_lerp(form):
    def weight(L, others):
        return [o * 0.3 for o in others] if form == "list" else FORMS[form](L, others)
    both(lambda L, xs, others: L._foreach_lerp(xs, others, weight(L, others)))
    both(lambda L, xs, others: inplace("lerp", "list", weight(L, tensors(L, OTHERS)))(
        L, xs, others), grads=False)


@pytest.mark.parametrize("ord", [1, 2, 3, float("inf"), 0])
def test_norm_and_max(ord):
    both(lambda L, xs, others: L._foreach_norm(xs, ord))
    both(lambda L, xs, others: L._foreach_norm([x.float() for x in xs], ord, dtype=L.float64))
    both(lambda L, xs, others: L._foreach_max(xs))


EDGES = {
    "integer-division": lambda L: L._foreach_div([L.arange(3), L.arange(4)],
                                                 [L.arange(1, 4), L.arange(1, 5)]),
    "mixed-dtypes": lambda L: L._foreach_add([L.ones(2), L.ones(2, dtype=L.float64)],
                                             [L.ones(2, dtype=L.float64), L.ones(2)]),
    "integers-by-0-dim-float": lambda L: L._foreach_add([L.arange(3)], L.tensor(1.5)),
    "integers-in-place-by-0-dim-int": lambda L: L._foreach_mul_([L.arange(3)], L.tensor(2)),
    "complex": lambda L: L._foreach_mul([L.tensor([1 + 1j, 3 - 4j])], 2j) +
    L._foreach_abs([L.tensor([1 + 1j, 3 - 4j])]),
    "nan-maximum": lambda L: L._foreach_maximum([L.tensor([float("nan"), 1.0])],
                                                [L.tensor([0.0, float("nan")])]),
    "norm-minus-inf": lambda L: L._foreach_norm([L.tensor([3.0, -4.0])], float("-inf")),
}


@pytest.mark.parametrize("name", EDGES)
def test_dtypes_and_edges(name):
    same(EDGES[name](gradjit), EDGES[name](torch))


def test_backward_through_an_in_place_update_of_non_leaves():
    grads = []
    for L in (gradjit, torch):
        x = L.tensor([1.0, 2.0], requires_grad=True)
        ys = [x * 1, x * 2]
        L._foreach_mul_(ys, [2.0, 3.0])
        L._foreach_exp_(ys)
        sum(y.sum() for y in ys).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(*grads)


def test_clone_zero_and_copy():
    both(lambda L, xs, others: L._foreach_clone(xs))

    def zeroed(L, xs, others):
        xs = [x.detach().clone() for x in xs]
        assert L._foreach_zero_(xs) is xs
        return tuple(xs)

    def copied(L, xs, others):
        xs = [x.detach().clone() for x in xs]
        assert L._foreach_copy_(xs, others) is xs
        return tuple(xs)
    both(zeroed, grads=False)
    both(copied, grads=False)


ERRORS = {
    "empty": lambda L: L._foreach_add([], 1),
    "empty-unary": lambda L: L._foreach_exp([]),
    "lengths": lambda L: L._foreach_mul(tensors(L), tensors(L)[:2]),
    "scalar-list-length": lambda L: L._foreach_div(tensors(L), [1.0, 2.0]),
    "tensor-not-0-dim": lambda L: L._foreach_add(tensors(L), L.ones(2)),
    "ternary-lengths": lambda L: L._foreach_addcmul(tensors(L), tensors(L), tensors(L)[:1]),
    "copy-lengths": lambda L: L._foreach_copy_(tensors(L), tensors(L)[:1]),
    "shapes": lambda L: L._foreach_add(tensors(L), [L.ones(4), L.ones(2, 2), L.ones(())]),
    "inplace-broadcast": lambda L: L._foreach_add_([L.ones(1)], [L.ones(3)]),
    "inplace-cast": lambda L: L._foreach_add_([L.arange(3)], 1.5),
    "inplace-leaf": lambda L: L._foreach_mul_(tensors(L, grad=True), 3.0),
    "norm-integer": lambda L: L._foreach_norm([L.arange(3)]),
    "norm-narrowing": lambda L: L._foreach_norm([L.ones(2, dtype=L.float64)], dtype=L.float32),
    "max-of-empty": lambda L: L._foreach_max([L.ones(2), L.ones(0)]),
    "not-a-list": lambda L: L._foreach_exp(L.ones(2)),
    "numbers-as-tensors": lambda L: L._foreach_pow([2.0, 3.0], [L.ones(2), L.ones(2)]),
    "negative-integer-power": lambda L: L._foreach_pow([L.arange(1, 4)], -1),
    "lerp-integers": lambda L: L._foreach_lerp([L.arange(3)], [L.arange(3)], 0.5),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_as_torch(name):
    same_error(lambda: ERRORS[name](gradjit), lambda: ERRORS[name](torch))
