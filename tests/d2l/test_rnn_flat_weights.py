"""RNN modules expose PyTorch's _flat_weights_names/_flat_weights, as d2l's seq2seq
initialization reads them."""
import pytest
import torch

import gradjit


@pytest.mark.parametrize("kind,kwargs", [("GRU", {"num_layers": 2}),
                                         ("LSTM", {"proj_size": 2, "bidirectional": True}),
                                         ("RNN", {"bias": False})])
def test_flat_weights_names_and_shapes(kind, kwargs):
    got = []
    for lib in (torch, gradjit):
        m = getattr(lib.nn, kind)(3, 4, **kwargs)
        got.append((m._flat_weights_names, [tuple(w.shape) for w in m._flat_weights],
                    all(w is m._parameters[n] for n, w in zip(m._flat_weights_names,
                                                            m._flat_weights))))
    assert got[0] == got[1]


def test_xavier_init_through_flat_names_matches_torch():
    out = []
    for lib in (torch, gradjit):
        lib.manual_seed(0)
        m = lib.nn.GRU(3, 4)
        for name in m._flat_weights_names:
            if "weight" in name:
                lib.nn.init.xavier_uniform_(m._parameters[name])
        out.append(m.weight_hh_l0.detach().numpy())
    assert out[1] == pytest.approx(out[0], abs=1e-6)
