"""Bit-level agreements with torch that pytorch/examples programs rely on to print torch's
numbers: seeded initializations."""
import numpy as np
import pytest
import torch

import gradjit


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fill", [("uniform_", (-0.14, 0.14)), ("normal_", (0.3, 0.02))])
def test_init_fills_round_as_torch(dtype, fill):
    name, args = fill
    got, want = [getattr(t.nn.init, name)(t.empty(7, 3, dtype=getattr(t, dtype)), *args)
                 for t in (gradjit, torch) if t.manual_seed(3) is not None]
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_recurrent_cell_weights_equal_torchs():
    # time_sequence_prediction's LSTMCell(1, 51): U(-1/sqrt(51), ..) drawn as torch draws it
    cells = [t.nn.LSTMCell(1, 51) for t in (gradjit, torch) if t.manual_seed(0) is not None]
    for g, w in zip(cells[0].parameters(), cells[1].parameters()):
        np.testing.assert_array_equal(g.detach().numpy(), w.detach().numpy())
