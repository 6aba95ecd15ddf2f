"""torch.cuda's calls that d2l's performance chapters make behave as PyTorch's CPU build's
when no device is available (AssertionError), and as no-ops on the emulated device."""
import pytest
import torch

import gradjit
from tests.torch_reference import same_error

CALLS = {
    "synchronize_cpu": lambda lib: lib.cuda.synchronize(lib.device("cpu")),
    "synchronize": lambda lib: lib.cuda.synchronize(),
    "current_device": lambda lib: lib.cuda.current_device(),
    "get_device_name": lambda lib: lib.cuda.get_device_name(0),
}


@pytest.mark.skipif(gradjit.cuda.is_available() or torch.cuda.is_available(),
                    reason="compares CPU-only behaviour")
@pytest.mark.parametrize("name", list(CALLS))
def test_cuda_calls_without_device_raise_as_torch(name):
    same_error(lambda: CALLS[name](gradjit), lambda: CALLS[name](torch))


def test_cuda_memory_queries_and_emulated_device():
    assert gradjit.cuda.memory_allocated() == torch.cuda.memory_allocated() == 0
    assert gradjit.cuda.empty_cache() is None and torch.cuda.empty_cache() is None
    with gradjit.cuda.use_emulator():
        assert gradjit.cuda.synchronize() is None
        assert gradjit.cuda.current_device() == 0
