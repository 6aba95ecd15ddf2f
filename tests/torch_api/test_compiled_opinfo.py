"""PyTorch's operator database through gradjit.compile, as a user calls torch.compile: the first
float64 sample of ops from every family, on the sample's own Tensors and Python arguments (dims,
sizes, paddings), compiles without running eagerly and gives torch's values and, backward
through the compiled call, torch's gradients. EAGER lists ops whose calls still run eagerly,
with the reason; each is checked to run eagerly still. `python -m tests.torch_api.opinfo
--compile --first` sweeps every op (README of the sweep: opinfo.py)."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_api.opinfo import full_name, in_scope, problems

# ops whose first sample compiles and agrees, by family: most take a dim, a size or a padding
FAMILIES = {
    "shapes": ("reshape", "view", "permute", "transpose", "movedim", "unsqueeze", "narrow",
               "select", "split", "split_with_sizes", "chunk", "unbind", "stack", "cat", "flip",
               "roll", "expand", "unflatten", "unfold", "tensordot", "take_along_dim"),
    "reductions": ("cumsum", "cumprod", "cummax", "logcumsumexp", "var_mean.unbiased",
                   "std.unbiased", "max.reduction_with_dim", "topk", "nanquantile"),
    "indexing": ("gather", "scatter", "scatter_add", "scatter_reduce.sum", "select_scatter",
                 "slice_scatter", "index_reduce.mean", "__getitem__"),
    "factories": ("zeros", "ones", "full", "full_like", "eye", "arange", "linspace",
                  "scalar_tensor", "new_full", "fill", "lerp"),
    "nn": ("softmax", "log_softmax", "nn.functional.normalize", "nn.functional.cosine_similarity",
           "nn.functional.group_norm", "nn.functional.glu", "nn.functional.conv2d",
           "nn.functional.conv_transpose2d", "nn.functional.max_pool2d",
           "nn.functional.avg_pool1d", "nn.functional.adaptive_max_pool1d",
           "nn.functional.pad.constant", "nn.functional.pad.circular",
           "nn.functional.interpolate.nearest", "nn.functional.interpolate.bicubic",
           "nn.functional.unfold", "nn.functional.pixel_shuffle", "nn.functional.ctc_loss"),
    "fft/linalg": ("fft.fft", "fft.rfft2", "fft.irfftn", "fft.hfft", "stft", "linalg.norm",
                   "linalg.svd", "linalg.solve_triangular", "linalg.vander", "linalg.tensorinv"),
    # a count read from the values (squarings, recurrence steps) is a guard a trace keeps
    "counts": ("matrix_exp", "polygamma.polygamma_n_1", "special.polygamma.special_polygamma_n_0"),
}
PASSING = tuple(name for family in FAMILIES.values() for name in family)

# ops whose calls gradjit.compile still runs eagerly: the start of the reason it gives
_DRAW = "random numbers were drawn"
_VALUE = "a tensor's value is read into Python"
EAGER = {
    "uniform": _DRAW,
    "nn.functional.rrelu": _DRAW,
    "unique": _VALUE,  # the result's shape is the data's
    "tensor_split": _VALUE,  # split at indices given as a tensor
    "nn.functional.max_unpool2d": "max_unpool2d's indices cannot be used on a value traced",
    "linalg.cholesky_ex": "linalg.cholesky_ex cannot be used on a value traced",
    "bfloat16": "the cpu backend does not compile bfloat16 values",
}
FIRST = dict(samples=1, dtypes=(torch.float64,), errors=False)
OPS = {full_name(op): op for op in in_scope() if full_name(op) in PASSING + tuple(EAGER)}


@pytest.mark.parametrize("name", PASSING)
def test_op_compiles_and_gives_torch_values_and_gradients(name):
    assert problems(OPS[name], seconds=120, mode="compile", **FIRST) == []


@pytest.mark.parametrize("name", EAGER)
def test_op_still_runs_eagerly(name):
    found = problems(OPS[name], seconds=120, mode="compile", **FIRST)
    assert found, "compiles now: move it from EAGER to FAMILIES"
    assert found[0][2].startswith(f"raises RanEagerly: {EAGER[name]}"), found[0]


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.bfloat16().double() * 2,  # a dtype the backend does not lower
    lambda lib, x: lib.linalg.cholesky_ex(x @ x.mT + lib.eye(3, dtype=x.dtype)).L,
])
def test_a_call_compile_cannot_take_runs_eagerly_with_eager_results(fn):
    data = np.linspace(-1.0, 1.0, 9).reshape(3, 3)
    t = torch.tensor(data, requires_grad=True)
    want = fn(torch, t)
    want.sum().backward()
    x = gradjit.tensor(data, requires_grad=True)
    compiled = gradjit.compile(lambda x: fn(gradjit, x))
    got = compiled(x)
    got.sum().backward()
    assert compiled.eager_calls == 1
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_a_count_read_from_the_values_keeps_one_trace_per_count():
    """matrix_exp's number of squarings comes from the norm: matrices that need as many share
    a trace, others add one, and none runs eagerly."""
    compiled = gradjit.compile(gradjit.matrix_exp)
    base = np.linspace(-1.0, 1.0, 9).reshape(3, 3)
    for scale in (1.0, 1.01, 8.0, 1.02):
        got = compiled(gradjit.tensor(base * scale)).numpy()
        np.testing.assert_allclose(got, torch.matrix_exp(torch.tensor(base * scale)).numpy(),
                                   rtol=1e-12)
    assert compiled.eager_calls == 0 and compiled.program.cache.traces == 2
