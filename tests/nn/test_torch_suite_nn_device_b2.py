"""CTC loss, multi-head attention and the Transformer layers as test_nn.py's TestNN and
TestNNDeviceType exercise them on the CPU: values, gradients, warnings and errors compared with
torch's."""

import warnings

import numpy as np
import pytest

from tests.nn.helpers import backward, same_outcome, uniform


def ctc(t, lengths, target_lengths, targets=None, dtype="float32", blank=0, classes=5, **kw):
    steps = max(lengths) if lengths else 1
    x = uniform(t, steps, len(target_lengths), classes, dtype=dtype, low=-3, high=3)
    x = x.requires_grad_()
    log_probs = x.log_softmax(2)
    if targets is None:
        rng = np.random.default_rng(1)
        shape = (len(target_lengths), max(target_lengths, default=1))
        targets = t.tensor(rng.integers(1, classes, shape))
    loss = t.nn.functional.ctc_loss(log_probs, targets, lengths, target_lengths, blank=blank, **kw)
    return backward(t, loss, x)


def long_targets(t):
    """test_CTCLoss_long_targets: a target near the input length, in float64."""
    targets = t.arange(76).reshape(2, 38) % 3 + 1
    return ctc(t, [50, 50], [38, 30], targets, dtype="float64", classes=4, reduction="sum")


def critical_target(t):
    """test_CTCLoss_critical_target_len: as many steps as labels, a single path."""
    targets = t.tensor([[1, 2, 3]])
    return ctc(t, [3], [3], targets, classes=4, reduction="none")


def mha(t, embed=6, heads=2, q=(4, 2), kv=(5, 2), seed=0, call=None, train=False,
        inputs="float32", **kwargs):
    t.manual_seed(seed)
    m = t.nn.MultiheadAttention(embed, heads, **kwargs)
    m.train(train)
    kdim, vdim = kwargs.get("kdim") or embed, kwargs.get("vdim") or embed
    query = uniform(t, *q, embed, seed=1, dtype=inputs).requires_grad_()
    key = uniform(t, *kv, kdim, seed=2, dtype=inputs).requires_grad_()
    value = uniform(t, *kv, vdim, seed=3, dtype=inputs).requires_grad_()
    out = m(query, key, value, **(call(t) if call else {}))
    return backward(t, out, query, key, value, *m.parameters())


def causal(t, rows=4, cols=5, dtype=None):
    mask = t.ones(rows, cols).triu(1).bool()
    if dtype == "float":
        return t.zeros(rows, cols).masked_fill(mask, float("-inf"))
    return mask if dtype is None else mask.to(getattr(t, dtype))


def padding(t, dtype=None, batch=2, length=5):
    mask = t.zeros(batch, length, dtype=t.bool)
    mask[-1, 3:] = True
    if dtype == "float":
        return t.zeros(batch, length).masked_fill(mask, float("-inf"))
    return mask if dtype is None else mask.to(getattr(t, dtype))


def encoder_layer(t, batch_first=False, masks=None, train=False, **kwargs):
    t.manual_seed(0)
    layer = t.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=batch_first,
                                         **kwargs)
    layer.train(train)
    x = uniform(t, *((2, 4) if batch_first else (4, 2)), 8).requires_grad_()
    return backward(t, layer(x, **(masks(t) if masks else {})), x, *layer.parameters())


def decoder_layer(t, masks=None, **kwargs):
    t.manual_seed(0)
    layer = t.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **kwargs).eval()
    x = uniform(t, 4, 2, 8).requires_grad_()
    memory = uniform(t, 5, 2, 8, seed=1).requires_grad_()
    return backward(t, layer(x, memory, **(masks(t) if masks else {})), x, memory,
                    *layer.parameters())


def transformer(t, src=(5, 2, 8), tgt=(4, 2, 8), masks=None, **kwargs):
    t.manual_seed(0)
    model = t.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, **kwargs).eval()
    x, y = uniform(t, *src).requires_grad_(), uniform(t, *tgt, seed=1).requires_grad_()
    return backward(t, model(x, y, **(masks(t) if masks else {})), x, y)


def encoder_stack(t, norm=False, masks=None, **kwargs):
    t.manual_seed(0)
    layer = t.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kwargs)
    stack = t.nn.TransformerEncoder(layer, 2, norm=t.nn.LayerNorm(8) if norm else None,
                                    enable_nested_tensor=False).eval()
    x = uniform(t, 4, 2, 8).requires_grad_()
    return backward(t, stack(x, **(masks(t) if masks else {})), x, *stack.parameters())


def warned(t, scenario):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scenario(t)
    return sorted({str(w.message) for w in caught})


def mha_changed(t, change, no_grad=False, batch_first=True, masks=None):
    """An evaluating module changed after construction (test_multihead_attn_in_proj_bias_none,
    ..._fast_path_query_and_bias_have_different_dtypes), optionally without autograd (the
    fast path's conditions)."""
    t.manual_seed(0)
    m = t.nn.MultiheadAttention(4, 2, batch_first=batch_first).eval()
    change(t, m)
    x = uniform(t, 2, 3, 4)
    with t.set_grad_enabled(not no_grad):
        return m(x, x, x, **(masks(t) if masks else {}))


def nested_warnings(t, **kwargs):
    options = dict(norm_first=False, batch_first=True)
    options.update(kwargs)
    layer = t.nn.TransformerEncoderLayer(8, 2, 16, **options)
    return warned(t, lambda t: t.nn.TransformerEncoder(layer, 2, enable_nested_tensor=True))


def nested_path(t, padded=((2, 3),), no_grad=True, train=False, norm=True, attn_mask=False,
                **kwargs):
    """An encoder stack that PyTorch may run on nested tensors (evaluating without gradients,
    batch_first, a padding mask): padded positions come out as zeros there."""
    t.manual_seed(0)
    layer = t.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, dropout=0.0)
    stack = t.nn.TransformerEncoder(layer, 2, norm=t.nn.LayerNorm(8) if norm else None,
                                    **kwargs).train(train)
    if norm:
        with t.no_grad():
            stack.norm.bias.fill_(0.5)
    mask = t.zeros(3, 4, dtype=t.bool)
    for row, start in padded:
        mask[row, start:] = True
    extra = {"mask": causal(t, 4, 4)} if attn_mask else {}
    with t.set_grad_enabled(not no_grad):
        return stack(uniform(t, 3, 4, 8), src_key_padding_mask=mask, **extra)


SCENARIOS = {
    "ctc_half": lambda t: t.nn.functional.ctc_loss(
        t.zeros(5, 1, 4).half().log_softmax(2), t.tensor([[1, 2]]), [5], [2]),
    "mha_kdim_self_attention": lambda t: t.nn.MultiheadAttention(4, 2, kdim=3)(
        t.ones(2, 1, 4), t.ones(2, 1, 4), t.ones(2, 1, 4)),
    "mha_vdim_wrong": lambda t: t.nn.MultiheadAttention(4, 2, kdim=3, vdim=3)(
        t.ones(2, 1, 4), t.ones(2, 1, 3), t.ones(2, 1, 4)),
    "nested_path_norm": lambda t: nested_path(t),
    "nested_path_two_rows": lambda t: nested_path(t, ((0, 1), (2, 3)), norm=False),
    "nested_path_with_grad": lambda t: nested_path(t, no_grad=False),
    "nested_path_training": lambda t: nested_path(t, train=True),
    "nested_path_disabled": lambda t: nested_path(t, enable_nested_tensor=False),
    "nested_path_with_attn_mask": lambda t: nested_path(t, attn_mask=True),
    "nested_path_not_left_aligned": lambda t: nested_path(t, ((1, 0),), mask_check=True),
    "nested_path_transformer": lambda t: (lambda m: m(
        uniform(t, 3, 4, 8), uniform(t, 3, 2, 8, seed=1),
        src_key_padding_mask=t.tensor([[False] * 4] * 2 + [[False, True, True, True]])))(
        (t.manual_seed(0), t.nn.Transformer(8, 2, 1, 1, 16, batch_first=True).eval())[1]
        .requires_grad_(False)),
    "mha_in_proj_bias_none": lambda t: mha_changed(
        t, lambda t, m: setattr(m, "in_proj_bias", None)),
    "mha_bias_other_dtype": lambda t: mha_changed(
        t, lambda t, m: setattr(m, "in_proj_bias", t.nn.Parameter(m.in_proj_bias.half())),
        no_grad=True),
    "mha_two_masks_no_grad": lambda t: mha_changed(t, lambda t, m: None, no_grad=True,
                                                   masks=lambda t: {
        "attn_mask": causal(t, 3, 3), "key_padding_mask": padding(t, length=3)}),
    "mha_padding_mask_no_grad_no_weights": lambda t: mha_changed(
        t, lambda t, m: None, no_grad=True,
        masks=lambda t: {"key_padding_mask": padding(t, length=3), "need_weights": False}),
    "mha_bfloat16": lambda t: [(o.dtype, o.shape) for o in mha(
        t, dtype=t.bfloat16, inputs="bfloat16")[0]],
    **{
        f"nested_tensor_warning_{k}": (lambda t, kw=kw: nested_warnings(t, **kw))
        for k, kw in (("norm_first", {"norm_first": True}),
                      ("not_batch_first", {"batch_first": False}),
                      ("gelu_callable", {"activation": lambda x: x}),
                      ("odd_heads", {}))
    },
    "transformer_src_mask_size": lambda t: transformer(t, masks=lambda t: {
        "src_mask": causal(t, 4, 4)}),
    "transformer_tgt_mask_size": lambda t: transformer(t, masks=lambda t: {
        "tgt_mask": causal(t, 5, 5)}),
    "transformer_memory_mask_size": lambda t: transformer(t, masks=lambda t: {
        "memory_mask": causal(t, 5, 4)}),
    "transformer_src_padding_size": lambda t: transformer(t, masks=lambda t: {
        "src_key_padding_mask": padding(t, length=4)}),
    "transformer_tgt_padding_size": lambda t: transformer(t, masks=lambda t: {
        "tgt_key_padding_mask": padding(t, length=5)}),
    "transformer_custom_stacks": lambda t: (lambda m: (repr(m), m(t.ones(3, 1, 8),
                                                                 t.ones(2, 1, 8)).shape))(
        t.nn.Transformer(8, 2, custom_encoder=t.nn.Identity(),
                         custom_decoder=t.nn.Identity() and None, num_decoder_layers=1,
                         dim_feedforward=4)),
    "decoder_bad_activation": lambda t: decoder_layer(t, activation="selu"),
    "ctc_input_lengths_count": lambda t: ctc(t, [7, 6], [3, 2, 2]),
    "ctc_target_lengths_count": lambda t: t.nn.functional.ctc_loss(
        uniform(t, 7, 3, 5).log_softmax(2), t.ones(3, 2, dtype=t.long), [7, 7, 7], [2, 2]),
    "ctc_negative_target_length": lambda t: ctc(t, [7, 6], [3, -1]),
    "ctc_targets_3d": lambda t: t.nn.functional.ctc_loss(
        uniform(t, 7, 2, 5).log_softmax(2), t.ones(2, 2, 1, dtype=t.long), [7, 7], [2, 2]),
    "ctc_float_targets": lambda t: t.nn.functional.ctc_loss(
        uniform(t, 7, 2, 5).log_softmax(2), t.ones(2, 2), [7, 7], [2, 2]),
    "ctc_mean": lambda t: ctc(t, [7, 6, 5], [3, 2, 4]),
    "ctc_sum_double": lambda t: ctc(t, [7, 6, 5], [3, 2, 4], dtype="float64", reduction="sum"),
    "ctc_none_blank_last": lambda t: ctc(
        t, [7, 7], [2, 3], t.tensor([[0, 1, 2], [3, 0, 2]]), blank=4, reduction="none"),
    "ctc_empty_target": lambda t: ctc(t, [6, 6], [0, 0], t.zeros(2, 0, dtype=t.long),
                                      reduction="none"),
    "ctc_empty_target_mean": lambda t: ctc(t, [6, 6], [0, 2], t.tensor([[1, 2], [3, 1]])),
    "ctc_long_targets": long_targets,
    "ctc_critical_target": critical_target,
    # the loss only: an infinite loss's gradient is not a number in both, but not in the
    # same elements
    "ctc_infeasible": lambda t: ctc(t, [3, 7], [3, 2], t.tensor([[1, 1, 1], [1, 2, 0]]),
                                    reduction="none")[0],
    "ctc_infeasible_zero_inf": lambda t: ctc(t, [3, 7], [3, 2], t.tensor([[1, 1, 1], [1, 2, 0]]),
                                             reduction="mean", zero_infinity=True),
    "ctc_concatenated_int32": lambda t: ctc(t, [7, 6], [3, 2], t.tensor([1, 2, 3, 4, 1],
                                                                       dtype=t.int32)),
    "ctc_lengths_tensor_int32": lambda t: ctc(t, t.tensor([7, 6], dtype=t.int32),
                                              t.tensor([3, 2], dtype=t.int32)),
    "ctc_input_length_too_long": lambda t: ctc(t, [7, 8], [3, 2]),
    "ctc_target_length_too_long": lambda t: ctc(t, [7, 6], [3, 5], t.tensor([[1, 2, 3],
                                                                             [1, 2, 3]])),
    "ctc_batch_mismatch": lambda t: ctc(t, [7, 6, 5], [3, 2]),
    "ctc_blank_out_of_range": lambda t: ctc(t, [7, 6], [3, 2], blank=5),
    "ctc_concatenated_too_short": lambda t: ctc(t, [7, 6], [3, 4], t.tensor([1, 2, 3, 4])),
    "ctc_module_repr": lambda t: repr(t.nn.CTCLoss(blank=2, reduction="sum",
                                                   zero_infinity=True)),
    "mha_double": lambda t: mha(t, dtype=t.float64, inputs="float64"),
    "mha_dtype_mismatch": lambda t: mha(t, dtype=t.float64),
    "mha_no_bias": lambda t: mha(t, bias=False),
    "mha_kdim_vdim_batch_first": lambda t: mha(t, q=(2, 4), kv=(2, 5), kdim=3, vdim=4,
                                               batch_first=True),
    "mha_bias_kv_zero_attn_masks": lambda t: mha(
        t, add_bias_kv=True, add_zero_attn=True,
        call=lambda t: {"attn_mask": causal(t), "key_padding_mask": padding(t)}),
    "mha_float_attn_mask": lambda t: mha(t, call=lambda t: {"attn_mask": causal(t, dtype="float")}),
    "mha_3d_attn_mask": lambda t: mha(t, call=lambda t: {
        "attn_mask": causal(t).unsqueeze(0).repeat(4, 1, 1)}),
    "mha_3d_attn_mask_bad": lambda t: mha(t, call=lambda t: {
        "attn_mask": causal(t).unsqueeze(0).repeat(3, 1, 1)}),
    "mha_2d_attn_mask_bad": lambda t: mha(t, call=lambda t: {"attn_mask": causal(t, 5, 5)}),
    "mha_4d_attn_mask": lambda t: mha(t, call=lambda t: {"attn_mask": causal(t)[None, None]}),
    "mha_int_attn_mask": lambda t: mha(t, call=lambda t: {"attn_mask": causal(t, dtype="int64")}),
    "mha_uint8_attn_mask": lambda t: mha(t, call=lambda t: {"attn_mask": causal(t,
                                                                                dtype="uint8")}),
    "mha_float_padding_mask": lambda t: mha(t, call=lambda t: {
        "key_padding_mask": padding(t, "float")}),
    "mha_int_padding_mask": lambda t: mha(t, call=lambda t: {
        "key_padding_mask": padding(t, "int32")}),
    "mha_padding_mask_bad_shape": lambda t: mha(t, call=lambda t: {
        "key_padding_mask": padding(t, length=4)}),
    "mha_mismatched_mask_types_warn": lambda t: warned(t, lambda t: mha(t, call=lambda t: {
        "key_padding_mask": padding(t, "float"), "attn_mask": causal(t)})),
    "mha_is_causal_without_mask": lambda t: mha(t, call=lambda t: {"is_causal": True}),
    "mha_weights_per_head_training": lambda t: mha(
        t, train=True, call=lambda t: {"average_attn_weights": False,
                                       "attn_mask": causal(t, dtype="float")}),
    "mha_no_weights_padding": lambda t: mha(t, call=lambda t: {
        "need_weights": False, "key_padding_mask": padding(t)}),
    "mha_unbatched_padding": lambda t: mha(t, q=(4,), kv=(5,), call=lambda t: {
        "key_padding_mask": padding(t)[1]}),
    "mha_unbatched_3d_mask": lambda t: mha(t, q=(4,), kv=(5,), call=lambda t: {
        "attn_mask": causal(t).unsqueeze(0).repeat(2, 1, 1)}),
    "mha_unbatched_padding_2d": lambda t: mha(t, q=(4,), kv=(5,), call=lambda t: {
        "key_padding_mask": padding(t)}),
    "mha_query_key_rank_mismatch": lambda t: mha(t, q=(4,), kv=(5, 2)),
    "mha_key_value_mismatch": lambda t: t.nn.MultiheadAttention(6, 2)(
        t.ones(4, 2, 6), t.ones(5, 2, 6), t.ones(3, 2, 6)),
    "mha_embed_mismatch": lambda t: t.nn.MultiheadAttention(6, 2)(
        t.ones(4, 2, 5), t.ones(5, 2, 6), t.ones(5, 2, 6)),
    "mha_heads_do_not_divide": lambda t: t.nn.MultiheadAttention(6, 4),
    "mha_zero_heads": lambda t: t.nn.MultiheadAttention(6, 0),
    "mha_repr_and_params": lambda t: (repr(t.nn.MultiheadAttention(6, 2, kdim=3, vdim=4,
                                                                   add_bias_kv=True)),
                                      [n for n, _ in t.nn.MultiheadAttention(
                                          6, 2, kdim=3, vdim=4).named_parameters()]),
    "encoder_norm_first_gelu_string": lambda t: encoder_layer(t, norm_first=True,
                                                              activation="gelu"),
    "encoder_callable_activation": lambda t: encoder_layer(
        t, activation=t.nn.functional.gelu, batch_first=True),
    "encoder_module_activation": lambda t: encoder_layer(t, activation=t.nn.Tanh()),
    "encoder_bad_activation": lambda t: encoder_layer(t, activation="tanh"),
    "encoder_float_masks": lambda t: encoder_layer(t, masks=lambda t: {
        "src_mask": causal(t, 4, 4, "float"), "src_key_padding_mask": padding(t, "float",
                                                                              length=4)}),
    "encoder_is_causal": lambda t: encoder_layer(t, masks=lambda t: {
        "src_mask": t.nn.Transformer.generate_square_subsequent_mask(4), "is_causal": True}),
    "encoder_train_no_dropout": lambda t: encoder_layer(t, train=True, masks=lambda t: {
        "src_key_padding_mask": padding(t, length=4)}),
    "decoder_norm_first_masks": lambda t: decoder_layer(t, norm_first=True, masks=lambda t: {
        "tgt_mask": causal(t, 4, 4), "memory_mask": causal(t, 4, 5),
        "tgt_key_padding_mask": padding(t, length=4), "memory_key_padding_mask": padding(t)}),
    "decoder_causal_flags": lambda t: decoder_layer(t, masks=lambda t: {
        "tgt_mask": t.nn.Transformer.generate_square_subsequent_mask(4), "tgt_is_causal": True}),
    "decoder_callable_relu": lambda t: decoder_layer(t, activation=t.nn.functional.relu,
                                                     bias=False),
    "encoder_stack_norm_masks": lambda t: encoder_stack(t, norm=True, masks=lambda t: {
        "mask": causal(t, 4, 4), "src_key_padding_mask": padding(t, length=4)}),
    "encoder_stack_norm_first": lambda t: encoder_stack(t, norm_first=True),
    "transformer_masks": lambda t: transformer(t, masks=lambda t: {
        "tgt_mask": t.nn.Transformer.generate_square_subsequent_mask(4),
        "src_key_padding_mask": padding(t), "memory_key_padding_mask": padding(t)}),
    "transformer_batch_first_norm_first": lambda t: transformer(
        t, src=(2, 5, 8), tgt=(2, 4, 8), batch_first=True, norm_first=True),
    "transformer_batch_mismatch": lambda t: transformer(t, tgt=(4, 3, 8)),
    "transformer_feature_mismatch": lambda t: transformer(t, tgt=(4, 2, 6)),
    "transformer_unbatched_mismatch": lambda t: transformer(t, tgt=(4, 8)),
    "square_mask_double": lambda t: t.nn.Transformer.generate_square_subsequent_mask(
        3, dtype=t.float64),
    "square_mask_zero": lambda t: t.nn.Transformer.generate_square_subsequent_mask(0),
    "encoder_layer_repr": lambda t: repr(t.nn.TransformerEncoderLayer(8, 2, 16,
                                                                      activation="gelu")),
    "decoder_layer_heads_bad": lambda t: t.nn.TransformerDecoderLayer(8, 3),
}


@pytest.mark.parametrize("name", SCENARIOS)
def test_sequence_model_scenarios_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_outcome(SCENARIOS[name], rtol=2e-5, atol=2e-5)
