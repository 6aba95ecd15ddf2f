"""super_resolution's checkpoint: torch.save(model) of a whole module, loaded back under
torch.serialization.safe_globals naming the layers by their torch.nn.modules file."""
import pickle

import numpy as np
import pytest
import torch

import gradjit


def _layers(t):
    m = t.nn.modules
    return [m.container.Sequential, m.conv.Conv2d, m.activation.ReLU, m.pixelshuffle.PixelShuffle,
            m.batchnorm.BatchNorm2d, m.dropout.Dropout2d, m.upsampling.Upsample,
            m.instancenorm.InstanceNorm2d, m.flatten.Flatten, m.sparse.Embedding,
            m.distance.CosineSimilarity, m.channelshuffle.ChannelShuffle]


def test_torch_module_files_name_the_same_layers():
    assert [c.__name__ for c in _layers(gradjit)] == [c.__name__ for c in _layers(torch)]
    import gradjit.nn.modules.pixelshuffle as pixelshuffle
    assert pixelshuffle.PixelShuffle is gradjit.nn.PixelShuffle


@pytest.mark.parametrize("t", [gradjit, torch])
def test_whole_model_loads_under_safe_globals(t, tmp_path):
    t.manual_seed(0)
    model = t.nn.Sequential(t.nn.Conv2d(1, 4, 3, padding=1), t.nn.ReLU(), t.nn.PixelShuffle(2))
    path = tmp_path / "model.pth"
    t.save(model, path)
    before = t.serialization.get_safe_globals()  # other tests may have allowed layers
    t.serialization.clear_safe_globals()
    try:
        with pytest.raises(pickle.UnpicklingError):
            t.load(path)
        with t.serialization.safe_globals(_layers(t)):
            loaded = t.load(path)
        assert t.serialization.get_safe_globals() == []
    finally:
        t.serialization.add_safe_globals(before)
    x = t.rand(1, 1, 3, 3)
    np.testing.assert_array_equal(loaded(x).detach().numpy(), model(x).detach().numpy())
    assert repr(loaded) == repr(model)


def test_transformer_layers_by_their_torch_files():
    # word_language_model's allowlist for its Transformer checkpoint
    names = ["activation.MultiheadAttention", "linear.NonDynamicallyQuantizableLinear",
             "pooling.AdaptiveAvgPool2d", "conv.LazyConv2d", "container.ParameterList"]
    for name in names:
        file, layer = name.split(".")
        got = getattr(getattr(gradjit.nn.modules, file), layer)
        assert got.__name__ == getattr(getattr(torch.nn.modules, file), layer).__name__
