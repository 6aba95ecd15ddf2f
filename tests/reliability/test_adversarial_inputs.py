"""Adversarial arguments to the compiler path that crashed, were refused or misled: uint64
values past int64's range, byte-swapped arrays, static positions the function lacks, iterators
as results, and Python numbers of whole arrays."""
import numpy as np
import pytest

import gradjit

X = np.random.default_rng(3).standard_normal((3, 4))
BIG = np.array([2**63 + 5, 3, 2**63, 2**64 - 1], np.uint64)

UINT64 = {
    "a > 2**63": lambda a: a > 2**63,
    "a == 2**63": lambda a: a == 2**63,
    "2**64 - 1 >= a": lambda a: 2**64 - 1 >= a,
    "a != 2**64": lambda a: a != 2**64,
    "a < -1": lambda a: a < -1,
}


@pytest.mark.parametrize("name", UINT64)
def test_uint64_compared_with_integers_past_int64(name):
    """Integers in uint64's range but past int64's were compared as int64 and overflowed."""
    fn = UINT64[name]
    got = gradjit.jit(fn)(BIG)
    assert got.dtype == np.bool_ and np.array_equal(got, fn(BIG))


@pytest.mark.parametrize("dtype", [">f8", ">f4", ">i4", ">c16"])
def test_byte_swapped_arrays_give_numpys_answer(dtype):
    """A big-endian array was refused as an unknown dtype; it holds ordinary numbers."""
    x = (X * 3).astype(dtype)
    fn = gradjit.jit(lambda a: a * 2 + a.sum())
    for _ in range(2):  # traced, then cached
        got = fn(x)
        want = x * 2 + x.sum()
        assert got.dtype == want.dtype.newbyteorder("=") and np.allclose(got, want)


def test_gradient_of_a_byte_swapped_array():
    got = gradjit.grad(lambda a: (a * a).sum())(X.astype(">f8"))
    assert np.array_equal(got, 2 * X)


@pytest.mark.parametrize("options", [dict(static_argnums=2), dict(static_argnums=-3),
                                     dict(static_argnames="c")])
def test_static_arguments_the_function_lacks(options):
    """They were ignored, so the argument a user meant as static was traced."""
    with pytest.raises(ValueError, match="name no parameter of"):
        gradjit.jit(lambda a, b: a * b, **options)


def test_static_arguments_of_variadic_functions_stay_allowed():
    fn = gradjit.jit(lambda *a, **k: a[0] * a[3] * k["s"], static_argnums=3, static_argnames="s")
    assert np.array_equal(fn(X, 0, 0, 2, s=3), X * 6)


@pytest.mark.parametrize("fn", [lambda a: (x * 2 for x in a), lambda a: iter([a]),
                                lambda a: map(np.sin, a)])
def test_iterators_as_results_are_refused(fn):
    """A returned generator ran on traced values after the trace ended, and a cached call
    handed back the same, spent object."""
    with pytest.raises(TypeError, match="is an iterator, which runs once"):
        gradjit.jit(fn)(X)


def test_a_generator_function_is_refused():
    def gen(a):
        yield a * 2
    with pytest.raises(TypeError, match="generator is an iterator"):
        gradjit.jit(gen)(X)


@pytest.mark.parametrize("convert", [float, int, complex])
def test_python_numbers_of_whole_arrays_raise_numpys_type_error(convert):
    with pytest.raises(TypeError) as numpy_error:
        convert(X)
    with pytest.raises(TypeError) as traced_error:
        gradjit.jit(lambda a: a * convert(a))(X)
    assert str(numpy_error.value) in str(traced_error.value)
    assert np.array_equal(gradjit.jit(lambda a: a * float(a[0, 0]))(X), X * X[0, 0])


def _assign(a):
    a[0] = 5.0
    return a * 2


def _add_in_place(a):
    a += 1
    return a.sum()


def _through_inner(a):
    return gradjit.jit(_assign)(a), a.sum()


@pytest.mark.parametrize("fn", [_assign, _add_in_place, _through_inner])
def test_writes_into_an_argument_reach_the_caller_as_numpys(fn):
    """The result was right but the caller's array kept its old values."""
    compiled = gradjit.jit(fn)
    for _ in range(2):  # traced, then cached
        mine, numpys = X.copy(), X.copy()
        got, want = compiled(mine), fn(numpys)
        assert np.allclose(mine, numpys)
        pairs = zip(got, want) if isinstance(want, tuple) else [(got, want)]
        assert all(np.allclose(g, w) for g, w in pairs)


def test_a_write_into_a_read_only_argument_raises_numpys_error():
    frozen = X.copy()
    frozen.flags.writeable = False
    with pytest.raises(ValueError) as numpy_error:
        _assign(frozen)
    with pytest.raises(ValueError) as compiled_error:
        gradjit.jit(_assign)(frozen)
    assert str(compiled_error.value) == str(numpy_error.value)
    assert np.array_equal(frozen, X)


@pytest.mark.parametrize("number", [2**64, -(2**63) - 1, 2**70])
def test_python_integers_past_64_bits_are_refused_by_value(number):
    """The refusal named an 'object' dtype the caller never wrote."""
    with pytest.raises(TypeError, match=f"the Python integer {number} fits neither"):
        gradjit.jit(lambda a: a * 2)(number)


UINT64_ONLY = 2**63 + 5  # a Python integer numpy types uint64, past int64's range


@pytest.mark.parametrize("f", [lambda x, k: x + k, lambda x, k: x < k, lambda x, k: k >= x,
                               lambda x, k: x * 1.5 + k, lambda x, k: np.asarray(k) * 1,
                               lambda x, k: x + np.array(k), lambda x, k: k * 1 + x],
                         ids=["add", "lt", "ge", "float", "asarray", "array", "numbers"])
@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.uint64])
def test_a_python_integer_past_int64_as_an_argument_computes_as_numpy(f, dtype):
    """Traced as uint64: with signed or narrower arrays numpy raises OverflowError (it was
    wrapped into int64), compares exactly, or promotes to float; np.asarray of it is a uint64
    array (it raised PyTorch's uint64 promotion error)."""
    x = np.arange(3, dtype=dtype)
    try:
        want = f(x, UINT64_ONLY)
    except OverflowError:
        with pytest.raises(OverflowError, match="out of bounds"):
            gradjit.jit(f)(x, UINT64_ONLY)
        return
    got = gradjit.jit(f)(x, UINT64_ONLY)
    assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("number", [UINT64_ONLY, 2.5, 7, True, 1 + 2j])
def test_torch_tensor_of_a_traced_python_number_as_eager(number):
    """torch.tensor(k) of a compiled function's number argument: PyTorch's dtype for the
    number, and its ValueError past int64's range (it returned the uint64 value)."""
    import torch

    def f(L, k):
        return L.tensor(k) * 1
    try:
        want = f(torch, number)
    except ValueError as error:
        with pytest.raises(ValueError, match=str(error)):
            gradjit.compile(lambda k: f(gradjit, k))(number)
        return
    got = gradjit.compile(lambda k: f(gradjit, k))(number)
    assert str(got.dtype).replace("torch.", "") == str(want.dtype).replace("torch.", "")
    np.testing.assert_array_equal(np.asarray(got), want.numpy())
