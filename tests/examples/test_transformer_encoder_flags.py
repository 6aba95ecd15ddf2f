"""word_language_model's TransformerModel builds a TransformerEncoder that cannot take torch's
nested-tensor path; gradjit keeps torch's flags and warning about it."""
import warnings

import pytest
import torch

import gradjit


def _built(t, **options):
    layer_options = dict(d_model=8, nhead=2)
    layer_options.update(options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        encoder = t.nn.TransformerEncoder(t.nn.TransformerEncoderLayer(**layer_options), 2)
    return (encoder.use_nested_tensor, encoder.layers[0].activation_relu_or_gelu,
            [str(w.message) for w in caught])


@pytest.mark.parametrize("options", [{}, dict(batch_first=True),
                                     dict(batch_first=True, norm_first=True),
                                     dict(batch_first=True, nhead=1),
                                     dict(batch_first=True, activation="gelu"),
                                     dict(batch_first=True, activation=lambda x: x)])
def test_nested_tensor_flag_and_warning_as_torch(options):
    assert _built(gradjit, **options) == _built(torch, **options)
