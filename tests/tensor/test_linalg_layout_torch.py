"""The memory layout of linear-algebra results against PyTorch's: strides, storage offset,
is_contiguous, and what follows from them (a reshape that views or copies, contiguous())."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import gradjit  # noqa: E402

CASES = {
    "inv": lambda L, t, a: L.linalg.inv(a["A"]),
    "inv_2d": lambda L, t, a: L.linalg.inv(a["A"][0]),
    "inv_transposed": lambda L, t, a: L.linalg.inv(a["A"].mT),
    "inv_1x1": lambda L, t, a: L.linalg.inv(a["A"][:, :1, :1]),
    "inv_empty": lambda L, t, a: L.linalg.inv(a["A"][:0]),
    "inverse": lambda L, t, a: L.inverse(a["A"]),
    "inv_ex": lambda L, t, a: L.linalg.inv_ex(a["A"]),
    "matrix_power_-1": lambda L, t, a: L.linalg.matrix_power(a["A"], -1),
    "matrix_power_-2": lambda L, t, a: L.linalg.matrix_power(a["A"], -2),
    "tensorinv": lambda L, t, a: L.linalg.tensorinv(a["A"][0].reshape(3, 3), ind=1),
    "pinv": lambda L, t, a: L.linalg.pinv(a["R"]),
    "qr": lambda L, t, a: L.linalg.qr(a["R"]),
    "qr_wide": lambda L, t, a: L.linalg.qr(a["W"]),
    "qr_complete": lambda L, t, a: L.linalg.qr(a["R"], mode="complete"),
    "qr_r": lambda L, t, a: L.linalg.qr(a["R"], mode="r"),
    "qr_column": lambda L, t, a: L.linalg.qr(a["R"][..., :1]),
    "torch_qr": lambda L, t, a: L.qr(a["R"]),
    "svd": lambda L, t, a: L.linalg.svd(a["R"]),
    "svd_reduced_wide": lambda L, t, a: L.linalg.svd(a["W"], full_matrices=False),
    "torch_svd": lambda L, t, a: L.svd(a["R"]),
    "svdvals": lambda L, t, a: L.linalg.svdvals(a["R"]),
    "eigh": lambda L, t, a: L.linalg.eigh(a["S"]),
    "eigvalsh": lambda L, t, a: L.linalg.eigvalsh(a["S"]),
    "eig": lambda L, t, a: L.linalg.eig(a["A"]),
    "eigvals": lambda L, t, a: L.linalg.eigvals(a["A"]),
    "cholesky": lambda L, t, a: L.linalg.cholesky(a["S"]),
    "cholesky_upper": lambda L, t, a: L.linalg.cholesky(a["S"], upper=True),
    "cholesky_ex": lambda L, t, a: L.linalg.cholesky_ex(a["S"]),
    "torch_cholesky": lambda L, t, a: L.cholesky(a["S"]),
    "cholesky_solve": lambda L, t, a: L.cholesky_solve(a["B"], L.linalg.cholesky(a["S"])),
    "cholesky_inverse": lambda L, t, a: L.cholesky_inverse(L.linalg.cholesky(a["S"])),
    "lu": lambda L, t, a: L.linalg.lu(a["R"]),
    "lu_factor": lambda L, t, a: L.linalg.lu_factor(a["A"]),
    "lu_factor_wide": lambda L, t, a: L.linalg.lu_factor_ex(a["W"]),
    "lu_solve": lambda L, t, a: L.linalg.lu_solve(*L.linalg.lu_factor(a["A"]), a["B"]),
    "lu_solve_right": lambda L, t, a: L.linalg.lu_solve(*L.linalg.lu_factor(a["A"]), a["B"].mT,
                                                        left=False),
    "lu_unpack": lambda L, t, a: L.lu_unpack(*L.linalg.lu_factor(a["A"])),
    "torch_lu": lambda L, t, a: L.lu(a["A"]),
    "solve": lambda L, t, a: L.linalg.solve(a["A"], a["B"]),
    "solve_vectors": lambda L, t, a: L.linalg.solve(a["A"], a["B"][..., 0]),
    "solve_broadcast": lambda L, t, a: L.linalg.solve(a["A"][0], a["B"]),
    "solve_right": lambda L, t, a: L.linalg.solve(a["A"], a["B"].mT, left=False),
    "solve_ex": lambda L, t, a: L.linalg.solve_ex(a["A"], a["B"]),
    "solve_triangular": lambda L, t, a: L.linalg.solve_triangular(a["A"].triu(), a["B"],
                                                                  upper=True),
    "solve_triangular_right": lambda L, t, a: L.linalg.solve_triangular(
        a["A"].triu(), a["B"].mT, upper=True, left=False),
    "triangular_solve": lambda L, t, a: L.triangular_solve(a["B"], a["A"].triu()),
    "lstsq_tall": lambda L, t, a: L.linalg.lstsq(a["R"], a["C"]),
    "lstsq_wide": lambda L, t, a: L.linalg.lstsq(a["W"], a["B"]),
    "lstsq_vectors": lambda L, t, a: L.linalg.lstsq(a["R"], a["C"][..., 0]),
    "lstsq_vector": lambda L, t, a: L.linalg.lstsq(a["R"][0], a["C"][0, :, 0]),
    "slogdet": lambda L, t, a: L.linalg.slogdet(a["A"]),
    "geqrf": lambda L, t, a: L.geqrf(a["R"]),
    "householder_product": lambda L, t, a: L.linalg.householder_product(*L.geqrf(a["R"])),
    "ormqr": lambda L, t, a: L.ormqr(*L.geqrf(a["R"]), a["C"]),
    "ldl_factor": lambda L, t, a: L.linalg.ldl_factor(a["S"]),
    "ldl_solve": lambda L, t, a: L.linalg.ldl_solve(*L.linalg.ldl_factor(a["S"]), a["B"]),
    "svd_lowrank": lambda L, t, a: L.svd_lowrank(a["R"][0], q=2),
    "eig_complex": lambda L, t, a: L.linalg.eig(a["A"].to(L.complex128)),
    "qr_float32": lambda L, t, a: L.linalg.qr(a["R"].float()),
}


def _inputs(lib):
    rng = np.random.default_rng(0)
    arrays = {"A": (2, 3, 3), "R": (2, 4, 3), "W": (2, 3, 4), "B": (2, 3, 2), "C": (2, 4, 2)}
    out = {k: lib.tensor(rng.standard_normal(shape)) for k, shape in arrays.items()}
    out["S"] = out["A"] @ out["A"].mT + 3 * lib.eye(3, dtype=lib.float64)
    return out


def _tensors(value):
    return [v for item in value for v in _tensors(item)] if isinstance(value, tuple) else [value]


def _layouts(lib, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecated torch.qr, torch.lu, ...
        outs = _tensors(CASES[name](lib, None, _inputs(lib)))
    return [(tuple(t.shape), t.stride(), t.storage_offset(), t.is_contiguous(),
             t.untyped_storage().nbytes() // t.element_size() if t.numel() else 0)
            for t in outs]


@pytest.mark.parametrize("name", CASES)
def test_result_layout_matches_torch(name):
    assert _layouts(gradjit, name) == _layouts(torch, name)


def _reshaped(lib):
    """A reshape of a column-major inverse (an alias of it), of its transpose (a view), a
    flattening (a copy), and contiguous() of both."""
    A = lib.tensor(np.arange(18.0).reshape(2, 3, 3) ** 2 % 7 + 3 * np.eye(3),
                   requires_grad=True)
    inverse = lib.linalg.inv(A)
    outs = [inverse.reshape(6, 3), inverse.mT.reshape(6, 3), inverse.reshape(18),
            inverse.contiguous(), inverse.mT.contiguous()]
    names = [out.grad_fn.name() for out in outs]
    shares = [out.data_ptr() == inverse.data_ptr() for out in outs]
    return names, shares, [o.is_contiguous() for o in outs]


def test_reshape_and_contiguous_of_results_match_torch():
    assert _reshaped(gradjit) == _reshaped(torch)


def test_view_of_column_major_result_is_refused_as_torch_refuses():
    for lib in (torch, gradjit):
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            lib.linalg.inv(lib.eye(3, dtype=lib.float64) * 2).view(9)


def test_in_place_write_into_a_result_records_on_it_as_torch_does():
    """Q is PyTorch's tensor of its own, not a view: an in-place write records on Q alone,
    and backward through the stale factor raises."""
    graphs = []
    for lib in (torch, gradjit):
        A = lib.tensor(np.arange(12.0).reshape(4, 3) ** 1.5, requires_grad=True)
        Q, R = lib.linalg.qr(A)
        Q.mul_(2)
        node = Q.grad_fn
        graphs.append((node.name(), [n.name() if n else None for n, _ in node.next_functions],
                       Q._version))
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            (Q.sum() + R.sum()).backward()
    assert graphs[0] == graphs[1]


def test_lstsq_of_vectors_matches_torch():
    """A batch of right-hand-side vectors is solved as columns; other's rank must be input's
    or one less."""
    rng = np.random.default_rng(2)
    A, b = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 4))
    for driver in ("gelsy", "gelsd"):
        got, want = (lib.linalg.lstsq(lib.tensor(A), lib.tensor(b), driver=driver)
                     for lib in (gradjit, torch))
        np.testing.assert_allclose(got.solution.numpy(), want.solution.numpy(), rtol=1e-10)
        np.testing.assert_allclose(got.residuals.numpy(), want.residuals.numpy(), rtol=1e-10)
    for shapes in (((4, 3), (2, 4, 2)), ((2, 2, 4, 3), (4,))):
        for lib in (gradjit, torch):
            with pytest.raises(RuntimeError, match=r"input.dim\(\) must be greater or equal"):
                lib.linalg.lstsq(*(lib.tensor(rng.standard_normal(s)) for s in shapes))


@pytest.mark.parametrize("offset", [-2, -1, 0, 1, 2])
@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 4)])
def test_diagonal_of_a_column_major_result_is_a_view_as_torch_makes(shape, offset):
    """A write through the diagonal of a LAPACK result (geqrf's A, as orthogonal's
    right_inverse writes its signs) reaches the result, with torch's strides and offset."""
    rng = np.random.default_rng(0)
    data = rng.standard_normal(shape)
    outs = []
    for lib in (torch, gradjit):
        A, _ = lib.geqrf(lib.tensor(data))
        diagonal = A.diagonal(offset, -2, -1)
        layout = (A.stride(), diagonal.stride(), diagonal.storage_offset())
        diagonal.copy_(lib.full(diagonal.shape, 7.0, dtype=lib.float64))
        outs.append((layout, np.asarray(A)))
    assert outs[0][0] == outs[1][0]
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-12, atol=1e-12)
