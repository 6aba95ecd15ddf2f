"""nn.utils' submodules against PyTorch: clip_grad and convert_parameters, stateless
functional_call, conv/linear + batch-norm fusion, skip_init and the rnn batch helpers."""
import warnings

import numpy as np
import pytest

import gradjit
from tests.nn.helpers import close, copy_weights, randn, same_error

torch = pytest.importorskip("torch")

SUBMODULES = ["clip_grad", "convert_parameters", "stateless", "fusion", "init", "rnn",
              "parametrize", "parametrizations"]


@pytest.mark.parametrize("name", SUBMODULES)
def test_submodules_hold_torchs_public_names(name):
    t = getattr(torch.nn.utils, name)
    g = getattr(gradjit.nn.utils, name)
    wanted = {n for n in getattr(t, "__all__", dir(t)) if not n.startswith("_")
              and callable(getattr(t, n)) and getattr(getattr(t, n), "__module__", "")
              .startswith("torch.nn")}
    assert not {n for n in wanted if not hasattr(g, n)}


def _warning(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [(w.category, str(w.message)) for w in caught]


def test_deprecated_clip_grad_norm_and_empty_generator_warn_as_torch():
    def run(lib, fn):
        p = lib.nn.Parameter(lib.tensor([3.0, 4.0]))
        p.grad = lib.tensor([3.0, 4.0])
        return _warning(lambda: fn(lib)(p))
    (g_total, g_warn), (t_total, t_warn) = (run(lib, lambda lib: lambda p: lib.nn.utils
                                                .clip_grad_norm(p, 1.0))
                                            for lib in (gradjit, torch))
    assert g_warn == t_warn and g_warn
    close(g_total, t_total)
    empty = [_warning(lambda lib=lib: lib.nn.utils.clip_grad.clip_grad_norm_(
        (q for q in []), 1.0))[1] for lib in (gradjit, torch)]
    assert empty[0] == empty[1] and empty[0]


def test_stateless_functional_call_warns_and_calls():
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        params = {"weight": lib.ones(2, 3), "bias": lib.zeros(2)}
        return _warning(lambda: lib.nn.utils.stateless.functional_call(
            m, params, (lib.tensor(randn(4, 3)),)))
    (g_out, g_warn), (t_out, t_warn) = run(gradjit), run(torch)
    assert g_warn == t_warn and g_warn
    close(g_out, t_out)


def _conv_bn(lib, transpose, dims):
    lib.manual_seed(0)
    conv = getattr(lib.nn, f"Conv{'Transpose' if transpose else ''}{dims}d")(4, 6, 3,
                                                                                 bias=dims != 2)
    bn = getattr(lib.nn, f"BatchNorm{dims}d")(6)
    with lib.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-1, 1)
    return conv.eval(), bn.eval()


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("dims", [1, 2])
def test_fuse_conv_bn_eval(transpose, dims):
    (gc, gb), (tc, tb) = _conv_bn(gradjit, transpose, dims), _conv_bn(torch, transpose, dims)
    copy_weights(gc, tc)
    copy_weights(gb, tb)
    g = gradjit.nn.utils.fuse_conv_bn_eval(gc, gb, transpose)
    t = torch.nn.utils.fuse_conv_bn_eval(tc, tb, transpose)
    close(g.weight, t.weight)
    close(g.bias, t.bias)
    assert type(g.weight).__name__ == "Parameter" and g is not gc
    x = randn(2, 4, *[7] * dims)
    close(g(gradjit.tensor(x)), gb(gc(gradjit.tensor(x))), atol=1e-5)


def _linear_bn(lib, features=5):
    lib.manual_seed(0)
    linear, bn = lib.nn.Linear(3, 5), lib.nn.BatchNorm1d(features)
    with lib.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
    return linear.eval(), bn.eval()


def test_fuse_linear_bn_eval_and_weights():
    (gl, gb), (tl, tb) = _linear_bn(gradjit), _linear_bn(torch)
    copy_weights(gb, tb)
    g, t = gradjit.nn.utils.fuse_linear_bn_eval(gl, gb), torch.nn.utils.fuse_linear_bn_eval(tl, tb)
    close(g.weight, t.weight)
    close(g.bias, t.bias)
    w = gradjit.nn.utils.fusion.fuse_linear_bn_weights(gl.weight, None, gb.running_mean,
                                                       gb.running_var, 1e-3, gb.weight, gb.bias)
    tw = torch.nn.utils.fusion.fuse_linear_bn_weights(tl.weight, None, tb.running_mean,
                                                      tb.running_var, 1e-3, tb.weight, tb.bias)
    for a, b in zip(w, tw):
        close(a, b)
        assert a.requires_grad == b.requires_grad


@pytest.mark.parametrize("case", ["training", "features", "no_stats", "conv_training",
                                  "conv_no_stats"])
def test_fusion_errors(case):
    def call(lib):
        linear, bn = _linear_bn(lib, 4 if case == "features" else 5)
        conv, cbn = _conv_bn(lib, False, 1)
        if case == "training":
            bn.train()
        if case == "no_stats":
            bn.running_mean = None
        if case == "conv_training":
            conv.train()
        if case == "conv_no_stats":
            cbn.running_var = None
        if case.startswith("conv"):
            return lambda: lib.nn.utils.fuse_conv_bn_eval(conv, cbn)
        return lambda: lib.nn.utils.fuse_linear_bn_eval(linear, bn)
    same_error(call(gradjit), call(torch))


def test_skip_init_leaves_the_generator_alone():
    for lib in (gradjit, torch):
        lib.manual_seed(0)
        m = lib.nn.utils.skip_init(lib.nn.Linear, 5, out_features=3)
        assert tuple(m.weight.shape) == (3, 5) and type(m.weight).__name__ == "Parameter"
    close(gradjit.rand(4), torch.rand(4))
    same_error(lambda: gradjit.nn.utils.skip_init(int), lambda: torch.nn.utils.skip_init(int))

    def no_device(lib):
        class NoDevice(lib.nn.Module):
            def __init__(self, size):
                super().__init__()
        return lambda: lib.nn.utils.skip_init(NoDevice, 3)
    same_error(no_device(gradjit), no_device(torch))


def test_rnn_helpers():
    perm = [2, 0, 3, 1]
    np.testing.assert_array_equal(
        np.asarray(gradjit.nn.utils.rnn.invert_permutation(gradjit.tensor(perm))),
        torch.nn.utils.rnn.invert_permutation(torch.tensor(perm)).numpy())
    assert gradjit.nn.utils.rnn.invert_permutation(None) is None
    seqs = [randn(3, 2), randn(5, 2, seed=1), randn(1, 2, seed=2)]
    for batch_first in (False, True):
        padded = {lib: lib.nn.utils.rnn.pad_sequence([lib.tensor(s) for s in seqs], batch_first)
                  for lib in (gradjit, torch)}
        g = gradjit.nn.utils.rnn.unpad_sequence(padded[gradjit], gradjit.tensor([3, 5, 1]),
                                                batch_first)
        t = torch.nn.utils.rnn.unpad_sequence(padded[torch], torch.tensor([3, 5, 1]),
                                              batch_first)
        assert len(g) == len(t)
        for a, b in zip(g, t):
            close(a, b)
    packed = gradjit.nn.utils.rnn.pack_sequence([gradjit.tensor(s) for s in seqs],
                                                enforce_sorted=False)
    for a, s in zip(gradjit.nn.utils.rnn.unpack_sequence(packed), seqs):
        np.testing.assert_array_equal(np.asarray(a), s)


def test_transfer_parametrizations_and_type_before_them():
    def run(lib):
        lib.manual_seed(0)
        source, target = lib.nn.Linear(3, 3), lib.nn.Linear(3, 3)
        lib.nn.utils.parametrizations.weight_norm(source)
        before = lib.nn.utils.parametrize.type_before_parametrizations(source)
        lib.nn.utils.parametrize.transfer_parametrizations_and_params(source, target)
        return source, target, before
    (gs, gt, g_before), (_, tt, t_before) = run(gradjit), run(torch)
    assert g_before is gradjit.nn.Linear and t_before is torch.nn.Linear
    close(gt.weight, tt.weight)
    assert gt.parametrizations.weight.original0 is gs.parametrizations.weight.original0
    assert repr(gt) == repr(tt)
