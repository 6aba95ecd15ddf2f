"""scaled_dot_product_attention and MultiheadAttention against torch: values, attention weights
and gradients of inputs and parameters with torch's weights loaded, masks of both kinds,
parameter layout, initialization, repr and errors."""
import numpy as np
import pytest

import gradjit
from gradjit import nn
from gradjit.nn import functional as F
from tests.nn.helpers import close, randn, same_error, torch
from tests.nn.multi_output import compare_calls

Q, K, V = randn(2, 3, 4, 5), randn(2, 3, 6, 5, seed=1), randn(2, 3, 6, 7, seed=2)
CAUSAL = np.tril(np.ones((4, 6), dtype=bool))
PADDED = np.ones((4, 6), dtype=bool)
PADDED[2] = False  # a row with every key masked gives zeros, as PyTorch's kernel does


@pytest.mark.parametrize("kwargs, mask", [
    (dict(), None), (dict(is_causal=True), None), (dict(scale=0.3), None),
    (dict(), CAUSAL), (dict(), PADDED), (dict(), randn(4, 6, seed=3)),
    (dict(), randn(2, 1, 4, 6, seed=3)), (dict(), np.broadcast_to(CAUSAL, (3, 4, 6)).copy()),
])
def test_scaled_dot_product_attention_matches_torch(kwargs, mask):
    arrays = [Q, K, V] + ([] if mask is None else [mask])

    def call(f):
        return lambda q, k, v, *m: f(q, k, v, *m, **kwargs)
    compare_calls(call(F.scaled_dot_product_attention),
                  call(torch.nn.functional.scaled_dot_product_attention), arrays)


def test_grouped_query_attention_matches_torch():
    def call(f):
        return lambda q, k, v: f(q, k, v, enable_gqa=True)
    compare_calls(call(F.scaled_dot_product_attention),
                  call(torch.nn.functional.scaled_dot_product_attention),
                  [randn(2, 4, 3, 5), randn(2, 2, 6, 5, seed=1), randn(2, 2, 6, 5, seed=2)])


def test_attention_dropout_draws_and_keeps_expectation():
    gradjit.manual_seed(0)
    q = gradjit.zeros(1, 1, 2000, 4)  # uniform weights: each output is the mean of the kept
    v = gradjit.ones(1, 1, 10, 4)
    out = F.scaled_dot_product_attention(q, gradjit.zeros(1, 1, 10, 4), v, dropout_p=0.5)
    values = out.numpy()[..., 0].ravel()  # (kept of 10) / 10 / (1 - p): multiples of 0.2
    np.testing.assert_allclose(values * 5, np.round(values * 5), atol=1e-5)
    assert abs(values.mean() - 1) < 0.05 and values.std() > 0.1


MHA_CONFIGS = [dict(), dict(bias=False), dict(kdim=3, vdim=5), dict(add_bias_kv=True),
               dict(add_zero_attn=True), dict(batch_first=True),
               dict(kdim=3, vdim=5, add_bias_kv=True, add_zero_attn=True, batch_first=True)]


def mha_inputs(kwargs, batched=True):
    batch = (2,) if batched else ()
    first = kwargs.get("batch_first") and batched

    def shaped(length, size, seed):
        shape = batch + (length,) if first else (length,) + batch
        return randn(*shape, size, seed=seed)
    return [shaped(4, 6, 0), shaped(5, kwargs.get("kdim", 6), 1),
            shaped(5, kwargs.get("vdim", 6), 2)]


def compare_mha(kwargs, arrays, **call_kwargs):
    gm, tm = nn.MultiheadAttention(6, 3, **kwargs), torch.nn.MultiheadAttention(6, 3, **kwargs)
    gm.eval(), tm.eval()

    def call(module):
        return lambda q, k, v, *masks: module(q, k, v, *masks, **call_kwargs)
    compare_calls(call(gm), call(tm), arrays, gm, tm)


@pytest.mark.parametrize("kwargs", MHA_CONFIGS)
def test_multihead_attention_matches_torch(kwargs):
    compare_mha(kwargs, mha_inputs(kwargs))
    compare_mha(kwargs, mha_inputs(kwargs), average_attn_weights=False)
    compare_mha(kwargs, mha_inputs(kwargs), need_weights=False)
    compare_mha(kwargs, mha_inputs(kwargs, batched=False))


def test_self_attention_with_one_tensor_matches_torch():
    for kwargs in (dict(), dict(batch_first=True)):
        def call(module):
            return lambda x: module(x, x, x)
        gm, tm = nn.MultiheadAttention(6, 2, **kwargs), torch.nn.MultiheadAttention(6, 2,
                                                                                    **kwargs)
        compare_calls(call(gm), call(tm), [randn(4, 2, 6)], gm, tm)


KEY_PADDING = np.zeros((2, 5), dtype=bool)
KEY_PADDING[1, 3:] = True


@pytest.mark.parametrize("kwargs", [dict(), dict(add_bias_kv=True, add_zero_attn=True)])
@pytest.mark.parametrize("masks", [
    dict(key_padding_mask=KEY_PADDING), dict(attn_mask=~np.tril(np.ones((4, 5), dtype=bool))),
    dict(attn_mask=randn(4, 5, seed=4)), dict(attn_mask=randn(6, 4, 5, seed=4)),
    dict(key_padding_mask=KEY_PADDING.astype(np.float32) * -5,
         attn_mask=randn(4, 5, seed=4)),
    dict(key_padding_mask=KEY_PADDING, attn_mask=~np.tril(np.ones((4, 5), dtype=bool)),
         is_causal=True)])
def test_multihead_attention_masks_match_torch(kwargs, masks):
    names = [n for n in ("key_padding_mask", "attn_mask") if n in masks]
    gm, tm = nn.MultiheadAttention(6, 3, **kwargs), torch.nn.MultiheadAttention(6, 3, **kwargs)

    def call(module):
        def run(q, k, v, *given):
            return module(q, k, v, **dict(zip(names, given)), is_causal=masks.get("is_causal",
                                                                                  False))
        return run
    compare_calls(call(gm), call(tm), mha_inputs({}) + [masks[n] for n in names], gm, tm)


def test_parameters_layout_init_and_repr_match_torch():
    for kwargs in (dict(), dict(kdim=3, vdim=5, add_bias_kv=True), dict(bias=False)):
        gm, tm = nn.MultiheadAttention(8, 2, **kwargs), torch.nn.MultiheadAttention(8, 2, **kwargs)
        assert [(n, tuple(p.shape)) for n, p in gm.named_parameters()] == \
            [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
        assert list(gm.state_dict()) == list(tm.state_dict())
        assert repr(gm) == repr(tm)
    gm = nn.MultiheadAttention(64, 4)
    bound = np.sqrt(6 / (64 + 3 * 64))  # xavier_uniform_ over the packed (3E, E) weight
    w = gm.in_proj_weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert not gm.in_proj_bias.detach().numpy().any()
    assert not gm.out_proj.bias.detach().numpy().any()


def test_training_mode_dropout_draws_on_the_weights():
    gm = nn.MultiheadAttention(6, 3, dropout=0.5)
    x = gradjit.tensor(randn(4, 2, 6))
    gradjit.manual_seed(0)
    _, weights = gm(x, x, x, average_attn_weights=False)
    kept = weights.detach().numpy() != 0
    assert 0.3 < kept.mean() < 0.7
    gm.eval()
    np.testing.assert_allclose(gm(x, x, x)[1].sum(-1).detach().numpy(), np.ones((2, 4)),
                               rtol=1e-6)


def both(make):
    return lambda: make(nn, gradjit), lambda: make(torch.nn, torch)


def mha(nn, t, *args, **kwargs):
    return nn.MultiheadAttention(6, 3, *args, **kwargs)


@pytest.mark.parametrize("make", [
    lambda nn, t: mha(nn, t)(t.ones(2, 2, 2, 6), t.ones(2, 2, 6), t.ones(2, 2, 6)),
    lambda nn, t: mha(nn, t)(t.ones(2, 2, 6), t.ones(2, 6), t.ones(2, 2, 6)),
    lambda nn, t: mha(nn, t)(t.ones(2, 6), t.ones(2, 2, 6), t.ones(2, 6)),
    lambda nn, t: mha(nn, t)(t.ones(2, 2, 6), t.ones(3, 2, 6), t.ones(3, 2, 6),
                             key_padding_mask=t.ones(2, dtype=t.bool)),
    lambda nn, t: mha(nn, t)(t.ones(2, 6), t.ones(3, 6), t.ones(3, 6),
                             key_padding_mask=t.ones(2, 3, dtype=t.bool)),
    lambda nn, t: mha(nn, t)(t.ones(2, 2, 6), t.ones(3, 2, 6), t.ones(3, 2, 6),
                             attn_mask=t.ones(3, dtype=t.bool)),
    lambda nn, t: mha(nn, t)(t.ones(2, 6), t.ones(3, 6), t.ones(3, 6),
                             attn_mask=t.ones(1, 1, 1, 3, dtype=t.bool)),
    lambda nn, t: mha(nn, t)(t.ones(2, 6), t.ones(3, 6), t.ones(3, 6),
                             attn_mask=t.ones(2, 2, 3, dtype=t.bool)),
    lambda nn, t: mha(nn, t)(t.ones(2, 2, 6), t.ones(3, 2, 6), t.ones(3, 2, 6),
                             attn_mask=t.ones(3, 3, dtype=t.bool)),
    lambda nn, t: mha(nn, t)(t.ones(2, 2, 6), t.ones(3, 2, 6), t.ones(3, 2, 6),
                             attn_mask=t.ones(2, 2, 3, dtype=t.bool)),
    lambda nn, t: mha(nn, t)(t.ones(2, 2, 6), t.ones(3, 2, 6), t.ones(3, 2, 6),
                             key_padding_mask=t.ones(2, 4, dtype=t.bool)),
    lambda nn, t: mha(nn, t)(t.ones(2, 2, 6), t.ones(3, 2, 6), t.ones(3, 2, 6),
                             key_padding_mask=t.ones(3, 3, dtype=t.bool)),
    lambda nn, t: mha(nn, t)(t.ones(2, 2, 6), t.ones(3, 2, 6), t.ones(3, 2, 6),
                             key_padding_mask=t.ones(2, 3, dtype=t.int64)),
    lambda nn, t: mha(nn, t)(t.ones(2, 2, 6), t.ones(3, 2, 6), t.ones(3, 2, 6), is_causal=True),
    lambda nn, t: mha(nn, t)(t.ones(2, 2, 5), t.ones(3, 2, 6), t.ones(3, 2, 6)),
    lambda nn, t: mha(nn, t)(t.ones(2, 2, 6), t.ones(3, 2, 6), t.ones(4, 2, 6)),
    lambda nn, t: mha(nn, t, kdim=3)(t.ones(2, 2, 6), t.ones(3, 2, 3), t.ones(4, 2, 6)),
    lambda nn, t: nn.MultiheadAttention(6, 4),
    lambda nn, t: nn.MultiheadAttention(0, 4),
    lambda nn, t: t.nn.functional.scaled_dot_product_attention(
        t.ones(2, 3), t.ones(2, 3), t.ones(2, 3), attn_mask=t.ones(2, 2, dtype=t.bool),
        is_causal=True),
    lambda nn, t: t.nn.functional.scaled_dot_product_attention(
        t.ones(2, 3), t.ones(2, 3), t.ones(2, 3), attn_mask=t.ones(2, 2, dtype=t.int64)),
])
def test_errors_match_torch(make):
    same_error(*both(make))


def functional_mha(t, **kwargs):
    args = dict(query=t.ones(2, 1, 4), key=t.ones(3, 1, 4), value=t.ones(3, 1, 4),
                embed_dim_to_check=4, num_heads=2, in_proj_weight=t.ones(12, 4),
                in_proj_bias=None, bias_k=None, bias_v=None, add_zero_attn=False,
                dropout_p=0.0, out_proj_weight=t.ones(4, 4), out_proj_bias=None)
    args.update(kwargs)
    return t.nn.functional.multi_head_attention_forward(**args)


@pytest.mark.parametrize("kwargs", [
    lambda t: dict(embed_dim_to_check=3), lambda t: dict(num_heads=3),
    lambda t: dict(bias_k=t.ones(1, 1, 4)), lambda t: dict(bias_v=t.ones(1, 1, 4)),
    lambda t: dict(bias_k=t.ones(1, 1, 4), bias_v=t.ones(1, 1, 4), static_k=t.ones(2, 3, 2)),
    lambda t: dict(bias_k=t.ones(1, 1, 4), bias_v=t.ones(1, 1, 4), static_v=t.ones(2, 3, 2)),
    lambda t: dict(static_k=t.ones(3, 3, 2)), lambda t: dict(static_k=t.ones(2, 3, 3)),
    lambda t: dict(static_v=t.ones(3, 3, 2)), lambda t: dict(static_v=t.ones(2, 3, 3))])
def test_functional_errors_match_torch(kwargs):
    same_error(lambda: functional_mha(gradjit, **kwargs(gradjit)),
               lambda: functional_mha(torch, **kwargs(torch)))


def test_functional_form_with_static_keys_matches_torch():
    weights = [randn(12, 4), randn(4, 4, seed=1), randn(12, seed=2), randn(4, seed=3)]

    def call(t):
        def run(q, k, v, sk, sv, w_in, w_out, b_in, b_out):
            return functional_mha(t, query=q, key=k, value=v, in_proj_weight=w_in,
                                  in_proj_bias=b_in, out_proj_weight=w_out, out_proj_bias=b_out,
                                  static_k=sk, static_v=sv, training=False)
        return run
    compare_calls(call(gradjit), call(torch), [randn(2, 1, 4), randn(3, 1, 4, seed=5),
                                               randn(3, 1, 4, seed=6), randn(2, 5, 2, seed=7),
                                               randn(2, 5, 2, seed=8)] + weights)


def test_attention_compiles_inside_grad():
    gm = nn.MultiheadAttention(6, 3).requires_grad_(False)
    tm = torch.nn.MultiheadAttention(6, 3)
    gm.load_state_dict({k: gradjit.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = randn(4, 2, 6)
    mask = gradjit.tensor(~np.tril(np.ones((4, 4), dtype=bool)))
    grad = gradjit.grad(lambda x: (gm(x, x, x, attn_mask=mask)[0] ** 2).sum())(
        gradjit.tensor(x))
    t_x = torch.tensor(x, requires_grad=True)
    (tm(t_x, t_x, t_x, attn_mask=torch.tensor(mask.numpy()))[0] ** 2).sum().backward()
    close(grad, t_x.grad, 1e-4, 1e-5)


@pytest.mark.parametrize("need_weights", [True, False])
def test_a_batch_entry_with_every_key_padded_matches_torch(need_weights):
    """NaN with the weights returned, zeros through the attention kernel, as in PyTorch."""
    gm, tm = nn.MultiheadAttention(6, 3), torch.nn.MultiheadAttention(6, 3)
    gm.load_state_dict({k: gradjit.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x, padding = randn(4, 2, 6), np.zeros((2, 4), dtype=bool)
    padding[1] = True
    g_out = gm(*[gradjit.tensor(x)] * 3, key_padding_mask=gradjit.tensor(padding),
               need_weights=need_weights)[0]
    t_out = tm(*[torch.tensor(x)] * 3, key_padding_mask=torch.tensor(padding),
               need_weights=need_weights)[0]
    np.testing.assert_allclose(g_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
