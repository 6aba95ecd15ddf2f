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
