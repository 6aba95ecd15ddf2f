"""PyTorch's operator database through gradjit.jit (opinfo.py --compiled): the first float64
sample of ops from every family, its floating and integer tensors traced, gives torch's values
and, backward through the compiled node, torch's gradients, on the interpreter and on the
default backend. KNOWN lists ops that still differ once compiled, with their first difference;
each is checked to differ still."""
import pytest
import torch

from tests.torch_api.opinfo import BACKENDS, full_name, in_scope, problems

# ops whose samples agree compiled, by family; `python -m tests.torch_api.opinfo --compiled`
# runs every sample of every op
FAMILIES = {
    "elementwise": ("abs", "add", "mul", "sub", "div.no_rounding_mode", "exp", "log", "cos",
                    "log1p", "atan2", "erf", "sigmoid", "clamp", "where", "remainder",
                    "logaddexp", "copysign", "addcmul"),
    "reductions": ("amax", "argmax", "cumsum", "cumprod", "median", "var_mean", "std_mean",
                   "count_nonzero", "aminmax", "cummax"),
    "linalg": ("mm", "bmm", "addmm", "matmul", "einsum", "linalg.det", "linalg.solve",
               "linalg.inv", "linalg.cholesky", "linalg.qr", "linalg.eigh", "linalg.slogdet",
               "linalg.vector_norm", "linalg.matrix_norm", "linalg.eig", "cross"),
    "fft": ("fft.fft", "fft.rfft", "fft.irfft", "fft.fft2", "fft.ihfft", "fft.fftshift"),
    "conv/pool": ("nn.functional.conv1d", "nn.functional.conv2d",
                  "nn.functional.conv_transpose1d", "nn.functional.avg_pool2d",
                  "nn.functional.adaptive_avg_pool2d", "nn.functional.adaptive_max_pool1d",
                  "nn.functional.interpolate.bilinear", "nn.functional.pad.reflect"),
    "losses": ("nn.functional.l1_loss", "nn.functional.binary_cross_entropy",
               "nn.functional.binary_cross_entropy_with_logits", "nn.functional.cross_entropy",
               "nn.functional.margin_ranking_loss", "nn.functional.triplet_margin_loss",
               "nn.functional.soft_margin_loss"),
    "indexing": ("take_along_dim", "masked_fill", "masked_scatter", "diagonal_scatter",
                 "diag_embed", "bucketize", "argwhere", "masked_select", "nonzero"),
    "shaping": ("chunk", "expand", "stack", "flip", "broadcast_to", "atleast_3d", "flatten",
                "meshgrid.variadic_tensors", "cartesian_prod", "block_diag"),
    "nn": ("nn.functional.relu", "nn.functional.gelu", "nn.functional.silu",
           "nn.functional.layer_norm", "nn.functional.group_norm", "softmax",
           "nn.functional.normalize", "nn.functional.linear", "nn.functional.prelu"),
}
PASSING = tuple(name for family in FAMILIES.values() for name in family)

# still differing compiled: (mode, first difference), as opinfo.py prints it
KNOWN = {
    "nn.functional.instance_norm": ("interpreter", "torch.float64 #0: raises TraceError: "
                                    "compiled.<locals>.call.<locals>.sample: argument traced1 "
                                    "is updated in place"),
    "uniform": ("interpreter", "torch.float64 #0: raises TracedRandomDraw: uniform_: random "
                "values cannot be drawn inside gradjit.grad/jit"),
    "nn.functional.fractional_max_pool2d": ("interpreter", "torch.float64 #0: raises "
                                            "TracedRandomDraw: a draw from the random generator: "
                                            "random values cannot be drawn"),
    "svd_lowrank": ("interpreter", "torch.float64 #0: raises TracedRandomDraw: a draw from the "
                    "random generator"),
    "nn.functional.max_unpool2d": ("interpreter", "torch.float64 #0: raises NotTraceable: "
                                   "max_unpool2d's indices cannot be used on a value traced"),
    "bfloat16": ("compiled", "torch.float64 #0: raises UnloweredDtype: the cpu backend does not "
                 "compile bfloat16 values"),
    "linalg.cholesky_ex": ("interpreter", "torch.float64 #0: raises NotTraceable: "
                           "linalg.cholesky_ex cannot be used on a value traced"),
}
# what CI runs of each op, to stay within about a minute (compiling dominates)
FIRST = dict(samples=1, dtypes=(torch.float64,), errors=False)
OPS = {full_name(op): op for op in in_scope() if full_name(op) in PASSING or
       full_name(op) in KNOWN}


@pytest.mark.parametrize("mode", BACKENDS)
@pytest.mark.parametrize("name", PASSING)
def test_op_compiled_gives_torch_values_and_gradients(name, mode):
    assert problems(OPS[name], seconds=120, mode=mode, **FIRST) == []


@pytest.mark.parametrize("name", KNOWN)
def test_known_difference_is_still_there(name):
    mode, expected = KNOWN[name]
    found = problems(OPS[name], seconds=120, mode=mode, **FIRST)
    assert found, "agrees now: move it from KNOWN to FAMILIES"
    dtype, index, text = found[0]
    assert f"{dtype} #{index}: {text}".startswith(expected)
