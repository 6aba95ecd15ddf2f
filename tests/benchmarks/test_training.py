"""The training-step benchmark's implementations start from the same weights and take the
same steps: gradjit eager, gradjit.compile and torch eager give the same first losses."""
import pytest

from benchmarks import training


@pytest.mark.parametrize("optimizer", list(training.OPTIMIZERS))
def test_the_implementations_take_the_same_steps(optimizer):
    want = training.losses(training.build("torch eager", optimizer))
    for name in ("gradjit eager", "gradjit.compile"):
        assert training.losses(training.build(name, optimizer)) == pytest.approx(want, rel=1e-5)
