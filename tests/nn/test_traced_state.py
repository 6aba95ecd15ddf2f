"""Module state under gradjit.grad/jit: BatchNorm's running statistics cannot be updated by a
compiled program, so training mode raises a clear error and leaves the buffers (and the batch
count) as they were; eval mode and track_running_stats=False compile and equal eager."""
import numpy as np
import pytest

import gradjit
from gradjit import nn
from tests.nn.helpers import close, randn


def test_batchnorm_training_with_running_stats_refuses_to_trace():
    bn = nn.BatchNorm1d(3)
    x = gradjit.tensor(randn(6, 3))
    with pytest.raises(RuntimeError, match="running statistics"):
        gradjit.jit(lambda t: bn(t).sum())(x)
    with pytest.raises(RuntimeError, match="running statistics"):
        gradjit.grad(lambda t: bn(t).sum())(x)
    assert bn.running_mean.tolist() == [0.0] * 3 and int(bn.num_batches_tracked) == 0


def test_batchnorm_without_updates_compiles_like_eager():
    """The affine parameters are frozen: jit refuses parameters that require grad and are not
    arguments, since their gradient would be lost."""
    x = gradjit.tensor(randn(6, 3) * 2 + 1)
    eager_bn = nn.BatchNorm1d(3).requires_grad_(False)
    eager_bn(x)  # move the running statistics, then use them in eval mode
    eager_bn.eval()
    close(gradjit.jit(eager_bn)(x), eager_bn(x))
    free = nn.BatchNorm1d(3, track_running_stats=False).requires_grad_(False)
    close(gradjit.jit(free)(x), free(x))
    grads = gradjit.grad(lambda t: (free(t) ** 3).sum())(x)
    xs = x.clone().requires_grad_()
    (free(xs) ** 3).sum().backward()
    close(grads, xs.grad, rtol=1e-4, atol=1e-5)


def test_a_local_in_place_accumulator_is_traced_as_eager_runs_it():
    """A tensor a factory makes inside the trace is the trace's own: an in-place update of it
    takes the traced value (as torch.func's transformations allow), where one made outside
    is refused (above)."""
    def f(x):
        acc = gradjit.zeros(3)
        acc += x
        acc[1:] *= x[:2]
        return acc
    x = gradjit.tensor([1.0, 2.0, 3.0])
    assert np.array_equal(gradjit.jit(f)(x).numpy(), f(x).numpy())
    outside = gradjit.zeros(3)

    def g(x):
        outside.add_(x)
        return outside
    with pytest.raises(RuntimeError, match="cannot update it"):
        gradjit.jit(g)(x)
