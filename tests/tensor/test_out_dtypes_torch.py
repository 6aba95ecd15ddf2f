"""out= tensors of another dtype than the result: each operation's own refusal in torch's
words, or the cast torch makes."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error


def _m(lib):
    return lib.ones(2, 2)


def _out(lib, dtype, *shape):
    return lib.empty(*(shape or (2, 2)), dtype=getattr(lib, dtype))


CALLS = {
    "matmul": lambda lib, d: lib.matmul(_m(lib), _m(lib), out=_out(lib, d)),
    "mm": lambda lib, d: lib.mm(_m(lib), _m(lib), out=_out(lib, d)),
    "bmm": lambda lib, d: lib.bmm(lib.ones(1, 2, 2), lib.ones(1, 2, 2), out=_out(lib, d, 1, 2, 2)),
    "cat": lambda lib, d: lib.cat([_m(lib), _m(lib)], out=_out(lib, d, 4, 2)),
    "stack": lambda lib, d: lib.stack([_m(lib), _m(lib)], out=_out(lib, d, 2, 2, 2)),
    "clamp": lambda lib, d: lib.clamp(_m(lib), 0, 1, out=_out(lib, d)),
    "amax": lambda lib, d: lib.amax(_m(lib), 0, out=_out(lib, d, 2)),
    "amin": lambda lib, d: lib.amin(_m(lib), 0, out=_out(lib, d, 2)),
}
REFUSED = [(name, d) for name in CALLS for d in ("int64", "float64", "bool")
           if not (name in ("cat", "stack") and d == "float64")]


@pytest.mark.parametrize("name, dtype", REFUSED)
def test_out_of_another_dtype_refused_as_torch_does(name, dtype):
    same_error(lambda: CALLS[name](gradjit, dtype), lambda: CALLS[name](torch, dtype))


@pytest.mark.parametrize("name, fn", [
    ("cat-widening", lambda lib: lib.cat([_m(lib), _m(lib)], out=_out(lib, "float64", 4, 2))),
    ("stack-widening", lambda lib: lib.stack([_m(lib), _m(lib)],
                                             out=_out(lib, "float64", 2, 2, 2))),
])
def test_out_of_another_dtype_cast_as_torch_casts(name, fn):
    out, expected = fn(gradjit), fn(torch)
    assert str(out.dtype) == str(expected.dtype)
    np.testing.assert_array_equal(out.numpy(), expected.numpy())
