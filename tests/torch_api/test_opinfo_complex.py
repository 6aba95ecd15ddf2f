"""torch.complex's out= against torch: written in place, another dtype refused."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error

torch = pytest.importorskip("torch")


def test_complex_writes_out():
    outs = {lib: lib.empty(3, dtype=lib.complex64) for lib in (gradjit, torch)}
    got = gradjit.complex(gradjit.tensor([1.0, 2, 3]), gradjit.tensor([-1.0, 0, 4]),
                          out=outs[gradjit])
    torch.complex(torch.tensor([1.0, 2, 3]), torch.tensor([-1.0, 0, 4]), out=outs[torch])
    assert got is outs[gradjit]
    np.testing.assert_array_equal(got.numpy(), outs[torch].numpy())


@pytest.mark.parametrize("inputs, out", [("float64", "complex64"), ("float32", "complex128")])
def test_complex_out_of_another_dtype_refused(inputs, out):
    def call(t):
        parts = [t.ones(2, dtype=getattr(t, inputs)) for _ in range(2)]
        return lambda: t.complex(*parts, out=t.empty(2, dtype=getattr(t, out)))
    same_error(call(gradjit), call(torch))
