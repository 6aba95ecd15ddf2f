"""Lists and tuples where torch's operations take a Tensor or a number, and numbers where they
take only Tensors: the same TypeError, method and function forms; gradjit's numpy namespace
still takes them as numpy does."""
import numpy as np
import pytest
import torch

import gradjit
import gradjit.numpy as gnp
from gradjit.tensor import signatures
from tests.torch_reference import same_error

ONE_TENSOR = sorted(set(signatures._ONE_TENSOR) - {"igamma", "igammac"})
OVERLOADED = sorted(signatures._OVERLOADED)
IN_PLACE = signatures._ONE_TENSOR_IN_PLACE + signatures._OVERLOADED_IN_PLACE


def _operands(lib, name):
    integer = name.startswith("bitwise") or name in ("gcd", "lcm")
    a = lib.tensor([1, 2] if integer else [1.0, 2.0])
    if name.rstrip("_") in ("mm",):
        a = lib.ones(2, 2)
    return a


def _second(name):
    """The list given and the arguments around it, per operation."""
    if name.rstrip("_") in ("lerp", "masked_fill"):
        return ([True, False] if "masked" in name else [1, 2], 0.5)
    if name == "where":
        return (lambda lib, a: a > 1, [1, 2])
    return ([1, 2],)


@pytest.mark.parametrize("name", ONE_TENSOR + OVERLOADED + list(IN_PLACE))
def test_method_refuses_a_list_as_torch_does(name):
    def call(lib):
        a = _operands(lib, name)
        args = [x(lib, a) if callable(x) else x for x in _second(name)]
        return getattr(a, name)(*args)
    same_error(lambda: call(gradjit), lambda: call(torch))


@pytest.mark.parametrize("name", ONE_TENSOR + [n for n in OVERLOADED if n != "where"])
@pytest.mark.parametrize("first", [False, True], ids=["other", "input"])
def test_function_refuses_a_list_as_torch_does(name, first):
    def call(lib):
        a = _operands(lib, name)
        args = list(_second(name))
        return getattr(lib, name)(*(args[:1] + [a] + args[1:] if first else [a, *args]))
    same_error(lambda: call(gradjit), lambda: call(torch))


@pytest.mark.parametrize("value", [(1.5,), [[1]], [], [1, 2.5, True]],
                         ids=["tuple", "nested", "empty", "mixed"])
@pytest.mark.parametrize("name", ["add", "eq", "where"])
def test_how_torch_names_the_refused_value(name, value):
    def call(lib):
        a = lib.tensor([1.0, 2.0])
        if name == "where":
            return lib.where(a > 1, a, value)
        return getattr(a, name)(value)
    same_error(lambda: call(gradjit), lambda: call(torch))


KEYWORD_CALLS = {
    "add(other=)": lambda lib: lib.ones(2).add(other=[1]),
    "torch.add(other=)": lambda lib: lib.add(lib.ones(2), other=[1]),
    "clamp(min=)": lambda lib: lib.ones(2).clamp(min=(1, 2)),
    "torch.clamp(min=)": lambda lib: lib.clamp(lib.ones(2), min=[1, 2]),
    "torch.clamp(list, max=)": lambda lib: lib.clamp(lib.ones(2), [1], max=2),
    "torch.eq(other=)": lambda lib: lib.eq(lib.ones(2), other=[1]),
}


@pytest.mark.parametrize("name", KEYWORD_CALLS)
def test_keyword_arguments_as_torch_words_them(name):
    same_error(lambda: KEYWORD_CALLS[name](gradjit), lambda: KEYWORD_CALLS[name](torch))


NUMBER_CALLS = [(name, first, second) for name in [*ONE_TENSOR, *signatures._TWO_TENSORS]
                if name.rstrip("_") not in signatures.NUMBERS_AS_TENSORS
                for first, second in (("t", 2), (2, "t"), (2, 3))]
NUMBER_CALLS += [(name, 2, 3) for name in ("pow", "eq", "remainder", "xlogy", "rsub", "clamp")]
NUMBER_CALLS += [("rsub", 2, "t")]


@pytest.mark.parametrize("name,first,second", NUMBER_CALLS)
def test_function_refuses_a_number_for_a_tensor_as_torch_does(name, first, second):
    def call(lib):
        a = _operands(lib, name)
        return getattr(lib, name)(*(a if x == "t" else x for x in (first, second)))
    same_error(lambda: call(gradjit), lambda: call(torch))


@pytest.mark.parametrize("name", ["maximum", "fmin", "atan2", "hypot_", "logical_and"])
def test_method_refuses_a_number_for_a_tensor_as_torch_does(name):
    same_error(lambda: getattr(gradjit.tensor([1.0]), name)(2),
               lambda: getattr(torch.tensor([1.0]), name)(2))


def test_numbers_and_tensors_still_pass():
    a, t = gradjit.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0])
    for name in ("add", "eq", "pow", "clamp", "maximum"):
        other = 2.0 if name != "maximum" else t
        g_other = 2.0 if name != "maximum" else a
        np.testing.assert_array_equal(getattr(a, name)(g_other).numpy(),
                                      getattr(t, name)(other).numpy())


def test_numpy_namespace_takes_lists():
    def f(x):
        return (np.add(x, [1, 2]) + np.where(x > 1, x, [3, 4]) + np.maximum(x, [0, 5])).sum()
    x = np.array([1.0, 2.0])
    expected = (np.add(x, [1, 2]) + np.where(x > 1, x, [3, 4]) + np.maximum(x, [0, 5])).sum()
    np.testing.assert_allclose(gradjit.jit(f)(x), expected)
    np.testing.assert_array_equal(np.asarray(gnp.add(gnp.array([1.0, 2.0]), [1, 2])), [2, 4])
