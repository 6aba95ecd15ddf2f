"""F.pad's reflect, replicate and circular modes against torch with the negative amounts
PyTorch's operator database (op_db) samples: values, gradients and errors."""
import numpy as np
import pytest

import gradjit
from tests.torch_reference import same_error, weighted_gradients

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("amounts", [(-1, 1, -2, 1), (-4, 5, 0, 0), (0, 0, 1, -2), (1, -1, 0, 0),
                                     (2, -2, -1, 0), (-2, 2, 3, -1)])
def test_negative_amounts_crop(mode, amounts):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 6))
    if mode == "reflect" and max(amounts) >= 4:
        pytest.skip("reflect pads less than the length")
    kept = [6 - max(-amounts[0], 0) - max(-amounts[1], 0),
            4 - max(-amounts[2], 0) - max(-amounts[3], 0)]
    if mode == "circular" and max(max(amounts[:2]) - kept[0], max(amounts[2:]) - kept[1]) > 0:
        pytest.skip("torch's circular copies overlap past what the crop leaves")
    (t_out, t_grads), (g_out, g_grads) = (
        weighted_gradients(lib, lambda t, x: t.nn.functional.pad(x, amounts, mode), [x],
                           np.float64) for lib in (torch, gradjit))
    np.testing.assert_array_equal(g_out.detach().numpy(), t_out.detach().numpy())
    np.testing.assert_allclose(g_grads[0].numpy(), t_grads[0].numpy())


def test_circular_padding_past_what_the_crop_leaves_is_refused():
    x = np.arange(4.0).reshape(1, 1, 4)
    same_error(lambda: gradjit.nn.functional.pad(gradjit.tensor(x), (-3, 3), "circular"),
               lambda: torch.nn.functional.pad(torch.tensor(x), (-3, 3), "circular"))
