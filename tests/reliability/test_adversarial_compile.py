"""Adversarial arguments to gradjit.compile on torch-style code, checked against PyTorch."""
import numpy as np
import pytest

import gradjit

torch = pytest.importorskip("torch")

LOGITS = np.random.default_rng(4).standard_normal((3, 4)).astype(np.float32)


@pytest.mark.parametrize("target", [[0, 1, -3], [0, -1, 2], [4, 0, 1]])
def test_cross_entropy_refuses_targets_out_of_range_at_run_time(target):
    """A negative target picked a class counted from the end under compile: a wrong loss."""
    with pytest.raises(IndexError):
        torch.nn.functional.cross_entropy(torch.tensor(LOGITS), torch.tensor(target))
    compiled = gradjit.compile(lambda x, t: gradjit.nn.functional.cross_entropy(x, t))
    compiled(gradjit.tensor(LOGITS), gradjit.tensor([0, 1, 2]))  # traced on good targets
    with pytest.raises(IndexError):
        compiled(gradjit.tensor(LOGITS), gradjit.tensor(target))


def test_cross_entropy_keeps_ignored_targets_under_compile():
    target = [0, -100, 3]
    want = torch.nn.functional.cross_entropy(torch.tensor(LOGITS), torch.tensor(target))
    compiled = gradjit.compile(lambda x, t: gradjit.nn.functional.cross_entropy(x, t))
    got = compiled(gradjit.tensor(LOGITS), gradjit.tensor(target))
    assert np.allclose(got.numpy(), want.numpy())
