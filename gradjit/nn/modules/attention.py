"""nn.MultiheadAttention with PyTorch's parameter layout (a packed in_proj_weight, or separate
q/k/v weights when kdim/vdim differ) and initialization; the math is in
nn.functional.attention."""
from __future__ import annotations

import gradjit
from gradjit.nn import init
from gradjit.nn.functional import attention as A
from gradjit.nn.modules.linear import Linear
from gradjit.nn.modules.module import Module
from gradjit.nn.parameter import Parameter


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear under the name PyTorch gives MultiheadAttention's output projection (printed
    in its repr)."""


class MultiheadAttention(Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim="
                             f"{embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        like = dict(device=device, dtype=dtype)
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.batch_first, self.add_zero_attn = batch_first, add_zero_attn
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        separate = not self._qkv_same_embed_dim
        self.in_proj_weight = None if separate else \
            Parameter(gradjit.empty(3 * embed_dim, embed_dim, **like))
        for name, size in (("q", embed_dim), ("k", self.kdim), ("v", self.vdim)):
            setattr(self, f"{name}_proj_weight",
                    Parameter(gradjit.empty(embed_dim, size, **like)) if separate else None)
        self.in_proj_bias = Parameter(gradjit.empty(3 * embed_dim, **like)) if bias else None
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **like)
        self.bias_k = Parameter(gradjit.empty(1, 1, embed_dim, **like)) if add_bias_kv \
            else None
        self.bias_v = Parameter(gradjit.empty(1, 1, embed_dim, **like)) if add_bias_kv \
            else None
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for weight in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        if self.batch_first and query.dim() == 3:
            # One transpose for inputs that are the same tensor, as self-attention passes.
            moved = {}
            query, key, value = (moved.setdefault(id(x), x.transpose(1, 0))
                                 for x in (query, key, value))
        out, weights = A.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal)
        if self.batch_first and query.dim() == 3:
            out = out.transpose(1, 0)
        return out, weights
