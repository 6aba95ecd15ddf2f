"""Sparse tensors through pickle, deepcopy and torch.save/torch.load, both ways with torch."""
import copy
import pickle
import warnings

import pytest

import gradjit

torch = pytest.importorskip("torch")
warnings.filterwarnings("ignore", message="Sparse invariant checks")


def tensors(t):
    return {
        "uncoalesced": t.sparse_coo_tensor([[0, 1, 1, 0], [1, 0, 2, 1]], [1.0, 2, 3, 4],
                                           (2, 3), requires_grad=True),
        "hybrid": t.sparse_coo_tensor([[2, 0]], [[1.0, 2], [3, 4]], (3, 2)).coalesce(),
        "csr": t.sparse_csr_tensor([0, 1, 3], [1, 0, 2], [1.0, 2, 3], (2, 3)),
        "double": t.ones(2, 2, dtype=t.float64).to_sparse(),
    }


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda x: pickle.loads(pickle.dumps(x))],
                         ids=["deepcopy", "pickle"])
def test_copies_keep_layout_and_entries(copier):
    for name, t in tensors(gradjit).items():
        copied = copier(t)
        assert repr(copied) == repr(t) and type(copied) is type(t), name


@pytest.mark.parametrize("writer", ["gradjit", "torch"])
def test_save_and_load_across_libraries(writer, tmp_path):
    path = tmp_path / "sparse.pt"
    libraries = {"gradjit": gradjit, "torch": torch}
    reader = "torch" if writer == "gradjit" else "gradjit"
    libraries[writer].save(tensors(libraries[writer]), path)
    loaded = libraries[reader].load(path)
    expected = tensors(torch)
    for name in expected:
        assert repr(loaded[name]) == repr(expected[name].detach()), name
