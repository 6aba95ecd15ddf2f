"""nn.init's names without the trailing underscore: PyTorch's FutureWarning, then the same
seeded values as the underscore forms (and as PyTorch's)."""
import warnings

import numpy as np
import pytest
import torch

import gradjit

CASES = [("uniform", (-0.5, 0.5)), ("normal", (0.0, 2.0)), ("constant", (0.25,)),
         ("xavier_uniform", ()), ("xavier_normal", ()), ("kaiming_uniform", ()),
         ("kaiming_normal", ()), ("orthogonal", ()), ("sparse", (0.5,)), ("dirac", ()),
         ("eye", ())]


@pytest.mark.parametrize("name,args", CASES)
def test_deprecated_init_warns_and_draws_as_torch(name, args):
    shape = (4, 3, 3) if name == "dirac" else (5, 4)
    values = []
    for t in (torch, gradjit):
        t.manual_seed(7)
        w = t.empty(shape)
        with pytest.warns(FutureWarning) as record:
            out = getattr(t.nn.init, name)(w, *args)
        assert str(record[0].message) == (f"`nn.init.{name}` is now deprecated in favor of "
                                          f"`nn.init.{name}_`.")
        assert out is w
        values.append(w.numpy().copy())
    np.testing.assert_allclose(values[1], values[0], rtol=1e-5, atol=1e-6)


def test_underscore_forms_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gradjit.nn.init.orthogonal_(gradjit.empty(3, 3))
