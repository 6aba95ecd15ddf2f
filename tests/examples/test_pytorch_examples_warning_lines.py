"""mnist_rnn's Dropout2d on 2-D input and softmax without dim warn at the line that called
the functional, as PyTorch's (not inside gradjit's argument-converting wrapper)."""
import warnings

import pytest
import torch

import gradjit

_CALLS = {
    "dropout2d 2-D": lambda t: t.nn.functional.dropout2d(t.ones(2, 3)),
    "dropout2d 3-D": lambda t: t.nn.functional.dropout2d(t.ones(2, 3, 4)),
    "softmax": lambda t: t.nn.functional.softmax(t.ones(2, 3)),
    "log_softmax": lambda t: t.nn.functional.log_softmax(t.ones(2, 3)),
    "upsample": lambda t: t.nn.functional.upsample(t.ones(1, 1, 2, 2), scale_factor=2),
    "upsample_nearest": lambda t: t.nn.functional.upsample_nearest(t.ones(1, 1, 2, 2), None, 2),
    "upsample_bilinear": lambda t: t.nn.functional.upsample_bilinear(t.ones(1, 1, 2, 2), None,
                                                                     2),
    "gumbel_softmax eps": lambda t: t.nn.functional.gumbel_softmax(t.ones(2, 3), eps=1e-5),
}


@pytest.mark.parametrize("call", list(_CALLS))
def test_functional_warnings_name_the_calling_line_as_torchs(call):
    places = []
    for t in (torch, gradjit):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _CALLS[call](t)
        places.append([(str(w.message), w.filename, w.lineno) for w in caught])
    assert places[0] and places[1] == places[0]
