"""gradjit.builtins (autograd.builtins): isinstance counts traced arrays as numpy arrays."""
import numpy as np

import gradjit
import gradjit.numpy as gnp
from gradjit.builtins import isinstance


def test_traced_arrays_are_ndarrays_and_nothing_else_changes():
    def f(x):
        assert isinstance(x, np.ndarray) and isinstance(gnp.zeros(1), (tuple, np.ndarray))
        assert isinstance(x, object) and not isinstance(x, (list, tuple))
        assert not isinstance([], np.ndarray) and isinstance((), (tuple, list))
        return gnp.sum(x * x)
    np.testing.assert_array_equal(gradjit.grad(f)(np.arange(3.0)), 2 * np.arange(3.0))
