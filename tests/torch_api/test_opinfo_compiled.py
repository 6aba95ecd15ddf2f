"""PyTorch's operator database through gradjit.jit (opinfo.py --compiled): every sample of the
listed ops, its floating and integer tensors traced, gives torch's values and, backward through
the compiled node, torch's gradients on the interpreter and on the default backend."""
import pytest

from tests.torch_api.opinfo import BACKENDS, full_name, in_scope, problems

# ops whose every sample passes compiled; grow it as the compiled path learns more ops
PASSING = ("abs", "add", "mul", "sub", "addmm", "bmm", "chunk", "clamp", "cos", "cumsum", "exp",
           "expand", "log", "matmul", "mm", "nn.functional.relu", "nn.functional.gelu",
           "nn.functional.silu", "nn.functional.layer_norm", "nn.functional.binary_cross_entropy",
           "stack", "where", "sigmoid", "take_along_dim", "nn.functional.l1_loss")
OPS = {full_name(op): op for op in in_scope() if full_name(op) in PASSING}


@pytest.mark.parametrize("mode", BACKENDS)
@pytest.mark.parametrize("name", PASSING)
def test_op_compiled_gives_torch_values_and_gradients(name, mode):
    assert problems(OPS[name], seconds=120, mode=mode) == []
