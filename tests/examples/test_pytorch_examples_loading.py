"""time_sequence_prediction's train.py loads a numpy array that torch.save wrote: with
weights_only on by default both libraries refuse it, in PyTorch's words."""
import numpy as np
import pytest
import torch

import gradjit
from tests.torch_reference import same_error


class Custom:
    pass


@pytest.mark.parametrize("data", [np.sin(np.arange(6.0)).reshape(2, 3), [Custom()],
                                  {"c": print}], ids=["ndarray", "class", "builtin"])
def test_refused_globals_are_named_as_torch_names_them(tmp_path, data):
    path = tmp_path / "traindata.pt"
    torch.save(data, open(path, "wb"))
    same_error(lambda: gradjit.load(str(path)), lambda: torch.load(str(path)))


def _torch_checkpoint(tmp_path):
    """word_language_model's generate.py loads a whole model that main.py saved."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Embedding(5, 3), torch.nn.Dropout(0.1),
                                torch.nn.LSTM(3, 4))
    path = tmp_path / "model.pt"
    torch.save(model, path)
    return model, path


def _same_model(loaded, model):
    assert [type(m).__name__ for m in loaded.modules()] == \
        [type(m).__name__ for m in model.modules()]
    assert all(type(m).__module__.startswith("gradjit.") for m in loaded.modules())
    for (name, p), (want_name, q) in zip(loaded.named_parameters(), model.named_parameters()):
        assert name == want_name
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_a_torch_saved_model_loads_as_gradjit_modules_under_safe_globals(tmp_path):
    model, path = _torch_checkpoint(tmp_path)
    allowed = [gradjit.nn.modules.container.Sequential, gradjit.nn.modules.sparse.Embedding,
               gradjit.nn.modules.dropout.Dropout, gradjit.nn.modules.rnn.LSTM]
    same_error(lambda: gradjit.load(path), lambda: torch.load(path))
    with gradjit.serialization.safe_globals(allowed):
        _same_model(gradjit.load(path), model)


def test_a_torch_saved_model_loads_as_gradjit_modules_without_weights_only(tmp_path):
    model, path = _torch_checkpoint(tmp_path)
    _same_model(gradjit.load(path, weights_only=False), model)
