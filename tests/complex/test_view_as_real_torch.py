"""view_as_real, .real and .imag as views of complex storage, against PyTorch: writes through
either side reach the other, their strides and offsets, and the graphs and gradients of
in-place writes through them."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import gradjit  # noqa: E402


def _writes(lib):
    z = lib.zeros(2, 3, dtype=lib.complex128)
    pairs = lib.view_as_real(z)
    pairs[0, 1, 1] = 5
    pairs[1, 2, 0] = 7
    seen = [z.tolist()]
    z.mul_(2)
    seen.append((pairs[1, 2].tolist(), pairs._version, z._version))
    pairs.add_(1)
    z.real[0].mul_(3)
    z.imag[1, 0] = -4
    seen.append((z.tolist(), z._version))
    return seen


def test_writes_through_view_as_real_reach_the_complex_tensor():
    assert _writes(gradjit) == _writes(torch)


LAYOUTS = {
    "whole": lambda lib, z: lib.view_as_real(z),
    "transposed": lambda lib, z: lib.view_as_real(z.t()),
    "sliced": lambda lib, z: lib.view_as_real(z[:, 1:]),
    "element": lambda lib, z: lib.view_as_real(z[1, 2]),
    "real": lambda lib, z: z.real,
    "imag": lambda lib, z: z.imag,
    "imag_sliced": lambda lib, z: z[:, ::2].imag,
}


@pytest.mark.parametrize("name", LAYOUTS)
def test_layout_of_parts_matches_torch(name):
    def layout(lib):
        z = lib.arange(6, dtype=lib.float64).reshape(2, 3) * (1 + 2j)
        out = LAYOUTS[name](lib, z)
        return (tuple(out.shape), out.stride(), out.storage_offset(), out.is_contiguous(),
                out._base is z, out.tolist())
    assert layout(gradjit) == layout(torch)


WRITES = {
    "real_part": lambda lib, z: z.real.mul_(2),
    "imag_part": lambda lib, z: z.imag.add_(1),
    "pairs": lambda lib, z: lib.view_as_real(z).mul_(3),
    "one_part_of_pairs": lambda lib, z: lib.view_as_real(z)[..., 1].mul_(3),
    "sliced_pairs": lambda lib, z: lib.view_as_real(z[1:]).mul_(-2),
}


@pytest.mark.parametrize("name", WRITES)
def test_in_place_write_through_parts_has_torch_graph_and_gradient(name):
    def run(lib):
        b = lib.tensor([1.5, 2.0, -0.5], dtype=lib.float64, requires_grad=True)
        c = lib.tensor([0.5, 3.0, 1.0], dtype=lib.float64, requires_grad=True)
        z = lib.complex(b, c)
        WRITES[name](lib, z)
        (z.abs() ** 2).sum().backward()
        node = z.grad_fn
        return (node.name(), [n.name() if n else None for n, _ in node.next_functions],
                b.grad.numpy(), c.grad.numpy())
    *graph, b_grad, c_grad = run(gradjit)
    *t_graph, t_b_grad, t_c_grad = run(torch)
    assert graph == t_graph
    np.testing.assert_allclose(b_grad, t_b_grad, rtol=1e-12)
    np.testing.assert_allclose(c_grad, t_c_grad, rtol=1e-12)


def test_pairs_read_after_the_complex_tensor_changes_have_torch_gradient():
    def run(lib):
        b = lib.tensor([1.5, 2.0, -0.5], dtype=lib.float64, requires_grad=True)
        c = lib.tensor([0.5, 3.0, 1.0], dtype=lib.float64, requires_grad=True)
        z = lib.complex(b, c)
        pairs = lib.view_as_real(z)
        z.mul_(2)
        (pairs ** 2).sum().backward()
        return pairs.detach().numpy(), b.grad.numpy(), c.grad.numpy()
    for ours, theirs in zip(run(gradjit), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
