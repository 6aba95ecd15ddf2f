"""numpy's advanced indexing with index arrays known only at run time (several arrays,
broadcast together, among slices, new axes and an ellipsis): traced values against numpy,
their gradients against numpy's scatter of the cotangent, eager Tensors against PyTorch."""
import numpy as np
import pytest
import torch

import gradjit
from gradjit import ops as G

rng = np.random.default_rng(5)
X = rng.standard_normal((2, 3, 4, 5))
I2 = np.array([1, 0])

# (index builder from the run-time arrays (i, j), i, j)
CASES = {
    "adjacent-after-slice": (lambda i, j: (slice(None), i, j), np.array([[0], [2]]),
                             np.array([1, -1, 3])),
    "separated": (lambda i, j: (i, slice(None), j), I2, np.array([[1], [3]])),
    "after-ellipsis": (lambda i, j: (Ellipsis, i, j), np.array([1, 0, 2]), np.array([1, 4, -1])),
    "integer-and-new-axis": (lambda i, j: (1, i, None, j), np.array([1, 0, 2]),
                             np.array([1, 3, -1])),
    "reversed-slice-between": (lambda i, j: (i, slice(1, 3), slice(None, None, -1), j), I2,
                               np.array([[1], [3]], np.int32)),
    "broadcast-leading": (lambda i, j: (i, j), I2, np.array([[1], [2]])),
    "known-ramp-and-integer": (lambda i, j: (np.arange(2), i, 2, j), I2, np.array([4, 0])),
    "new-axis-first": (lambda i, j: (None, i, Ellipsis, j), I2, np.array([4, 0])),
    "known-mask": (lambda i, j: (np.array([True, False]), i, slice(None), j), np.array([2]),
                   np.array([-1])),
}


def _positions_gradient(index, x):
    """The gradient of sum(sin(x[index])): cos of each taken element, added where it came
    from (numpy's scatter, independent of gradjit)."""
    taken = np.arange(x.size).reshape(x.shape)[index].reshape(-1)
    out = np.zeros(x.size)
    np.add.at(out, taken, np.cos(x.reshape(-1)[taken]))
    return out.reshape(x.shape)


@pytest.mark.parametrize("name", sorted(CASES))
def test_traced_index_arrays_index_and_differentiate_like_numpy(name):
    build, i, j = CASES[name]
    f = gradjit.jit(lambda x, i, j: x[build(i, j)])
    got = f(X, i, j)
    np.testing.assert_array_equal(got, X[build(i, j)])
    grad = gradjit.grad(lambda x, i, j: np.sum(np.sin(x[build(i, j)])))(X, i, j)
    np.testing.assert_allclose(grad, _positions_gradient(build(i, j), X), rtol=1e-12)


def _tutorial_loss(logits, labels):
    return np.mean(G.logsumexp(logits, 1) - logits[np.arange(logits.shape[0]), labels])


def test_tutorial_cross_entropy_matches_pytorch_on_cpu_and_gpu_code():
    logits = rng.standard_normal((6, 5)).astype(np.float32)
    labels = np.array([0, 4, 2, 2, -1, 3])
    t = torch.tensor(logits, requires_grad=True)
    loss = torch.nn.functional.cross_entropy(t, torch.tensor(labels % 5))
    loss.backward()
    for backend in ("cpu", "cuda-emulator"):
        value, grad = gradjit.value_and_grad(_tutorial_loss, backend=backend)(logits, labels)
        np.testing.assert_allclose(value, loss.item(), rtol=1e-6)
        np.testing.assert_allclose(grad, t.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_the_gradient_of_a_gather_is_added_in_the_loop_of_the_other_terms():
    """No zero fill, no extra pass and no scatter: the -1/B of each row's label is selected by
    its column in the loop that stores the softmax term, the gradient's one full-size store."""
    lowered = gradjit.lower(gradjit.grad(_tutorial_loss), np.zeros((64, 10), np.float32),
                            np.zeros(64, np.int64))
    program = lowered.fused.program
    grad = next(b.id for b in program.buffers if b.kind == "result" and b.size == 640)
    writes = [(k, o) for k in program.kernels for o in k.outputs if o.access.buffer == grad]
    assert not [o for k in program.kernels for o in k.outputs if o.kind == "scatter_add"]
    assert len(writes) == 1 and writes[0][1].kind == "store"
    assert any(i.op == "eq" for i in writes[0][0].body)


def test_out_of_range_labels_raise_before_native_code_runs():
    f = gradjit.grad(_tutorial_loss)
    logits = np.zeros((3, 4))
    f(logits, np.array([0, 1, 2]))
    with pytest.raises(IndexError, match="^index 4 is out of bounds for axis 1 with size 4$"):
        f(logits, np.array([0, 4, 2]))  # numpy's words, naming the label, its axis and size
    with pytest.raises(IndexError, match="^index -5 is out of bounds for axis 1 with size 4$"):
        f(logits, np.array([0, -5, 2]))
    assert f.cache_info().traces == 1


@pytest.mark.parametrize("name", ["adjacent-after-slice", "separated", "after-ellipsis",
                                  "integer-and-new-axis", "broadcast-leading"])
def test_tensors_index_with_index_tensors_like_pytorch(name):
    build, i, j = CASES[name]
    ours = gradjit.tensor(X, requires_grad=True)
    theirs = torch.tensor(X, requires_grad=True)
    got = ours[build(gradjit.tensor(i), gradjit.tensor(j))]
    want = theirs[build(torch.tensor(i), torch.tensor(j))]
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    (got.sin().sum()).backward()
    want.sin().sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)


def test_a_ramp_index_is_an_iota_that_needs_no_check():
    """np.arange(B) is traced as an iota: no constant of B elements, no run-time check (its
    range is known), only the labels are checked."""
    from gradjit.codegen import compile_function
    from gradjit.runtime.steps import CheckIndex
    fn = gradjit.lower(gradjit.grad(_tutorial_loss), np.zeros((64, 10), np.float32),
                       np.zeros(64, np.int64)).optimized
    assert "iota" in str(fn) and "constant" not in str(fn)
    checks = [s for s in compile_function(fn, cache_dir=False).steps
              if isinstance(s, CheckIndex)]
    assert [c.bound for c in checks] == [10]
