"""torch.distributed's process-group calls: gradjit has no backend, says so through
is_available(), and the calls that need a group raise torch's error or name the problem."""
import pytest
import torch

import gradjit
from tests.torch_reference import same_error


def test_no_backend_is_available_and_no_group_is_initialized():
    assert gradjit.distributed.is_available() is False
    assert gradjit.distributed.is_initialized() is torch.distributed.is_initialized() is False


@pytest.mark.parametrize("name", ["get_rank", "get_world_size"])
def test_group_queries_raise_torchs_error_without_a_group(name):
    same_error(getattr(gradjit.distributed, name), getattr(torch.distributed, name))


def test_init_process_group_names_the_missing_backend():
    with pytest.raises(RuntimeError, match="no process-group backend"):
        gradjit.distributed.init_process_group("gloo", rank=0, world_size=1)
