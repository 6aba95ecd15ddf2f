"""gcn/main.py builds its adjacency with torch.sparse_coo_tensor and PyTorch warns, once a
process, that the invariant checks are implicitly off; an explicit choice silences it."""
import os
import subprocess
import sys

import pytest

import gradjit

_CASES = {
    "coo twice": "t.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,)); "
                 "t.sparse_coo_tensor([[0]], [1.0], (3,))",
    "coo opted out": "t.sparse_coo_tensor([[0]], [1.0], (3,), check_invariants=False)",
    "disabled first": "t.sparse.check_sparse_tensor_invariants.disable(); "
                      "t.sparse_coo_tensor([[0]], [1.0], (3,))",
    "enabled first": "t.sparse.check_sparse_tensor_invariants.enable(); "
                     "t.sparse_coo_tensor([[0]], [1.0], (3,))",
    "from strided": "t.eye(2).to_sparse()",
}


@pytest.mark.parametrize("case", list(_CASES))
def test_implicit_invariant_checks_warn_once_as_torchs(case):
    root = os.path.dirname(os.path.dirname(os.path.abspath(gradjit.__file__)))
    runs = [subprocess.run([sys.executable, "-W", "always", "-c",
                            f"import {lib} as t\n" + _CASES[case]], capture_output=True,
                           text=True, timeout=120, env=dict(os.environ, PYTHONPATH=root))
            for lib in ("torch", "gradjit")]
    assert runs[1].returncode == 0, runs[1].stderr
    assert runs[1].stderr == runs[0].stderr
