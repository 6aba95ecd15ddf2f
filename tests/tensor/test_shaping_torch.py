"""PyTorch's shape and assembly operations on eager tensors against PyTorch 2.13 itself:
values, gradients, dtypes, shapes, grad_fn names and exception types."""
import warnings

import numpy as np
import pytest

import gradjit
from tests.tensor.test_vs_torch import assert_errors_match, compare, summary

torch = pytest.importorskip("torch")

rng = np.random.default_rng(11)
A = rng.standard_normal((3, 4)).astype(np.float32)
C = rng.standard_normal((2, 3, 4)).astype(np.float32)
V = rng.standard_normal(4).astype(np.float32)
D = rng.standard_normal((3, 4))
I = rng.integers(-5, 6, (3, 4))


def grads(t, fn, *arrays):
    """fn's outputs, then the gradient of their weighted sum with respect to each input."""
    xs = [t.tensor(a.copy(), requires_grad=True) for a in arrays]
    outs = fn(t, *xs)
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    flat = [o for group in outs for o in (group if isinstance(group, (tuple, list)) else [group])]
    total = sum((o * (1.0 + t.arange(o.numel()).reshape(o.shape))).sum() for o in flat)
    total.backward()
    return (*outs, *(x.grad for x in xs))


PROGRAMS = {
    "flip": lambda t: grads(t, lambda t, x: (x.flip(0), x.flip(0, 2), t.flip(x, (-1,)),
                                            x.flip(())), C),
    "fliplr_flipud": lambda t: grads(t, lambda t, x: (t.fliplr(x), t.flipud(x), x.flipud()), A),
    "roll": lambda t: grads(t, lambda t, x: (x.roll(1), x.roll(-2, 1), t.roll(x, (1, 2), (0, 2)),
                                            x.roll((5,), (-1,))), C),
    "rot90": lambda t: grads(t, lambda t, x: (x.rot90(), x.rot90(2, (1, 2)), t.rot90(x, -1),
                                             x.rot90(0), x.rot90(3, [2, 0])), C),
    "tile_repeat": lambda t: grads(t, lambda t, x: (x.tile(2), t.tile(x, (2, 1, 1)),
                                                   x.repeat(2, 3), x.repeat(1, 2, 1),
                                                   x.repeat((1, 1))), A),
    "repeat_interleave": lambda t: grads(t, lambda t, x: (
        x.repeat_interleave(2), x.repeat_interleave(3, dim=1),
        t.repeat_interleave(x, t.tensor([1, 0, 2]), dim=0), x.repeat_interleave(2, -1)), A),
    "tril_triu": lambda t: grads(t, lambda t, x: (x.tril(), x.tril(-1), t.triu(x, 1),
                                                 x.triu(-2)), C),
    "diag": lambda t: grads(t, lambda t, x, v: (v.diag(), t.diag(v, 1), v.diag(-2), x.diag(),
                                               x.diag(1), t.diag(x, -1)), A, V),
    "diagonal": lambda t: grads(t, lambda t, x: (x.diagonal(), x.diagonal(1, 1, 2),
                                                t.diagonal(x, -1, 2, 0), x.diagonal(0, -1, -2)),
                                C),
    "diag_embed": lambda t: grads(t, lambda t, x: (x.diag_embed(), x.diag_embed(1),
                                                  t.diag_embed(x, -1, 0, 2),
                                                  x.diag_embed(0, 2, 0)), A),
    "trace": lambda t: grads(t, lambda t, x: (x.trace(), t.trace(x) * 2), A),
    "trace_ints": lambda t: (t.tensor(I).trace(), t.tensor(I).tril(), t.tensor(I).flip(1)),
    "kron": lambda t: grads(t, lambda t, x, v: (t.kron(x, v), x.kron(x[:2, :2]), v.kron(v)),
                            A, V),
    "kron_promotes": lambda t: (t.kron(t.tensor(I), t.tensor(A)), t.kron(t.tensor(D),
                                                                        t.tensor(A))),
    "meshgrid": lambda t: grads(t, lambda t, v, w: (
        t.meshgrid(v, w, indexing="ij"), t.meshgrid([v, w[:2]], indexing="xy"),
        t.meshgrid(v, indexing="ij")), V, A[0]),
    "split": lambda t: grads(t, lambda t, x: (x.split(2), x.split(3, 1), x.split([1, 3], 1),
                                             t.split(x, [2, 1]), x.split(5, -1)), A),
    "chunk": lambda t: grads(t, lambda t, x: (x.chunk(2), x.chunk(3, 1), t.chunk(x, 5, 1)), A),
    "tensor_split": lambda t: grads(t, lambda t, x: (x.tensor_split(3, 1), x.tensor_split([1]),
                                                    t.tensor_split(x, (1, 3), dim=1),
                                                    x.tensor_split(t.tensor([2]), 1)), A),
    "hsplit_vsplit_dsplit": lambda t: grads(t, lambda t, x: (x.hsplit(3), x.vsplit([1]),
                                                            t.dsplit(x, 2), t.hsplit(x, [1])),
                                            C),
    "stacking": lambda t: grads(t, lambda t, x, v: (
        t.hstack([x, x]), t.hstack((v, v)), t.vstack([x, v]), t.row_stack([v, x]),
        t.dstack([x, x]), t.column_stack([v, x.T, v])), A, V),
    "movedim": lambda t: grads(t, lambda t, x: (x.movedim(0, 2), t.movedim(x, (0, 1), (2, 0)),
                                               t.moveaxis(x, -1, 0), x.moveaxis(1, 1)), C),
    "atleast": lambda t: grads(t, lambda t, x, v: (
        t.atleast_1d(x), t.atleast_2d(v), t.atleast_3d(v), t.atleast_3d(x),
        t.atleast_1d(x.sum()), t.atleast_2d(x.sum()), t.atleast_3d(x.sum()),
        t.atleast_2d(x, v), t.atleast_1d([v])), A, V),
    "take": lambda t: grads(t, lambda t, x: (x.take(t.tensor([0, 5, 11, 5])),
                                            t.take(x, t.tensor([[1, -1], [2, 3]]))), A),
    "narrow": lambda t: grads(t, lambda t, x: (x.narrow(1, 1, 2), t.narrow(x, 0, -2, 2),
                                              x.narrow(-1, 0, 0)), A),
    "unbind": lambda t: grads(t, lambda t, x: (x.unbind(), t.unbind(x, 2)), C),
    "float64": lambda t: grads(t, lambda t, x: (x.flip(1), x.roll(1, 0), x.tril(), x.trace(),
                                               x.split(1)), D),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_pytorch(name):
    program = PROGRAMS[name]
    compare(summary(program(gradjit)), summary(program(torch)), name)


def test_compiled_tensor_program_matches_eager():
    def program(x):
        return (x.flip(0).tril(1) + gradjit.kron(x, x[:1]).sum() + x.roll(1, 1) * x.repeat(1, 1),
                gradjit.hstack([x, x.diag_embed().sum(1)]), x.split(2), x.movedim(0, 1).take(
                    gradjit.tensor([0, 7])))
    x = gradjit.tensor(D)
    for got, want in zip(gradjit.jit(program)(x), program(x)):
        for g, w in zip(got if isinstance(got, tuple) else [got],
                        want if isinstance(want, tuple) else [want]):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12)


def test_meshgrid_without_indexing_uses_ij():
    # the warning comes once per process (test_torch_suite_creation checks it in a fresh one)
    for t in (gradjit, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a, b = t.meshgrid(t.tensor(V), t.tensor(A[0]))
        assert tuple(a.shape) == (4, 4)
        np.testing.assert_array_equal(a.numpy()[:, 0], V)


ERRORS = {
    "flip_repeated": lambda t: t.tensor(A).flip(0, 0),
    "flip_range": lambda t: t.tensor(A).flip(2),
    "fliplr_1d": lambda t: t.fliplr(t.tensor(V)),
    "flipud_0d": lambda t: t.flipud(t.tensor(1.0)),
    "roll_align": lambda t: t.tensor(A).roll((1, 2), 0),
    "roll_flat_align": lambda t: t.tensor(A).roll((1, 2)),
    "rot90_dims": lambda t: t.tensor(C).rot90(1, (0, 1, 2)),
    "rot90_same": lambda t: t.tensor(A).rot90(1, (1, 1)),
    "rot90_1d": lambda t: t.tensor(V).rot90(),
    "repeat_fewer": lambda t: t.tensor(A).repeat(2),
    "repeat_interleave_2d": lambda t: t.tensor(A).repeat_interleave(t.tensor([[1]])),
    "repeat_interleave_size": lambda t: t.tensor(A).repeat_interleave(2, 0, output_size=5),
    "tril_1d": lambda t: t.tensor(V).tril(),
    "triu_1d": lambda t: t.tensor(V).triu(),
    "diag_3d": lambda t: t.tensor(C).diag(),
    "diagonal_same": lambda t: t.tensor(A).diagonal(0, 1, 1),
    "diag_embed_same": lambda t: t.tensor(A).diag_embed(0, 1, 1),
    "trace_1d": lambda t: t.tensor(V).trace(),
    "split_sum": lambda t: t.tensor(A).split([1, 1]),
    "split_negative": lambda t: t.tensor(A).split(-1),
    "chunk_zero": lambda t: t.tensor(A).chunk(0),
    "tensor_split_zero": lambda t: t.tensor(A).tensor_split(0),
    "hsplit_indivisible": lambda t: t.tensor(A).hsplit(3),
    "vsplit_1d": lambda t: t.tensor(V).vsplit(2),
    "dsplit_2d": lambda t: t.tensor(A).dsplit(2),
    "hstack_empty": lambda t: t.hstack([]),
    "vstack_sizes": lambda t: t.vstack([t.tensor(A), t.tensor(C[0, :, :3])]),
    "meshgrid_2d": lambda t: t.meshgrid(t.tensor(A), indexing="ij"),
    "meshgrid_indexing": lambda t: t.meshgrid(t.tensor(V), indexing="yx"),
    "movedim_lengths": lambda t: t.tensor(A).movedim((0, 1), (0,)),
    "movedim_repeated": lambda t: t.tensor(A).movedim((0, 0), (0, 1)),
    "take_int32": lambda t: t.tensor(A).take(t.tensor([0], dtype=t.int32)),
    "take_range": lambda t: t.tensor(A).take(t.tensor([12])),
    "narrow_long": lambda t: t.tensor(A).narrow(1, 3, 2),
    "narrow_start": lambda t: t.tensor(A).narrow(1, 9, 0),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_pytorch(name):
    assert_errors_match(ERRORS[name])


@pytest.mark.parametrize("view", ["t", "mT", "permute", "slice"])
def test_contiguous_lays_a_view_out_in_row_major_order(view):
    def run(lib):
        x = lib.arange(24.0).reshape(2, 3, 4).requires_grad_()
        v = {"t": lambda: x[0].t(), "mT": lambda: x.mT, "permute": lambda: x.permute(2, 0, 1),
             "slice": lambda: x[:, ::2]}[view]()
        y = v.contiguous()
        (y * lib.arange(float(y.numel())).reshape(y.shape)).sum().backward()
        return y.is_contiguous(), tuple(y.stride()), y.detach().numpy(), x.grad.numpy()
    ours, theirs = run(gradjit), run(torch)
    assert ours[:2] == theirs[:2]
    np.testing.assert_array_equal(ours[2], theirs[2])
    np.testing.assert_array_equal(ours[3], theirs[3])
