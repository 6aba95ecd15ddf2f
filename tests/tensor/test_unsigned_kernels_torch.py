"""uint16/uint32/uint64: the operations torch 2.13 has no CPU kernel for raise its
NotImplementedError; those it has (mul, eq, sum, sort, casts, ...) still compute."""
import numpy as np
import pytest
import torch

import gradjit
from gradjit.tensor import unsigned
from tests.torch_reference import same_error

DTYPES = ["uint16", "uint32", "uint64"]


def _u(lib, dtype):
    return lib.tensor([1, 2, 3], dtype=getattr(lib, dtype))


REFUSED = {
    "add": lambda lib, u: u + u, "add-number": lambda lib, u: u + 1, "sub": lambda lib, u: u - u,
    "rsub": lambda lib, u: 1 - u, "add_": lambda lib, u: u.add_(1),
    "floor_divide": lambda lib, u: u // u, "remainder": lambda lib, u: u % u,
    "remainder-number": lambda lib, u: u % 2, "fmod": lambda lib, u: u.fmod(2),
    "fmod-tensor": lambda lib, u: u.fmod(u), "neg": lambda lib, u: -u,
    "abs": lambda lib, u: u.abs(), "sign": lambda lib, u: u.sign(), "lt": lambda lib, u: u < u,
    "le": lambda lib, u: u <= u, "gt": lambda lib, u: u > 1, "ge": lambda lib, u: u >= u,
    "max": lambda lib, u: u.max(), "min": lambda lib, u: u.min(),
    "maximum": lambda lib, u: lib.maximum(u, u), "minimum": lambda lib, u: lib.minimum(u, u),
    "clamp": lambda lib, u: u.clamp(0, 2), "invert": lambda lib, u: ~u,
    "lshift": lambda lib, u: u << u, "rshift": lambda lib, u: u >> u,
    "gcd": lambda lib, u: u.gcd(u), "lcm": lambda lib, u: u.lcm(u), "dot": lambda lib, u: u @ u,
    "pow": lambda lib, u: u ** 2, "square": lambda lib, u: u.square(),
    "topk": lambda lib, u: u.topk(1), "flip": lambda lib, u: u.flip(0),
    "scatter_add": lambda lib, u: u.scatter_add(0, lib.tensor([0, 1, 2]), u),
    "where": lambda lib, u: lib.where(u > 1, u, u),
    "promotion-first": lambda lib, u: u + lib.tensor([1, 2, 3]),
    "cummax": lambda lib, u: u.cummax(0), "cummin": lambda lib, u: u.cummin(0),
    "median": lambda lib, u: u.median(), "kthvalue": lambda lib, u: u.kthvalue(1),
    "mode": lambda lib, u: u.mode(), "logical_not": lambda lib, u: u.logical_not(),
    "amax": lambda lib, u: u.amax(), "amin": lambda lib, u: u.amin(),
    "aminmax": lambda lib, u: u.aminmax(), "max-dim": lambda lib, u: u.max(0),
    "min-dim": lambda lib, u: u.min(0), "argmax": lambda lib, u: u.argmax(),
    "argmax-dim": lambda lib, u: u.argmax(0), "argmin": lambda lib, u: u.argmin(),
    "nonzero": lambda lib, u: u.nonzero(), "count_nonzero": lambda lib, u: u.count_nonzero(),
    "arange": lambda lib, u: lib.arange(3, dtype=u.dtype),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", REFUSED)
def test_unimplemented_kernels_raise_as_torch_does(name, dtype):
    same_error(lambda: REFUSED[name](gradjit, _u(gradjit, dtype)),
               lambda: REFUSED[name](torch, _u(torch, dtype)))


def test_every_kernel_of_the_table_is_tested():
    names = {"add_stub", "div_floor_cpu", "remainder_cpu", "fmod_cpu", "neg_cpu", "abs_cpu",
             "sign_cpu", "lt_cpu", "le_cpu", "gt_cpu", "ge_cpu", "max_all", "min_all",
             "maximum_cpu", "minimum_cpu", "clamp_scalar_cpu", "bitwise_not_cpu", "lshift_cpu",
             "rshift_cpu", "gcd_cpu", "lcm_cpu", "dot", "pow", "topk_cpu", "flip_cpu",
             "scatter_gather_tensor_cpu", "cummax_cpu", "cummin_cpu", "median_cpu",
             "kthvalue_cpu", "mode_cpu", "logical_not_cpu", "max_values_cpu", "min_values_cpu",
             "aminmax_cpu", "max_cpu", "min_cpu"}
    assert set(unsigned.KERNELS.values()) == names


COMPUTED = {
    "mul": lambda lib, u: u * u, "eq": lambda lib, u: u == u, "sum": lambda lib, u: u.sum(),
    "sort": lambda lib, u: u.sort().values, "float": lambda lib, u: u.float(),
    "cat": lambda lib, u: lib.cat([u, u]), "index": lambda lib, u: u[lib.tensor([0, 2])],
    "and": lambda lib, u: u & u, "clone": lambda lib, u: u.clone(),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", COMPUTED)
def test_implemented_kernels_still_compute(name, dtype):
    out, expected = COMPUTED[name](gradjit, _u(gradjit, dtype)), COMPUTED[name](torch, _u(torch,
                                                                                         dtype))
    assert str(out.dtype) == str(expected.dtype)
    np.testing.assert_array_equal(out.numpy(), expected.numpy())
