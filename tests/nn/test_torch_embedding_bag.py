"""torch.embedding_bag, the top-level form: its output with gradients and the kernel's
bookkeeping tensors (offset2bag, bag_size, max_indices) as PyTorch returns them."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import weighted_gradients

torch = pytest.importorskip("torch")

INDICES = [1, 2, 4, 5, 4, 3, 9, 9, 0, 7]


@pytest.mark.parametrize("mode, weighted", [(0, False), (0, True), (1, False), (2, False)])
@pytest.mark.parametrize("padding_idx", [None, 4, -1])
@pytest.mark.parametrize("include_last_offset", [False, True])
def test_matches_torch(mode, weighted, padding_idx, include_last_offset):
    offsets = [0, 4, 4, 6, 10] if include_last_offset else [0, 4, 4, 6]
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((10, 3)).astype(np.float32)
    per_sample = rng.uniform(0.5, 1.5, len(INDICES)).astype(np.float32)
    results = {}
    for lib in (gradjit, torch):
        def fn(t, w, lib=lib):
            out = t.embedding_bag(w, t.tensor(INDICES), t.tensor(offsets), False, mode, False,
                                  t.tensor(per_sample) if weighted else None,
                                  include_last_offset, padding_idx)
            results[lib] = out
            return out[0]
        results[lib, "grad"] = weighted_gradients(lib, fn, [weight], np.float32)
    (g_out, g_grad), (t_out, t_grad) = results[gradjit, "grad"], results[torch, "grad"]
    np.testing.assert_allclose(np.asarray(g_out.detach()), t_out.detach().numpy(), 1e-5, 1e-6)
    np.testing.assert_allclose(np.asarray(g_grad[0]), t_grad[0].numpy(), 1e-5, 1e-6)
    assert type(g_out.grad_fn).__name__ == type(t_out.grad_fn).__name__
    for g, t in zip(results[gradjit][1:], results[torch][1:]):
        assert g.dtype == gradjit.int64
        np.testing.assert_array_equal(np.asarray(g), t.numpy())
