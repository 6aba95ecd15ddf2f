"""gradjit.misc and gradjit.builtins as autograd's: flatten round trips nests (traced ones
too), the optimizers follow their update rules over nests, fixed_point's implicit gradient."""
import builtins

import numpy
import pytest

import gradjit
import gradjit.builtins
from gradjit.misc import flatten, flatten_func
from gradjit.misc.fixed_points import fixed_point
from gradjit.misc.optimizers import adam, rmsprop, sgd
from gradjit.test_util import check_grads

NEST = {"w": numpy.arange(6.0).reshape(2, 3), "b": [numpy.ones(3), 2.5, (numpy.arange(2.0),)]}


def test_flatten_orders_sorted_keys_then_sequences_and_round_trips():
    flat, unflatten = flatten(NEST)
    numpy.testing.assert_array_equal(flat, [1, 1, 1, 2.5, 0, 1, 0, 1, 2, 3, 4, 5])
    back = unflatten(flat)
    assert type(back["b"]) is list and type(back["b"][2]) is tuple
    numpy.testing.assert_array_equal(back["w"], NEST["w"])
    assert numpy.shape(back["b"][1]) == ()
    assert flatten([])[0].shape == (0,)


def test_flatten_traces_and_differentiates():
    def loss(nest):
        flat, unflatten = flatten(nest)
        return numpy.sum(flat ** 2) + numpy.sum(unflatten(flat * 3.0)["w"])
    got = gradjit.grad(loss)(NEST)
    numpy.testing.assert_allclose(got["w"], 2 * NEST["w"] + 3.0)
    numpy.testing.assert_allclose(got["b"][1], 5.0)
    numpy.testing.assert_allclose(gradjit.jit(loss)(NEST), loss(NEST))


def test_flatten_func():
    flat_func, unflatten, flat = flatten_func(lambda nest, k: {"y": nest["w"] * k}, NEST)
    numpy.testing.assert_array_equal(flat_func(flat, 2.0), 2.0 * NEST["w"].ravel())
    numpy.testing.assert_array_equal(unflatten(flat)["w"], NEST["w"])


def _reference(name, grad, x, num_iters, **options):
    """The update rules written out on the flat vector, as autograd's papers state them."""
    step = options.get("step_size")
    state = [numpy.zeros_like(x), numpy.zeros_like(x) if name == "adam" else numpy.ones_like(x)]
    for i in range(num_iters):
        g = grad(x, i)
        if name == "sgd":
            state[0] = 0.9 * state[0] - 0.1 * g
            x = x + step * state[0]
        elif name == "rmsprop":
            state[1] = 0.9 * state[1] + 0.1 * g ** 2
            x = x - step * g / (numpy.sqrt(state[1]) + 1e-8)
        else:
            state[0] = 0.1 * g + 0.9 * state[0]
            state[1] = 0.001 * g ** 2 + 0.999 * state[1]
            x = x - step * (state[0] / (1 - 0.9 ** (i + 1))) / (
                numpy.sqrt(state[1] / (1 - 0.999 ** (i + 1))) + 1e-8)
    return x


@pytest.mark.parametrize("name, optimizer", [("sgd", sgd), ("rmsprop", rmsprop), ("adam", adam)])
def test_optimizers_over_nests(name, optimizer):
    target = numpy.linspace(-1, 1, 12)

    def loss(nest, i):
        flat = flatten(nest)[0]
        return numpy.sum((flat - target) ** 2) * (1 + 0.1 * i)
    seen = []
    out = optimizer(gradjit.grad(loss), NEST, callback=lambda x, i, g: seen.append((i, g)),
                    num_iters=5, step_size=0.05)
    flat_loss_grad = gradjit.grad(lambda flat, i: numpy.sum((flat - target) ** 2) * (1 + 0.1 * i))
    want = _reference(name, flat_loss_grad, flatten(NEST)[0], 5, step_size=0.05)
    numpy.testing.assert_allclose(flatten(out)[0], want)
    assert [i for i, _ in seen] == list(range(5)) and type(seen[0][1]["b"]) is list


def _newton_sqrt(a):
    return lambda x: 0.5 * (x + a / x)


def _distance(x, y):
    return numpy.abs(x - y)


def test_fixed_point_value_and_implicit_gradient():
    assert abs(fixed_point(_newton_sqrt, 2.0, 1.0, _distance, 1e-10) - numpy.sqrt(2)) < 1e-12
    got = gradjit.grad(lambda a: fixed_point(_newton_sqrt, a, 1.0, _distance, 1e-10))(2.0)
    numpy.testing.assert_allclose(got, 0.5 / numpy.sqrt(2.0))
    check_grads(lambda a: fixed_point(_newton_sqrt, a, 1.0, _distance, 1e-12), modes=["rev"],
                order=1)(numpy.array(3.0))


def test_builtins_are_pythons():
    """but isinstance, which counts traced arrays as numpy arrays (tests/hips/test_builtins.py)"""
    for name in ("tuple", "list", "dict", "type"):
        assert getattr(gradjit.builtins, name) is getattr(builtins, name)
