"""The remaining nn/nn.functional names against PyTorch: conv_tbc, native_channel_shuffle, the
deprecated upsample_nearest/upsample_bilinear, nn.Container and nn.NLLLoss2d, and a check that
nothing else CPU-meaningful in torch.nn or torch.nn.functional is missing."""
import warnings

import numpy as np
import pytest

import gradjit
from tests.nn.helpers import check, close, randn

torch = pytest.importorskip("torch")

# names gradjit leaves out on purpose: quantization, data parallelism, GPU-only matmuls,
# typing and TorchScript helpers, and PyTorch's internal modules
LEFT_OUT = {
    "nn": {"DataParallel", "SyncBatchNorm", "intrinsic", "parallel", "qat", "quantizable",
           "quantized", "common_types", "factory_kwargs", "grad", "LinearCrossEntropyLoss",
           "LinearCrossEntropyOptions"},
    "nn.functional": {"BroadcastingList1", "BroadcastingList2", "BroadcastingList3", "Callable",
                      "DType", "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES",
                      "Optional", "ScalingType", "SwizzleType", "TYPE_CHECKING", "Tensor",
                      "assert_int_or_pair", "boolean_dispatch", "dataclasses", "grad",
                      "grouped_mm", "handle_torch_function", "has_torch_function",
                      "has_torch_function_unary", "has_torch_function_variadic", "importlib",
                      "linear_cross_entropy", "math", "np", "reproducibility_notes",
                      "scaled_grouped_mm", "scaled_mm", "sparse_support_notes", "tf32_notes",
                      "torch", "warnings"},
}


@pytest.mark.parametrize("name", sorted(LEFT_OUT))
def test_no_other_name_is_missing(name):
    t = torch.nn if name == "nn" else torch.nn.functional
    g = gradjit.nn if name == "nn" else gradjit.nn.functional
    missing = {n for n in dir(t) if not n.startswith("_") and not hasattr(g, n)}
    assert missing <= LEFT_OUT[name], missing - LEFT_OUT[name]


@pytest.mark.parametrize("pad", [0, 2])
def test_conv_tbc(pad):
    x, w, b = randn(6, 2, 3), randn(3, 3, 4, seed=1), randn(4, seed=2)
    for lib in ("nn.functional", ""):
        def call(t, lib=lib):
            space = t.nn.functional if lib else t
            return lambda *a: space.conv_tbc(*a, pad)
        g_out, t_out = check(call(gradjit), call(torch), x, w, b, rtol=1e-5, atol=1e-5)
        assert type(g_out.grad_fn).__name__ == type(t_out.grad_fn).__name__


def test_native_channel_shuffle():
    x = randn(2, 6, 3, 3)
    close(gradjit.nn.functional.native_channel_shuffle(gradjit.tensor(x), 3),
          torch.nn.functional.native_channel_shuffle(torch.tensor(x), 3))


def _recorded(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("name, kwargs", [("upsample_nearest", dict(scale_factor=2)),
                                          ("upsample_bilinear", dict(size=(5, 7)))])
def test_deprecated_upsampling(name, kwargs):
    x = randn(1, 2, 3, 4)
    (g, g_warn), (t, t_warn) = (_recorded(lambda lib=lib: getattr(lib.nn.functional, name)(
        lib.tensor(x), **kwargs)) for lib in (gradjit, torch))
    assert g_warn == t_warn and g_warn
    close(g, t)


def test_deprecated_container_and_nllloss2d():
    (g, g_warn), (t, t_warn) = (_recorded(lambda lib=lib: lib.nn.Container(
        a=lib.nn.Linear(2, 3), b=lib.nn.ReLU())) for lib in (gradjit, torch))
    assert g_warn == t_warn and g_warn
    assert repr(g) == repr(t)
    (g, g_warn), (t, t_warn) = (_recorded(lambda lib=lib: lib.nn.NLLLoss2d(ignore_index=1))
                                for lib in (gradjit, torch))
    assert g_warn == t_warn and g_warn
    logp = np.log(np.random.default_rng(0).dirichlet(np.ones(4), (2, 3, 3))).astype(np.float32)
    logp = logp.transpose(0, 3, 1, 2).copy()
    target = np.random.default_rng(1).integers(0, 4, (2, 3, 3))
    close(g(gradjit.tensor(logp), gradjit.tensor(target)),
          t(torch.tensor(logp), torch.tensor(target)))
