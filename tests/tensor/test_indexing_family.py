"""gather/scatter, index_*, masked_*, take/put/select/index_put and nonzero against PyTorch 2.13:
values, dtypes, grad_fn names and gradients eagerly, the same inside gradjit.grad with indices
computed at run time, and PyTorch's errors."""
import numpy as np
import pytest
import torch

import gradjit

X = np.arange(12.0).reshape(3, 4) - 4.5
ROWS = [[0, 0], [1, 3], [2, 1]]  # a repeated index in the first row
WIDE = [[0, 0, 1], [3, 3, 3], [2, 1, 2]]

CASES = {
    "gather": (lambda L, x: x.gather(1, L.tensor(ROWS)), [X]),
    "torch.gather": (lambda L, x: L.gather(x, 0, L.tensor([[0, 2, 1, 0]])), [X]),
    "scatter_add": (lambda L, x, s: x.scatter_add(1, L.tensor(ROWS), s), [X, np.ones((3, 2))]),
    "scatter-src": (lambda L, x, s: x.scatter(0, L.tensor([[2, 0, 1, 2]]), s),
                    [X, np.arange(4.0).reshape(1, 4)]),
    "scatter-value": (lambda L, x: x.scatter(0, L.tensor([[0, 2]]), 7.5), [X]),
    "scatter-add": (lambda L, x, s: L.scatter(x, 1, L.tensor(ROWS), s, reduce="add"),
                    [X, np.ones((3, 2))]),
    "index_select": (lambda L, x: x.index_select(1, L.tensor([3, 0, 3])), [X]),
    "torch.index_select": (lambda L, x: L.index_select(x, 0, L.tensor([2])), [X]),
    "index_add": (lambda L, x, s: x.index_add(0, L.tensor([0, 2, 0]), s, alpha=2),
                  [X, np.ones((3, 4))]),
    "index_copy": (lambda L, x, s: x.index_copy(1, L.tensor([3, 0]), s), [X, np.ones((3, 2))]),
    "index_fill": (lambda L, x: x.index_fill(1, L.tensor([0, 2]), -1.0), [X]),
    "masked_fill": (lambda L, x: x.masked_fill(x > 0.5, 0.5), [X]),
    "masked_fill-broadcast": (lambda L, x: x.masked_fill(L.tensor([True, False, True, False]),
                                                         -2), [X]),
    "masked_fill-tensor": (lambda L, x, v: L.masked_fill(x, x < 0, v), [X, np.array(3.0)]),
    "masked_select": (lambda L, x: x.masked_select(x > 0.5), [X]),
    "masked_select-broadcast": (lambda L, x: L.masked_select(x, L.tensor([True, False] * 2)),
                                [X]),
    "masked_scatter": (lambda L, x, s: x.masked_scatter(x > 0.5, s), [X, np.arange(20.0)]),
    "take": (lambda L, x: x.take(L.tensor([[0, -1], [5, 3]])), [X]),
    "put-accumulate": (lambda L, x, s: x.put(L.tensor([0, 0, 5]), s, accumulate=True),
                       [X, np.array([1.0, 2.0, 3.0])]),
    "put": (lambda L, x, s: x.put(L.tensor([0, 1, -1]), s), [X, np.array([1.0, 2.0, 3.0])]),
    "select": (lambda L, x: L.select(x, 1, -1), [X]),
    "index_put-accumulate": (lambda L, x, v: x.index_put(
        (L.tensor([0, 0, 2]), L.tensor([1, 1, 3])), v, accumulate=True),
        [X, np.array([1.0, 2.0, 3.0])]),
    "index_put": (lambda L, x, v: L.index_put(x, (L.tensor([0, 2]),), v), [X, np.array(9.0)]),
    "scatter_-in-place": (lambda L, x: x.clone().scatter_(1, L.tensor([[0], [1], [2]]), 0.0),
                          [X]),
    "masked_fill_-in-place": (lambda L, x: x.clone().masked_fill_(x < 0, 1.0), [X]),
    "index_add_-in-place": (lambda L, x: x.clone().index_add_(1, L.tensor([0, 0, 1, 1]), x),
                            [X]),
}
for _reduce in ("sum", "prod", "mean", "amax", "amin"):
    for _self in (True, False):
        CASES[f"scatter_reduce-{_reduce}-{_self}"] = (
            lambda L, x, s, r=_reduce, i=_self: x.scatter_reduce(1, L.tensor(WIDE), s, r,
                                                                include_self=i),
            [X, np.arange(9.0).reshape(3, 3) - 3])


NO_DERIVATIVE = {"scatter-add"}  # PyTorch has none for scatter's reduce with a tensor src


def _run(lib, fn, arrays, grad=True):
    tensors = [lib.tensor(a, requires_grad=grad) for a in arrays]
    out = fn(lib, *tensors)
    if not grad:
        return out, []
    (out * lib.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)))).sum() \
        .backward()
    return out, [t.grad for t in tensors]


@pytest.mark.parametrize("name", CASES)
def test_values_grad_fn_and_gradients_match_pytorch(name):
    fn, arrays = CASES[name]
    want, want_grads = _run(torch, fn, arrays, name not in NO_DERIVATIVE)
    got, got_grads = _run(gradjit, fn, arrays, name not in NO_DERIVATIVE)
    np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
    assert str(got.dtype) == str(want.dtype)
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__
    for g, w in zip(got_grads, want_grads):
        if name == "scatter-src":  # PyTorch's rule gathers: an overwritten src gets grad too
            continue
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12)


def test_scatter_keeps_the_last_write_and_torchs_gradient():
    grads = []
    for lib in (gradjit, torch):
        x = lib.zeros(1, 3, requires_grad=True)
        src = lib.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
        out = x.scatter(1, lib.tensor([[2, 0, 2]]), src)
        (out * lib.tensor([[1.0, 2.0, 4.0]])).sum().backward()
        grads.append((out.tolist(), src.grad.tolist(), x.grad.tolist()))
    # torch's backward gathers the gradient for every write, the overwritten one included
    assert grads[0] == grads[1] and grads[0][1] == [[4.0, 1.0, 4.0]]


@pytest.mark.parametrize("as_tuple", [False, True])
def test_nonzero_and_argwhere_match_pytorch(as_tuple):
    for data in (X > 0.5, np.array(3.0), np.zeros((2, 0)), np.array([[0, 1], [2, 0]])):
        want = torch.tensor(data).nonzero(as_tuple=as_tuple)
        got = gradjit.tensor(data).nonzero(as_tuple=as_tuple)
        for g, w in zip(got if as_tuple else [got], want if as_tuple else [want]):
            assert g.tolist() == w.tolist() and str(g.dtype) == str(w.dtype)
            assert tuple(g.shape) == tuple(w.shape)
    assert gradjit.argwhere(gradjit.tensor(X) > 0).tolist() == \
        torch.argwhere(torch.tensor(X) > 0).tolist()
    assert [t.tolist() for t in gradjit.where(gradjit.tensor(X) > 0)] == \
        [t.tolist() for t in torch.where(torch.tensor(X) > 0)]


def test_run_time_indices_inside_grad_match_pytorch():
    rows, wide = np.array(ROWS), np.array(WIDE)

    def loss(lib, x, rows, wide):
        return ((x.gather(1, rows) ** 2).sum() + (x.scatter_add(1, rows, x[:, :2]) ** 2).sum()
                + x.index_select(1, wide[1]).sum() + (x.masked_fill(x > 1, 0.0) ** 3).sum()
                + x.scatter_reduce(1, wide, x[:, :3], "mean", include_self=False).sum()
                + x.index_add(0, rows[:, 0], x * x).sum() + x.take(rows).exp().sum())

    got = gradjit.grad(lambda x, r, w: loss(gradjit, x, r, w))(
        gradjit.tensor(X), gradjit.tensor(rows), gradjit.tensor(wide))
    t = torch.tensor(X, requires_grad=True)
    loss(torch, t, torch.tensor(rows), torch.tensor(wide)).backward()
    np.testing.assert_allclose(got.numpy(), t.grad.numpy(), rtol=1e-12)


def test_a_run_time_index_out_of_range_raises_when_the_program_runs():
    g = gradjit.grad(lambda x, i: x.gather(1, i).sum())
    with pytest.raises(RuntimeError, match="^index 9 is out of bounds for dimension 1 with "
                                           "size 4$"):  # PyTorch's error, naming the index
        g(gradjit.tensor(X), gradjit.tensor([[0], [9], [1]]))


ERRORS = {
    "gather-range": lambda L: L.tensor(X).gather(1, L.tensor([[-1], [0], [0]])),
    "gather-dtype": lambda L: L.tensor(X).gather(1, L.tensor([[1.0], [0.0], [0.0]])),
    "gather-rank": lambda L: L.tensor(X).gather(1, L.tensor([1, 0])),
    "gather-size": lambda L: L.tensor(X).gather(1, L.tensor([[0]] * 4)),
    "scatter-range": lambda L: L.tensor(X).scatter(1, L.tensor([[0], [5], [0]]), 1.0),
    "scatter-src-size": lambda L: L.tensor(X).scatter_add(1, L.tensor([[0, 1]] * 3),
                                                          L.ones(3, 1, dtype=L.float64)),
    "scatter-reduce-name": lambda L: L.tensor(X).scatter(1, L.tensor([[0]] * 3), 1.0,
                                                         reduce="max"),
    "scatter_reduce-name": lambda L: L.tensor(X).scatter_reduce(1, L.tensor([[0]] * 3),
                                                                L.tensor(X), "maximum"),
    "index_select-vector": lambda L: L.tensor(X).index_select(1, L.tensor([[0]])),
    "index_add-range": lambda L: L.tensor(X).index_add(1, L.tensor([0, 9]),
                                                       L.ones(3, 2, dtype=L.float64)),
    "masked_fill-dtype": lambda L: L.tensor(X).masked_fill(L.tensor([1, 0, 1, 0]), 1.0),
    "masked_fill-value": lambda L: L.tensor(X).masked_fill(L.tensor(X) > 0, L.tensor([1.0, 2])),
    "masked_select-dtype": lambda L: L.tensor(X).masked_select(L.tensor([1, 0, 1, 0])),
    "masked_scatter-dtype": lambda L: L.tensor(X).masked_scatter(L.tensor([1, 0, 1, 0]),
                                                                 L.tensor(X)),
    "masked_scatter-short": lambda L: L.tensor(X).masked_scatter(L.tensor(X) > -9,
                                                                 L.ones(3, dtype=L.float64)),
    "take-range": lambda L: L.tensor(X).take(L.tensor([12])),
    "put-range": lambda L: L.tensor(X).put(L.tensor([12]), L.tensor([1.0], dtype=L.float64)),
    "put-count": lambda L: L.tensor(X).put(L.tensor([0, 1]), L.ones(3, dtype=L.float64)),
    "select-range": lambda L: L.tensor(X).select(0, 3),
    "index_add-count": lambda L: L.ones(2, 3).index_add(1, L.tensor([0]), L.ones(2, 2)),
    "index_copy-count": lambda L: L.ones(2, 3).index_copy(1, L.tensor([0]), L.ones(2, 2)),
    "index_add-shape": lambda L: L.ones(2, 3).index_add(1, L.tensor([0, 1]), L.ones(3, 2)),
    "index_add-0d": lambda L: L.tensor(1.0).index_add(0, L.tensor([0]), L.tensor([2.0])),
}


def test_a_zero_dimensional_tensor_gathers_as_one_element():
    for index in (0, [0]):
        got = gradjit.tensor(5.0).gather(0, gradjit.tensor(index))
        want = torch.tensor(5.0).gather(0, torch.tensor(index))
        assert got.tolist() == want.tolist() and tuple(got.shape) == tuple(want.shape)
    for L in (gradjit, torch):  # and scatters into its one element, index 0-d or 1-d
        got = L.tensor(5.0).scatter_add(0, L.tensor(0), L.tensor(2.0))
        assert got.tolist() == 7.0 and got.shape == ()
    got = gradjit.tensor(5.0).scatter_reduce(-1, gradjit.tensor([0]), gradjit.tensor([2.0]), "prod")
    assert got.tolist() == 10.0 and got.shape == ()


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_pytorch(name):
    with pytest.raises(Exception) as want:
        ERRORS[name](torch)
    with pytest.raises(type(want.value)):
        ERRORS[name](gradjit)


def test_data_dependent_shapes_inside_grad_follow_the_mask():
    """The mask's value decides the shape: a trace holds for the mask it saw (guarded)."""
    t = gradjit.tensor(X)
    want = (t.masked_select(t > 0).sum() + t.nonzero().sum() + gradjit.argwhere(t).sum()
            + t.masked_scatter(t > 0, t).sum())
    got = gradjit.jit(lambda x: x.masked_select(x > 0).sum() + x.nonzero().sum()
                      + gradjit.argwhere(x).sum() + x.masked_scatter(x > 0, x).sum())(t)
    assert gradjit.allclose(got, want)
    np.testing.assert_allclose(gradjit.grad(lambda x: x.masked_select(x > 0).sum())(t),
                               (X > 0).astype(X.dtype))


def test_data_dependent_shapes_of_stand_in_values_name_the_problem():
    def as_tensor(fn):
        return lambda a: fn(gradjit.as_tensor(a))
    with pytest.raises(TypeError, match="masked_select: the number of selected elements"):
        gradjit.eval_shape(as_tensor(lambda x: x.masked_select(x > 0)), X)
    with pytest.raises(TypeError, match="nonzero: the number of selected elements"):
        gradjit.eval_shape(as_tensor(lambda x: x.nonzero()), X)
    with pytest.raises(TypeError, match=r"^argwhere: the number of selected elements(.|\n)*"
                                        r"at .*test_indexing_family.py:\d+: .*argwhere"):
        gradjit.eval_shape(as_tensor(lambda x: gradjit.argwhere(x)), X)
    with pytest.raises(TypeError, match="masked_scatter: the number of selected elements"):
        gradjit.eval_shape(as_tensor(lambda x: x.masked_scatter(x > 0, x)), X)
    with pytest.raises(NotImplementedError, match="needs indices known when it runs"):
        gradjit.grad(lambda x, i: x.scatter_reduce(1, i, x, "amax").sum())(
            gradjit.tensor(X), gradjit.tensor(np.array(WIDE + [[0, 0, 0]])[:3]))
