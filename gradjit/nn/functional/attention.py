"""Scaled dot-product attention and PyTorch's multi-head attention forward (packed or separate
projections, bias_k/bias_v, zero attention, key padding and attention masks), written with
Tensor operations."""
from __future__ import annotations

import math
import warnings

import gradjit
from gradjit.nn.functional.activation import dropout, linear

_NEG_INF = float("-inf")
# The C++ type names PyTorch's attention kernels print for a dtype.
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
              "int16": "short int", "int8": "signed char", "uint8": "unsigned char"}


def _cpp_name(dtype):
    name = str(dtype).removeprefix("torch.")
    return _CPP_NAMES.get(name, name)


def _safe_softmax(scores):
    """softmax over the last dim, with rows masked everywhere giving 0 (as PyTorch's attention
    does) instead of NaN; those rows are zeroed before the softmax, so no NaN reaches the
    gradient either."""
    empty = scores.amax(-1, keepdim=True) == _NEG_INF
    weights = gradjit.where(empty, 0.0, scores).softmax(-1)
    return gradjit.where(empty, 0.0, weights)


def _check_nested_attention(query, key, value, is_causal):
    """Refuse nested inputs as PyTorch's CPU kernels do: strided ones must be contiguous, and
    no kernel takes a causal mask over nested ones."""
    if query.layout is gradjit.jagged:
        if is_causal:
            raise RuntimeError("No viable backend for scaled_dot_product_attention was found.")
        return
    if is_causal:
        raise RuntimeError("_scaled_dot_product_attention: Nested tensors for query / key are "
                           "not supported when is_causal=True")
    if not all(t.is_contiguous() for t in (query, key, value)):
        raise RuntimeError("scaled_dot_product_attention: If inputs are nested tensors they "
                           "must be contiguous")


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """softmax(q k^T * scale + mask) v over (..., L, E) queries and (..., S, E) keys. A bool
    mask keeps where True; a float mask is added; is_causal keeps the lower triangle.
    enable_gqa repeats key/value heads (dim -3) to the queries' count."""
    if query.is_nested:  # each batch element attends over its own length
        _check_nested_attention(query, key, value, is_causal)
        return query._map(lambda q, k, v: scaled_dot_product_attention(
            q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa), key, value)
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    if attn_mask is not None and attn_mask.dtype is not gradjit.bool and \
            not attn_mask.is_floating_point():
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query "
                           f"dtype, but got attn_mask.dtype: {_cpp_name(attn_mask.dtype)} and  "
                           f"query.dtype: {_cpp_name(query.dtype)} instead.")
    if enable_gqa and key.shape[-3] != query.shape[-3]:
        repeats = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(repeats, -3)
        value = value.repeat_interleave(repeats, -3)
    length, source = query.shape[-2], key.shape[-2]
    scale = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = query.matmul(key.transpose(-2, -1)) * scale
    if is_causal:
        attn_mask = gradjit.ones(length, source, dtype=gradjit.bool).tril(0)
    if attn_mask is not None:
        scores = scores.masked_fill(attn_mask.logical_not(), _NEG_INF) \
            if attn_mask.dtype is gradjit.bool else scores + attn_mask
    weights = _safe_softmax(scores)
    if dropout_p > 0:
        weights = dropout(weights, dropout_p, training=True)
    return weights.matmul(value)


def canonical_mask(mask, name, dtype, other=None, other_name=""):
    """PyTorch's canonical mask: bool masks become -inf where True (masked out), 0 elsewhere;
    float masks are added as they are. A mask of another type than `other` (the mask it will
    be added to) gets PyTorch's deprecation warning."""
    if mask is None:
        return None
    if mask.dtype is not gradjit.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other is not None and mask.dtype != other.dtype:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same "
                      "type for both instead.", UserWarning, stacklevel=3)
    if mask.dtype is gradjit.bool:
        return gradjit.zeros(mask.shape, dtype=dtype).masked_fill(mask, _NEG_INF)
    return mask


def _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the call is batched; PyTorch's checks of the inputs' dims."""
    if query.dim() not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.dim()}-D query tensor")
    batched = query.dim() == 3
    kind, dims = ("batched (3-D)", 3) if batched else ("unbatched (2-D)", 2)
    if key.dim() != dims or value.dim() != dims:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {dims}-D but "
                             f"found {key.dim()}-D and {value.dim()}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.dim() != dims - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
                             f"{dims - 1}-D but found {key_padding_mask.dim()}-D tensor instead")
    if attn_mask is not None and attn_mask.dim() not in (2, 3):
        raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                             f" but found {attn_mask.dim()}-D tensor instead")
    if not batched and attn_mask is not None and attn_mask.dim() == 3:
        expected = (num_heads, query.shape[0], key.shape[0])
        if tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{attn_mask.shape}")
    return batched


def _check_projection_args(key, value, embed_dim, embed_dim_to_check, num_heads, separate):
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    if embed_dim // num_heads * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if separate and tuple(key.shape[:2]) != tuple(value.shape[:2]):
        raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                             f"value's {value.shape[:2]}")
    if not separate and tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")


def _project(query, key, value, in_proj_weight, in_proj_bias, separate):
    """q, k, v from the packed (3E, E) weight or the three separate ones."""
    weights = in_proj_weight.chunk(3) if separate is None else separate
    biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
    if separate is not None:
        embed = query.shape[-1]
        for name, x, w in zip(("query", "key", "value"), (query, key, value), weights):
            if tuple(w.shape) != (embed, x.shape[-1]):
                raise AssertionError(f"expecting {name} weights shape of "
                                     f"{(embed, x.shape[-1])}, but got {w.shape}")
    return tuple(linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def _check_attn_mask(attn_mask, target, source, heads):
    """A 2-D (L, S) mask or a 3-D (N * heads, L, S) one, as (1 or N * heads, L, S)."""
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (target, source):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                               f"{(target, source)}.")
        return attn_mask.unsqueeze(0)
    if tuple(attn_mask.shape) != (heads, target, source):
        raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                           f"{(heads, target, source)}.")
    return attn_mask


def _append_bias_kv(k, v, bias_k, bias_v, static_k, static_v, attn_mask, key_padding_mask):
    """One more key and value, learned, for every batch entry; the masks grow to match."""
    if (bias_k is None) != (bias_v is None):
        set_, unset = ("bias_k", "bias_v") if bias_v is None else ("bias_v", "bias_k")
        raise AssertionError(f"{set_} is set but {unset} is None")
    if bias_k is None:
        return k, v, attn_mask, key_padding_mask
    if static_k is not None or static_v is not None:
        raise AssertionError("bias cannot be added to static "
                             f"{'key' if static_k is not None else 'value'}.")
    k = gradjit.cat([k, bias_k.repeat(1, k.shape[1], 1)])
    v = gradjit.cat([v, bias_v.repeat(1, v.shape[1], 1)])
    return (k, v, *_extend([attn_mask, key_padding_mask]))


def _static(given, name, heads, head_dim):
    """Keys or values given already split into heads (N * heads, S, head_dim)."""
    if given.shape[0] != heads:
        raise AssertionError(f"expecting {name}.size(0) of {heads}, but got {given.shape[0]}")
    if given.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {given.shape[2]}")
    return given


def _extend(masks, amount=1):
    """Pad each mask's key dim for the keys appended by bias_k/bias_v or add_zero_attn."""
    return [None if m is None else gradjit.nn.functional.pad(m, (0, amount)) for m in masks]


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """PyTorch's multi-head attention over time-major (L, N, E) inputs (or unbatched (L, E)).
    Returns the output and, if need_weights, the attention weights averaged over heads
    (N, L, S) or per head (N, heads, L, S)."""
    batched = _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    target, batch, embed_dim = query.shape
    key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", query.dtype,
                                      attn_mask, "attn_mask")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    attn_mask = canonical_mask(attn_mask, "attn_mask", query.dtype)
    _check_projection_args(key, value, embed_dim, embed_dim_to_check, num_heads,
                           use_separate_proj_weight)
    head_dim, heads = embed_dim // num_heads, batch * num_heads
    separate = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight \
        else None
    q, k, v = _project(query, key, value, in_proj_weight, in_proj_bias, separate)
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, target, key.shape[0], heads)
    k, v, attn_mask, key_padding_mask = _append_bias_kv(k, v, bias_k, bias_v, static_k,
                                                        static_v, attn_mask, key_padding_mask)

    def split_heads(x):  # (S, N, E) -> (N * heads, S, head_dim)
        return x.reshape(x.shape[0], heads, head_dim).transpose(0, 1)
    q = split_heads(q)
    k = split_heads(k) if static_k is None else _static(static_k, "static_k", heads, head_dim)
    v = split_heads(v) if static_v is None else _static(static_v, "static_v", heads, head_dim)
    if add_zero_attn:
        k = gradjit.cat([k, gradjit.zeros(heads, 1, head_dim, dtype=k.dtype)], 1)
        v = gradjit.cat([v, gradjit.zeros(heads, 1, head_dim, dtype=v.dtype)], 1)
        attn_mask, key_padding_mask = _extend([attn_mask, key_padding_mask])
    source = k.shape[1]
    if key_padding_mask is not None:
        for dim, size in enumerate((batch, source)):
            if key_padding_mask.shape[dim] != size:
                raise AssertionError(f"Expected key_padded_mask.shape[{dim}] to be {size}, but "
                                     f"got {key_padding_mask.shape[dim]}")
        padding = key_padding_mask.reshape(batch, 1, 1, source).expand(
            batch, num_heads, 1, source).reshape(heads, 1, source)
        attn_mask = padding if attn_mask is None else attn_mask + padding
    scaled, keys = q * math.sqrt(1.0 / head_dim), k.transpose(-2, -1)
    # PyTorch computes the weights it returns with bmm (baddbmm onto the mask) and a plain
    # softmax (a row with every key masked is NaN), and otherwise calls its attention kernel
    # (such a row gives zeros).
    if need_weights:
        scores = scaled.bmm(keys) if attn_mask is None else gradjit.baddbmm(attn_mask, scaled,
                                                                             keys)
        weights = scores.softmax(-1)
    else:
        scores = scaled.matmul(keys)
        weights = _safe_softmax(scores if attn_mask is None else scores + attn_mask)
    if training and dropout_p > 0:
        weights = dropout(weights, dropout_p, training=True)
    out = (weights.bmm(v) if need_weights else weights.matmul(v)).transpose(0, 1)
    out = out.reshape(target * batch, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(target, batch, -1)
    if not need_weights:
        return (out if batched else out.squeeze(1)), None
    weights = weights.reshape(batch, num_heads, target, source)
    if average_attn_weights:
        weights = weights.mean(1)
    return (out, weights) if batched else (out.squeeze(1), weights.squeeze(0))
