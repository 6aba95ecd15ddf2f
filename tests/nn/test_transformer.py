"""Transformer layers, stacks and the full model against torch in eval mode with torch's
weights loaded: outputs and gradients of inputs and every parameter, post- and pre-norm, masks,
activations; submodule names, repr, initialization and errors."""
import warnings

import numpy as np
import pytest

import gradjit
from gradjit import nn
from tests.nn.helpers import randn, same_error, torch
from tests.nn.multi_output import compare_calls

CAUSAL = np.triu(np.full((4, 4), -np.inf, dtype=np.float32), 1)
PADDING = np.zeros((2, 4), dtype=bool)
PADDING[1, 3] = True


def pair(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's note on nested tensors
        gm, tm = make(nn), make(torch.nn)
    gm.eval(), tm.eval()  # dropout off
    return gm, tm


def seq(batch_first, length=4, seed=0):
    return randn(2, length, 8, seed=seed) if batch_first else randn(length, 2, 8, seed=seed)


LAYER_OPTIONS = [dict(), dict(norm_first=True), dict(activation="gelu"),
                 dict(batch_first=True, norm_first=True), dict(bias=False, layer_norm_eps=1e-3)]


@pytest.mark.parametrize("kwargs", LAYER_OPTIONS)
@pytest.mark.parametrize("masks", [dict(), dict(src_mask=CAUSAL),
                                   dict(src_mask=CAUSAL, src_key_padding_mask=PADDING)])
@pytest.mark.filterwarnings("ignore:Support for mismatched")
def test_encoder_layer_matches_torch(kwargs, masks):
    gm, tm = pair(lambda nn: nn.TransformerEncoderLayer(8, 2, 16, **kwargs))
    names = list(masks)

    def call(module):
        return lambda x, *given: module(x, **dict(zip(names, given)))
    compare_calls(call(gm), call(tm), [seq(kwargs.get("batch_first"))] + list(masks.values()),
                  gm, tm, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kwargs", LAYER_OPTIONS)
def test_decoder_layer_matches_torch(kwargs):
    gm, tm = pair(lambda nn: nn.TransformerDecoderLayer(8, 2, 16, **kwargs))
    first = kwargs.get("batch_first")

    def call(module):
        return lambda tgt, memory, mask, padding: module(
            tgt, memory, tgt_mask=mask, memory_key_padding_mask=padding)
    compare_calls(call(gm), call(tm), [seq(first), seq(first, 5, seed=1), CAUSAL,
                                       np.zeros((2, 5), dtype=bool) | (np.arange(5) > 3)],
                  gm, tm, rtol=1e-4, atol=1e-5)


def test_activation_module_is_a_child_and_callable_activations_work():
    gm, tm = pair(lambda nn: nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU()))
    assert repr(gm) == repr(tm)
    compare_calls(gm, tm, [seq(False)], gm, tm, rtol=1e-4, atol=1e-5)
    gm, tm = pair(lambda nn: nn.TransformerEncoderLayer(
        8, 2, 16, activation=lambda x: x.sigmoid() * x))
    compare_calls(gm, tm, [seq(False)], gm, tm, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("norm", [False, True])
def test_stacks_match_torch(norm):
    gm, tm = pair(lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2,
                                                   nn.LayerNorm(8) if norm else None))
    assert gm.layers[0] is not gm.layers[1] and repr(gm) == repr(tm)
    compare_calls(lambda x, m: gm(x, mask=m), lambda x, m: tm(x, mask=m),
                  [seq(False), CAUSAL], gm, tm, rtol=1e-4, atol=1e-5)
    gm, tm = pair(lambda nn: nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2,
                                                   nn.LayerNorm(8) if norm else None))
    compare_calls(lambda x, m, mem: gm(x, mem, tgt_mask=m),
                  lambda x, m, mem: tm(x, mem, tgt_mask=m),
                  [seq(False), CAUSAL, seq(False, 3, seed=2)], gm, tm, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kwargs", [dict(), dict(batch_first=True, norm_first=True)])
def test_transformer_matches_torch(kwargs):
    gm, tm = pair(lambda nn: nn.Transformer(8, 2, 2, 2, 16, **kwargs))
    assert [n for n, _ in gm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert repr(gm) == repr(tm)
    first = kwargs.get("batch_first")

    def call(module):
        return lambda src, tgt, mask, padding: module(
            src, tgt, tgt_mask=mask, src_key_padding_mask=padding,
            memory_key_padding_mask=padding)
    compare_calls(call(gm), call(tm), [seq(first, seed=3), seq(first, seed=4), CAUSAL, PADDING],
                  gm, tm, rtol=1e-4, atol=1e-5)


def test_transformer_unbatched_matches_torch():
    gm, tm = pair(lambda nn: nn.Transformer(8, 2, 1, 1, 16))
    compare_calls(lambda s, t: gm(s, t), lambda s, t: tm(s, t),
                  [randn(5, 8), randn(4, 8, seed=1)], gm, tm, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("make", [
    lambda nn, t: nn.TransformerEncoderLayer(8, 2, 16)(
        t.ones(4, 2, 8), src_mask=t.tensor(CAUSAL), src_key_padding_mask=t.tensor(PADDING)),
    lambda nn, t: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2)(
        t.ones(4, 2, 8), mask=t.tensor(CAUSAL), src_key_padding_mask=t.tensor(PADDING)),
    lambda nn, t: nn.MultiheadAttention(8, 2)(t.ones(4, 2, 8), t.ones(4, 2, 8), t.ones(4, 2, 8),
                                              attn_mask=t.tensor(CAUSAL),
                                              key_padding_mask=t.tensor(PADDING))])
def test_masks_of_two_types_warn_once_like_torch(make):
    with pytest.warns(UserWarning) as g_warnings:
        make(nn, gradjit)
    with pytest.warns(UserWarning) as t_warnings:
        make(torch.nn, torch)
    # the encoder also says why torch's nested-tensor speed path is off
    assert [str(w.message) for w in g_warnings] == [str(w.message) for w in t_warnings]


def test_initialization_and_causal_mask_match_torch():
    model = nn.Transformer(16, 2, 1, 1, 32)
    w = model.encoder.layers[0].linear1.weight.detach().numpy()
    bound = np.sqrt(6 / (16 + 32))  # xavier_uniform_ over every matrix
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert np.array_equal(nn.Transformer.generate_square_subsequent_mask(4).numpy(), CAUSAL)
    assert nn.Transformer.generate_square_subsequent_mask(3, dtype=gradjit.float64).dtype is \
        gradjit.float64


def test_training_mode_drops():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = gradjit.tensor(seq(False))
    gradjit.manual_seed(0)
    assert not np.allclose(layer(x).detach().numpy(), layer(x).detach().numpy())


def both(make):
    def run(module):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return make(module, gradjit if module is nn else torch)
    return lambda: run(nn), lambda: run(torch.nn)


@pytest.mark.parametrize("make", [
    lambda nn, t: nn.TransformerEncoderLayer(8, 2, activation="tanh"),
    lambda nn, t: nn.Transformer(8, 2, 1, 1, 16)(t.ones(3, 2, 8), t.ones(3, 3, 8)),
    lambda nn, t: nn.Transformer(8, 2, 1, 1, 16, batch_first=True)(t.ones(2, 3, 8),
                                                                    t.ones(3, 3, 8)),
    lambda nn, t: nn.Transformer(8, 2, 1, 1, 16)(t.ones(3, 2, 8), t.ones(3, 2, 6)),
    lambda nn, t: nn.TransformerEncoderLayer(8, 2, 16)(t.ones(3, 2, 8), is_causal=True),
])
def test_errors_match_torch(make):
    same_error(*both(make))


@pytest.mark.parametrize("make", [
    lambda nn: nn.TransformerEncoderLayer(8, 2, 16, batch_first=True),
    lambda nn: nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True,
                                          activation="gelu")])
def test_eval_without_grad_equals_torchs_fused_layer_path(make):
    """torch.no_grad in eval sends torch's layer (not gradjit's) down its fused kernel."""
    gm, tm = pair(make)
    gm.load_state_dict({k: gradjit.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x, padding = seq(True), np.zeros((2, 4), dtype=bool)
    padding[1, 2:] = True
    with torch.no_grad():
        expected = tm(torch.tensor(x), src_key_padding_mask=torch.tensor(padding)).numpy()
    with gradjit.no_grad():
        got = gm(gradjit.tensor(x), src_key_padding_mask=gradjit.tensor(padding)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
