"""Fixtures of the distribution tests."""
import pytest


@pytest.fixture
def set_default_dtype():
    """Sets torch's and gradjit's default dtype for one test."""
    import torch

    import gradjit

    def set_both(dtype):
        for lib in (torch, gradjit):
            lib.set_default_dtype(getattr(lib, str(dtype).split(".")[1]))
    yield set_both
    set_both(torch.float32)
