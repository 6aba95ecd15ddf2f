"""Python's `in`, round() and format specs on traced values, as on numpy's arrays and scalars:
`x in a` compared the rows with x and raised that bool of an array is ambiguous, and round()
and f"{a[0]:.2f}" of a traced number raised TypeError."""
import numpy as np
import pytest

import gradjit

A = np.array([[1.25, 2.35, 7.0], [0.5, -1.5, 3.0]])

PROTOCOLS = {
    "x in a": lambda a: (7.0 in a, 4.0 in a, 0.5 in a[1]),
    "round(number)": lambda a: round(a[0, 0] + 0.5) * a,
    "round(number, 1)": lambda a: round(a[0, 1], 1) * a,
    "format spec": lambda a: f"{a[0, 0]:.3f}|{a[1, 1]:+08.2f}",
}


@pytest.mark.parametrize("name", PROTOCOLS)
def test_as_numpy_answers(name):
    fn = PROTOCOLS[name]
    compiled = gradjit.jit(fn)
    for a in (A, A + 1.0, A):  # the answers are guarded: new values, traced again
        got, want = compiled(a), fn(a)
        if isinstance(want, str) or isinstance(want, tuple):
            assert got == want
        else:
            assert np.array_equal(got, want)


@pytest.mark.parametrize("fn", [lambda a: round(a), lambda a: f"{a:.2f}",
                                lambda a: round(a[:1], 1)])
def test_arrays_refuse_them_with_numpys_error(fn):
    with pytest.raises(TypeError) as numpy_error:
        fn(A)
    with pytest.raises(TypeError) as traced_error:
        gradjit.jit(fn)(A)
    assert str(numpy_error.value) in str(traced_error.value)
