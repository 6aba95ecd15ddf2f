"""np.unravel_index and np.ravel_multi_index on indices computed at run time, np.logspace and
np.geomspace with traced ends: values against numpy on traced values and eager Tensors,
gradients against central differences, numpy's errors."""
import numpy as np
import pytest

import gradjit
from tests.numpy_api.check import check_eager, check_grad, check_values
from tests.torch_reference import message

rng = np.random.default_rng(13)
X = rng.standard_normal((3, 4))
ENDS = np.array([0.5, 2.0, -3.0])

INDICES = {
    "unravel-argmax": lambda a: np.unravel_index(np.argmax(a), a.shape),
    "unravel-F": lambda a: np.unravel_index(np.argsort(a, axis=None), (4, 3), order="F"),
    "unravel-int-shape": lambda a: np.unravel_index(np.argmax(a, 1), 4),
    "unravel-bools": lambda a: np.unravel_index(a > 0, (2, 2)),
    "ravel": lambda a: np.ravel_multi_index((np.argmax(a, 0), np.argmin(a, 0)), (3, 4)),
    "ravel-modes": lambda a: np.ravel_multi_index((np.argmax(a, 0) - 2, np.argmin(a, 0) + 3),
                                                  (3, 4), mode=("clip", "wrap"), order="F"),
    "ravel-wrap": lambda a: np.ravel_multi_index((np.argmax(a, 0) * 5, np.argmin(a, 0) - 9),
                                                 (3, 4), mode="wrap"),
    "pick-the-max": lambda a: a[np.unravel_index(np.argmax(a), a.shape)] * 2.0,
}


@pytest.mark.parametrize("name", INDICES)
def test_flat_indices_and_index_tuples(name):
    check_values(INDICES[name], X)
    check_eager(INDICES[name], X)


def test_picking_the_max_by_its_index_tuple_has_its_gradient():
    check_grad(INDICES["pick-the-max"], X)


SPACES = {
    "logspace": lambda a: np.logspace(0.0, a[1], 5),
    "logspace-arrays": lambda a: np.logspace(a[0], a, 4, base=2.0, axis=1),
    "logspace-float32": lambda a: np.logspace(a[0], a[1], 5, endpoint=False,
                                              dtype=np.float32),
    "logspace-traced-base": lambda a: np.logspace(a[0], a[1], 3, base=a[:1] + 1),
    "geomspace": lambda a: np.geomspace(a[0], a[1], 6),
    "geomspace-negative": lambda a: np.geomspace(a[2], -a[1] * 10, 4),
    "geomspace-arrays": lambda a: np.geomspace(1.0, a, 3, axis=-1),
    "geomspace-open": lambda a: np.geomspace(a[:2], 100.0, 3, endpoint=False),
    "geomspace-one": lambda a: np.geomspace(a[0], a[1], 1),
    "geomspace-none": lambda a: np.geomspace(a[0], a[1], 0),
    "geomspace-sign-change": lambda a: np.geomspace(a[0], a[2], 4),
}


@pytest.mark.parametrize("name", SPACES)
def test_logspace_and_geomspace(name):
    with np.errstate(invalid="ignore"):
        check_values(SPACES[name], ENDS, rtol=1e-6 if "float32" in name else 1e-12)
        check_eager(SPACES[name], ENDS, rtol=1e-6 if "float32" in name else 1e-12)
    if "float32" not in name and "sign-change" not in name:
        ends = ENDS if name == "geomspace-negative" else np.abs(ENDS)  # no NaN samples
        check_grad(SPACES[name], ends, backends=("cpu",))


@pytest.mark.parametrize("call, error", [
    (lambda a: np.unravel_index(np.argmax(a) + 12, a.shape), ValueError),
    (lambda a: np.unravel_index(np.argmax(a) - 12, a.shape), ValueError),
    (lambda a: np.unravel_index(a, a.shape), TypeError),
    (lambda a: np.unravel_index(np.argmax(a), a.shape, order="X"), ValueError),
    (lambda a: np.unravel_index(np.argmax(a), a.shape, order="A"), ValueError),
    (lambda a: np.ravel_multi_index((np.argmax(a, 0) + 3, np.argmin(a, 0)), (3, 4)),
     ValueError),
    (lambda a: np.ravel_multi_index((np.argmax(a, 0),), (3, 4)), ValueError),
    (lambda a: np.ravel_multi_index((a[0], a[0]), (3, 4)), TypeError),
    (lambda a: np.ravel_multi_index((np.argmax(a, 0),), (3,), mode="x"), ValueError),
    (lambda a: np.geomspace(a[0, 0] * 0, 1.0, 3), ValueError),
], ids=["unravel-above", "unravel-negative", "unravel-floats", "unravel-order",
        "unravel-order-A", "ravel-outside", "ravel-length", "ravel-floats", "ravel-mode",
        "geomspace-zero"])
def test_errors_as_numpy(call, error):
    with pytest.raises(error) as want:
        call(X)
    with pytest.raises(error) as got:
        gradjit.jit(call)(X)
    assert message(got.value) == str(want.value)
